"""A club evening (issue 13): Progressive Skicket across many boards.

This branch holds only the boards' part (tables.py); the event record, the
store (EventStore), the director and snapshot() come with their own part and
this file then exports them."""
