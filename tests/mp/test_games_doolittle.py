# Doolittle, GAMES.md "Rummy and the short games" (seed 002 "THE GAME OF
# DOOLITTLE" 4-5), by hand: tricks count AGAINST the taker, 5, 5, 10, 10,
# 20, 30 and 10 for any further trick; one deal per player, smallest wins.
from tallycore import doolittle as dl
from shortgames import allocates_nothing, hand_scores, play, refused, refused_new, totals, winners


def test_tricks_by_their_order():
    # RECORDS.md's hand: takers 1, 1, 0, 2, 2, 2.
    # Player 1: tricks 1 and 2: 5 + 5 = 10. Player 0: trick 3: 10.
    # Player 2: tricks 4, 5, 6: 10 + 20 + 30 = 60. (10 + 10 + 60 = 80 a hand.)
    g = play(dl, 3, [1, 1, 0, 2, 2, 2, dl.END])
    assert totals(g) == [10, 10, 60]
    assert hand_scores(g, 0) == [10, 10, 60]


def test_one_deal_per_player_smallest_wins():
    # Hand 2: takers 0, 0, 0, 0, 0, 0: 5 + 5 + 10 + 10 + 20 + 30 = 80 to player 0.
    # Hand 3: takers 2, 1, 1, 1, 1, 1: player 2 5; player 1 5 + 10 + 10 + 20 + 30 = 75.
    # Totals: 0: 10 + 80 = 90; 1: 10 + 75 = 85; 2: 60 + 5 = 65: player 2 wins.
    g = play(dl, 3, [1, 1, 0, 2, 2, 2, dl.END, 0, 0, 0, 0, 0, 0, dl.END, 2, 1, 1, 1, 1, 1, dl.END])
    assert totals(g) == [90, 85, 65]
    assert g.complete()
    assert winners(g) == [2]
    refused(g, 0, "hand")


def test_further_tricks_count_ten_with_a_larger_deal():
    # Option: 8 cards each (3 players: 24 of 52). Tricks 7 and 8: 10 each.
    # Player 0 takes all: 5 + 5 + 10 + 10 + 20 + 30 + 10 + 10 = 100.
    g = play(dl, 3, [0] * 8 + [dl.END], 8 << dl.OPT_CARDS_SHIFT)
    assert totals(g) == [100, 0, 0]
    refused_new(dl, 7, 8 << dl.OPT_CARDS_SHIFT, "cards")   # 7 * 8 = 56 > 52
    refused_new(dl, 3, 5 << dl.OPT_CARDS_SHIFT, "cards")


def test_the_wrong_number_of_tricks_is_refused():
    g = play(dl, 3, [1, 1, 0, 2, 2])
    msg = refused(g, dl.END, "takers")        # five tricks of six
    assert "5 tricks" in msg
    g.apply(2)
    refused(g, 0, "takers")                   # a seventh trick
    refused(g, 3, "takers")                   # player 3 of 0..2
    refused_new(dl, 9, 0, "players")


def test_scoring_allocates_nothing():
    assert allocates_nothing(dl, 3, [1, 1, 0, 2, 2, 2, dl.END, 0, 0])
