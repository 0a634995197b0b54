# The reasons of Hoodoo's and Ups and Downs' scores (tallycore/first_out.py's
# _R_* codes key this table; docs/rules.md HO, UD and G6, the rule of both).
REASONS = (
    (0, b"G6", b"the first to play out all his cards wins the hand: a hand won counts 1"),
)
