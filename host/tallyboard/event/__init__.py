"""The club evening (tallyboard event): its record, store, director, boards
and live views. Part E1 fills this in with EventStore and snapshot()."""
