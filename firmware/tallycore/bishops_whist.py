# Bishops Whist (A. T. Dana, 1899): four players in two sides, 13 tricks;
# game 25, every hand played out, the higher side wins if both pass 25.
# Rules: docs/rules.md BW; seed 001 "THE GAME", "ABSTRACT
# OF THE GAME", "THE MISDEAL", "EXPOSED CARDS", "THE REVOKE".
#
# Sides: players 0 & 2 (side 0) and 1 & 3 (side 1), partners facing. Two
# sides: total(p) is the total of p's side (so total(0), total(1) are the two
# sides' totals and partners always show the same number), and winners() is
# the mask of both players of the winning side. Totals are signed: penalties
# can take a side below zero.
#
# Event encoding (one hand, a small int below 2**28): HAND_FIELDS below;
#   MISDEAL    bit 27 alone: scores nothing, the deal passes to the left
#
# State: the shared layout of points.py (side totals kept on both partners),
# then [20..22) deals so far, misdeals included (u16); [22] options.
# Options: bits 0-2 first dealer (player 0 to 3).
from tallycore import const

from tallycore import layout, points
from tallycore.layout import HI, LO, SHIFT
from tallycore.steps import NUMBER, CHOOSE, REST, CONST, EMIT, FOLLOWING, YES_NO

MIN_PLAYERS = const(4)
MAX_PLAYERS = const(4)
STATE_SIZE = const(23)
VIEW = None            # the panel's screens for any short game
TARGET = const(25)
MISDEAL = const(0x8000000)
_BOOK = const(6)
TRICK_POINTS = const(1)    # each trick over six
_BISHOP_POINTS = const(2)   # each bishop among a side's tricks
_TURNED_POINTS = const(1)   # a bishop turned as trump card, to the dealer's side
_EXPOSED_POINTS = const(2)  # lost per exposed card
_REVOKE_POINTS = const(4)   # lost per revoke

_DEALS = const(20)
_OPTIONS = const(22)
_SIDE_MASK = b"\x05\x0a"   # players of side 0 (0, 2) and of side 1 (1, 3)

# A hand's fields (tallycore.layout), its one layout: side A's field of each
# pair, then side B's
HAND_FIELDS = (
    (b"tricks_a", 0, 4, 0, 13, b"", 0, "tricks won by side A (players 0 and 2)"),
    (b"tricks_b", 4, 4, 0, 13, b"", 0, "tricks won by side B (players 1 and 3); the two add up to 13"),
    (b"bishops_a", 8, 3, 0, 4, b"", 0, "bishops among side A's tricks"),
    (b"bishops_b", 11, 3, 0, 4, b"", 0, "bishops among side B's tricks"),
    (b"turned", 14, 1, 0, 1, b"", 0, "1: a bishop turned as the trump card (the dealer's side)"),
    (b"exposed_a", 15, 3, 0, 7, b"", 0, "exposed-card penalties of side A"),
    (b"exposed_b", 18, 3, 0, 7, b"", 0, "exposed-card penalties of side B"),
    (b"revokes_a", 21, 3, 0, 7, b"", 0, "revokes of side A"),
    (b"revokes_b", 24, 3, 0, 7, b"", 0, "revokes of side B"),
)
_TRICKS = const(0)    # rows of HAND_FIELDS: side A's; side B's is the next
_BISHOPS = const(2)
_TURNED = const(4)
_EXPOSED = const(5)
_REVOKES = const(7)


# The board's own entry (tallypanel.entry, docs/display.md): side 0's tricks
# and bishops (side 1's are the rest of 13 and 4), the bishop turned, and,
# only when asked for, the exposed cards and revokes of each side; MISDEAL
# in place of the tricks.
_ALL_DONE = const(11)
_A = HAND_FIELDS[_TRICKS]
_B = HAND_FIELDS[_BISHOPS]
_E = HAND_FIELDS[_EXPOSED]
_R = HAND_FIELDS[_REVOKES]
ENTRY = (
    (b"tricks A+C", NUMBER, _A[LO], _A[HI], _A[SHIFT], 0, 0, FOLLOWING, None, 0, None,
     ((b"MISDEAL", MISDEAL, _ALL_DONE),)),
    (b"tricks", REST, 0, 13, HAND_FIELDS[_TRICKS + 1][SHIFT], 0, 0, FOLLOWING, None, 0, None, None),
    (b"bishops A+C", NUMBER, _B[LO], _B[HI], _B[SHIFT], 0, 0, FOLLOWING, None, 0, None, None),
    (b"bishops", REST, 2, 4, HAND_FIELDS[_BISHOPS + 1][SHIFT], 0, 0, FOLLOWING, None, 0, None, None),
    (b"bishop_turned", CHOOSE, 0, 0, HAND_FIELDS[_TURNED][SHIFT], 0, 0, FOLLOWING, None, 0, YES_NO, None),
    (b"penalties", CHOOSE, 0, 0, -1, 0, 0, FOLLOWING, None, 0, YES_NO, None),
    (b"exposed A+C", NUMBER, _E[LO], _E[HI], _E[SHIFT], 0, 0, FOLLOWING, (5, 0), 0, None, None),
    (b"exposed B+D", NUMBER, _E[LO], _E[HI], HAND_FIELDS[_EXPOSED + 1][SHIFT], 0, 0, FOLLOWING, (5, 0), 0, None, None),
    (b"revokes A+C", NUMBER, _R[LO], _R[HI], _R[SHIFT], 0, 0, FOLLOWING, (5, 0), 0, None, None),
    (b"revokes B+D", NUMBER, _R[LO], _R[HI], HAND_FIELDS[_REVOKES + 1][SHIFT], 0, 0, FOLLOWING, (5, 0), 0, None, None),
    (b"hand", CONST, 0, 0, -1, 0, EMIT, FOLLOWING, None, 0, None, None),
)

def pack_hand(tricks, bishops, turned=False, exposed=(0, 0), revokes=(0, 0)):
    event = layout.put(HAND_FIELDS[_TURNED], 1 if turned else 0)
    for side in range(2):
        event |= (layout.checked(HAND_FIELDS[_TRICKS + side], tricks[side], "tricks: a side wins 0 to 13 tricks")
                  | layout.checked(HAND_FIELDS[_BISHOPS + side], bishops[side], "bishops: a side wins 0 to 4 bishops")
                  | layout.checked(HAND_FIELDS[_EXPOSED + side], exposed[side],
                                   "exposed: 0 to 7 exposed-card penalties per side in a hand")
                  | layout.checked(HAND_FIELDS[_REVOKES + side], revokes[side],
                                   "revokes: 0 to 7 revokes per side in a hand"))
    return event


def tricks_of(event, side):
    return layout.get(event, HAND_FIELDS[_TRICKS + side])


def bishops_of(event, side):
    return layout.get(event, HAND_FIELDS[_BISHOPS + side])


def turned_of(event):
    return layout.get(event, HAND_FIELDS[_TURNED]) != 0


def exposed_of(event, side):
    return layout.get(event, HAND_FIELDS[_EXPOSED + side])


def revokes_of(event, side):
    return layout.get(event, HAND_FIELDS[_REVOKES + side])


def side_of(player):
    return player & 1


def dealer_of_deal(first_dealer, deal):
    # docs/rules.md BW3: the deal rotates left; a misdeal passes it on too.
    return (first_dealer + deal) & 3


# The reasons a score is given (tallycore.why): the codes that key the table of
# tallycore/reasons/bishops_whist.py, which holds each one's clause and words.
_EVERYONE = const(255)      # tallycore.why.EVERYONE
_R_MISDEAL = const(0)
_R_TRICKS = const(1)
_R_BISHOPS = const(2)
_R_TURNED = const(3)
_R_EXPOSED = const(4)
_R_REVOKES = const(5)
_R_BARRED = const(6)
_R_GAME = const(7)
_R_EQUAL = const(8)


def _both(why, side, value, code):
    """A part for each partner: a side's points show on both (docs/rules.md BW1)."""
    why.add(side, value, code)
    why.add(side + 2, value, code)


def score_side(event, side, dealer, why=None):
    """Points of one side for one hand (docs/rules.md BW4, BW5); why: a
    tallycore.why.Parts to give each part's reason to, or None."""
    if event == MISDEAL:
        return 0  # a misdeal scores nothing; the turned-bishop point is lost
    tricks = tricks_of(event, side)
    value = 0
    if tricks > _BOOK:
        value = TRICK_POINTS * (tricks - _BOOK)   # 1 per trick over six
    if why is not None:
        _both(why, side, value, _R_TRICKS)
    part = _BISHOP_POINTS * bishops_of(event, side)
    value += part
    if why is not None and part:
        _both(why, side, part, _R_BISHOPS)
    if turned_of(event) and dealer & 1 == side:
        value += _TURNED_POINTS                   # bishop cut the dealer
        if why is not None:
            _both(why, side, _TURNED_POINTS, _R_TURNED)
    part = _EXPOSED_POINTS * exposed_of(event, side)
    value -= part
    if why is not None and part:
        _both(why, side, -part, _R_EXPOSED)
    part = _REVOKE_POINTS * revokes_of(event, side)
    value -= part
    if why is not None and part:
        _both(why, side, -part, _R_REVOKES)
    return value


def check_options(players, options, name):
    points.check_dealer_only(name, players, options)


def reset(state, players, options, variant):
    state[_OPTIONS] = options


def deals(state):
    return points.get_u16(state, _DEALS)


def dealer(state):
    """The player dealing the next hand."""
    return dealer_of_deal(state[_OPTIONS], points.get_u16(state, _DEALS))


def check(state, players, event):
    if points.over(state):
        raise ValueError("hand: the game is over (25 points)")
    if event == MISDEAL:
        return
    if event >> 27:
        raise ValueError("event: not a Bishops Whist hand")
    tricks = tricks_of(event, 0) + tricks_of(event, 1)
    if tricks != 13:
        raise ValueError("tricks: must add up to 13, not %d" % tricks)
    bishops = bishops_of(event, 0) + bishops_of(event, 1)
    if bishops != 4:
        raise ValueError("bishops: must add up to 4, not %d" % bishops)
    for side in range(2):
        if bishops_of(event, side) and not tricks_of(event, side):
            raise ValueError("bishops: side %d won no tricks, so no bishops" % side)


def apply(state, players, event, why=None):
    deal = points.get_u16(state, _DEALS)
    points.put_u16(state, _DEALS, deal + 1)
    if event == MISDEAL:
        # docs/rules.md BW3: scores nothing; the deal passes to the left
        if why is not None:
            why.add(_EVERYONE, 0, _R_MISDEAL)
        return
    dealer_player = (state[_OPTIONS] + deal) & 3
    barred = 0
    for side in range(2):
        value = score_side(event, side, dealer_player, why)
        points.add(state, side, value)
        points.add(state, side + 2, value)
        if revokes_of(event, side):
            barred |= _SIDE_MASK[side]   # a revoking side cannot win on this hand
    points.end_hand(state)
    # Game: 25 points, every hand played out; if both sides pass 25 the
    # higher total wins. Reading: equal totals over 25 play another hand.
    mask = 0
    mark = 0
    for side in range(2):
        value = points.total(state, side)
        if barred & _SIDE_MASK[side] or value < TARGET:
            if why is not None and value >= TARGET:
                _both(why, side, 0, _R_BARRED)
            continue
        if mask == 0 or value > mark:
            mark = value
            mask = _SIDE_MASK[side]
        elif value == mark:
            mask = 0xF
    if mask and mask != 0xF:
        state[points.FLAGS] |= points.OVER
        state[points.WON] = mask
    if why is not None and mask:
        for side in range(2):
            if mask & _SIDE_MASK[side]:
                _both(why, side, 0, _R_EQUAL if mask == 0xF else _R_GAME)


def in_sides(state):
    """docs/rules.md BW1: the players play in two sides (tallycore.why's words for the winners)."""
    return True


def total(state, players, player):
    return points.total(state, player & 1)


def side_total(state, side):
    return points.total(state, side)


hands = points.hands


def ends_hand(event):
    return event != MISDEAL


# docs/rules.md CF1: a hand is its one event; a misdeal before it is no part of it
REJECT_KEEPS = True


complete = points.complete_first_to


def winners(state, players):
    if points.over(state):
        return state[points.WON]
    if points.hands(state) == 0:
        return 0
    zero = points.total(state, 0)
    one = points.total(state, 1)
    if zero > one:
        return 5
    if one > zero:
        return 10
    return 15


# The wire of this game (tallycore.game explains the declarations): no verb
# of its own (a host sends EV with the packed event), and its event's layout.
VERBS = ()
OPTION_FIELDS = (points.DEALER_OPTION,)
EVENT_FORMS = (
    (b"misdeal", 0xFFFFFFF, MISDEAL, (), "a misdeal: bit 27 alone; the deal passes to the left", 0),
    (b"hand", MISDEAL, 0, HAND_FIELDS, "one hand", 1),
)
