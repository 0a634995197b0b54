# The reasons of Bishops Whist's scores (tallycore/bishops_whist.py's _R_*
# codes key this table; docs/rules.md BW).
REASONS = (
    (0, b"BW3", b"a misdeal: it scores nothing, and the deal passes to the left"),
    (1, b"BW4", b"the side scores 1 for each trick over six"),
    (2, b"BW4", b"2 for each bishop among the side's tricks"),
    (3, b"BW4", b"a bishop turned as the trump card: 1 to the dealer's side"),
    (4, b"BW5", b"an exposed card costs the side 2, each time"),
    (5, b"BW5", b"a revoke costs the side 4, each time"),
    (6, b"BW5", b"25 or more, but the side revoked in this hand: it cannot win on it"),
    (7, b"BW6", b"25 or more at the end of the hand, the higher total: the side wins"),
    (8, b"BW6", b"both sides can win on equal totals: another hand is played"),
)
