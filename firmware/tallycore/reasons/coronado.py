# The reasons of Coronado's scores (tallycore/coronado.py's _R_* codes key
# this table; docs/rules.md CO).
REASONS = (
    (0, b"CO2", b"stood (asked for no cards) and took three or four tricks: 1"),
    (1, b"CO2", b"stood (asked for no cards) and took all five tricks: 2"),
    (2, b"CO2", b"the dealer, whose opponent stood and took fewer than three tricks: 2"),
    (3, b"CO2", b"stood and took fewer than three tricks: he scores nothing"),
    (4, b"CO3", b"the dealer refused him cards and did not take three tricks: 2"),
    (5, b"CO3", b"the dealer refused cards and did not take three tricks: he scores nothing"),
    (6, b"CO3", b"the dealer refused cards and took three or four tricks: 1"),
    (7, b"CO3", b"the dealer refused cards and took all five tricks: 2"),
    (8, b"CO4", b"cards drawn: three or four of the five tricks count 1 to whoever takes them"),
    (9, b"CO4", b"cards drawn: all five tricks count 2 to whoever takes them"),
)
