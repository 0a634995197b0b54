# The reasons of Roquet's scores (tallycore/roquet.py's _R_* codes key this
# table; docs/rules.md RQ).
REASONS = (
    (0, b"RQ6", b"a count pegged"),
    (1, b"RQ8", b"the 31st hole reached before the opponent reached the 15th: 9 more"),
    (2, b"RQ8", b"the 46th hole reached: 10 more"),
    (3, b"RQ7", b"first to the 15th hole this hand: may take the trump card"),
    (4, b"RQ3", b"the end of the hand: the count moves up the king row, the tally peg goes back"),
    (5, b"RQ9", b"100 reached, king total and the hand's count: the game is over"),
    (6, b"RQ9", b"a king total of 100 or more at the end of a hand: the game is over"),
)
