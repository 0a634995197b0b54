# STAND-IN for issue 34's core (wt34a-branch's tallycore/why.py replaces it on merge):
# the API of docs why-brief, each player's whole change given as one part of code 0.
from array import array

from tallycore import const

MAX_PARTS = const(8)


class Parts:
    def __init__(self):
        self.player = bytearray(MAX_PARTS)
        self.points = array("i", bytes(4 * MAX_PARTS))
        self.code = bytearray(MAX_PARTS)
        self.count = 0

    def clear(self):
        self.count = 0

    def add(self, player, points, code):
        i = self.count
        if i < MAX_PARTS:
            self.player[i] = player
            self.points[i] = points
            self.code[i] = code
            self.count = i + 1


def explain(game, index, parts):
    parts.clear()
    rules = game.rules
    players = game.players
    state = game.scratch
    game._reset(state)
    for i in range(index):
        rules.apply(state, players, game.log[i])
    before = [rules.total(state, players, p) for p in range(players)]
    rules.apply(state, players, game.log[index])
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
    return out
