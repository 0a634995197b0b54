# Jaimy: five cards, each for himself (or partners with 4 or 6 players);
# three tricks may be claimed for 3, all five score 7; first to 21.
# Rules: docs/rules.md JA (seed 002, "JAIMY").
#
# Event encoding (one hand, a small int below 2**5): HAND_FIELDS below
#
# Partnerships (option, 4 or 6 players only): two sides sitting alternately,
# players 0, 2, 4 against 1, 3, 5 ("two or three to each side"). A side's
# points go to every partner, so total(p) is p's side total and winners()
# names every partner of the winning side.
#
# State: the shared layout of points.py.
# Options: bits 0-2 first dealer; bit 3 partnerships.
from tallycore import const

from tallycore import layout, points
from tallycore.layout import SHIFT
from tallycore.steps import PLAYER, CHOOSE, CONST, EMIT, FOLLOWING

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(8)   # five cards each and a turned trump: 8 * 5 + 1 = 41
STATE_SIZE = const(21)
VIEW = None            # the panel's screens for any short game
TARGET = const(21)
OPT_PARTNERS = const(8)

NOBODY_SCORED = const(0)
CLAIMED = const(1)
ALL = const(2)
_CLAIM_POINTS = const(3)
_ALL_POINTS = const(7)

_OPTIONS = const(20)  # points.HAND: the options, for partnerships

# A hand's fields (tallycore.layout), its one layout
HAND_FIELDS = (
    (b"kind", 0, 2, 0, 2, b"", 0, "0 nobody scored, 1 claimed (stopped with three tricks), 2 took all five"),
    (b"player", 2, 3, 0, 7, b"player", 0, "who claimed or took all five (0 when nobody)"),
)
_KIND = const(0)     # rows of HAND_FIELDS
_PLAYER = const(1)


# The board's own entry (tallypanel.entry, docs/display.md): how the hand
# was scored (nobody, claimed three tricks, took all five), then who did
# it, left out when nobody scored.
ENTRY = (
    (b"scored", CHOOSE, 0, 0, HAND_FIELDS[_KIND][SHIFT], 0, 0, FOLLOWING, None, 0,
     (b"NOBODY", b"CLAIMED", b"ALL FIVE"), None),
    (b"player", PLAYER, 0, 0, HAND_FIELDS[_PLAYER][SHIFT], 0, 0, FOLLOWING, (0, NOBODY_SCORED), 0, None, None),
    (b"hand", CONST, 0, 0, -1, 0, EMIT, FOLLOWING, None, 0, None, None),
)

def pack_hand(kind, player=0):
    return (layout.checked(HAND_FIELDS[_KIND], kind, "hand: must be claimed, all or nobody")
            | layout.checked(HAND_FIELDS[_PLAYER], player, "player: must be a player index"))


def kind_of(event):
    return layout.get(event, HAND_FIELDS[_KIND])


def player_of(event):
    return layout.get(event, HAND_FIELDS[_PLAYER])


def check_options(players, options, name):
    if options >> 4:
        raise ValueError("options: jaimy has first_dealer and partners")
    points.check_first_dealer(players, options)
    if options & OPT_PARTNERS and players != 4 and players != 6:
        raise ValueError("partners: partnerships need 4 or 6 players")


def reset(state, players, options, variant):
    state[_OPTIONS] = options


def check(state, players, event):
    points.check_not_over(state, TARGET)
    if event >> layout.above(HAND_FIELDS[_PLAYER]) or kind_of(event) > ALL:
        raise ValueError("event: not a Jaimy hand")
    player = player_of(event)
    if kind_of(event) == NOBODY_SCORED:
        if player:
            raise ValueError("event: not a Jaimy hand")
    elif player >= players:
        raise ValueError("%s: player %d is out of range 0 to %d" % (
            "claimed" if kind_of(event) == CLAIMED else "all", player, players - 1))


# The reasons a score is given (tallycore.why): the codes that key the table of
# tallycore/reasons/jaimy.py, which holds each one's clause and words. The
# partners' codes follow the player's: _R_PARTNER later.
_EVERYONE = const(255)      # tallycore.why.EVERYONE
_R_NOBODY = const(0)
_R_CLAIMED = const(1)
_R_ALL = const(2)
_R_PARTNER = const(2)


def apply(state, players, event, why=None):
    kind = kind_of(event)
    if kind != NOBODY_SCORED:
        # docs/rules.md JA2: three tricks claimed count 3; all five score 7.
        amount = _CLAIM_POINTS if kind == CLAIMED else _ALL_POINTS
        code = _R_CLAIMED if kind == CLAIMED else _R_ALL
        player = player_of(event)
        if why is not None:
            why.add(player, amount, code)
        if state[_OPTIONS] & OPT_PARTNERS:
            # docs/rules.md JA3: a side's points go to each of its players.
            for p in range(player & 1, players, 2):
                points.add(state, p, amount)
                if why is not None and p != player:
                    why.add(p, amount, code + _R_PARTNER)
        else:
            points.add(state, player, amount)
    elif why is not None:
        why.add(_EVERYONE, 0, _R_NOBODY)   # docs/rules.md JA2: nobody scored
    points.end_hand(state)
    points.reach(state, players, TARGET)  # first to 21, at the end of the hand


def partners(state):
    return state[_OPTIONS] & OPT_PARTNERS != 0


# docs/rules.md JA3: with partners a side wins together (tallycore.why's words
# for the winners); one side scores a hand, so sides never tie at the end.
in_sides = partners


total = points.player_total
hands = points.hands
ends_hand = points.every_event
complete = points.complete_first_to
winners = points.winners_first_to


# The wire of this game (tallycore.game explains the declarations): no verb
# of its own (a host sends EV with the packed event), and its event's layout.
VERBS = ()
OPTION_FIELDS = (points.DEALER_OPTION, (b"partners", 3, 1, 0, 1, b"", 0, "1: partnerships, players 0, 2, 4 against 1, 3, 5 (4 or 6 players)"),)
EVENT_FORMS = (
    (b"hand", 0, 0, HAND_FIELDS, "one hand", 1),
)
