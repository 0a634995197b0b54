# The Despised Nines: sixes up (36 cards), no trumps; each nine taken counts
# 4 points against the taker; one deal per player, lowest total wins.
# Rules: docs/rules.md DN (seed 002, "The Despised Nines").
#
# Event encoding (one hand, a small int below 2**27): HAND_FIELDS below,
# the nines each player took (the four nines of the pack at most) and the
# number of players less one (the counts cover every player).
#
# State: the shared layout of points.py. Options: bits 0-2 first dealer.
from tallycore import const

from tallycore import layout, points
from tallycore.layout import HI, LO, SHIFT, WIDTH
from tallycore.steps import NUMBER, PLAYERS, EACH, EMIT, FOLLOWING

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(8)   # 36 cards: four each for eight players
STATE_SIZE = const(20)
VIEW = None            # the panel's screens for any short game
TARGET = const(0)        # one deal per player, lowest wins
_NINE_POINTS = const(4)

# A hand's fields (tallycore.layout), its one layout
HAND_FIELDS = (
    (b"nines", 0, 3, 0, 4, b"", 1, "nines taken by each player (player p's at bit 3p)"),
    (b"players_less_one", 24, 3, 1, 7, b"", 0, "the number of players less one"),
)
_NINES = const(0)     # rows of HAND_FIELDS
_PLAYERS = const(1)


# The board's own entry (tallypanel.entry, docs/display.md): the nines each
# player took, and the players less one, into their fields.
ENTRY = (
    (b"nines", NUMBER, HAND_FIELDS[_NINES][LO], HAND_FIELDS[_NINES][HI], HAND_FIELDS[_NINES][SHIFT], 0, EACH,
     FOLLOWING, None, HAND_FIELDS[_NINES][WIDTH], None, None),
    (b"nines", PLAYERS, 0, 0, HAND_FIELDS[_PLAYERS][SHIFT], 0, EMIT, FOLLOWING, None, 0, None, None),
)

def pack_hand(nines):
    event = 0
    if len(nines) < 1 or len(nines) > 8:
        raise ValueError("nines: one count per player")
    for p in range(len(nines)):
        event |= layout.checked(HAND_FIELDS[_NINES], nines[p], "nines: a player takes 0 to 4 nines", p)
    return event | layout.put(HAND_FIELDS[_PLAYERS], len(nines) - 1)


def nines_of(event, player):
    return layout.get(event, HAND_FIELDS[_NINES], player)


def players_of(event):
    return layout.get(event, HAND_FIELDS[_PLAYERS]) + 1


def check_options(players, options, name):
    points.check_dealer_only(name, players, options)


reset = points.reset_nothing


def check(state, players, event):
    points.check_deal_left(state, players)
    at = layout.offset(HAND_FIELDS[_PLAYERS], 0)
    # the players' field says how many, and no nines are counted beyond them
    if event >> at != players - 1:
        raise ValueError("players_less_one: must be %d, the number of players less one" % (players - 1))
    if (event & ((1 << at) - 1)) >> layout.offset(HAND_FIELDS[_NINES], players):
        raise ValueError("nines: one count per player")
    taken = 0
    for p in range(players):
        taken += nines_of(event, p)
    # The pack has four nines.
    if taken > 4:
        raise ValueError("nines: only four nines in the pack, not %d" % taken)


# The reasons a score is given (tallycore.why): the codes that key the table of
# tallycore/reasons/despised_nines.py, which holds each one's clause and words.
_R_NINES = const(0)
_R_NONE = const(1)


def apply(state, players, event, why=None):
    for p in range(players):
        # docs/rules.md DN2: each nine taken is 4 points against.
        nines = nines_of(event, p)
        points.add(state, p, _NINE_POINTS * nines)
        if why is not None:
            why.add(p, _NINE_POINTS * nines, _R_NINES if nines else _R_NONE)
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
    (b"hand", 0, 0, HAND_FIELDS, "one hand", 1),
)
