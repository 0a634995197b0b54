# The reasons of Jaimy's scores (tallycore/jaimy.py's _R_* codes key this
# table; docs/rules.md JA).
REASONS = (
    (0, b"JA2", b"nobody claimed three tricks or took all five: nobody scores"),
    (1, b"JA2", b"won three tricks and stopped the play to claim them: 3"),
    (2, b"JA2", b"took all five tricks: 7"),
    (3, b"JA3", b"partner of the player who claimed three tricks: a side's points go to each of its players"),
    (4, b"JA3", b"partner of the player who took all five tricks: a side's points go to each of its players"),
)
