# Skicket's game length, the Duplicate series and Royal (docs/rules.md SK16
# to SK18), worked by hand. Runs under pytest (CPython) and under the
# MicroPython unix port (run.py).
#
# Players A B C D are 0 1 2 3. The seats of SK5: hands 1-2 A B C D (A-C
# against B-D), hands 3-4 A C B D (A-B against C-D), hands 5-6 A C D B (A-D
# against C-B).
from tallycore import game, skicket

from mpfixtures import skip

C, S, H, D, NT, NK = 0, 1, 2, 3, 4, 5
A_, B_, C_, D_ = 0, 1, 2, 3


def hand(purchaser, level, strain, tricks, doubled_by=None):
    return skicket.pack_hand(purchaser, level, strain, doubled_by, None, False, tricks)


def refused(g, event, start):
    before = bytes(g.state)
    n = g.n
    try:
        g.apply(event)
    except ValueError as exc:
        assert str(exc).startswith(start), str(exc)
        assert bytes(g.state) == before and g.n == n   # nothing changed
        return
    raise AssertionError("accepted a hand after the last one")


def totals(g):
    return [g.total(p) for p in range(4)]


# --- the four-hand game (SK16) ---------------------------------------------

FOUR = (
    # hand 1, A B C D, C deals: A bids 2H (80, needs 8), takes 9: made.
    #   A, C 80; B, D took 13 - 9 = 4: 40 each.
    (hand(A_, 2, H, 9), [80, 40, 80, 40]),
    # hand 2, A B C D, D deals: B bids 1S (70, needs 7), takes 6: set.
    #   B 0; his partner D 6 * 10 = 60; A, C took 7: 70 each.
    (hand(B_, 1, S, 6), [70, 0, 70, 60]),
    # hand 3, A C B D (pivot after hand 2), A deals: C bids 3NT (90),
    #   doubled by A, takes 10: made doubled. C and his partner D 2 * 90 =
    #   180; the doubler A forfeits; his partner B 10 * (13 - 10) = 30.
    (hand(C_, 3, NT, 10, A_), [0, 30, 180, 180]),
    # hand 4, A C B D, C deals: B bids 1C (70), takes 7: made. B and his
    #   partner A 70; C, D took 6: 60 each.
    (hand(B_, 1, C, 7), [70, 70, 60, 60]),
)


def test_four_hand_game_seats_pivot_once_after_hand_2():
    expected = [[0, 1, 2, 3], [0, 1, 2, 3], [0, 2, 1, 3], [0, 2, 1, 3]]
    for h in range(4):
        assert [skicket.seat_player(h, s) for s in range(4)] == expected[h]
    # SK3: hand h dealt from seat (h + 1) mod 4: seats 2, 3, 0, 1 -> C, D, A, C
    assert [skicket.dealer(h) for h in range(4)] == [C_, D_, A_, C_]


def test_four_hand_game_totals_and_end():
    g = game.Game()
    g.new(skicket, 4, skicket.OPT_FOUR_HANDS)
    assert skicket.length(g.state) == 4
    running = [0, 0, 0, 0]
    out = [0, 0, 0, 0]
    for number, (event, scores) in enumerate(FOUR):
        assert not g.complete()
        g.apply(event)
        g.hand_scores(number, out)
        assert out == scores, number + 1
        for p in range(4):
            running[p] += scores[p]
    # A 80 + 70 + 0 + 70 = 220; B 40 + 0 + 30 + 70 = 140;
    # C 80 + 70 + 180 + 60 = 390; D 40 + 60 + 180 + 60 = 340
    assert totals(g) == [220, 140, 390, 340] == running
    assert g.complete()
    assert g.winners() == 1 << C_
    refused(g, hand(A_, 1, H, 7), "game: the four hands of the game are all in")
    refused(g, skicket.MISDEAL, "game: the four hands of the game are all in")


def test_misdeal_is_not_one_of_the_four_hands():
    g = game.Game()
    g.new(skicket, 4, skicket.OPT_FOUR_HANDS)
    g.apply(FOUR[0][0])
    g.apply(skicket.MISDEAL)   # redealt by D, hand 2's dealer
    assert g.hands() == 1 and skicket.dealer(g.hands()) == D_
    for event, _ in FOUR[1:]:
        g.apply(event)
    assert g.complete() and totals(g) == [220, 140, 390, 340]


# --- the Duplicate series (SK17) --------------------------------------------

SERIES = (
    # first play. hand 1, A B C D: A 1H (70) takes 8: made. A, C 70; B, D 5 -> 50
    (hand(A_, 1, H, 8), [70, 50, 70, 50]),
    # hand 2, A B C D: B 2S (80, needs 8) takes 8: made. B, D 80; A, C 50
    (hand(B_, 2, S, 8), [50, 80, 50, 80]),
    # hand 3, A C B D: C 1D (needs 7) takes 6: set. C 0; partner D 60; A, B 70
    (hand(C_, 1, D, 6), [70, 70, 0, 60]),
    # hand 4, A C B D: A 3NT (90, needs 9) takes 9: made. A, B 90; C, D 40
    (hand(A_, 3, NT, 9), [90, 90, 40, 40]),
    # hand 5, A C D B: D 2C (80) takes 8: made. D, A 80; C, B 50
    (hand(D_, 2, C, 8), [80, 50, 50, 80]),
    # hand 6, A C D B: B 1H (70) takes 7: made. B, C 70; A, D 60
    (hand(B_, 1, H, 7), [60, 70, 70, 60]),
    # reversed. hand 7 (deal 1), back to A B C D: B 1H takes 8: made. B, D 70; A, C 50
    (hand(B_, 1, H, 8), [50, 70, 50, 70]),
    # hand 8 (deal 2), A B C D: A 2S (needs 8) takes 7: set. A 0; C 70; B, D 60
    (hand(A_, 2, S, 7), [0, 60, 70, 60]),
    # hand 9 (deal 3), A C B D: D 1D takes 7: made. D, C 70; A, B 60
    (hand(D_, 1, D, 7), [60, 60, 70, 70]),
    # hand 10 (deal 4), A C B D: C 3NT takes 10: made. C, D 90; A, B 30
    (hand(C_, 3, NT, 10), [30, 30, 90, 90]),
    # hand 11 (deal 5), A C D B: C 2C takes 8: made. C, B 80; A, D 50
    (hand(C_, 2, C, 8), [50, 80, 80, 50]),
    # hand 12 (deal 6), A C D B: A 1H takes 7: made. A, D 70; B, C 60
    (hand(A_, 1, H, 7), [70, 60, 60, 70]),
)
# first play:  A 70+50+70+90+80+60 = 420  B 50+80+70+90+50+70 = 410
#              C 70+50+0+40+50+70 = 280   D 50+80+60+40+80+60 = 370
# reversed:    A 50+0+60+30+50+70 = 260   B 70+60+60+30+80+60 = 360
#              C 50+70+70+90+80+60 = 420  D 70+60+70+90+50+70 = 410
# series:      A 680, B 770, C 700, D 780: D wins
SERIES_TOTALS = [680, 770, 700, 780]


def test_series_seats_go_back_and_pivot_again():
    first = [[0, 1, 2, 3]] * 2 + [[0, 2, 1, 3]] * 2 + [[0, 2, 3, 1]] * 2
    expected = first + first
    for h in range(12):
        assert [skicket.seat_player(h, s) for s in range(4)] == expected[h], h + 1


def test_series_deals_and_reversed_halves():
    assert [skicket.deal_index(h) + 1 for h in range(12)] == [1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]
    assert [skicket.reversed_half(h) for h in range(12)] == [0] * 6 + [1] * 6


def test_series_dealers():
    # first play, deal d from seat (d + 1) mod 4: seats 2 3 0 1 2 3 of
    #   ABCD ABCD ACBD ACBD ACDB ACDB -> C D A C D B
    # reversed, deal d from seat (d + 2) mod 4: seats 3 0 1 2 3 0 of the
    #   same seats -> D A C B B A
    assert [skicket.dealer(h) for h in range(12)] == [C_, D_, A_, C_, D_, B_, D_, A_, C_, B_, B_, A_]


def test_a_reversed_deal_is_dealt_by_the_other_partnership():
    for h in range(6):
        first = skicket.dealer(h)
        again = skicket.dealer(h + 6)
        assert skicket.partner(h, first) != again and first != again, h + 1


def test_whole_series_totals_winner_and_end():
    g = game.Game()
    g.new(skicket, 4, skicket.OPT_DUPLICATE)
    assert skicket.length(g.state) == 12 and skicket.series(g.state)
    out = [0, 0, 0, 0]
    for number, (event, scores) in enumerate(SERIES):
        assert not g.complete(), number
        if number == 6:
            g.apply(skicket.MISDEAL)   # a misdeal is not a hand: D deals hand 7 again
            assert g.hands() == 6 and skicket.dealer(g.hands()) == D_
        g.apply(event)
        g.hand_scores(number, out)
        assert out == scores, number + 1
        if number == 5:
            assert totals(g) == [420, 410, 280, 370]   # the first play
            assert not g.complete()
    assert g.hands() == 12 and skicket.misdeals(g.state) == 1
    assert totals(g) == SERIES_TOTALS
    assert g.complete() and g.winners() == 1 << D_
    refused(g, hand(A_, 1, H, 7), "game: the twelve hands of the series are all in")
    refused(g, skicket.MISDEAL, "game: the twelve hands of the series are all in")


def test_series_undo_across_the_half_keeps_every_hand():
    g = game.Game()
    g.new(skicket, 4, skicket.OPT_DUPLICATE)
    for event, _ in SERIES:
        g.apply(event)
    for _ in range(7):
        g.undo()
    assert g.hands() == 5
    for _ in range(7):
        g.redo()
    assert totals(g) == SERIES_TOTALS and g.complete()


def test_six_hand_game_is_still_six():
    g = game.Game()
    g.new(skicket, 4)   # no options: an old journal or record
    assert skicket.length(g.state) == 6 and not skicket.series(g.state) and not skicket.royal(g.state)
    for event, _ in SERIES[:6]:
        g.apply(event)
    assert g.complete() and totals(g) == [420, 410, 280, 370]
    refused(g, hand(A_, 1, H, 7), "game: the six hands of the game are all in")


# --- Royal (SK18) ------------------------------------------------------------

def test_royal_scores_exactly_as_skicket():
    for options in (skicket.OPT_ROYAL, skicket.OPT_ROYAL | skicket.OPT_FOUR_HANDS):
        g = game.Game()
        g.new(skicket, 4, options)
        assert skicket.royal(g.state) == 1
        for event, _ in FOUR:
            g.apply(event)
        assert totals(g) == [220, 140, 390, 340]   # as the four-hand game above
        assert g.complete() == bool(options & skicket.OPT_FOUR_HANDS)
    g = game.Game()
    g.new(skicket, 4, skicket.OPT_ROYAL | skicket.OPT_DUPLICATE)
    for event, _ in SERIES:
        g.apply(event)
    assert totals(g) == SERIES_TOTALS and g.complete() and skicket.royal(g.state)


def test_options_refused_naming_the_field():
    for options, start in ((skicket.OPT_FOUR_HANDS | skicket.OPT_DUPLICATE, "options: hands:"),
                           (8, "options: unknown Skicket option")):
        try:
            game.Game().new(skicket, 4, options)
        except ValueError as exc:
            assert str(exc).startswith(start), str(exc)
        else:
            raise AssertionError("took options %d" % options)


def test_a_series_fits_the_state():
    assert skicket.STATE_SIZE <= game.STATE_CAPACITY
    # 12 hands of 3 bytes + 4 totals of 2 + count, misdeals (2), options
    assert skicket.STATE_SIZE == 12 * 3 + 4 * 2 + 1 + 2 + 1


def test_whole_series_allocates_nothing():
    import sys
    if sys.implementation.name != "micropython":
        skip("needs micropython.heap_lock: runs in the MicroPython pass (tests/test_micropython_port.py)")
    import micropython
    g = game.Game()
    g.new(skicket, 4, skicket.OPT_DUPLICATE | skicket.OPT_ROYAL)
    events = [event for event, _ in SERIES]
    misdeal = skicket.MISDEAL
    last = events[11]
    micropython.heap_lock()
    try:
        g.apply(misdeal)
        for i in range(12):
            g.apply(events[i])
        over = g.complete()
        g.undo()
        g.redo()
    finally:
        micropython.heap_unlock()
    assert over and g.hands() == 12 and g.log[12] == last
    assert totals(g) == SERIES_TOTALS


# --- the board: options sent with NEW, journaled, kept through a power cut ---

def _hand_request(event):
    who = "-"
    doubler = skicket.doubled_by_of(event)
    return "HAND %d %s %s - 0 %d" % (skicket.purchaser_of(event),
                                     skicket.bid_text(skicket.level_of(event), skicket.strain_of(event)),
                                     who if doubler == skicket.NOBODY else str(doubler),
                                     skicket.tricks_of(event))


def test_a_series_on_the_board_survives_a_power_cut():
    from mpfixtures import booted_app, cleanup, folder, send, shut, bodies
    root = folder("series")
    try:
        app, out = booted_app(root)
        # options 6 = OPT_DUPLICATE 2 | OPT_ROYAL 4
        send(app, 1, "NEW skicket 4 6", *[_hand_request(e) for e, _ in SERIES[:9]])
        out.close()   # the power goes: the journal is never closed
        app, out = booted_app(root)
        g = app.game
        assert g.options == skicket.OPT_DUPLICATE | skicket.OPT_ROYAL
        assert skicket.series(g.state) and skicket.royal(g.state) and g.hands() == 9
        # after hand 9: first play A 420, B 410, C 280, D 370 (above), then
        # hands 7-9: A 50 + 0 + 60, B 70 + 60 + 60, C 50 + 70 + 70, D 70 + 60 + 70
        assert totals(g) == [530, 600, 470, 570]
        send(app, 20, *[_hand_request(e) for e, _ in SERIES[9:]])
        send(app, 40, _hand_request(SERIES[0][0]))
        shut(app, out)
        replies = bodies(root)
        assert replies[-1].startswith(b"40 ERR RULE game: the twelve hands of the series are all in")
        app, out = booted_app(root)
        assert app.game.hands() == 12 and app.game.complete() and totals(app.game) == SERIES_TOTALS
        shut(app, out)
    finally:
        cleanup(root)
