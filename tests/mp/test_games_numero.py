# Numero and Quatro (one rule, tallycore/most_count.py, capped at the pack
# or at thirteen tricks): no points, most cards (Numero) or most tricks of
# four (Quatro) wins the hand; the board counts hands won over one deal per
# player.
from tallycore import most_count
from tallycore.most_count import END, PACK, TRICKS
from shortgames import allocates_nothing, play, refused, refused_new, totals, winners

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


def test_quatro_most_tricks_wins_and_tricks_add_to_13():
    # RECORDS.md's hand: 3, 5, 5 (3 + 5 + 5 = 13): players 1 and 2 tie.
    g = play(quatro, 3, counts(quatro, [3, 5, 5]))
    assert totals(g) == [0, 1, 1]
    g = play(quatro, 3, counts(quatro, [6, 5, 2]) + counts(quatro, [7, 0, 6]) + counts(quatro, [1, 12, 0]))
    assert totals(g) == [2, 1, 0]
    assert g.complete()
    assert winners(g) == [0]
    g = play(quatro, 3, [pack_count(quatro, 0, 3), pack_count(quatro, 1, 5), pack_count(quatro, 2, 4)])
    msg = refused(g, END, "tricks")                    # 3 + 5 + 4 = 12
    assert "13" in msg
    refused(g, pack_count(quatro, 1, 1), "tricks")     # counted twice
    refused(play(quatro, 2, []), 0 | 14 << 3, "tricks")  # 14 tricks
    refused_new(quatro, 9, 0, "players")


def test_scoring_allocates_nothing():
    assert allocates_nothing(numero, 4, counts(numero, [20, 12, 0, 20]))
    assert allocates_nothing(quatro, 3, counts(quatro, [3, 5, 5]))
