# The Despised Nines: sixes up (36 cards), no trumps; each nine taken counts
# 4 points against the taker; one deal per player, lowest total wins.
# Rules: docs/rules.md DN (seed 002, "The Despised Nines").
#
# Event encoding (one hand, a small int below 2**27): nines taken by player
# p in bits 3p..3p+2 (0..4 each; the four nines of the pack at most), and the
# number of players less one in bits 24-26 (the counts cover every player).
#
# State: the shared layout of points.py. Options: bits 0-2 first dealer.
from tallycore import const

from tallycore import points
from tallycore.steps import NUMBER, PLAYERS, EACH, EMIT, FOLLOWING

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(8)   # 36 cards: four each for eight players
STATE_SIZE = const(20)
VIEW = None            # the panel's screens for any short game
TARGET = const(0)        # one deal per player, lowest wins
_NINE_POINTS = const(4)


# The board's own entry (tallypanel.entry, docs/display.md): the nines each
# player took, at bits 3p..3p+2, and the players less one at bits 24-26.
ENTRY = (
    (b"nines", NUMBER, 0, 4, 0, 0, EACH, FOLLOWING, None, 3, None, None),
    (b"nines", PLAYERS, 0, 0, 24, 0, EMIT, FOLLOWING, None, 0, None, None),
)

def pack_hand(nines):
    event = 0
    if len(nines) < 1 or len(nines) > 8:
        raise ValueError("nines: one count per player")
    for p in range(len(nines)):
        if nines[p] < 0 or nines[p] > 4:
            raise ValueError("nines: a player takes 0 to 4 nines")
        event |= nines[p] << (3 * p)
    return event | (len(nines) - 1) << 24


def nines_of(event, player):
    return (event >> (3 * player)) & 7


def players_of(event):
    return (event >> 24) + 1


def check_options(players, options, name):
    points.check_dealer_only(name, players, options)


reset = points.reset_nothing


def check(state, players, event):
    points.check_deal_left(state, players)
    if event >> 24 != players - 1:
        raise ValueError("players_less_one: must be %d, the number of players less one" % (players - 1))
    if (event & 0xFFFFFF) >> (3 * players):
        raise ValueError("nines: one count per player")
    taken = 0
    for p in range(players):
        taken += (event >> (3 * p)) & 7
    # The pack has four nines.
    if taken > 4:
        raise ValueError("nines: only four nines in the pack, not %d" % taken)


def apply(state, players, event):
    for p in range(players):
        # docs/rules.md DN2: each nine taken is 4 points against.
        points.add(state, p, _NINE_POINTS * ((event >> (3 * p)) & 7))
    points.end_hand(state)


total = points.player_total
hands = points.hands
ends_hand = points.every_event
# docs/rules.md DN3: one deal per player; lowest wins.
complete = points.complete_dealt
winners = points.winners_lowest
LOW_WINS = True  # the hand's best is its fewest points (docs/rules.md CF2)


# The wire of this game (tallycore.game explains the declarations): no verb
# of its own (a host sends EV with the packed event), and its event's layout.
VERBS = ()
OPTION_FIELDS = (points.DEALER_OPTION,)
EVENT_FORMS = (
    (b"hand", 0, 0, (
        (b"nines", 0, 3, 0, 4, b"", 1, "nines taken by each player (player p's at bit 3p)"),
        (b"players_less_one", 24, 3, 1, 7, b"", 0, "the number of players less one")),
     "one hand", 1),
)
