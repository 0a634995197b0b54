# Helpers for the short games' checks (test_games_*.py). Not a test module:
# run.py only imports files named test_*. MicroPython-compatible.
from mpfixtures import skip
import sys

from tallycore import game

MICRO = sys.implementation.name == "micropython"


def play(rules, players, events, options=0):
    """A new game with every event applied (each must be accepted); rules:
    the game as Game.new takes it (a name, or the rules module of one game)."""
    g = game.Game()
    g.new(rules, players, options)
    for event in events:
        g.apply(event)
    return g


def totals(g):
    return [g.total(p) for p in range(g.players)]


def winners(g):
    mask = g.winners()
    return [p for p in range(g.players) if mask >> p & 1]


def hand_scores(g, hand):
    out = [0] * g.players
    g.hand_scores(hand, out)
    return out


def refused(g, event, field):
    """event is refused with an error naming field, and the game is unchanged."""
    before = bytes(g.state)
    n = g.n
    try:
        g.apply(event)
    except ValueError as exc:
        assert str(exc).startswith(field + ":"), str(exc)
        assert bytes(g.state) == before, "a refused event changed the state"
        assert g.n == n
        return str(exc)
    raise AssertionError("accepted an impossible event; expected an error on " + field)


def refused_new(rules, players, options, field):
    g = game.Game()
    try:
        g.new(rules, players, options)
    except ValueError as exc:
        assert str(exc).startswith(field + ":"), str(exc)
        return
    raise AssertionError("accepted %d players / options %d for %s" % (players, options, rules))


def allocates_nothing(rules, players, events, options=0):
    """Apply, undo and redo every event with the heap locked (MicroPython only):
    a MemoryError here means the scoring path allocated."""
    if not MICRO:
        skip("needs micropython.heap_lock: runs in the MicroPython pass (tests/test_micropython_port.py)")
    import micropython
    from array import array
    g = game.Game()
    g.new(rules, players, options)
    log = array("i", events)
    count = len(events)
    micropython.heap_lock()
    try:
        for i in range(count):
            g.apply(log[i])
        g.undo()
        g.redo()
        for p in range(players):
            g.total(p)
        g.winners()
        g.complete()
    finally:
        micropython.heap_unlock()
    assert g.n == count
    return True
