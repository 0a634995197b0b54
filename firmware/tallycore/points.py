# Shared bookkeeping for the fourteen short games (bishops_whist .. moosehead):
# one state layout for hands, game over and per-player totals, so each rules
# module holds only its own rules. Allocation-free: plain byte arithmetic.
#
# State layout used by every module that imports this one:
#   [0..2)   hands scored, u16 little-endian
#   [2]      flags: bit 0 game over (first-to-N reached)
#   [3]      winners mask, set when the game ended by reaching the target
#   [4..20)  totals of players 0..7, i16 little-endian (two's complement:
#            penalties can take a total below zero)
#   [20..64) the module's own per-hand scratch (HAND below)
#
# Options, packed in one int: bits 0-2 the first dealer (player index); the
# bits above are each module's own (see OPT_* in the module).
try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

HANDS = const(0)
FLAGS = const(2)
WON = const(3)
TOTALS = const(4)
HAND = const(20)
OVER = const(1)
DEALER_MASK = const(7)
DEALER_BITS = const(3)


def get_u16(state, at):
    return state[at] | state[at + 1] << 8


def put_u16(state, at, value):
    state[at] = value & 0xFF
    state[at + 1] = (value >> 8) & 0xFF


def total(state, player):
    value = state[TOTALS + 2 * player] | state[TOTALS + 2 * player + 1] << 8
    if value & 0x8000:
        return value - 0x10000
    return value


def add(state, player, points):
    at = TOTALS + 2 * player
    value = (state[at] | state[at + 1] << 8) + points
    state[at] = value & 0xFF
    state[at + 1] = (value >> 8) & 0xFF


def hands(state):
    return state[HANDS] | state[HANDS + 1] << 8


def end_hand(state):
    value = (state[HANDS] | state[HANDS + 1] << 8) + 1
    state[HANDS] = value & 0xFF
    state[HANDS + 1] = value >> 8


def over(state):
    return state[FLAGS] & OVER


def first_dealer(options):
    return options & DEALER_MASK


def check_first_dealer(players, options):
    if options & DEALER_MASK >= players:
        raise ValueError("first_dealer: must be a player 0 to %d" % (players - 1))


def dealer(options, players, deal):
    """Player dealing the given deal (0-based): the deal passes to the left,
    i.e. to the next player index, from the first dealer."""
    return ((options & DEALER_MASK) + deal) % players


def best(state, players, lowest):
    """Mask of the players with the highest (or lowest) total; 0 before any hand."""
    if hands(state) == 0:
        return 0
    mask = 0
    mark = 0
    for p in range(players):
        value = total(state, p)
        if mask == 0 or (value < mark if lowest else value > mark):
            mark = value
            mask = 1 << p
        elif value == mark:
            mask |= 1 << p
    return mask


def reach(state, players, target):
    """First to N, checked at the end of a hand: if a total has reached the
    target the game is over and the highest total wins (a tie: every player
    on it). Returns the winners mask (0: the game goes on)."""
    return reach_excluding(state, players, target, 0)


def reach_excluding(state, players, target, barred):
    """As reach(); players in the barred mask cannot win on this hand."""
    mask = 0
    mark = 0
    for p in range(players):
        if barred >> p & 1:
            continue
        value = total(state, p)
        if value < target:
            continue
        if mask == 0 or value > mark:
            mark = value
            mask = 1 << p
        elif value == mark:
            mask |= 1 << p
    if mask:
        state[FLAGS] |= OVER
        state[WON] = mask
    return mask


def winners_first_to(state, players):
    """Winners of a first-to-N game: the winners once it is over, else the
    leaders (highest totals) so far."""
    if state[FLAGS] & OVER:
        return state[WON]
    return best(state, players, False)
