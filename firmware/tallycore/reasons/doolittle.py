# The reasons of Doolittle's scores (tallycore/doolittle.py's _R_* codes key
# this table; docs/rules.md DO): the hand closed, then a trick by its place.
REASONS = (
    (0, b"DO2", b"the hand is over: each trick was counted against its taker as it was taken"),
    (1, b"DO2", b"took the first trick: 5 against him"),
    (2, b"DO2", b"took the second trick: 5 against him"),
    (3, b"DO2", b"took the third trick: 10 against him"),
    (4, b"DO2", b"took the fourth trick: 10 against him"),
    (5, b"DO2", b"took the fifth trick: 20 against him"),
    (6, b"DO2", b"took the sixth trick: 30 against him"),
    (7, b"DO2", b"took a trick after the sixth (a deal of more than six cards): 10 against him"),
)
