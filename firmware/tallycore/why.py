# STAND-IN for issue 34's core (wt34a-branch's tallycore/why.py replaces it on merge):
# the API of docs why-brief, each player's whole change given as one part of code 0.
from array import array

from tallycore import const

MAX_PARTS = const(24)
EVERYONE = const(255)


class Parts:
    def __init__(self):
        self.player = bytearray(MAX_PARTS)
        self.points = array("i", bytes(4 * MAX_PARTS))
        self.code = bytearray(MAX_PARTS)
        self.count = 0
        self.index = -1
        self.event = 0
        self.ended = False
        self.winners = 0

    def clear(self):
        self.count = 0
        self.ended = False
        self.winners = 0

    def add(self, player, points, code):
        i = self.count
        if i < MAX_PARTS:
            self.player[i] = player
            self.points[i] = points
            self.code[i] = code
            self.count = i + 1


def explain(game, index, parts):
    from tallycore.game import HELD_APPLY
    if index == game.n and game.held == HELD_APPLY:
        event = game.held_event
    elif 0 <= index < game.n:
        event = game.log[index]
    else:
        raise ValueError("why: no change %d; the game has %d" % (index + 1, game.n))
    parts.clear()
    parts.index = index
    rules = game.rules
    players = game.players
    state = game.scratch
    game._reset(state)
    for i in range(index):
        rules.apply(state, players, game.log[i])
    before = [rules.total(state, players, p) for p in range(players)]
    was_over = rules.complete(state, players)
    rules.apply(state, players, event)
    if not was_over and rules.complete(state, players):
        parts.ended = True
        parts.winners = rules.winners(state, players)
    for p in range(players):
        parts.add(p, rules.total(state, players, p) - before[p], 0)


def reasons(game):
    return __import__("tallycore.reasons." + game.rules.__name__.split(".")[-1], None, None, ["REASONS"]).REASONS


def lines(game, parts, names):
    table = reasons(game)
    out = []
    for i in range(parts.count):
        clause, words = table[parts.code[i]]
        out.append("%s %+d: %s (%s)" % (names[parts.player[i]], parts.points[i], words.decode(), clause.decode()))
    if parts.ended:
        out.append("the game is over (G4)")
    return out
