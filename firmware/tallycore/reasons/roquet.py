# The reasons of Roquet's scores (tallycore/roquet.py's _R_* codes index this
# table; docs/rules.md RQ).
REASONS = (
    (b"RQ6", b"a count pegged"),
    (b"RQ8", b"the 31st hole reached before the opponent reached the 15th: 9 more"),
    (b"RQ8", b"the 46th hole reached: 10 more"),
    (b"RQ7", b"first to the 15th hole this hand: may take the trump card"),
    (b"RQ3", b"the end of the hand: the count moves up the king row, the tally peg goes back"),
    (b"RQ9", b"100 reached, king total and the hand's count: the game is over"),
    (b"RQ9", b"a king total of 100 or more at the end of a hand: the game is over"),
)
