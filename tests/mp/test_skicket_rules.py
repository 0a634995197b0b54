# Skicket, every clause of GAMES.md "Skicket (seed 000)", worked by hand.
# Runs under pytest (CPython) and under the MicroPython unix port (run.py).
#
# Unless a test says otherwise the hand is the game's first (index 0): seats
# are A B C D = players 0 1 2 3, partners 0+2 against 1+3.
from array import array

from tallycore import game, skicket

C, S, H, D, NT, NK = 0, 1, 2, 3, 4, 5


def scores(purchaser, level, strain, tricks, doubled_by=None, redoubled_by=None, lone=False, hand=0):
    event = skicket.pack_hand(purchaser, level, strain, doubled_by, redoubled_by, lone, tricks)
    out = array("i", [0, 0, 0, 0])
    skicket.score_hand(event, hand, out)
    return list(out)


def rejects(field, **kw):
    hand = kw.pop("hand", 0)
    try:
        event = skicket.pack_hand(kw["purchaser"], kw["level"], kw["strain"], kw.get("doubled_by"),
                                  kw.get("redoubled_by"), kw.get("lone", False), kw["tricks"])
        g = game.Game()
        g.new(skicket, 4)
        for _ in range(hand):
            g.apply(skicket.pack_hand(0, 1, C, None, None, False, 7))
        before = bytes(g.state)
        try:
            g.apply(event)
        finally:
            assert bytes(g.state) == before  # a refused hand changes nothing
    except ValueError as exc:
        assert str(exc).startswith(field + ":"), str(exc)
        return
    raise AssertionError("accepted an impossible hand; expected an error on " + field)


def test_schedule_is_60_plus_10_per_level():
    # 1 -> 70, 2 -> 80, ... 7 -> 130
    assert [skicket.schedule(level) for level in range(1, 8)] == [70, 80, 90, 100, 110, 120, 130]


def test_made_undoubled_pays_purchaser_and_partner_the_schedule():
    # A bids 3H (A = 60 + 30 = 90), needs 6 + 3 = 9, takes 9: made.
    # A and C get 90; B and D took 13 - 9 = 4 tricks: 4 * 10 = 40 each.
    assert scores(0, 3, H, 9) == [90, 40, 90, 40]


def test_made_with_overtricks_pays_only_the_bid():
    # 3H with 11 tricks still pays 90; adversaries 2 tricks = 20.
    assert scores(0, 3, H, 11) == [90, 20, 90, 20]


def test_failed_undoubled_purchaser_forfeits_partner_gets_his_sides_tricks():
    # A bids 4S (needs 10), side takes 8: failed. A 0; C 8 * 10 = 80;
    # B and D took 5: 50 each.
    assert scores(0, 4, S, 8) == [0, 50, 80, 50]


def test_doubled_made_pays_winners_twice_the_bid():
    # B bids 2D (A = 80), doubled by A; B's side takes 8 (needs 8): made.
    # B and D 2 * 80 = 160; A (the loser, doubler) 0; A's partner C gets
    # 10 * the tricks the loser's side won = 10 * (13 - 8) = 50.
    assert scores(1, 2, D, 8, doubled_by=0) == [0, 160, 50, 160]


def test_doubled_set_pays_the_doubler_side_twice_the_bid():
    # Same contract, 7 tricks: set. A (doubler) and C 160; B 0;
    # B's partner D 10 * 7 = 70.
    assert scores(1, 2, D, 7, doubled_by=0) == [160, 0, 160, 70]


def test_redoubled_made_pays_four_times():
    # A bids 1C (A = 70), doubled by B, redoubled by A; 7 tricks (needs 7):
    # A and C 4 * 70 = 280; B 0; D 10 * (13 - 7) = 60.
    assert scores(0, 1, C, 7, doubled_by=1, redoubled_by=0) == [280, 0, 280, 60]


def test_redoubled_set():
    # 6 tricks: set. B and D 280; A 0; C 10 * 6 = 60.
    assert scores(0, 1, C, 6, doubled_by=1, redoubled_by=0) == [0, 280, 60, 280]


def test_partner_who_redoubles_assumes_all_liabilities():
    # A bids 1C, doubled by B, redoubled by C (A's partner): C becomes the
    # purchaser. Set with 6 tricks: C (the loser) gets 0, and his partner A
    # gets 10 * 6 = 60; B and D 4 * 70 = 280.
    assert scores(0, 1, C, 6, doubled_by=1, redoubled_by=2) == [60, 280, 0, 280]
    # Made with 7: C and A 280, doubler B 0, D 10 * 6 = 60.
    assert scores(0, 1, C, 7, doubled_by=1, redoubled_by=2) == [280, 0, 280, 60]


def test_no_trick_made_mirrors_the_adversaries_count():
    # A bids 2NK (A = 80): wins by making B and D take 6 + 2 = 8.
    # A's side takes 5, so B and D take 8: made. A and C 80; B and D get
    # 10 * tricks NOT taken by them = 10 * 5 = 50.
    assert scores(0, 2, NK, 5) == [80, 50, 80, 50]


def test_no_trick_failed_mirrors_both_counts():
    # A's side takes 6, B and D take 7 < 8: failed. A 0; C gets 10 * the
    # tricks taken by A's adversaries = 70; B and D (reading) 10 * the
    # tricks A's side took = 60.
    assert scores(0, 2, NK, 6) == [0, 60, 70, 60]


def test_no_trick_doubled():
    # A 2NK doubled by D. Made (A's side 5, B+D 8): A and C 160; D 0;
    # D's partner B gets 10 * the tricks the loser's side did not take = 50.
    assert scores(0, 2, NK, 5, doubled_by=3) == [160, 50, 160, 0]
    # Set (A's side 6, B+D 7): D and B 160; A 0; C 10 * 7 = 70.
    assert scores(0, 2, NK, 6, doubled_by=3) == [0, 160, 70, 160]


def test_no_trick_redoubled():
    # A 1NK (70) doubled by B, redoubled by A; A's side 6, B+D 7 >= 7: made.
    # A and C 280; B 0; D 10 * 6 = 60.
    assert scores(0, 1, NK, 6, doubled_by=1, redoubled_by=0) == [280, 0, 280, 60]


def test_lone_hand_made():
    # A 4H alone (A = 100), 10 tricks: A alone 100; C, B, D each get the
    # adversaries' count 10 * 3 = 30.
    assert scores(0, 4, H, 10, lone=True) == [100, 30, 30, 30]


def test_lone_hand_failed():
    # Reading: A 0, the three others 10 * 4 = 40.
    assert scores(0, 4, H, 9, lone=True) == [0, 40, 40, 40]


def test_lone_hand_doubled():
    # A 4H alone doubled by B. Made (10): A 200, B 0, C and D 10 * 3 = 30.
    assert scores(0, 4, H, 10, doubled_by=1, lone=True) == [200, 0, 30, 30]
    # Failed (9): A 0; C, B and D 2 * 100 = 200 each.
    assert scores(0, 4, H, 9, doubled_by=1, lone=True) == [0, 200, 200, 200]


def test_lone_hand_redoubled():
    # A 4H alone doubled by D, redoubled by A. Made (10): A 400; his partner
    # C and the doubler's partner B 30 each; D 0.
    assert scores(0, 4, H, 10, doubled_by=3, redoubled_by=0, lone=True) == [400, 30, 30, 0]
    # Failed (9): C, B and D 4 * 100 = 400 each.
    assert scores(0, 4, H, 9, doubled_by=3, redoubled_by=0, lone=True) == [0, 400, 400, 400]


def test_taking_every_trick_pays_130():
    # A 1S takes all 13: A and C 130 instead of 70; B and D took 0.
    assert scores(0, 1, S, 13) == [130, 0, 130, 0]
    # Lone: A alone 130.
    assert scores(0, 2, C, 13, lone=True) == [130, 0, 0, 0]
    # No Trick forcing B and D to take all 13: A and C 130; B and D get
    # 10 * tricks not taken by them = 0.
    assert scores(0, 1, NK, 0) == [130, 0, 130, 0]


def test_taking_every_trick_does_not_change_a_doubled_count():
    # Reading: doubled stays 2A = 2 * 70 = 140; redoubled 4A = 280.
    assert scores(0, 1, S, 13, doubled_by=1) == [140, 0, 140, 0]
    assert scores(0, 1, S, 13, doubled_by=1, redoubled_by=0) == [280, 0, 280, 0]


def test_partnerships_follow_pivoting():
    # Hand 3 (index 2): seats A C B D, so A partners B against C and D.
    # A 3H makes 9: A and B 90; C and D 10 * 4 = 40.
    assert scores(0, 3, H, 9, hand=2) == [90, 90, 40, 40]
    # Hand 5 (index 4): seats A C D B, A partners D.
    assert scores(0, 3, H, 9, hand=4) == [90, 40, 40, 90]


def test_pivoting_seats_for_the_six_hands():
    # Start A B C D; after hand 2 B swaps with seat 2: A C B D;
    # after hand 4 B swaps with seat 3: A C D B.
    expected = [[0, 1, 2, 3]] * 2 + [[0, 2, 1, 3]] * 2 + [[0, 2, 3, 1]] * 2
    for hand in range(6):
        assert [skicket.seat_player(hand, s) for s in range(4)] == expected[hand]


def test_every_pair_partners_exactly_twice():
    counts = {}
    for hand in range(6):
        for p in range(4):
            q = skicket.partner(hand, p)
            key = (min(p, q), max(p, q))
            counts[key] = counts.get(key, 0) + 1
    # each pair is counted once from each side per hand: 2 hands * 2 = 4
    assert sorted(counts) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    for pair in counts:
        assert counts[pair] == 4, pair


def test_dealer_follows_the_seat_rotation():
    # Hand h is dealt from seat (2 + h - 1) mod 4: seats 2, 3, 0, 1, 2, 3.
    # Seat -> player by the pivoting table above:
    # h1 seat 2 -> C(2); h2 seat 3 -> D(3); h3 seat 0 -> A(0); h4 seat 1 -> C(2);
    # h5 seat 2 -> D(3); h6 seat 3 -> B(1).
    assert [skicket.dealer(h) for h in range(6)] == [2, 3, 0, 2, 3, 1]


def test_misdeal_scores_nothing_and_keeps_the_dealer():
    g = game.Game()
    g.new(skicket, 4)
    g.apply(skicket.MISDEAL)
    assert g.hands() == 0
    assert [g.total(p) for p in range(4)] == [0, 0, 0, 0]
    assert skicket.misdeals(g.state) == 1
    # the redeal is still hand 1, dealt by C (player 2)
    assert skicket.dealer(g.hands()) == 2


def test_misdeals_are_counted_past_255():
    # A game may take as many misdeals as its log holds (600): the count is
    # not a byte. 600 misdeals, then one undone: 599.
    g = game.Game()
    g.new(skicket, 4)
    for _ in range(600):
        g.apply(skicket.MISDEAL)
    assert skicket.misdeals(g.state) == 600
    g.undo()
    assert skicket.misdeals(g.state) == 599
    g.redo()
    assert skicket.misdeals(g.state) == 600 and g.hands() == 0


def test_six_hand_game_totals_and_winner():
    g = game.Game()
    g.new(skicket, 4)
    # h1 A 3H 9 made:            A 90  B 40  C 90  D 40
    # h2 B 2S 7 set (needs 8):   A 60  B 0   C 60  D 70   (A,C took 6; D 10*7)
    # h3 (A+B v C+D) C 1C 7 made: A 60 B 60 C 70 D 70
    # h4 D 5D 11 made:           A 20  B 20  C 110 D 110
    # h5 (A+D v C+B) A 2H 8 made: A 80 B 50 C 50 D 80
    # h6 B 1NT 6 set:            A 70  B 0   C 60  D 70   (B's partner C: 10*6)
    hands = [(0, 3, H, 9), (1, 2, S, 7), (2, 1, C, 7), (3, 5, D, 11), (0, 2, H, 8), (1, 1, NT, 6)]
    for p, level, strain, tricks in hands:
        assert not g.complete()
        g.apply(skicket.pack_hand(p, level, strain, None, None, False, tricks))
    assert g.complete()
    # A 90+60+60+20+80+70 = 380; B 40+0+60+20+50+0 = 170;
    # C 90+60+70+110+50+60 = 440; D 40+70+70+110+80+70 = 440
    assert [g.total(p) for p in range(4)] == [380, 170, 440, 440]
    assert g.winners() == (1 << 2) | (1 << 3)  # a tie: C and D
    rejects("game", purchaser=0, level=1, strain=C, tricks=7, hand=6)


def test_impossible_hands_are_refused_naming_the_field():
    rejects("bid", purchaser=0, level=8, strain=H, tricks=9)
    rejects("bid", purchaser=0, level=0, strain=H, tricks=9)
    rejects("tricks", purchaser=0, level=1, strain=H, tricks=14)
    rejects("purchaser", purchaser=4, level=1, strain=H, tricks=7)
    rejects("redoubled_by", purchaser=0, level=1, strain=H, tricks=7, redoubled_by=0)
    rejects("lone", purchaser=0, level=1, strain=NK, tricks=5, lone=True)
    rejects("doubled_by", purchaser=0, level=1, strain=H, tricks=7, doubled_by=2)
    rejects("doubled_by", purchaser=0, level=1, strain=H, tricks=7, doubled_by=0)
    rejects("redoubled_by", purchaser=0, level=1, strain=H, tricks=7, doubled_by=1, redoubled_by=3)
    rejects("redoubled_by", purchaser=0, level=1, strain=H, tricks=7, doubled_by=1, redoubled_by=2, lone=True)
    # hand 3 pivots: A's partner is B, so B may not double A there
    rejects("doubled_by", purchaser=0, level=1, strain=H, tricks=7, doubled_by=1, hand=2)


def test_bid_text_round_trip():
    assert skicket.parse_bid("4H") == (4, H)
    assert skicket.parse_bid("7NK") == (7, NK)
    assert skicket.parse_bid("1NT") == (1, NT)
    for bad in ("8H", "0C", "4", "4X", "H4", "", "44H"):
        try:
            skicket.parse_bid(bad)
        except ValueError as exc:
            assert str(exc).startswith("bid:")
        else:
            raise AssertionError("accepted bid " + bad)


def test_hand_result_packs_four_scores_in_24_bits():
    # A 1C doubled by B, redoubled by A, 7 tricks: 280 0 280 60 -> 28 0 28 6
    event = skicket.pack_hand(0, 1, C, 1, 0, False, 7)
    result = skicket.hand_result(event, 0)
    assert result == 28 | 0 << 6 | 28 << 12 | 6 << 18
    assert [skicket.result_score(result, p) for p in range(4)] == [280, 0, 280, 60]
    # the largest: a redoubled 7 made, 4 * 130 = 520 -> 52 < 64
    event = skicket.pack_hand(0, 7, S, 1, 0, False, 13)
    assert skicket.result_score(skicket.hand_result(event, 0), 0) == 520
    assert skicket.hand_result(event, 0) < 2 ** 24
