# The reasons of Rummy's and Parquet's scores (tallycore/rummy.py's _R_*
# codes index this table; docs/rules.md RU, and PQ1: Parquet is scored as
# Rummy).
REASONS = (
    (b"RU2", b"a card he holds unplayed: it is set down against him when a player goes out"),
    (b"RU2", b"went out, the first to play out all his cards: he wins the hand and scores nothing"),
    (b"RU2", b"his unplayed cards' total set down against him: ace 1, the pips their number, J 11, Q 12, K 13"),
    (b"RU2", b"his unplayed cards' total set down against him: ace 1, the pips their number, J, Q and K 10 each"),
)
