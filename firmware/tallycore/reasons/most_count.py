# The reasons of Numero's and Quatro's scores (tallycore/most_count.py's _R_*
# codes key this table; docs/rules.md NU, QU and G6): a counted hand's
# three (tallycore.points _WHY_*), Numero's, a Numero hand nobody wins, then
# Quatro's three and the tricks Quatro adds up.
REASONS = (
    (0, b"NU2", b"his cards at the end: counted when every player's count is in"),
    (1, b"NU2", b"most cards at the end, alone or tied: he wins the hand, and a hand won counts 1"),
    (2, b"NU2", b"fewer cards than the most at the end: he does not win the hand"),
    (3, b"G6", b"nobody had a card at the end: the hand has no winner"),
    (4, b"QU2", b"his tricks: counted when every player's count is in"),
    (5, b"QU3", b"most tricks, alone or tied: he wins the hand, and with hands_won a hand won counts 1"),
    (6, b"QU3", b"fewer tricks than the most: with hands_won, he does not win the hand"),
    (7, b"QU3", b"his tricks of the hand, added to his total"),
)
