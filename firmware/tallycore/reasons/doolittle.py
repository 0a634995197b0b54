# The reasons of Doolittle's scores (tallycore/doolittle.py's _R_* codes index
# this table; docs/rules.md DO): the hand closed, then a trick by its place.
REASONS = (
    (b"DO2", b"the hand is over: each trick was counted against its taker as it was taken"),
    (b"DO2", b"took the first trick: 5 against him"),
    (b"DO2", b"took the second trick: 5 against him"),
    (b"DO2", b"took the third trick: 10 against him"),
    (b"DO2", b"took the fourth trick: 10 against him"),
    (b"DO2", b"took the fifth trick: 20 against him"),
    (b"DO2", b"took the sixth trick: 30 against him"),
    (b"DO2", b"took a trick after the sixth (a deal of more than six cards): 10 against him"),
)
