# tallycore.why under the MicroPython unix port (and CPython): a reason is
# composed on the board's own interpreter, and giving it costs the scoring
# path nothing: apply without why allocates nothing, and Parts.add allocates
# nothing either (its arrays are made once).
from mpfixtures import skip
import sys

from tallycore import game, roquet, skicket, why

MICRO = sys.implementation.name == "micropython"


def test_the_issues_skicket_hand_in_words():
    # Cy (2) 2NT doubled by Bob (1), 7 tricks of the 8 it needs (SK2): A = 80,
    # Bob and Hal (3) 2A = 160 each, Cy nothing, Ann (0) 10 * 7 = 70 (SK9).
    g = game.Game()
    g.new("skicket", 4)
    g.apply(skicket.pack_hand(2, 2, skicket.NO_TRUMP, 1, None, False, 7))
    parts = why.explain(g, 0, why.Parts())
    assert [parts.of(p) for p in range(4)] == [70, 160, 0, 160]
    assert why.lines(g, parts, ["Ann", "Bob", "Cy", "Hal"]) == [
        "Bob and Hal +160: doubled, the purchaser failed: the doubler's side gets twice the bid (SK9)",
        "Cy 0: doubled, the purchaser failed: he scores nothing (SK9)",
        "Ann +70: partner of the loser: 10 for each trick the loser's side took (SK9)",
    ]


def test_parts_add_and_a_hand_scored_with_reasons_allocate_nothing():
    if not MICRO:
        skip("needs micropython.heap_lock: runs in the MicroPython pass (tests/test_micropython_port.py)")
    import micropython
    g = game.Game()
    g.new("skicket", 4)
    parts = why.Parts()
    event = skicket.pack_hand(2, 2, skicket.NO_TRUMP, 1, None, False, 7)
    state = g.scratch
    micropython.heap_lock()
    try:
        parts.clear()
        skicket.apply(state, 4, event, parts)
        g.state_before(0, state)
    finally:
        micropython.heap_unlock()
    assert parts.count == 4
    g.new("roquet", 2, roquet.OPT_LANDMARK_BONUS)
    g.state_before(0, state)   # the new game's first state
    peg = roquet.pack_peg(0, 46)
    micropython.heap_lock()
    try:
        parts.clear()
        roquet.apply(state, 2, peg, parts)
    finally:
        micropython.heap_unlock()
    # the count, 9 (31st hole), 10 (46th), the 15th hole first (RQ6, RQ8, RQ7)
    assert parts.count == 4 and parts.of(0) == 46 + 9 + 10
