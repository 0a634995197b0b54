# Coronado, GAMES.md "Rummy and the short games" (seed 002 "CORONADO" 4-9),
# worked by hand. Two players; the dealer alternates, player 0 first, so in
# hand h (1-based) the dealer is (h - 1) % 2 and the opponent the other.
from tallycore import coronado as co
from shortgames import allocates_nothing, play, refused, refused_new, totals, winners

STAND, REFUSED, DREW = co.STAND, co.REFUSED, co.DREW


def score(mode, tricks, dealer=0):
    """[player 0, player 1] for one hand dealt by dealer."""
    events = [co.pack_hand(DREW, 3)] if dealer else []  # hand 1 (dealer 0): player 1 +1
    g = play(co, 2, events + [co.pack_hand(mode, tricks)])
    out = totals(g)
    if dealer:
        out[1] -= 1
    return out


def test_standing_opponent():
    # Paragraph 4: he stands and takes 3 (or 4): 1 point; all 5: 2; fewer
    # than 3: the dealer (player 0) scores 2.
    assert score(STAND, 3) == [0, 1]
    assert score(STAND, 4) == [0, 1]
    assert score(STAND, 5) == [0, 2]
    assert score(STAND, 2) == [2, 0]
    assert score(STAND, 0) == [2, 0]


def test_dealer_refused_cards():
    # Paragraph 5: the dealer must then take 3 tricks or the opponent scores 2.
    assert score(REFUSED, 3) == [0, 2]    # dealer took 5 - 3 = 2
    assert score(REFUSED, 5) == [0, 2]    # still 2, not more
    # The dealer took 3 or 4 (5 - 2, 5 - 1): 1 point; all 5 (5 - 0): 2.
    assert score(REFUSED, 2) == [1, 0]
    assert score(REFUSED, 1) == [1, 0]
    assert score(REFUSED, 0) == [2, 0]


def test_cards_drawn():
    # Paragraph 9: whoever takes 3 of the 5 tricks scores 1, all 5 score 2.
    assert score(DREW, 3) == [0, 1]
    assert score(DREW, 5) == [0, 2]
    assert score(DREW, 2) == [1, 0]       # dealer 3 tricks
    assert score(DREW, 0) == [2, 0]       # dealer all 5


def test_the_deal_alternates():
    # Hand 2 is dealt by player 1: the standing opponent is player 0.
    assert score(STAND, 3, dealer=1) == [1, 0]
    assert score(STAND, 1, dealer=1) == [0, 2]
    # Option first_dealer 1: hand 1 is dealt by player 1.
    g = play(co, 2, [co.pack_hand(STAND, 4)], options=1)
    assert totals(g) == [1, 0]


def test_first_to_seven():
    # Hand 1 (dealer 0): player 1 stands, takes all 5: player 1 +2.
    # Hand 2 (dealer 1): player 0 stands, takes none: the dealer, player 1, +2.
    # Hand 3 (dealer 0): as hand 1: player 1 +2 -> 6.
    # Hand 4 (dealer 1): player 0 drew and took 4: player 0 +1.
    events = [co.pack_hand(STAND, 5), co.pack_hand(STAND, 0), co.pack_hand(STAND, 5),
              co.pack_hand(DREW, 4)]
    g = play(co, 2, events)
    assert totals(g) == [1, 6]
    assert not g.complete()
    # Hand 5 (dealer 0): player 1 draws and takes 3: 6 + 1 = 7, he wins.
    g.apply(co.pack_hand(DREW, 3))
    assert totals(g) == [1, 7]
    assert g.complete()
    assert winners(g) == [1]
    refused(g, co.pack_hand(DREW, 3), "hand")


def test_impossible_hands_are_refused():
    g = play(co, 2, [])
    refused(g, 3, "mode")             # mode 3 does not exist
    refused(g, STAND | 6 << 2, "tricks")
    refused_new(co, 3, 0, "players")


def test_scoring_allocates_nothing():
    events = [co.pack_hand(STAND, 0), co.pack_hand(REFUSED, 3), co.pack_hand(DREW, 5)]
    assert allocates_nothing(co, 2, events)
