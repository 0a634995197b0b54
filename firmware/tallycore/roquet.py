# Roquet (1899) and A. T. Dana's patented peg board.
# Rules: docs/rules.md RQ (seed 001, "ROQUET").
#
# The board (docs/rules.md RQ2): for each player a tally row of 45 holes
# (15 single, then 15 double: an outer and an inner lane) and a king row of
# 20 holes worth 5 each. Hole numbering used everywhere in tallyboard:
#   tally holes  0..14  single holes, positions 1..15 (up the board)
#   tally holes 15..29  outer lane of the double holes, positions 16..30
#   tally holes 30..44  inner lane of the double holes, column c = hole - 30;
#                       position 31 is column 14 (the turn), 45 is column 0
#   king holes   0..19  5, 10, ... 100
#
# Event encoding (a small int below 2**10):
#   bits 0-1  kind: 0 peg, 1 hand end
#   a peg's player and points: PEG_FIELDS below
#
# State (STATE_SIZE bytes):
#   [0]  flags: bit0 game over, bits1-2 winners mask, bit3 someone reached
#        the 15th hole this hand, bit4 which player did first
#   [1]  options (see OPT_*)
#   [2..4)   hands ended, u16
#   [4..8)   king totals of players 0, 1 (exact, never rounded), u16
#   [8..12)  tally (this hand's count) of players 0, 1, u16
#   [12..16) back peg: the tally before the player's last peg this hand, u16

from tallycore import const

from tallycore import layout

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(2)
STATE_SIZE = const(16)
VIEW = "roquetview"    # tallypanel.roquetview: the pegs, its summary, seat pegging

_GAME_POINTS = const(100)
_TRACK = const(60)          # the tally row is a 60-point track on 45 holes
TALLY_HOLES = const(45)
KING_HOLES = const(20)
_KING_STEP = const(5)
MAX_PEG = const(99)        # one pegging; a bigger count is pegged in parts
_MAX_TALLY = const(999)     # one hand's count; far above anything playable

# Options (packed in one int)
OPT_END_AT_HAND_END = const(1)  # docs/rules.md RQ9: optional
OPT_LANDMARK_BONUS = const(2)   # docs/rules.md RQ8: optional

# Landmarks (docs/rules.md RQ2: holes 15, 30 and 31 are embossed)
LANDMARK_HOLES = b"\x0e\x1d\x2c"  # tally holes of positions 15, 30, 31

_KIND = const(3)            # the kind's bits
_KIND_PEG = const(0)
_KIND_HAND_END = const(1)
HAND_END = const(1)

# A peg's fields (tallycore.layout), its one layout
PEG_FIELDS = (
    (b"player", 2, 1, 0, 1, b"player", 0, "who pegs"),
    (b"points", 3, 7, 1, MAX_PEG, b"", 0, "points pegged"),
)
_PLAYER = const(0)   # rows of PEG_FIELDS
_POINTS = const(1)
# the same, read once for apply(), which every undo replays: no call per field
_PLAYER_AT = layout.offset(PEG_FIELDS[_PLAYER], 0)
_PLAYER_MASK = layout.mask(PEG_FIELDS[_PLAYER])
_POINTS_AT = layout.offset(PEG_FIELDS[_POINTS], 0)

_GAME_OVER = const(1)
_REACHED_15 = const(8)
_FIRST_15 = const(16)
_KING = const(4)
_TALLY = const(8)
_BACK = const(12)


def pack_peg(player, points):
    return (layout.checked(PEG_FIELDS[_PLAYER], player, "player: must be 0 or 1")
            | layout.checked(PEG_FIELDS[_POINTS], points, "points: must be 1 to 99"))


# The wire of this game (tallycore.game explains the declarations).
from tallycore.game import ARG_INT

VERBS = (
    (b"PEG", ((b"player", ARG_INT, 0, 1, b"player"), (b"points", ARG_INT, 1, MAX_PEG, b"")),
     "peg points for a player (RQ3, RQ6)"),
    (b"END", (), "the end of the hand: the tally pegs go to the king row (RQ3)"),
)
OPTION_FIELDS = (
    (b"end", 0, 1, 0, 1, b"", 0, "1: hand_end, the game ends at the end of a hand; 0: reach (RQ9)"),
    (b"landmark_bonus", 1, 1, 0, 1, b"", 0, "1: landmark bonuses (RQ8)"),
)
EVENT_FORMS = (
    (b"peg", _KIND, _KIND_PEG, PEG_FIELDS, "points pegged (PEG)", 0),
    (b"end", 0x3FF, HAND_END, (), "the end of the hand (END)", 1),
)


def verb_event(verb, values):
    """verb: its index in VERBS. PEG's values: player, points."""
    if verb == 0:
        return pack_peg(values[0], values[1])
    return HAND_END


def peg_player(event):
    return layout.get(event, PEG_FIELDS[_PLAYER])


def peg_points(event):
    return layout.get(event, PEG_FIELDS[_POINTS])


def _get(state, at):
    return state[at] | state[at + 1] << 8


def _put(state, at, value):
    state[at] = value & 0xFF
    state[at + 1] = value >> 8


def check_options(players, options, name):
    if options & ~(OPT_END_AT_HAND_END | OPT_LANDMARK_BONUS):
        raise ValueError("options: unknown Roquet option")


def reset(state, players, options, variant):
    state[1] = options


def check(state, players, event):
    kind = event & _KIND
    if kind == _KIND_HAND_END:
        if event != HAND_END:
            raise ValueError("event: not a Roquet event")
        if state[0] & _GAME_OVER and not (_get(state, _TALLY) or _get(state, _TALLY + 2)):
            raise ValueError("game: the game is over")
        return
    if kind != _KIND_PEG or event >> layout.above(PEG_FIELDS[_POINTS]):
        raise ValueError("event: not a Roquet event")
    points = peg_points(event)
    if points < 1 or points > MAX_PEG:
        raise ValueError("points: must be 1 to 99")
    if state[0] & _GAME_OVER:
        raise ValueError("game: the game is over")
    if _get(state, _TALLY + 2 * peg_player(event)) + points > _MAX_TALLY - 19:
        raise ValueError("points: the hand's count would pass 980")


# The reasons a score is given (tallycore.why): the codes that key the table of
# tallycore/reasons/roquet.py, which holds each one's clause and words.
_R_COUNT = const(0)
_R_BONUS_31 = const(1)
_R_BONUS_46 = const(2)
_R_FIRST_15 = const(3)
_R_HAND_END = const(4)
_R_REACHED = const(5)
_R_KING_100 = const(6)


def apply(state, players, event, why=None):
    if event == HAND_END:
        _end_hand(state, why)
        return
    player = (event >> _PLAYER_AT) & _PLAYER_MASK
    points = event >> _POINTS_AT   # a checked peg has nothing above its points
    if why is not None:
        why.add(player, points, _R_COUNT)
    old = _get(state, _TALLY + 2 * player)
    new = old + points
    if state[1] & OPT_LANDMARK_BONUS:
        # docs/rules.md RQ8: reaching the 31st hole before the
        # opponent reaches the 15th scores 9 more; reaching hole 46 scores 10 more.
        if old < 31 <= new and _get(state, _TALLY + 2 * (1 - player)) < 15:
            new += 9
            if why is not None:
                why.add(player, 9, _R_BONUS_31)
        if old < 46 <= new:
            new += 10
            if why is not None:
                why.add(player, 10, _R_BONUS_46)
    flags = state[0]
    if not flags & _REACHED_15 and new >= 15:
        # docs/rules.md RQ7: whoever first reaches the 15th hole may take the trump.
        flags |= _REACHED_15 | (_FIRST_15 if player else 0)
        if why is not None:
            why.add(player, 0, _R_FIRST_15)
    _put(state, _BACK + 2 * player, old)
    _put(state, _TALLY + 2 * player, new)
    if not state[1] & OPT_END_AT_HAND_END:
        # docs/rules.md RQ9: by default the game ends as soon as
        # king total + running tally reaches 100.
        if _get(state, _KING + 2 * player) + new >= _GAME_POINTS:
            flags |= _GAME_OVER | (2 << player)
            if why is not None:
                why.add(player, 0, _R_REACHED)
    state[0] = flags


def _end_hand(state, why):
    # docs/rules.md RQ3: the king peg moves up by the hand's count, the tally peg
    # goes back to the start.
    for p in range(2):
        _put(state, _KING + 2 * p, _get(state, _KING + 2 * p) + _get(state, _TALLY + 2 * p))
        _put(state, _TALLY + 2 * p, 0)
        _put(state, _BACK + 2 * p, 0)
        if why is not None:
            why.add(p, 0, _R_HAND_END)
    _put(state, 2, _get(state, 2) + 1)
    flags = state[0] & ~(_REACHED_15 | _FIRST_15)
    if state[1] & OPT_END_AT_HAND_END and not flags & _GAME_OVER:
        a = _get(state, _KING)
        b = _get(state, _KING + 2)
        if a >= _GAME_POINTS or b >= _GAME_POINTS:
            flags |= _GAME_OVER
            if a >= b:
                flags |= 2
            if b >= a:
                flags |= 4
            if why is not None:
                for p in range(2):
                    if _get(state, _KING + 2 * p) >= _GAME_POINTS:
                        why.add(p, 0, _R_KING_100)
    state[0] = flags


# --- reading the game ----------------------------------------------------

def king_total(state, player):
    """The king peg's exact total (pegs banked at the end of each hand)."""
    return _get(state, _KING + 2 * player)


def tally(state, player):
    """The count of the hand in progress (the tally peg's position)."""
    return _get(state, _TALLY + 2 * player)


def back_peg(state, player):
    """Where the tally peg stood before its last move this hand."""
    return _get(state, _BACK + 2 * player)


def total(state, players, player):
    return _get(state, _KING + 2 * player) + _get(state, _TALLY + 2 * player)


def first_to_15(state):
    """The player who first reached the 15th hole this hand, or -1."""
    if not state[0] & _REACHED_15:
        return -1
    return 1 if state[0] & _FIRST_15 else 0


def hands(state):
    return _get(state, 2)


def ends_hand(event):
    return event == HAND_END


# docs/rules.md CF1 (Board): a rejected END leaves the hand's pegs, the table's own record
REJECT_KEEPS = True


def complete(state, players):
    return state[0] & _GAME_OVER != 0


def winners(state, players):
    if state[0] & _GAME_OVER:
        return (state[0] >> 1) & 3
    a = total(state, 2, 0)
    b = total(state, 2, 1)
    if a == 0 and b == 0:
        return 0
    return 1 if a > b else 2 if b > a else 3


# --- the board's geometry (docs/rules.md RQ4) -----------------------------

def tally_hole(position):
    """Tally-row hole (0..44) of a track position; -1 for 0 (the station).

    The track is 60 points long: up the single holes (1..15), up the outer
    lane (16..30), the turn at 31, down the inner lane (31..45) and down the
    single holes again (46..60, where 46 is the 15th hole again). A count
    over 60 goes round again; tally_laps says how many times."""
    if position <= 0:
        return -1
    position = (position - 1) % _TRACK + 1
    if position <= 30:
        return position - 1  # up the single holes, then up the outer lane
    if position <= 45:
        return 30 + 45 - position
    return 60 - position


def tally_laps(position):
    """Full laps of the 60-point track behind the position."""
    if position <= 0:
        return 0
    return (position - 1) // _TRACK


def king_hole(total_points):
    """King-row hole (0..19) for a total; -1 below 5. Capped at the 100 hole."""
    fives = total_points // _KING_STEP
    if fives > KING_HOLES:
        fives = KING_HOLES
    return fives - 1


def king_remainder(total_points):
    """The points the king row cannot show (docs/rules.md RQ5: the remainder is kept)."""
    return total_points % _KING_STEP
