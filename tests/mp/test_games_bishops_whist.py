# Bishops Whist, every scoring clause of GAMES.md "Bishops Whist (seed 001)",
# worked by hand. Sides: players 0 & 2 (A-C, side 0) and 1 & 3 (B-D, side 1);
# total(p) is the total of p's side. Dealer: player 0 first, then to the left.
from tallycore import bishops_whist as bw
from shortgames import allocates_nothing, play, refused, refused_new, totals, winners


def hand(tricks, bishops, turned=False, exposed=(0, 0), revokes=(0, 0)):
    return bw.pack_hand(tricks, bishops, turned, exposed, revokes)


def sides(g):
    return [g.total(0), g.total(1)]


def test_tricks_over_six_bishops_and_the_turned_bishop():
    # Dealer player 0 (side 0) turned a bishop. Side 0: 7 tricks, 3 bishops:
    # (7 - 6) * 1 + 3 * 2 + 1 = 8. Side 1: 6 tricks (none over six), 1 bishop: 2.
    g = play(bw, 4, [hand((7, 6), (3, 1), turned=True)])
    assert sides(g) == [8, 2]
    assert totals(g) == [8, 2, 8, 2]   # partners show their side's total


def test_turned_bishop_goes_to_the_dealers_side():
    # Hand 2 is dealt by player 1 (side 1): 6 tricks each way is impossible
    # (13), so side 0 5 tricks, side 1 8 tricks, bishops 2-2, turned:
    # side 0: 0 + 2 * 2 = 4; side 1: (8 - 6) + 2 * 2 + 1 = 7.
    g = play(bw, 4, [hand((7, 6), (2, 2)), hand((5, 8), (2, 2), turned=True)])
    assert sides(g) == [1 + 4 + 4, 4 + 7]   # hand 1: side 0 (7 - 6) + 4, side 1 4


def test_exposed_cards_cost_two_and_revokes_four_each():
    # Side 0: 9 tricks, 1 bishop, 1 exposed card: 3 + 2 - 2 = 3.
    # Side 1: 4 tricks, 3 bishops, 2 revokes: 0 + 6 - 2 * 4 = -2 (below zero).
    g = play(bw, 4, [hand((9, 4), (1, 3), exposed=(1, 0), revokes=(0, 2))])
    assert sides(g) == [3, -2]


def test_sixteen_points_at_most_in_a_hand():
    # All 13 tricks, all 4 bishops, bishop turned by the dealer (player 0):
    # 7 + 8 + 1 = 16 (GAMES.md "At most 16 points in a hand").
    g = play(bw, 4, [hand((13, 0), (4, 0), turned=True)])
    assert sides(g) == [16, 0]


def test_misdeal_scores_nothing_and_passes_the_deal():
    # A misdeal by player 0; player 1 deals the next hand and turns a bishop:
    # side 1 gets the point: (7 - 6) + 2 * 2 + 1 = 6; side 0: 0 + 2 * 2 = 4.
    g = play(bw, 4, [bw.MISDEAL, hand((6, 7), (2, 2), turned=True)])
    assert sides(g) == [4, 6]
    assert g.hands() == 1
    assert bw.deals(g.state) == 2
    assert bw.dealer(g.state) == 2


def test_first_dealer_option():
    # Player 3 deals first (side 1): the turned bishop is side 1's.
    g = play(bw, 4, [hand((7, 6), (2, 2), turned=True)], options=3)
    assert sides(g) == [1 + 4, 4 + 1]


def to_24_22():
    # Hands worked to the text's "A and C stand at 24, B and D at 22":
    # 1 dealer 0: tricks 10-3, bishops 4-0, turned: side 0 4 + 8 + 1 = 13; side 1 0.
    # 2 dealer 1: tricks 3-10, bishops 0-4, turned: side 1 4 + 8 + 1 = 13.   13/13
    # 3 dealer 2: tricks 9-4, bishops 2-2: side 0 3 + 4 = 7; side 1 4.       20/17
    # 4 dealer 3: tricks 8-5, bishops 1-3, turned, side 1 exposed 1:
    #   side 0 2 + 2 = 4; side 1 6 + 1 - 2 = 5.                              24/22
    return [hand((10, 3), (4, 0), turned=True), hand((3, 10), (0, 4), turned=True),
            hand((9, 4), (2, 2)), hand((8, 5), (1, 3), turned=True, exposed=(0, 1))]


def test_the_texts_example_24_22_then_26_29_b_d_win():
    g = play(bw, 4, to_24_22())
    assert sides(g) == [24, 22]
    assert not g.complete()
    # Hand 5 (dealer 0, no bishop turned): tricks 6-7, bishops 1-3:
    # A-C 24 + 0 + 2 = 26; B-D 22 + 1 + 6 = 29. Both pass 25: the higher wins.
    g.apply(hand((6, 7), (1, 3)))
    assert sides(g) == [26, 29]
    assert g.complete()
    assert winners(g) == [1, 3]       # B and D
    refused(g, hand((7, 6), (2, 2)), "hand")   # the game is over


def test_a_side_that_revoked_cannot_win_on_that_hand():
    g = play(bw, 4, to_24_22())
    # Hand 5: B-D take 9 tricks and all 4 bishops but revoke once:
    # B-D 22 + 3 + 8 - 4 = 29; A-C 24 + 0 = 24. B-D passed 25 but revoked.
    g.apply(hand((4, 9), (0, 4), revokes=(0, 1)))
    assert sides(g) == [24, 29]
    assert not g.complete()
    assert winners(g) == [1, 3]       # leading, not won
    # Hand 6 (dealer 1): tricks 6-7, bishops 2-2: A-C 24 + 4 = 28; B-D 29 + 1 + 4 = 34.
    g.apply(hand((6, 7), (2, 2)))
    assert sides(g) == [28, 34]
    assert g.complete()
    assert winners(g) == [1, 3]


def test_revoking_side_over_25_leaves_the_game_to_the_other():
    g = play(bw, 4, to_24_22())
    # Hand 5 (dealer 0, turned): tricks 8-5, bishops 0-4, B-D revoke once:
    # A-C 24 + 2 + 0 + 1 = 27; B-D 22 + 0 + 8 - 4 = 26. Only A-C can win: they do.
    g.apply(hand((8, 5), (0, 4), turned=True, revokes=(0, 1)))
    assert sides(g) == [27, 26]
    assert g.complete()
    assert winners(g) == [0, 2]


def test_equal_totals_over_25_play_another_hand():
    g = play(bw, 4, to_24_22())
    # Hand 5 (dealer 0, no turn): tricks 8-5, bishops 1-3:
    # A-C 24 + 2 + 2 = 28; B-D 22 + 0 + 6 = 28: both over 25 and equal, no
    # higher total; the board reads it as: play another hand (bishops_whist.py).
    g.apply(hand((8, 5), (1, 3)))
    assert sides(g) == [28, 28]
    assert not g.complete()
    assert winners(g) == [0, 1, 2, 3]  # tied for the lead


def test_impossible_hands_are_refused_naming_the_field():
    g = play(bw, 4, [])
    refused(g, hand((7, 7), (2, 2)), "tricks")     # 14 tricks
    refused(g, hand((7, 5), (2, 2)), "tricks")     # 12 tricks
    refused(g, hand((7, 6), (3, 2)), "bishops")    # 5 bishops
    refused(g, hand((13, 0), (3, 1)), "bishops")   # a bishop without a trick
    refused_new(bw, 3, 0, "players")
    refused_new(bw, 5, 0, "players")
    refused_new(bw, 4, 4, "first_dealer")
    try:
        bw.pack_hand((7, 6), (2, 2), False, (8, 0), (0, 0))
    except ValueError as exc:
        assert str(exc).startswith("exposed:")
    else:
        raise AssertionError("8 exposed-card penalties packed")


def test_scoring_allocates_nothing():
    events = to_24_22() + [bw.MISDEAL, hand((6, 7), (1, 3))]
    assert allocates_nothing(bw, 4, events)
