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
from tallycore import const

from tallycore import layout

HANDS = const(0)
FLAGS = const(2)
WON = const(3)
TOTALS = const(4)
HAND = const(20)
OVER = const(1)
DEALER_MASK = const(7)
DEALER_BITS = const(3)
COUNTS_END = const(512)
# the options field every game with a dealer takes (tallycore.game: OPTION_FIELDS)
DEALER_OPTION = (b"first_dealer", 0, 3, 0, 7, b"player", 0, "the player who deals first (0 to players - 1)")


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
    """Mask of the players with the highest (or lowest) total, as the game's
    totals stand (the hand in progress counted as the game counts it); 0
    while every total is 0: nothing is scored yet (docs/rules.md G5)."""
    mask = 0
    mark = 0
    scored = False
    for p in range(players):
        value = total(state, p)
        if value:
            scored = True
        if mask == 0 or (value < mark if lowest else value > mark):
            mark = value
            mask = 1 << p
        elif value == mark:
            mask |= 1 << p
    return mask if scored else 0


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


# The rules-module interface (game.py) pieces that are the same in several
# games: a module binds the one it needs, e.g. `winners = points.winners_highest`.

def check_dealer_only(name, players, options):
    """check_options() of a game whose only option is the first dealer."""
    if options >> DEALER_BITS:
        raise ValueError("options: %s has only first_dealer" % name)
    check_first_dealer(players, options)


def reset_nothing(state, players, options, variant):
    """reset() of a game that keeps nothing beyond the zeroed state."""


def check_deal_left(state, players):
    """One deal per player: no hand once every player has dealt."""
    if hands(state) >= players:
        raise ValueError("hand: every player has dealt; the game is over")


def check_not_over(state, target):
    """First to N: no hand once the game is over."""
    if state[FLAGS] & OVER:
        raise ValueError("hand: the game is over (first to %d)" % target)


def player_total(state, players, player):
    """total() of a game that keeps one total per player."""
    return total(state, player)


def every_event(event):
    """ends_hand() of a game whose hand is one event."""
    return True


def complete_dealt(state, players):
    """complete() of one deal per player: every player has dealt."""
    return hands(state) >= players


def complete_first_to(state, players):
    """complete() of a first-to-N game: the target was reached."""
    return state[FLAGS] & OVER


def winners_highest(state, players):
    """winners() of most hands won / highest total: the leaders."""
    return best(state, players, False)


def winners_lowest(state, players):
    """winners() of lowest total wins."""
    return best(state, players, True)


def check_winner(state, players, event):
    """check() of a session whose hand is its winner's index (one deal per player)."""
    check_deal_left(state, players)
    if event >= players:
        raise ValueError("winner: player %d is out of range 0 to %d" % (event, players - 1))


def win_hand(state, players, event):
    """apply() of a session whose hand is its winner's index: a won hand counts 1."""
    add(state, event, 1)
    end_hand(state)


# Sessions of counted hands (Numero, Quatro): each player's count of the hand
# in [HAND + p], the mask of players counted in [HAND + 8]; a count event's
# fields are COUNT_FIELDS (tallycore.layout); COUNTS_END (bit 9 alone) closes
# the hand, and the players on the most (none if all have 0) win it
# (apply_counts), or the game adds the counts up itself (close_counts after).
COUNT_FIELDS = (
    (b"player", 0, 3, 0, 7, b"player", 0, "whose count"),
    (b"count", 3, 6, 0, 52, b"", 0, "cards taken (Numero, 0 to 52) or tricks (Quatro, 0 to 13)"),
)


def count_player(event):
    """The player of a count event. Allocation-free."""
    return layout.get(event, COUNT_FIELDS[0])


def count_of(event):
    """The count of a count event. Allocation-free."""
    return layout.get(event, COUNT_FIELDS[1])


def count_event(player, count):
    """A count event (the caller checks the count's range)."""
    return layout.put(COUNT_FIELDS[0], player) | layout.put(COUNT_FIELDS[1], count)

def sum_counts(state, players, label):
    """At the end of a counted hand: every count must be in; returns their sum."""
    if state[HAND + 8] != (1 << players) - 1:
        raise ValueError("%s: one count per player" % label)
    made = 0
    for p in range(players):
        made += state[HAND + p]
    return made


def check_count(state, players, event, label):
    """A count event's player: in range and not counted yet this hand."""
    player = count_player(event)
    if player >= players:
        raise ValueError("%s: player %d is out of range 0 to %d" % (label, player, players - 1))
    if state[HAND + 8] >> player & 1:
        raise ValueError("%s: player %d counted twice" % (label, player))


def ends_counts(event):
    """ends_hand() of a counted hand."""
    return event == COUNTS_END


# The reasons of a counted hand (tallycore.why), indexes into the calling
# game's table from the base code it gives: the count kept, the hand won, a
# count below the most; and the code it gives for nobody with a count (no
# winner, docs/rules.md G6).
_WHY_COUNT = const(0)
_WHY_WON = const(1)
_WHY_BELOW = const(2)
_EVERYONE = const(255)      # tallycore.why.EVERYONE


def apply_counts(state, players, event, why=None, code=0, nobody=0):
    """apply() of a counted hand: a count is kept; the end scores the most.
    why: a tallycore.why.Parts to give the reasons to, or None."""
    if event != COUNTS_END:
        player = count_player(event)
        state[HAND + player] = count_of(event)
        state[HAND + 8] |= 1 << player
        if why is not None:
            why.add(player, 0, code + _WHY_COUNT)
        return
    most = 0
    for p in range(players):
        if state[HAND + p] > most:
            most = state[HAND + p]
    for p in range(players):
        if most and state[HAND + p] == most:
            add(state, p, 1)
            if why is not None:
                why.add(p, 1, code + _WHY_WON)
        elif most and why is not None:
            why.add(p, 0, code + _WHY_BELOW)
    if not most and why is not None:
        why.add(_EVERYONE, 0, nobody)
    close_counts(state, players)


def close_counts(state, players):
    """The end of a counted hand, once scored: the counts cleared, a hand more."""
    for p in range(players):
        state[HAND + p] = 0
    state[HAND + 8] = 0
    end_hand(state)
