"""tallyboard.common."""
