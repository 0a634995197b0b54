# Sachem, GAMES.md "Rummy and the short games" (seed 002 "SACHEM" 5-6), by hand.
from tallycore import sachem as sa
from shortgames import allocates_nothing, play, refused, refused_new, totals, winners


def test_points_to_the_capturer():
    # First trump 3 and Sachem 7 to player 0: 10; nine of trumps 9 to player 1;
    # last trump 3 to player 2.
    g = play(sa, 3, [sa.pack_hand(0, 2, 1, 0)])
    assert totals(g) == [3 + 7, 9, 3]


def test_nobody_captures_the_nine_or_has_sachem():
    g = play(sa, 3, [sa.pack_hand(1, 1, None, None)])
    assert totals(g) == [0, 3 + 3, 0]
    g = play(sa, 2, [sa.pack_hand(None, None, None, 1)])   # no trump played at all
    assert totals(g) == [0, 7]


def test_first_to_fifty():
    # Player 2 captures everything: 3 + 3 + 9 + 7 = 22 a hand; 22 * 2 = 44, then
    # 44 + 9 (the nine) = 53 >= 50 while player 0 has 3 + 3 + 7 = 13.
    g = play(sa, 3, [sa.pack_hand(2, 2, 2, 2)] * 2)
    assert totals(g) == [0, 0, 44]
    g.apply(sa.pack_hand(0, 0, 2, 0))
    assert totals(g) == [13, 0, 53]
    assert g.complete()
    assert winners(g) == [2]
    refused(g, sa.pack_hand(0, 0, 0, 0), "hand")


def test_impossible_hands_are_refused():
    g = play(sa, 3, [])
    refused(g, sa.pack_hand(3, 0, 0, 0), "first_trump")
    refused(g, sa.pack_hand(0, 0, 5, 0), "nine")
    refused(g, sa.pack_hand(0, 0, 0, 7), "sachem")
    refused(g, sa.pack_hand(0, None, 0, 0), "last_trump")   # a first trump but no last
    # The nine of trumps captured, but no trump played at all: impossible (the
    # nine of trumps is itself a trump, so it would be the first trump played).
    refused(g, sa.pack_hand(None, None, 1, 0), "nine")
    refused_new(sa, 9, 0, "players")


def test_scoring_allocates_nothing():
    assert allocates_nothing(sa, 3, [sa.pack_hand(0, 2, 1, 0), sa.pack_hand(1, 1, None, None)])
