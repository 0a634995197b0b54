# The reasons of Foozle's scores (tallycore/foozle.py's _R_* codes key this
# table; docs/rules.md FO).
REASONS = (
    (0, b"FO3", b"made his bid: the bid once for each opponent, nothing for tricks over it"),
    (1, b"FO4", b"the highest bidder won fewer tricks than he bid: he scores nothing"),
    (2, b"FO4", b"the highest bidder failed: each of the others scores the bid"),
)
