# Roquet and its board, GAMES.md "Roquet and its board (seed 001)", by hand.
from tallycore import game, roquet


def new_game(options=0):
    g = game.Game()
    g.new(roquet, 2, options)
    return g


def peg(g, player, points):
    g.apply(roquet.pack_peg(player, points))


def test_tally_track_all_sixty_positions():
    # Reading (the track): 1..15 up the single holes (holes 0..14),
    # 16..30 up the outer lane of the doubles (holes 15..29),
    # 31..45 back down the inner lane (column 14 down to 0 = holes 44..30),
    # 46..60 back down the single holes (hole 14 down to 0).
    expected = (list(range(0, 15)) + list(range(15, 30))
                + list(range(44, 29, -1)) + list(range(14, -1, -1)))
    assert len(expected) == 60
    for position in range(1, 61):
        assert roquet.tally_hole(position) == expected[position - 1], position
        assert roquet.tally_laps(position) == 0
    # "hole 46 is the 15th hole again"
    assert roquet.tally_hole(46) == roquet.tally_hole(15) == 14


def test_tally_beyond_sixty_goes_round_again():
    # 61 is the first hole again on the second lap; 75 the 15th; 91 the turn.
    assert (roquet.tally_hole(61), roquet.tally_laps(61)) == (0, 1)
    assert (roquet.tally_hole(75), roquet.tally_laps(75)) == (14, 1)
    assert (roquet.tally_hole(91), roquet.tally_laps(91)) == (44, 1)
    assert (roquet.tally_hole(120), roquet.tally_laps(120)) == (0, 1)
    assert (roquet.tally_hole(121), roquet.tally_laps(121)) == (0, 2)
    assert roquet.tally_hole(0) == -1  # the station hole


def test_landmarks_are_the_15th_30th_and_31st_holes():
    assert bytes(roquet.LANDMARK_HOLES) == bytes([roquet.tally_hole(15), roquet.tally_hole(30),
                                                  roquet.tally_hole(31)])
    assert bytes(roquet.LANDMARK_HOLES) == bytes([14, 29, 44])
    from tallypanel import boarddef
    assert boarddef.EMBOSSED_HOLES == bytes(roquet.LANDMARK_HOLES)   # the board is Dana's Roquet board


def test_king_row_in_fives_with_remainder():
    # 20 holes worth 5: hole k (0-based) is 5 * (k + 1).
    assert roquet.king_hole(4) == -1
    assert roquet.king_hole(5) == 0
    assert (roquet.king_hole(37), roquet.king_remainder(37)) == (6, 2)   # 35 hole + 2
    assert roquet.king_hole(100) == 19
    assert (roquet.king_hole(104), roquet.king_remainder(104)) == (19, 4)
    assert roquet.king_hole(130) == 19  # capped at the 100 hole


def test_the_texts_example_25_then_35_more():
    # "won 25 points ... move your king peg to No. 25, then set your tally peg
    # back"; a further 35 takes the king peg to 60.
    g = new_game()
    peg(g, 0, 20)
    peg(g, 0, 5)
    assert roquet.tally(g.state, 0) == 25 and roquet.king_total(g.state, 0) == 0
    g.apply(roquet.HAND_END)
    assert roquet.tally(g.state, 0) == 0 and roquet.king_total(g.state, 0) == 25
    peg(g, 0, 35)
    g.apply(roquet.HAND_END)
    assert roquet.king_total(g.state, 0) == 60
    assert g.hands() == 2
    assert not g.complete()


def test_back_peg_is_the_previous_position():
    g = new_game()
    peg(g, 1, 3)
    peg(g, 1, 4)
    assert (roquet.back_peg(g.state, 1), roquet.tally(g.state, 1)) == (3, 7)
    g.apply(roquet.HAND_END)
    assert roquet.back_peg(g.state, 1) == 0


def test_game_ends_as_soon_as_king_plus_tally_reaches_100():
    g = new_game()
    peg(g, 0, 60)
    g.apply(roquet.HAND_END)
    peg(g, 1, 30)
    peg(g, 0, 39)          # 60 + 39 = 99: not yet
    assert not g.complete()
    peg(g, 0, 1)           # 60 + 40 = 100: over, player 0 wins
    assert g.complete()
    assert g.winners() == 1
    assert g.total(0) == 100 and g.total(1) == 30
    try:
        peg(g, 1, 5)
    except ValueError as exc:
        assert str(exc).startswith("game:")
    else:
        raise AssertionError("pegging after the game ended")
    g.apply(roquet.HAND_END)   # the last hand may still be banked
    assert roquet.king_total(g.state, 0) == 100 and g.winners() == 1


def test_option_game_ends_only_at_hand_end():
    g = new_game(roquet.OPT_END_AT_HAND_END)
    peg(g, 0, 99)
    peg(g, 0, 10)          # 109 in the tally: play goes on
    peg(g, 1, 99)
    peg(g, 1, 11)          # 110
    assert not g.complete()
    g.apply(roquet.HAND_END)
    assert g.complete()
    assert g.winners() == 2  # 110 beats 109


def test_option_hand_end_tie_is_reported():
    g = new_game(roquet.OPT_END_AT_HAND_END)
    peg(g, 0, 50)
    peg(g, 0, 50)
    peg(g, 1, 99)
    peg(g, 1, 1)
    g.apply(roquet.HAND_END)
    assert g.complete() and g.winners() == 3


def test_landmark_bonuses_are_an_option():
    # Reaching the 31st hole before the opponent reaches the 15th: 9 more,
    # to the 40th; reaching hole 46: 10 more, to 56.
    g = new_game(roquet.OPT_LANDMARK_BONUS)
    peg(g, 1, 14)          # opponent short of the 15th hole
    peg(g, 0, 25)
    peg(g, 0, 6)           # 31 -> 31 + 9 = 40
    assert roquet.tally(g.state, 0) == 40
    peg(g, 0, 6)           # 46 -> 46 + 10 = 56
    assert roquet.tally(g.state, 0) == 56
    # Once the opponent holds the 15th hole the 31st pays nothing extra.
    g = new_game(roquet.OPT_LANDMARK_BONUS)
    peg(g, 1, 15)
    peg(g, 0, 31)
    assert roquet.tally(g.state, 0) == 31
    # Without the option the board takes points as pegged.
    g = new_game()
    peg(g, 0, 31)
    peg(g, 0, 15)
    assert roquet.tally(g.state, 0) == 46


def test_first_to_the_15th_hole_is_shown():
    g = new_game()
    assert roquet.first_to_15(g.state) == -1
    peg(g, 1, 15)
    peg(g, 0, 20)
    assert roquet.first_to_15(g.state) == 1
    g.apply(roquet.HAND_END)
    assert roquet.first_to_15(g.state) == -1


def test_counts_over_sixty_in_one_hand():
    g = new_game(roquet.OPT_END_AT_HAND_END)
    peg(g, 0, 61)
    assert roquet.tally(g.state, 0) == 61
    assert roquet.tally_hole(roquet.tally(g.state, 0)) == 0
    assert roquet.tally_laps(roquet.tally(g.state, 0)) == 1


def test_bad_pegs_are_refused():
    for player, points, field in ((0, 0, "points"), (0, 100, "points"), (2, 5, "player"), (-1, 5, "player")):
        try:
            roquet.pack_peg(player, points)
        except ValueError as exc:
            assert str(exc).startswith(field + ":"), str(exc)
        else:
            raise AssertionError("accepted peg %d %d" % (player, points))
