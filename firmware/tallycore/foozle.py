# Foozle: any number (2 to 8), five cards, the highest bidder plays against
# all; first to 50. Rules: docs/rules.md FO
# (seed 002, "FOOZLE").
#
# Event encoding (one hand, a small int below 2**9): HAND_FIELDS below
#
# State: the shared layout of points.py. Options: bits 0-2 first dealer.
from tallycore import const

from tallycore import layout, points
from tallycore.layout import HI, LO, SHIFT
from tallycore.steps import PLAYER, NUMBER, EMIT, FOLLOWING

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(8)   # five cards each from one pack: 8 * 5 = 40
STATE_SIZE = const(20)
VIEW = None            # the panel's screens for any short game
TARGET = const(50)

# A hand's fields (tallycore.layout), its one layout
HAND_FIELDS = (
    (b"bidder", 0, 3, 0, 7, b"player", 0, "who won the bid"),
    (b"bid", 3, 3, 1, 5, b"", 0, "tricks bid"),
    (b"tricks", 6, 3, 0, 5, b"", 0, "tricks won by the bidder"),
)
_BIDDER = const(0)   # rows of HAND_FIELDS
_BID = const(1)
_TRICKS = const(2)


# The board's own entry (tallypanel.entry, docs/display.md): the record's
# bidder, bid and tricks, into their fields.
ENTRY = (
    (b"bidder", PLAYER, 0, 0, HAND_FIELDS[_BIDDER][SHIFT], 0, 0, FOLLOWING, None, 0, None, None),
    (b"bid", NUMBER, HAND_FIELDS[_BID][LO], HAND_FIELDS[_BID][HI], HAND_FIELDS[_BID][SHIFT], 0, 0, FOLLOWING, None, 0, None, None),
    (b"tricks", NUMBER, HAND_FIELDS[_TRICKS][LO], HAND_FIELDS[_TRICKS][HI], HAND_FIELDS[_TRICKS][SHIFT], 0, EMIT,
     FOLLOWING, None, 0, None, None),
)

def pack_hand(bidder, bid, tricks):
    return (layout.checked(HAND_FIELDS[_BIDDER], bidder, "bidder: must be a player index")
            | layout.checked(HAND_FIELDS[_BID], bid, "bid: must be 1 to 5 tricks")
            | layout.checked(HAND_FIELDS[_TRICKS], tricks, "tricks: must be 0 to 5"))


def bidder_of(event):
    return layout.get(event, HAND_FIELDS[_BIDDER])


def bid_of(event):
    return layout.get(event, HAND_FIELDS[_BID])


def tricks_of(event):
    return layout.get(event, HAND_FIELDS[_TRICKS])


def check_options(players, options, name):
    points.check_dealer_only(name, players, options)


reset = points.reset_nothing


def check(state, players, event):
    points.check_not_over(state, TARGET)
    if event >> layout.above(HAND_FIELDS[_TRICKS]):
        raise ValueError("event: not a Foozle hand")
    if bidder_of(event) >= players:
        raise ValueError("bidder: player %d is out of range 0 to %d" % (bidder_of(event), players - 1))
    bid = bid_of(event)
    # docs/rules.md FO2: bids of 1 to 5 tricks ("five of course being the highest").
    if bid < 1 or bid > 5:
        raise ValueError("bid: must be 1 to 5 tricks")
    if tricks_of(event) > 5:
        raise ValueError("tricks: must be 0 to 5")


# The reasons a score is given (tallycore.why): the codes that key the table of
# tallycore/reasons/foozle.py, which holds each one's clause and words.
_R_MADE = const(0)
_R_FAILED = const(1)
_R_DEFENDED = const(2)


def apply(state, players, event, why=None):
    bidder = bidder_of(event)
    bid = bid_of(event)
    if tricks_of(event) >= bid:
        # docs/rules.md FO3: made: bid x number of opponents, no more for overtricks.
        points.add(state, bidder, bid * (players - 1))
        if why is not None:
            why.add(bidder, bid * (players - 1), _R_MADE)
    else:
        # docs/rules.md FO4: failed: each opponent scores the bid.
        if why is not None:
            why.add(bidder, 0, _R_FAILED)
        for p in range(players):
            if p != bidder:
                points.add(state, p, bid)
                if why is not None:
                    why.add(p, bid, _R_DEFENDED)
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
