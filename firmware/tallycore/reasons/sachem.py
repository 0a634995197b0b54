# The reasons of Sachem's scores (tallycore/sachem.py's _R_* codes key this
# table; docs/rules.md SA): a scoring card's capture, then its points going
# to nobody (SA2's Reading).
REASONS = (
    (0, b"SA2", b"captured the first trump played: 3"),
    (1, b"SA2", b"captured the last trump played: 3"),
    (2, b"SA2", b"captured the nine of trumps: 9"),
    (3, b"SA2", b"captured most sevens and eights, Sachem: 7"),
    (4, b"SA2", b"no trump was played: the first trump's 3 go to nobody"),
    (5, b"SA2", b"no trump was played: the last trump's 3 go to nobody"),
    (6, b"SA2", b"nobody captured the nine of trumps (not in play): its 9 go to nobody"),
    (7, b"SA2", b"nobody captured most sevens and eights (none, or a tie): Sachem's 7 go to nobody"),
)
