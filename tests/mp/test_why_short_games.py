# The reasons of the short games of Rummy to the Despised Nines under the
# MicroPython unix port (and CPython): a reason is composed on the board's own
# interpreter, and a hand scored with its reasons allocates nothing (the
# Parts' arrays are made once; apply without why is the heap_lock tests' of
# each game, test_games_*.py).
from mpfixtures import skip
import sys

from tallycore import cards, coronado, despised_nines, foozle, game, jaimy, most_count, rummy, sachem, why

MICRO = sys.implementation.name == "micropython"
NAMES = ["Ann", "Bob", "Cy"]


def played(name, players, events, options=0):
    g = game.Game()
    g.new(name, players, options)
    for event in events:
        g.apply(event)
    return g


def test_a_numero_hand_nobody_wins_in_words():
    # docs/rules.md G6: nobody had a card: no winner, nobody scores.
    g = played("numero", 3, [most_count.pack_count(p, 0, most_count.PACK) for p in range(3)] + [most_count.END])
    assert why.lines(g, why.explain(g, 3, why.Parts()), NAMES) == [
        "everyone 0: nobody had a card at the end: the hand has no winner (G6)"]


def test_rummy_in_words():
    # docs/rules.md RU2: Bob's 10 + 3 + 4 = 17 against him; Ann went out.
    events = [rummy.pack_card(1, cards.parse(text)) for text in ("10", "3", "4")] + [rummy.pack_out(0)]
    g = played("rummy", 2, events)
    assert why.lines(g, why.explain(g, 3, why.Parts()), NAMES) == [
        "Ann 0: went out, the first to play out all his cards: he wins the hand and scores nothing (RU2)",
        "Bob +17: his unplayed cards' total set down against him: ace 1, the pips their number, J 11, Q 12, K 13 "
        "(RU2)",
    ]


# (game, players, options, the events before, the event scored with its reasons)
HANDS = (
    ("rummy", 3, 0, [rummy.pack_card(1, cards.parse("K")), rummy.pack_card(2, cards.parse("2"))], rummy.pack_out(0)),
    ("coronado", 2, 0, [], coronado.pack_hand(coronado.REFUSED, 4)),
    ("foozle", 3, 0, [], foozle.pack_hand(1, 4, 2)),
    ("jaimy", 4, jaimy.OPT_PARTNERS, [], jaimy.pack_hand(jaimy.ALL, 1)),
    ("hoodoo", 3, 0, [], 2),
    ("numero", 3, 0, [most_count.pack_count(p, 9, most_count.PACK) for p in range(3)], most_count.END),
    ("quatro", 3, 0, [most_count.pack_count(p, 4 + p // 2, most_count.TRICKS) for p in range(3)], most_count.END),
    ("sachem", 3, 0, [], sachem.pack_hand(0, 1, None, 2)),
    ("doolittle", 3, 0, [0, 1, 2, 0, 1], 2),
    ("despised_nines", 3, 0, [], despised_nines.pack_hand([1, 0, 3])),
)


def test_a_hand_scored_with_its_reasons_allocates_nothing():
    if not MICRO:
        skip("needs micropython.heap_lock: runs in the MicroPython pass (tests/test_micropython_port.py)")
    import micropython
    parts = why.Parts()
    for name, players, options, before, event in HANDS:
        g = played(name, players, before, options)
        rules = g.rules
        state = g.scratch
        g.state_before(g.n, state)
        micropython.heap_lock()
        try:
            parts.clear()
            rules.apply(state, players, event, parts)
        finally:
            micropython.heap_unlock()
        assert parts.count > 0, name
        got = 0
        for p in range(players):
            got += parts.of(p)
        before_total = 0
        after_total = 0
        for p in range(players):
            before_total += g.total(p)
            after_total += rules.total(state, players, p)
        assert got == after_total - before_total, name
