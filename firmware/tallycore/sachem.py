# Sachem: six cards each, a trump turned; points to the capturer; first to 50.
# Rules: docs/rules.md SA (seed 002, "SACHEM" 5-6).
#
# Event encoding (one hand, a small int below 2**16): HAND_FIELDS below,
# four fields, each the player who captured that card, or 8 = nobody (no
# trump was played; the nine of trumps was not in play; nobody had most
# sevens and eights).
#
# State: the shared layout of points.py. Options: bits 0-2 first dealer.
from tallycore import const

from tallycore import layout, points
from tallycore.layout import SHIFT
from tallycore.steps import PLAYER, EMIT, OFFERS_NOBODY, FOLLOWING

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(8)   # six cards each and a turned trump: 8 * 6 + 1 = 49
STATE_SIZE = const(20)
VIEW = None            # the panel's screens for any short game
TARGET = const(50)
NO_CAPTOR = const(8)    # a field's captor when nobody captured its card
VALUES = b"\x03\x03\x09\x07"   # docs/rules.md SA2: 3, 3, 9, 7

# A hand's fields (tallycore.layout), its one layout
HAND_FIELDS = (
    (b"first_trump", 0, 4, 0, 8, b"player", 0, "who captured the first trump played (3 points); 8 nobody"),
    (b"last_trump", 4, 4, 0, 8, b"player", 0, "who captured the last trump played (3 points); 8 nobody"),
    (b"nine", 8, 4, 0, 8, b"player", 0, "who captured the nine of trumps (9 points); 8 nobody"),
    (b"sachem", 12, 4, 0, 8, b"player", 0, "who captured most sevens and eights (7 points); 8 nobody"),
)
FIELDS = tuple(layout.name(field) for field in HAND_FIELDS)   # the record's keys
_FIRST = const(0)    # rows of HAND_FIELDS
_LAST = const(1)
_NINE = const(2)
_SACHEM = const(3)


# The board's own entry (tallypanel.entry, docs/display.md): who captured
# each scoring card, or nobody (8), into its field.
ENTRY = (
    (b"first_trump", PLAYER, 0, NO_CAPTOR, HAND_FIELDS[_FIRST][SHIFT], 0, OFFERS_NOBODY, FOLLOWING, None, 0, None, None),
    (b"last_trump", PLAYER, 0, NO_CAPTOR, HAND_FIELDS[_LAST][SHIFT], 0, OFFERS_NOBODY, FOLLOWING, None, 0, None, None),
    (b"nine", PLAYER, 0, NO_CAPTOR, HAND_FIELDS[_NINE][SHIFT], 0, OFFERS_NOBODY, FOLLOWING, None, 0, None, None),
    (b"sachem", PLAYER, 0, NO_CAPTOR, HAND_FIELDS[_SACHEM][SHIFT], 0, OFFERS_NOBODY | EMIT, FOLLOWING, None, 0, None, None),
)

def pack_hand(first_trump, last_trump, nine, sachem):
    event = 0
    field = 0
    for who in (first_trump, last_trump, nine, sachem):
        if who is None:
            who = NO_CAPTOR
        elif who < 0 or who > 7:
            raise ValueError("%s: must be a player index or null" % FIELDS[field])
        event |= layout.put(HAND_FIELDS[field], who)
        field += 1
    return event


def captor(event, field):
    return layout.get(event, HAND_FIELDS[field])


def check_options(players, options, name):
    points.check_dealer_only(name, players, options)


reset = points.reset_nothing


def check(state, players, event):
    points.check_not_over(state, TARGET)
    if event >> layout.above(HAND_FIELDS[_SACHEM]):
        raise ValueError("event: not a Sachem hand")
    for field in range(4):
        who = captor(event, field)
        if who != NO_CAPTOR and who >= players:
            raise ValueError("%s: player %d is out of range 0 to %d" % (FIELDS[field], who, players - 1))
    # A first trump played means a last one (the same card if only one was).
    if (captor(event, _FIRST) == NO_CAPTOR) != (captor(event, _LAST) == NO_CAPTOR):
        raise ValueError("last_trump: first and last trump are both captured or both null")
    # The nine of trumps is a trump: if it was captured, a trump was played.
    if captor(event, _NINE) != NO_CAPTOR and captor(event, _FIRST) == NO_CAPTOR:
        raise ValueError("nine: the nine of trumps was captured, so a trump was played (first_trump is null)")


# The reasons a score is given (tallycore.why): the codes that key the table of
# tallycore/reasons/sachem.py, which holds each one's clause and words: a
# field's capture, then (_R_NOBODY later) its points going to nobody.
_EVERYONE = const(255)      # tallycore.why.EVERYONE
_R_NOBODY = const(4)


def apply(state, players, event, why=None):
    for field in range(4):
        who = captor(event, field)
        # docs/rules.md SA2: the points go to the captor; nobody's to nobody
        if who != NO_CAPTOR:
            points.add(state, who, VALUES[field])
            if why is not None:
                why.add(who, VALUES[field], field)
        elif why is not None:
            why.add(_EVERYONE, 0, field + _R_NOBODY)
    points.end_hand(state)
    points.reach(state, players, TARGET)  # first to 50, at the end of the hand


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
