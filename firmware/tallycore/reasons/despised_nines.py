# The reasons of the Despised Nines' scores (tallycore/despised_nines.py's
# _R_* codes index this table; docs/rules.md DN).
REASONS = (
    (b"DN2", b"each nine he took counts 4 points against him"),
    (b"DN2", b"took no nine: nothing against him"),
)
