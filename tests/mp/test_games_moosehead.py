# Moosehead, GAMES.md "Rummy and the short games" (seed 002 "RULES FOR
# MOOSEHEAD", "SCORING", "EXAMPLE", "COUNTING THE HAND"), worked by hand.
# Card values: ace 1, pips at face, J Q K 10 (option: 11, 12, 13).
from tallycore import cards, moosehead as mh
from shortgames import allocates_nothing, hand_scores, play, refused, refused_new, totals, winners

GO, END = mh.GO, mh.END


def plays(*moves):
    """[player, "card"] pairs and "go" -> events."""
    out = []
    for move in moves:
        out.append(GO if move == "go" else mh.pack_play(move[0], cards.parse(move[1])))
    return out


def packed(values):
    hand = 0
    for i in range(len(values)):
        hand |= values[i] << (4 * i)
    return hand


def test_the_texts_running_count_example():
    # A 8 (8), B 3 (11), C 4 (15: C pegs 2), D 10 (25: D pegs 2), A 4 (29),
    # then all pass: a go, A played the last card and pegs 1.
    g = play(mh, 4, plays((0, "8"), (1, "3"), (2, "4"), (3, "10")))
    assert totals(g) == [0, 0, 2, 2]
    assert mh.count(g.state) == 25
    g.apply(mh.pack_play(0, cards.parse("4")))
    assert mh.count(g.state) == 29
    assert totals(g) == [0, 0, 2, 2]
    g.apply(GO)
    assert totals(g) == [1, 0, 2, 2]
    assert mh.count(g.state) == 0        # a new round from 0


def test_the_texts_hand_2_5_7_3_10_makes_6():
    # 5 + 10, 3 + 7 + 5, 10 + 3 + 2: three fifteens, 2 points each = 6.
    assert mh.fifteens(packed([2, 5, 7, 3, 10])) == 3
    assert mh.fifteens(packed([1, 1, 2, 2, 3])) == 0     # all five: 9, no 15
    # 5, 5, 5, 10, 10: each 5 with each 10 (3 * 2 = 6) and 5 + 5 + 5 (1): 7.
    assert mh.fifteens(packed([5, 5, 5, 10, 10])) == 7


def test_twenty_and_thirty_peg_two_and_thirty_ends_the_round():
    # Two players: 0 plays 10 (10), 1 plays 10 (20: pegs 2), 0 plays 5 (25:
    # pegs 2), 1 plays 5 (30: pegs 2, the round ends at the limit, no go).
    g = play(mh, 2, plays((0, "10"), (1, "K"), (0, "5"), (1, "5")))
    assert totals(g) == [2, 4]
    assert mh.count(g.state) == 0
    refused(g, GO, "plays")              # nothing played since: no go


FIRST_DEALER = 3   # the sample record's option: D deals, so A leads


def full_hand():
    # Four players, five cards each (the sample record's hand), played legally:
    # the player left of the dealer leads; a player plays whenever a card of
    # his keeps the count at 30 or below; a go only when all pass in turn; a
    # new round starts left of the last player.
    #   A 8 4 K 6 2   B 3 2 4 5 9   C 4 5 5 7 J   D 10 7 3 9 Q
    #   round 1: A 8, B 3 (11), C 4 (15: C 2), D 10 (25: D 2), A 4 (29); at 29
    #            B (2 4 5 9), C (5 5 7 J), D (7 3 9 Q), A (K 6 2) all pass: go, A 1
    #   round 2: B 2, C 5 (7), D 7 (14), A K (24), B 5 (29); C (5 7 J), D (3 9 Q),
    #            A (6 2), B (4 9) all pass: go, B 1
    #   round 3: C 7, D 3 (10), A 6 (16), B 4 (20: B 2), C J (30: C 2, the round ends)
    #   round 4: D 9, A 2 (11), B 9 (20: B 2), C 5 (25: C 2); D (Q) passes, A B C
    #            have no cards: go, C 1
    #   round 5: D Q (10), every card played: go, D 1
    # Pegging: A 1; B 1 + 2 + 2 = 5; C 2 + 2 + 2 + 1 = 7; D 2 + 1 = 3.
    # Fifteens: A 8 4 10 6 2: all even, none. B 3 2 5 4 9: 2 + 4 + 9: 1 -> 2.
    # C 4 5 7 10 5: 10 + 5, 10 + the other 5: 2 -> 4. D 10 7 3 9 10: none.
    return plays((0, "8"), (1, "3"), (2, "4"), (3, "10"), (0, "4"), "go",
                 (1, "2"), (2, "5"), (3, "7"), (0, "K"), (1, "5"), "go",
                 (2, "7"), (3, "3"), (0, "6"), (1, "4"), (2, "J"),
                 (3, "9"), (0, "2"), (1, "9"), (2, "5"), "go",
                 (3, "Q"), "go") + [END]


def test_a_whole_hand_pegs_and_fifteens():
    g = play(mh, 4, full_hand()[:-1], FIRST_DEALER)
    assert totals(g) == [1, 5, 7, 3]     # pegging only
    g.apply(END)
    assert totals(g) == [1, 5 + 2, 7 + 4, 3]
    assert hand_scores(g, 0) == [1, 7, 11, 3]
    assert g.hands() == 1 and not g.complete()
    assert winners(g) == [2]             # leading


def test_faces_at_rank_option():
    # J Q K count 11 12 13: 2 + K = 15 pegs 2; with faces 10 it would be 12.
    g = play(mh, 2, plays((0, "2"), (1, "K")), mh.OPT_FACES_RANK)
    assert totals(g) == [0, 2]
    g = play(mh, 2, plays((0, "2"), (1, "K")))
    assert totals(g) == [0, 0]
    assert mh.count(g.state) == 12


def test_first_to_fifty():
    # Two players, the same cards every hand (one pack: four 10s at most),
    # played legally: the player left of the dealer leads (dealer 0, 1, 0:
    # leaders 1, 0, 1); a new round starts left of the last player; a player
    # who can make 30 or less must play; a go only when neither can.
    # Player 0 holds 5 5 5 10 10, player 1 10 J Q K 10.
    # Led by player 1:
    #   1 10 (10), 0 5 (15: 0 pegs 2), 1 J (25: 1 pegs 2), 0 5 (30: 0 pegs 2);
    #   1 Q (10), 0 10 (20: 0 pegs 2), 1 K (30: 1 pegs 2);
    #   0 5 (5), 1 10 (15: 1 pegs 2), 0 10 (25: 0 pegs 2), no cards left: go, 0 pegs 1.
    #   Player 0: pegs 2 + 2 + 2 + 2 + 1 = 9, fifteens 5 5 5 10 10 = 7 * 2 = 14: 23.
    #   Player 1: pegs 2 + 2 + 2 = 6, fifteens 10 10 10 10 10: none: 6.
    led_by_1 = plays((1, "10"), (0, "5"), (1, "J"), (0, "5"),
                     (1, "Q"), (0, "10"), (1, "K"),
                     (0, "5"), (1, "10"), (0, "10"), "go") + [END]
    # Led by player 0:
    #   0 5 (5), 1 10 (15: 1 pegs 2), 0 10 (25: 0 pegs 2), 1 cannot (J Q K 10:
    #   35), 0 must: 5 (30: 0 pegs 2);
    #   1 J (10), 0 5 (15: 0 pegs 2), 1 Q (25: 1 pegs 2), 0 10 and 1 K, 10 would
    #   make 35: go, 1 pegs 1;
    #   0 10 (10), 1 K (20: 1 pegs 2), 0 has no card, 1 10 (30: 1 pegs 2).
    #   Player 0: pegs 2 + 2 + 2 = 6, fifteens 14: 20.
    #   Player 1: pegs 2 + 2 + 1 + 2 + 2 = 9, fifteens none: 9.
    led_by_0 = plays((0, "5"), (1, "10"), (0, "10"), (0, "5"),
                     (1, "J"), (0, "5"), (1, "Q"), "go",
                     (0, "10"), (1, "K"), (1, "10")) + [END]
    g = play(mh, 2, led_by_1)
    assert totals(g) == [23, 6]
    for event in led_by_0:
        g.apply(event)
    assert totals(g) == [23 + 20, 6 + 9]          # 43, 15
    assert not g.complete()
    for event in led_by_1:
        g.apply(event)
    assert totals(g) == [43 + 23, 15 + 6]         # 66, 21: first to 50, at the end of the hand
    assert g.complete()
    assert winners(g) == [0]
    refused(g, mh.pack_play(0, cards.parse("5")), "hand")


def test_impossible_plays_are_refused():
    g = play(mh, 2, plays((0, "10"), (1, "10"), (0, "5")))       # count 25
    msg = refused(g, mh.pack_play(1, cards.parse("6")), "plays")  # 31 > 30
    assert "31" in msg
    refused(g, mh.pack_play(2, cards.parse("A")), "plays")      # player 2 of 0..1
    refused(g, END, "plays")                                    # not all five played
    g = play(mh, 2, plays((0, "10H"), (1, "5")))
    refused(g, mh.pack_play(1, cards.parse("10H")), "plays")    # the same card twice
    g = play(mh, 3, plays((0, "7"), (1, "7"), (2, "7"), "go", (0, "7")))
    refused(g, mh.pack_play(1, cards.parse("7")), "plays")      # a fifth seven
    g = play(mh, 2, plays((0, "A"), (0, "A"), (0, "2"), (0, "2"), (0, "3")))
    refused(g, mh.pack_play(0, cards.parse("3")), "plays")      # a sixth card
    refused(g, 1 | 14 << 3, "plays")                            # rank 14: unknown card
    refused_new(mh, 1, 0, "players")
    refused_new(mh, 9, 0, "players")


def test_scoring_allocates_nothing():
    # then the next hand (A deals, B leads) begins: B 5, C 10 (15: C pegs 2)
    assert allocates_nothing(mh, 4, full_hand() + plays((1, "5"), (2, "10")), FIRST_DEALER)
