# The reasons of Moosehead's scores (tallycore/moosehead.py's _R_* codes key
# this table; docs/rules.md MH).
REASONS = (
    (0, b"MH3", b"a card played to the running count: no 15, 20, 25 or 30, nothing scored"),
    (1, b"MH3", b"brought the running count to 15: 2"),
    (2, b"MH3", b"brought the running count to 20: 2"),
    (3, b"MH3", b"brought the running count to 25: 2"),
    (4, b"MH3", b"brought the running count to 30: 2, and the round ends"),
    (5, b"MH4", b"a go: the player of the last card scores 1"),
    (6, b"MH5", b"2 for each combination of his five cards that adds up to 15"),
    (7, b"MH6", b"50 reached at the end of a hand: the game is over, the highest total wins"),
)
