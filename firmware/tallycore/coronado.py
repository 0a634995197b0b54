# Coronado: two players, sixes up, five tricks, first to 7.
# Rules: docs/rules.md CO (seed 002, "CORONADO").
#
# The dealer alternates, player 0 first (option first_dealer). Every hand is
# scored for the dealer's opponent's play, by how he played it:
#   stand    he played without drawing (paragraph 4)
#   refused  he asked for cards and the dealer refused (paragraph 5)
#   drew     he asked for cards and got them (paragraphs 6, 9)
#
# Event encoding (one hand, a small int below 2**5): HAND_FIELDS below
#
# State: the shared layout of points.py (hands, game over, totals).
# Options: bits 0-2 first dealer (0 or 1).
from tallycore import const

from tallycore import layout, points
from tallycore.layout import HI, LO, SHIFT
from tallycore.steps import NUMBER, CHOOSE, EMIT, FOLLOWING

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(2)
STATE_SIZE = const(21)
VIEW = None            # the panel's screens for any short game
TARGET = const(7)

STAND = const(0)
REFUSED = const(1)
DREW = const(2)
MODES = ("stand", "refused", "drew")

# A hand's fields (tallycore.layout), its one layout
HAND_FIELDS = (
    (b"mode", 0, 2, 0, 2, b"", 0, "0 stand, 1 refused, 2 drew"),
    (b"tricks", 2, 3, 0, 5, b"", 0, "tricks won by the dealer's opponent"),
)
_MODE = const(0)     # rows of HAND_FIELDS
_TRICKS = const(1)


# The board's own entry (tallypanel.entry, docs/display.md): the record's
# mode and tricks, into their fields.
ENTRY = (
    (b"mode", CHOOSE, 0, 0, HAND_FIELDS[_MODE][SHIFT], 0, 0, FOLLOWING, None, 0, (b"STAND", b"REFUSED", b"DREW"),
     None),
    (b"tricks", NUMBER, HAND_FIELDS[_TRICKS][LO], HAND_FIELDS[_TRICKS][HI], HAND_FIELDS[_TRICKS][SHIFT], 0, EMIT,
     FOLLOWING, None, 0, None, None),
)

def pack_hand(mode, tricks):
    return (layout.checked(HAND_FIELDS[_MODE], mode, "mode: must be stand, refused or drew")
            | layout.checked(HAND_FIELDS[_TRICKS], tricks, "tricks: must be 0 to 5"))


def mode_of(event):
    return layout.get(event, HAND_FIELDS[_MODE])


def tricks_of(event):
    return layout.get(event, HAND_FIELDS[_TRICKS])


def check_options(players, options, name):
    points.check_dealer_only(name, players, options)


def reset(state, players, options, variant):
    state[points.HAND] = options  # kept for dealer()


def dealer(state, hand):
    """The dealer of hand (0-based): the deal alternates."""
    return (state[points.HAND] + hand) & 1


def check(state, players, event):
    points.check_not_over(state, TARGET)
    if event >> layout.above(HAND_FIELDS[_TRICKS]) or mode_of(event) > DREW:
        raise ValueError("mode: must be stand, refused or drew")
    if tricks_of(event) > 5:
        raise ValueError("tricks: must be 0 to 5")


# The reasons a score is given (tallycore.why): the codes that key the table of
# tallycore/reasons/coronado.py, which holds each one's clause and words. A
# scorer's code for all five tricks is the next after his code for three; the
# code of the player who failed to take three is the next after his scorer's.
_R_STOOD = const(0)
_R_STOOD_FAILED = const(2)
_R_REFUSED_FAILED = const(4)
_R_REFUSED_MADE = const(6)
_R_DREW = const(8)


def apply(state, players, event, why=None):
    hand = points.hands(state)
    mode = mode_of(event)
    tricks = tricks_of(event)
    dealer_player = (state[points.HAND] + hand) & 1
    # docs/rules.md CO2 to CO4: three or four tricks count 1, all five 2 (the
    # tricks are the opponent's: none is all five to the dealer)
    amount = 2 if tricks == 5 or tricks == 0 else 1
    if mode == STAND:
        # docs/rules.md CO2: standing, he must take three tricks or the dealer scores 2.
        if tricks < 3:
            scorer = dealer_player
            amount = 2
            code = _R_STOOD_FAILED
        else:
            scorer = 1 - dealer_player
            code = _R_STOOD
    elif mode == REFUSED and tricks >= 3:
        # docs/rules.md CO3: the dealer refused and did not take three: opponent 2.
        scorer = 1 - dealer_player
        amount = 2
        code = _R_REFUSED_FAILED
    else:
        # docs/rules.md CO4 (and CO3 when the dealer took three): three tricks
        # of five count 1, all five 2, to whoever takes them.
        scorer = 1 - dealer_player if tricks >= 3 else dealer_player
        code = _R_DREW if mode == DREW else _R_REFUSED_MADE
    points.add(state, scorer, amount)
    if why is not None:
        if code == _R_STOOD_FAILED or code == _R_REFUSED_FAILED:
            why.add(scorer, amount, code)
            why.add(1 - scorer, 0, code + 1)   # the one bound to three tricks
        else:
            why.add(scorer, amount, code + amount - 1)
    points.end_hand(state)
    # docs/rules.md CO5: first to 7 wins (checked at the end of the hand).
    points.reach(state, 2, TARGET)


total = points.player_total
hands = points.hands
ends_hand = points.every_event
complete = points.complete_first_to
winners = points.winners_first_to


# The wire of this game (tallycore.game explains the declarations): no verb
# of its own (a host sends EV with the packed event), and its event's layout.
VERBS = ()
OPTION_FIELDS = (points.DEALER_OPTION,)
EVENT_FORMS = (
    (b"hand", 0, 0, HAND_FIELDS, "one hand", 1),
)
