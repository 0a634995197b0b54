# Hoodoo and Ups and Downs (one rule, tallycore/first_out.py): no points,
# the first out wins the hand; the board counts hands won over one deal per
# player (RECORDS.md "The other games": "totals count hands won"; one deal
# per player is the board's reading).
from shortgames import allocates_nothing, play, refused, refused_new, totals, winners


def test_hands_won_over_one_deal_per_player():
    for rules in ("hoodoo", "ups_and_downs"):
        # Three players, three deals: player 1 wins twice, player 0 once.
        g = play(rules, 3, [1, 0])
        assert totals(g) == [1, 1, 0]
        assert not g.complete()
        assert winners(g) == [0, 1]   # tied for the lead
        g.apply(1)
        assert totals(g) == [1, 2, 0]
        assert g.complete()
        assert winners(g) == [1]
        refused(g, 2, "hand")         # every player has dealt


def test_a_tie_in_hands_won_is_reported():
    g = play("ups_and_downs", 2, [0, 1])
    assert g.complete()
    assert winners(g) == [0, 1]


def test_player_counts():
    refused(play("hoodoo", 4, []), 4, "winner")   # player 4 of 0..3
    refused_new("hoodoo", 1, 0, "players")
    refused_new("hoodoo", 7, 0, "players")        # the text: two to six (8 cards each)
    refused_new("ups_and_downs", 9, 0, "players")
    play("ups_and_downs", 8, [7])


def test_scoring_allocates_nothing():
    assert allocates_nothing("hoodoo", 6, [5, 0, 3])
    assert allocates_nothing("ups_and_downs", 8, [7, 1])
