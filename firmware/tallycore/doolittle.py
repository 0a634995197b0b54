# Doolittle: six cards each, no trumps; every trick counts AGAINST its taker
# by its place in the hand; one deal per player, smallest total wins.
# Rules: docs/rules.md DO (seed 002,
# "THE GAME OF DOOLITTLE" 4-5).
#
# Event encoding (a hand is a sequence, each a small int below 2**4):
#   trick   0..7: the player who took the next trick
#   END     8: closes the hand; it must hold exactly one trick per card dealt
#
# State: the shared layout of points.py, then
#   [20] cards dealt to each player (option; the text deals six)
#   [21] tricks taken so far in the hand in progress
# Options: bits 0-2 first dealer; bits 3-6 cards dealt to each player, 6 to
# 13 (0 = six, the text). Tricks after the sixth ("any further tricks") are
# what a larger deal makes possible.
from tallycore import const

from tallycore import points
from tallycore.steps import PLAYER, CONST, EMIT, DONE, FOLLOWING

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(8)   # six cards each: 8 * 6 = 48
STATE_SIZE = const(22)
VIEW = None            # the panel's screens for any short game
TARGET = const(0)        # one deal per player, smallest wins
END = const(8)
CARDS = const(6)
OPT_CARDS_SHIFT = const(3)
# docs/rules.md DO2: tricks 1, 2 -> 5; 3, 4 -> 10; 5 -> 20; 6 -> 30; more -> 10.
TRICK_POINTS = b"\x05\x05\x0a\x0a\x14\x1e"
_FURTHER_TRICK = const(10)

_CARDS = const(20)
_TAKEN = const(21)


# The board's own entry (tallypanel.entry, docs/display.md): the taker of
# each trick in order (an event each), DONE after the last, then END.
ENTRY = (
    (b"takers", PLAYER, 0, 0, 0, 0, EMIT, 0, None, 0, None, ((b"DONE", DONE, 1),)),
    (b"takers", CONST, 0, 0, -1, END, EMIT, FOLLOWING, None, 0, None, None),
)

def trick_points(trick):
    """Points against the taker of the given trick (1-based)."""
    if trick <= 6:
        return TRICK_POINTS[trick - 1]
    return _FURTHER_TRICK


def cards_dealt(options):
    cards = options >> OPT_CARDS_SHIFT
    return cards if cards else CARDS


def check_options(players, options, name):
    if options >> 7:
        raise ValueError("options: doolittle has first_dealer and cards")
    points.check_first_dealer(players, options)
    cards = cards_dealt(options)
    if cards < CARDS or cards > 13:
        raise ValueError("cards: must be 6 to 13 cards each")
    if cards * players > 52:
        raise ValueError("cards: %d players cannot each be dealt %d cards" % (players, cards))


def reset(state, players, options, variant):
    state[_CARDS] = cards_dealt(options)


def check(state, players, event):
    points.check_deal_left(state, players)
    cards = state[_CARDS]
    if event == END:
        if state[_TAKEN] != cards:
            raise ValueError("takers: %d tricks, but a hand of %d cards has %d" % (
                state[_TAKEN], cards, cards))
        return
    if event > END:
        raise ValueError("event: not a Doolittle trick")
    if event >= players:
        raise ValueError("takers: trick %d: player %d is out of range 0 to %d" % (
            state[_TAKEN] + 1, event, players - 1))
    if state[_TAKEN] >= cards:
        raise ValueError("takers: trick %d: a hand of %d cards has %d tricks" % (
            state[_TAKEN] + 1, cards, cards))


# The reasons a score is given (tallycore.why): the codes that key the table of
# tallycore/reasons/doolittle.py, which holds each one's clause and words:
# the hand closed, then a trick by its place (the first to the sixth, then
# any further one).
_EVERYONE = const(255)      # tallycore.why.EVERYONE
_R_END = const(0)
_R_TRICK = const(1)
_R_FURTHER = const(7)


def apply(state, players, event, why=None):
    if event == END:
        state[_TAKEN] = 0
        points.end_hand(state)
        if why is not None:
            why.add(_EVERYONE, 0, _R_END)   # docs/rules.md DO2: each trick counted as taken
        return
    trick = state[_TAKEN] + 1
    state[_TAKEN] = trick
    # docs/rules.md DO2: "counted against the players taking the tricks".
    amount = TRICK_POINTS[trick - 1] if trick <= 6 else _FURTHER_TRICK
    points.add(state, event, amount)
    if why is not None:
        why.add(event, amount, _R_TRICK + trick - 1 if trick <= 6 else _R_FURTHER)


def taken(state):
    return state[_TAKEN]


total = points.player_total
hands = points.hands


def ends_hand(event):
    return event == END


complete = points.complete_dealt  # each deals in turn
winners = points.winners_lowest  # smallest wins
LOW_WINS = True  # the hand's best is its fewest points (docs/rules.md CF2)


# The wire of this game (tallycore.game explains the declarations): no verb
# of its own (a host sends EV with the packed event), and its event's layout.
VERBS = ()
OPTION_FIELDS = (points.DEALER_OPTION, (b"cards", 3, 4, 0, 13, b"", 0, "cards dealt to each player, 6 to 13; 0 six (the text)"),)
EVENT_FORMS = (
    (b"end", 0xF, END, (), "closes the hand: exactly one trick per card dealt", 1),
    (b"trick", 0x8, 0, ((b"player", 0, 3, 0, 7, b"player", 0, "who took the next trick"),),
     "the next trick of the hand", 0),
)
