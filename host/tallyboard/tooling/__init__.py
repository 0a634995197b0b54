"""tallyboard.tooling."""
