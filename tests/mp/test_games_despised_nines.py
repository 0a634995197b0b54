# The Despised Nines, GAMES.md "Rummy and the short games" (seed 002), by
# hand: each nine taken is 4 points against; one deal per player, lowest wins.
from tallycore import despised_nines as dn
from shortgames import allocates_nothing, play, refused, refused_new, totals, winners


def test_four_points_against_per_nine():
    # RECORDS.md's hand: nines 2, 0, 1, 1: 8, 0, 4, 4.
    g = play(dn, 4, [dn.pack_hand([2, 0, 1, 1])])
    assert totals(g) == [2 * 4, 0, 4, 4]


def test_one_deal_per_player_lowest_wins():
    # Three deals: 0: 4 + 0 + 8 = 12; 1: 8 + 4 + 0 = 12; 2: 0 + 12 + 4 = 16.
    g = play(dn, 3, [dn.pack_hand([1, 2, 0]), dn.pack_hand([0, 1, 3]), dn.pack_hand([2, 0, 1])])
    assert totals(g) == [12, 12, 16]
    assert g.complete()
    assert winners(g) == [0, 1]   # a tie on the lowest total
    refused(g, dn.pack_hand([0, 0, 0]), "hand")


def test_impossible_hands_are_refused():
    g = play(dn, 4, [])
    refused(g, dn.pack_hand([2, 2, 1, 0]), "nines")   # five nines
    # three counts for four players: its players_less_one says 2, not 3 (issue 32, item 11: the field named)
    refused(g, dn.pack_hand([1, 1, 1]), "players_less_one")
    refused_new(dn, 9, 0, "players")


def test_scoring_allocates_nothing():
    assert allocates_nothing(dn, 4, [dn.pack_hand([2, 0, 1, 1]), dn.pack_hand([0, 4, 0, 0])])
