# The reasons of the Despised Nines' scores (tallycore/despised_nines.py's
# _R_* codes key this table; docs/rules.md DN).
REASONS = (
    (0, b"DN2", b"each nine he took counts 4 points against him"),
    (1, b"DN2", b"took no nine: nothing against him"),
)
