# Jaimy, GAMES.md "Rummy and the short games" (seed 002 "JAIMY"), by hand.
from tallycore import jaimy as jm
from shortgames import allocates_nothing, play, refused, refused_new, totals, winners

CLAIMED, ALL, NOBODY = jm.CLAIMED, jm.ALL, jm.NOBODY_SCORED


def test_three_tricks_claimed_count_three_all_five_seven():
    g = play(jm, 3, [jm.pack_hand(CLAIMED, 1), jm.pack_hand(ALL, 2), jm.pack_hand(NOBODY)])
    assert totals(g) == [0, 3, 7]    # play continued and nobody took all five: nothing


def test_first_to_21():
    # Player 0 takes all five three times: 7 * 3 = 21.
    g = play(jm, 3, [jm.pack_hand(ALL, 0)] * 2)
    assert totals(g) == [14, 0, 0]
    assert not g.complete()
    g.apply(jm.pack_hand(ALL, 0))
    assert totals(g) == [21, 0, 0]
    assert g.complete()
    assert winners(g) == [0]
    refused(g, jm.pack_hand(NOBODY), "hand")


def test_partners_with_four_or_six_players_share_the_side_score():
    # Four players, sides 0 & 2 and 1 & 3: player 1 claims 3 for his side.
    g = play(jm, 4, [jm.pack_hand(CLAIMED, 1)], jm.OPT_PARTNERS)
    assert totals(g) == [0, 3, 0, 3]
    # Six players, sides 0, 2, 4 and 1, 3, 5: player 4 takes all five: 7.
    g = play(jm, 6, [jm.pack_hand(ALL, 4)] * 3, jm.OPT_PARTNERS)
    assert totals(g) == [21, 0, 21, 0, 21, 0]
    assert winners(g) == [0, 2, 4]
    refused_new(jm, 5, jm.OPT_PARTNERS, "partners")
    refused_new(jm, 3, jm.OPT_PARTNERS, "partners")


def test_impossible_hands_are_refused():
    g = play(jm, 3, [])
    refused(g, jm.pack_hand(CLAIMED, 3), "claimed")   # player 3 of 0..2
    refused(g, jm.pack_hand(ALL, 5), "all")
    refused(g, 3, "event")                             # kind 3
    refused_new(jm, 1, 0, "players")
    refused_new(jm, 9, 0, "players")


def test_scoring_allocates_nothing():
    events = [jm.pack_hand(CLAIMED, 1), jm.pack_hand(ALL, 2), jm.pack_hand(NOBODY)]
    assert allocates_nothing(jm, 4, events, jm.OPT_PARTNERS)
