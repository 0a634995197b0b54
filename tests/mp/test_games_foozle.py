# Foozle, GAMES.md "Rummy and the short games" (seed 002 "FOOZLE"), by hand.
from tallycore import foozle as fz
from shortgames import allocates_nothing, play, refused, refused_new, totals, winners


def test_made_scores_the_bid_for_each_opponent_and_no_overtricks():
    # The text: "if he bid three, and had three opponents, he scores nine";
    # player 2 bids 3 and takes 4: 3 * 3 = 9, nothing for the extra trick.
    g = play(fz, 4, [fz.pack_hand(2, 3, 4)])
    assert totals(g) == [0, 0, 9, 0]
    # Exactly the bid: bid 5 of 5 with two opponents: 5 * 2 = 10.
    g = play(fz, 3, [fz.pack_hand(0, 5, 5)])
    assert totals(g) == [10, 0, 0]


def test_failed_each_opponent_scores_the_bid():
    # The text: "if he bid four and won three or less, each of the other
    # players scores four points".
    g = play(fz, 4, [fz.pack_hand(1, 4, 3)])
    assert totals(g) == [4, 0, 4, 4]


def test_first_to_fifty():
    # Player 0 makes 5 with 3 opponents (15) three times: 45; then player 1
    # fails a bid of 5: everyone else +5, player 0 reaches 50 and wins;
    # players 2 and 3 have 5 each.
    events = [fz.pack_hand(0, 5, 5)] * 3
    g = play(fz, 4, events)
    assert totals(g) == [45, 0, 0, 0]
    assert not g.complete()
    g.apply(fz.pack_hand(1, 5, 2))
    assert totals(g) == [50, 0, 5, 5]
    assert g.complete()
    assert winners(g) == [0]
    refused(g, fz.pack_hand(0, 1, 1), "hand")


def test_two_reaching_fifty_on_one_hand_tie_on_equal_totals():
    # Players 1 and 2 have 48 each (made bids of 4 with 3 opponents: 12, four
    # times each); player 0 fails a bid of 2: 48 + 2 = 50 for players 1, 2, 3 gets 2.
    events = [fz.pack_hand(1, 4, 4)] * 4 + [fz.pack_hand(2, 4, 4)] * 4
    g = play(fz, 4, events)
    assert totals(g) == [0, 48, 48, 0]
    g.apply(fz.pack_hand(0, 2, 0))
    assert totals(g) == [0, 50, 50, 2]
    assert g.complete()
    assert winners(g) == [1, 2]


def test_impossible_hands_are_refused():
    g = play(fz, 4, [])
    refused(g, 2 | 6 << 3 | 5 << 6, "bid")      # a bid of 6
    refused(g, 2 | 0 << 3 | 0 << 6, "bid")      # a bid of 0
    refused(g, 2 | 3 << 3 | 6 << 6, "tricks")   # six tricks of five
    refused(g, 4 | 3 << 3 | 3 << 6, "bidder")   # player 4 of 0..3
    refused_new(fz, 1, 0, "players")
    refused_new(fz, 9, 0, "players")


def test_scoring_allocates_nothing():
    assert allocates_nothing(fz, 4, [fz.pack_hand(2, 3, 4), fz.pack_hand(1, 4, 3)])
