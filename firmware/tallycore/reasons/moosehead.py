# STAND-IN (wt34a-branch's replaces it)
REASONS = ((b"SK9", b"the hand's score"),)
