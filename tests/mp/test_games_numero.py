# Numero and Quatro (one rule, tallycore/most_count.py, capped at the pack
# or at thirteen tricks): no points, most cards (Numero) or most tricks of
# four (Quatro) wins the hand; over one deal per player Numero counts hands
# won (docs/rules.md NU3) and Quatro adds up the tricks (QU3), or counts hands
# won with the option hands_won.
from tallycore import most_count
from tallycore.most_count import END, OPT_HANDS_WON, PACK, TRICKS
from shortgames import allocates_nothing, hand_scores, play, refused, refused_new, totals, winners

numero = "numero"
quatro = "quatro"
_CAPS = {numero: PACK, quatro: TRICKS}


def pack_count(rules, player, count):
    return most_count.pack_count(player, count, _CAPS[rules])


def counts(rules, values):
    return [pack_count(rules, p, v) for p, v in enumerate(values)] + [END]


def test_numero_most_cards_wins_the_hand():
    # RECORDS.md's hand: cards 20, 12, 0, 20 (20 + 12 + 0 + 20 = 52): players 0
    # and 3 tie on most cards and each win it.
    g = play(numero, 4, counts(numero, [20, 12, 0, 20]))
    assert totals(g) == [1, 0, 0, 1]
    # Hand 2: 10, 30, 12, 0: player 1 alone; hands won 1, 1, 0, 1.
    g.apply(pack_count(numero, 0, 10))
    g.apply(pack_count(numero, 1, 30))
    g.apply(pack_count(numero, 2, 12))
    g.apply(pack_count(numero, 3, 0))
    g.apply(END)
    assert totals(g) == [1, 1, 0, 1]
    assert g.hands() == 2 and not g.complete()


def test_numero_impossible_hands():
    g = play(numero, 3, [pack_count(numero, 0, 30), pack_count(numero, 1, 20)])
    refused(g, END, "cards")                           # player 2 not counted
    refused(g, pack_count(numero, 0, 5), "cards")      # counted twice
    g.apply(pack_count(numero, 2, 3))                  # 30 + 20 + 3 = 53 > 52
    refused(g, END, "cards")
    refused(g, pack_count(numero, 3, 1), "cards")      # player 3 of 0..2 (refused before)


def test_quatro_totals_are_tricks():
    # RECORDS.md's hand: 3, 5, 5 (3 + 5 + 5 = 13): the totals are the tricks.
    g = play(quatro, 3, counts(quatro, [3, 5, 5]))
    assert totals(g) == [3, 5, 5]
    assert hand_scores(g, 0) == [3, 5, 5]
    assert winners(g) == [1, 2]                        # tied on 5
    # The sample: 6, 5, 2 / 7, 0, 6 / 1, 12, 0: Ann 6 + 7 + 1 = 14,
    # Bob 5 + 0 + 12 = 17, Cy 2 + 6 + 0 = 8; Bob has most tricks (he won one
    # hand to Ann's two).
    g = play(quatro, 3, counts(quatro, [6, 5, 2]) + counts(quatro, [7, 0, 6]) + counts(quatro, [1, 12, 0]))
    assert totals(g) == [14, 17, 8]
    assert g.complete()
    assert winners(g) == [1]


def test_quatro_five_five_nothing_ranks_below_four_each_time():
    # The case, four players (each hand 13 tricks):
    #   hand 1: 5, 4, 2, 2   hand 2: 5, 4, 2, 2   hand 3: 0, 4, 5, 4
    #   hand 4: 1, 4, 4, 4
    # tricks: 5 + 5 + 0 + 1 = 11, 4 * 4 = 16, 2 + 2 + 5 + 4 = 13, 2 + 2 + 4 + 4 = 12:
    # player 1 (four each time) has most.
    hands = [[5, 4, 2, 2], [5, 4, 2, 2], [0, 4, 5, 4], [1, 4, 4, 4]]
    events = []
    for h in hands:
        events += counts(quatro, h)
    g = play(quatro, 4, events)
    assert totals(g) == [11, 16, 13, 12]
    assert g.complete() and winners(g) == [1]
    # hands_won: hand 1 and 2 to player 0, hand 3 to player 2, hand 4 tied
    # by 1, 2 and 3: 2, 1, 1 + 1 = 2, 1: players 0 and 2 tie.
    g = play(quatro, 4, events, OPT_HANDS_WON)
    assert totals(g) == [2, 1, 2, 1]
    assert g.complete() and winners(g) == [0, 2]
    assert hand_scores(g, 3) == [0, 1, 1, 1]
    # undo back into hand 4 and redo: the same totals
    g.undo()
    assert totals(g) == [2, 0, 1, 0]
    g.redo()
    assert totals(g) == [2, 1, 2, 1]


def test_quatro_options_and_impossible_hands():
    g = play(quatro, 3, [pack_count(quatro, 0, 3), pack_count(quatro, 1, 5), pack_count(quatro, 2, 4)])
    msg = refused(g, END, "tricks")                    # 3 + 5 + 4 = 12
    assert "13" in msg
    refused(g, pack_count(quatro, 1, 1), "tricks")     # counted twice
    refused(play(quatro, 2, []), 0 | 14 << 3, "tricks")  # 14 tricks
    refused_new(quatro, 9, 0, "players")
    refused_new(quatro, 3, 16, "options")              # no bit 4
    refused_new(quatro, 3, 3 | OPT_HANDS_WON, "first_dealer")  # player 3 of 0..2
    # hands_won is Quatro's: Numero always counts hands won (docs/rules.md NU3)
    refused_new(numero, 3, OPT_HANDS_WON, "options")


def test_scoring_allocates_nothing():
    assert allocates_nothing(numero, 4, counts(numero, [20, 12, 0, 20]))
    assert allocates_nothing(quatro, 3, counts(quatro, [3, 5, 5]))
    assert allocates_nothing(quatro, 3, counts(quatro, [3, 5, 5]), OPT_HANDS_WON)
