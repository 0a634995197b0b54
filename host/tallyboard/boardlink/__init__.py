"""tallyboard.boardlink."""
