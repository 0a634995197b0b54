"""tallyboard.scorebook."""
