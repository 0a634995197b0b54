# Why a score is what it is: the parts of one event's score, each under the
# clause of the rule book that gives it (issue 34).
#
# The reason comes from the rules that score: a rules module's
# apply(state, players, event, why=None) (and the helpers it calls) adds a
# part, why.add(player, points, code), at each scoring branch when why is a
# Parts, and does nothing more when it is None (the board's hot path: no
# allocation, one test per branch). A code is a small int of the rules
# module, the key of a row of its reason table: tallycore/reasons/<module>.py
# holds REASONS = ((code, clause, words), ...), loaded only when a reason is
# composed and let go after, so the words cost no heap while a game is
# scored.
#
# explain(game, index, parts) rebuilds the state before event index of the
# game's log (Game.state_before: the engine's own replay from a checkpoint,
# as undo does) and applies the event again to that scratch state with
# parts; lines(game, parts, names) composes the words. A part's player may
# be EVERYONE (a misdeal or an event that scores nobody anything: 0 points).
# When the event ends the game, parts.ended is set and parts.winners holds
# the rules' winners() (docs/rules.md G4, G5): lines() says so in a line of
# its own, several winners as a tie unless the rules' in_sides(state) (where
# a rules module has it) says the players play in sides.
import sys

from tallycore import const

MAX_PARTS = const(32)     # Bishops Whist gives up to 24 (each side's five parts on both partners, the end on all four)
EVERYONE = const(255)     # a part of nobody's in particular: every player gets its 0 points
_MICRO = sys.implementation.name == "micropython"


class Parts:
    """The parts of one event's score: parallel arrays of count entries
    (player, points, code). Preallocated; add() allocates nothing."""

    def __init__(self):
        from tallycore import array
        self.player = bytearray(MAX_PARTS)
        self.points = array("i", bytes(4 * MAX_PARTS))
        self.code = bytearray(MAX_PARTS)
        self.count = 0
        self.index = -1     # the event explained (0-based in the log; the log's length: the held one)
        self.event = 0
        self.ended = False  # the event ends the game (docs/rules.md G4)
        self.winners = 0    # then: the winners, bit p for player p (G5)

    def clear(self):
        self.count = 0
        self.ended = False
        self.winners = 0

    def add(self, player, points, code):
        n = self.count
        if n >= MAX_PARTS:
            raise ValueError("why: more than %d parts in one event" % MAX_PARTS)
        self.player[n] = player
        self.points[n] = points
        self.code[n] = code
        self.count = n + 1

    def of(self, player):
        """The points the parts give one player (EVERYONE's parts are 0)."""
        got = 0
        for i in range(self.count):
            if self.player[i] == player:
                got += self.points[i]
        return got


def reasons(game):
    """The reason table (REASONS) of a game's rules module, given the game's
    index, name or tallycore.game.Game. Raises ValueError for a game whose
    rules give no reasons yet."""
    from tallycore import games
    row = games.GAMES[_index(game)]
    dotted = "tallycore.reasons." + row[3]
    try:
        __import__(dotted)
    except ImportError:
        raise ValueError("why: %s does not explain its scores yet; the rule book says how it scores" % row[0])
    return sys.modules[dotted].REASONS


def reason(table, code):
    """The (clause, words) of a reason code in a reason table (REASONS)."""
    for row in table:
        if row[0] == code:
            return row[1], row[2]
    raise ValueError("why: no reason %d" % code)


def _index(game):
    if isinstance(game, (int, str)):
        from tallycore import games
        return games.find(game)
    return game.index


def release(game):
    """Let the game's reason table go (on the board: its words leave the heap)."""
    if _MICRO:
        from tallycore import games
        games.unload("tallycore.reasons." + games.GAMES[_index(game)][3])


def explain(game, index, parts):
    """Fill parts with the reason of event index (0-based) of game's log; index
    game.n with a change held for its confirmation (HELD_APPLY) explains the
    held event. Uses game.scratch. Raises ValueError for an index with no
    event or a game whose rules give no reasons."""
    if game.rules is None:
        raise ValueError("why: no game in progress; start one first")
    from tallycore.game import HELD_APPLY
    if index == game.n and game.held == HELD_APPLY:
        event = game.held_event
    elif 0 <= index < game.n:
        event = game.log[index]
    elif game.n == 0:
        raise ValueError("why: nothing is scored yet; enter a hand first")
    else:
        raise ValueError("why: no change %d; ask for one of 1 to %d" % (index + 1, game.n))
    reasons(game)   # refuses a game without its table before anything is replayed
    release(game)
    state = game.scratch
    game.state_before(index, state)
    rules = game.rules
    players = game.players
    was_over = rules.complete(state, players)
    parts.clear()
    parts.index = index
    parts.event = event
    rules.apply(state, players, event, parts)
    if not was_over and rules.complete(state, players):
        parts.ended = True
        parts.winners = rules.winners(state, players)
    return parts


def _name(names, player):
    if names is not None and player < len(names):
        return names[player]
    return "P%d" % (player + 1)


def _joined(words):
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def lines(game, parts, names=None):
    """The reason as lines of words, one per points and clause: players who
    got the same points under the same code are joined with "and". names:
    the players' names (None: P1, P2, ...)."""
    table = reasons(game)
    out = []
    done = bytearray(parts.count)
    for i in range(parts.count):
        if done[i]:
            continue
        who = []
        for j in range(i, parts.count):
            if not done[j] and parts.code[j] == parts.code[i] and parts.points[j] == parts.points[i]:
                done[j] = 1
                if parts.player[j] == EVERYONE:
                    who.append("everyone")
                else:
                    who.append(_name(names, parts.player[j]))
        points = parts.points[i]
        clause, words = reason(table, parts.code[i])
        shown = ("+%d" % points) if points > 0 else str(points)
        out.append("%s %s: %s (%s)" % (_joined(who), shown, words.decode(), clause.decode()))
    if parts.ended:
        best = [_name(names, p) for p in range(game.players) if parts.winners >> p & 1]
        in_sides = getattr(game.rules, "in_sides", None)
        if len(best) == 1:
            out.append("the game is over (G4): %s wins (G5)" % best[0])
        elif best and in_sides is not None and in_sides(game.state):
            out.append("the game is over (G4): %s win (G5)" % _joined(best))   # a side
        elif best:
            out.append("the game is over (G4): %s tie and win (G5)" % _joined(best))
        else:
            out.append("the game is over (G4)")
    release(game)
    return out
