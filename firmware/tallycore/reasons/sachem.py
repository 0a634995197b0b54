# The reasons of Sachem's scores (tallycore/sachem.py's _R_* codes index this
# table; docs/rules.md SA): a scoring card's capture, then its points going
# to nobody (SA2's Reading).
REASONS = (
    (b"SA2", b"captured the first trump played: 3"),
    (b"SA2", b"captured the last trump played: 3"),
    (b"SA2", b"captured the nine of trumps: 9"),
    (b"SA2", b"captured most sevens and eights, Sachem: 7"),
    (b"SA2", b"no trump was played: the first trump's 3 go to nobody"),
    (b"SA2", b"no trump was played: the last trump's 3 go to nobody"),
    (b"SA2", b"nobody captured the nine of trumps (not in play): its 9 go to nobody"),
    (b"SA2", b"nobody captured most sevens and eights (none, or a tie): Sachem's 7 go to nobody"),
)
