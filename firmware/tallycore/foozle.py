# Foozle: any number (2 to 8), five cards, the highest bidder plays against
# all; first to 50. Rules: docs/rules.md FO
# (seed 002, "FOOZLE").
#
# Event encoding (one hand, a small int below 2**9):
#   bits 0-2  bidder  player index
#   bits 3-5  bid     1..5 tricks
#   bits 6-8  tricks  0..5 won by the bidder
#
# State: the shared layout of points.py. Options: bits 0-2 first dealer.
from tallycore import const

from tallycore import points
from tallycore.steps import PLAYER, NUMBER, EMIT, FOLLOWING

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(8)   # five cards each from one pack: 8 * 5 = 40
STATE_SIZE = const(20)
VIEW = None            # the panel's screens for any short game
TARGET = const(50)


# The board's own entry (tallypanel.entry, docs/display.md): the record's
# bidder, bid and tricks, into bits 0-2, 3-5 and 6-8.
ENTRY = (
    (b"bidder", PLAYER, 0, 0, 0, 0, 0, FOLLOWING, None, 0, None, None),
    (b"bid", NUMBER, 1, 5, 3, 0, 0, FOLLOWING, None, 0, None, None),
    (b"tricks", NUMBER, 0, 5, 6, 0, EMIT, FOLLOWING, None, 0, None, None),
)

def pack_hand(bidder, bid, tricks):
    if bidder < 0 or bidder > 7:
        raise ValueError("bidder: must be a player index")
    if bid < 1 or bid > 5:
        raise ValueError("bid: must be 1 to 5 tricks")
    if tricks < 0 or tricks > 5:
        raise ValueError("tricks: must be 0 to 5")
    return bidder | bid << 3 | tricks << 6


def bidder_of(event):
    return event & 7


def bid_of(event):
    return (event >> 3) & 7


def tricks_of(event):
    return event >> 6


def check_options(players, options, name):
    points.check_dealer_only(name, players, options)


reset = points.reset_nothing


def check(state, players, event):
    points.check_not_over(state, TARGET)
    if event >> 9:
        raise ValueError("event: not a Foozle hand")
    if event & 7 >= players:
        raise ValueError("bidder: player %d is out of range 0 to %d" % (event & 7, players - 1))
    bid = (event >> 3) & 7
    # docs/rules.md FO2: bids of 1 to 5 tricks ("five of course being the highest").
    if bid < 1 or bid > 5:
        raise ValueError("bid: must be 1 to 5 tricks")
    if event >> 6 > 5:
        raise ValueError("tricks: must be 0 to 5")


def apply(state, players, event):
    bidder = event & 7
    bid = (event >> 3) & 7
    if event >> 6 >= bid:
        # Made: bid x number of opponents, no more for overtricks.
        points.add(state, bidder, bid * (players - 1))
    else:
        # Failed: each opponent scores the bid.
        for p in range(players):
            if p != bidder:
                points.add(state, p, bid)
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
    (b"hand", 0, 0, (
        (b"bidder", 0, 3, 0, 7, b"player", 0, "who won the bid"),
        (b"bid", 3, 3, 1, 5, b"", 0, "tricks bid"),
        (b"tricks", 6, 3, 0, 5, b"", 0, "tricks won by the bidder")),
     "one hand", 1),
)
