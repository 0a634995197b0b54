# The reasons of Rummy's and Parquet's scores (tallycore/rummy.py's _R_*
# codes key this table; docs/rules.md RU, and PQ1: Parquet is scored as
# Rummy).
REASONS = (
    (0, b"RU2", b"a card he holds unplayed: it is set down against him when a player goes out"),
    (1, b"RU2", b"went out, the first to play out all his cards: he wins the hand and scores nothing"),
    (2, b"RU2", b"his unplayed cards' total set down against him: ace 1, the pips their number, J 11, Q 12, K 13"),
    (3, b"RU2", b"his unplayed cards' total set down against him: ace 1, the pips their number, J, Q and K 10 each"),
)
