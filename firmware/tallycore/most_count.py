# Numero and Quatro: one rule under two names, the counted hand. The whole
# pack is dealt; at the end of the hand each player's count is entered and
# the players on the most win the hand; no points. Rules: docs/rules.md NU and QU,
# Numero (seed 002, "NUMERO", for children: piles captured
# by matching the first card; most cards wins) and Quatro (seed 002,
# "QUATRO": a trick is four cards of one number, won by asking the other
# players for cards; most tricks wins).
#
# The variant (the game's row in tallycore/games.py) is the cap on a count,
# and it says what is counted:
#   PACK (52)    Numero: cards held at the end; they add up to at most 52
#                (the last pile may lie uncaptured)
#   TRICKS (13)  Quatro: tricks of four; they add up to 13 (the game ends
#                when "all the cards have been formed into tricks": thirteen
#                numbers, one trick each)
#
# The board keeps a session, complete when every player has dealt once, and
# the highest total wins it (ties: every player on it). What a total counts:
#   Numero   hands won (every player tied on the most wins that hand);
#            docs/rules.md NU3
#   Quatro   the tricks themselves, added up over the hands, as the text
#            decides a deal by tricks (most tricks wins); with the option
#            hands_won (OPT_HANDS_WON), hands won as in Numero; docs/rules.md QU3
#
# Event encoding (a hand is a sequence, each a small int below 2**10):
#   count   points.COUNT_FIELDS: the player, then the count: cards (0..52)
#           or tricks (0..13, in bits 3-6)
#   END     bit 9 alone: closes the hand; every player's count must be in
#
# State: the shared layout of points.py, then the hand in progress:
#   [20..28) counts of players 0..7   [28] mask of players counted
#   [29] the cap (the variant)        [30] 1: a total adds the counts up,
#                                          0: it counts hands won
# Options: bits 0-2 first dealer; Quatro only: bit 3 hands_won.
from tallycore import const

from tallycore import games, points
from tallycore.layout import SHIFT
from tallycore.steps import NUMBER, CONST, EACH, EMIT, FOLLOWING

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(8)
STATE_SIZE = const(31)
VIEW = None            # the panel's screens for any short game
TARGET = const(0)
END = points.COUNTS_END
PACK = const(52)
TRICKS = const(13)
OPT_HANDS_WON = const(8)  # Quatro: a total counts hands won, not tricks (docs/rules.md QU3)

_COUNTS = const(20)  # points.HAND: the counted-hand layout of points.py
_CAP = const(29)
_ADDS = const(30)
_TRICKS_BITS = const(16)   # a Quatro count is below this


# The board's own entry (tallypanel.entry, docs/display.md): each player's
# count (an event each: points.COUNT_FIELDS), then
# END. The count is the variant's: cards held (Numero), tricks (Quatro).
_CARDS_ENTRY = (
    (b"cards", NUMBER, 0, PACK, points.COUNT_FIELDS[1][SHIFT], 0, EACH | EMIT, FOLLOWING, None, 0, None, None),
    (b"cards", CONST, 0, 0, -1, END, EMIT, FOLLOWING, None, 0, None, None),
)
_TRICKS_ENTRY = (
    (b"tricks", NUMBER, 0, TRICKS, points.COUNT_FIELDS[1][SHIFT], 0, EACH | EMIT, FOLLOWING, None, 0, None, None),
    (b"tricks", CONST, 0, 0, -1, END, EMIT, FOLLOWING, None, 0, None, None),
)


def entry(variant):
    """The board's entry description of the game of this variant."""
    return _CARDS_ENTRY if variant == PACK else _TRICKS_ENTRY

def _label(cap):
    return "cards" if cap == PACK else "tricks"


def pack_count(player, count, cap):
    """A count event; cap: the game's variant, PACK or TRICKS."""
    if count < 0 or count > cap:
        raise ValueError("%s: must be 0 to %d" % (_label(cap), cap))
    return points.count_event(player, count)


def check_options(players, options, name):
    # the variant of the game's registry row: hands_won is the TRICKS variant's
    if games.GAMES[games.index_of(name)][4] != TRICKS:
        points.check_dealer_only(name, players, options)
        return
    if options >> 4:
        raise ValueError("options: %s has first_dealer and hands_won" % name)
    points.check_first_dealer(players, options)


def reset(state, players, options, variant):
    state[_CAP] = variant
    # docs/rules.md NU3: Numero counts hands won; QU3: Quatro adds up tricks,
    # or counts hands won with the option
    state[_ADDS] = 1 if variant == TRICKS and not options & OPT_HANDS_WON else 0


def hands_won(state):
    """Whether a total counts hands won (else it adds up the counts)."""
    return not state[_ADDS]


def check(state, players, event):
    points.check_deal_left(state, players)
    cap = state[_CAP]
    cards = cap == PACK
    label = "cards" if cards else "tricks"
    if event == END:
        made = points.sum_counts(state, players, label)
        if cards and made > PACK:
            raise ValueError("cards: %d cards held, but the pack has 52" % made)
        if not cards and made != TRICKS:
            raise ValueError("tricks: must add up to 13, not %d" % made)
        return
    # a count wider than its field (points.COUNT_FIELDS, below END); Quatro's
    # 0..13 fills only its low 4 bits
    if cards and event > END:
        raise ValueError("event: not a Numero hand")
    if not cards and (event > END or points.count_of(event) >= _TRICKS_BITS):
        raise ValueError("tricks: must be 0 to 13")
    points.check_count(state, players, event, label)
    if points.count_of(event) > cap:
        raise ValueError("%s: must be 0 to %d" % (label, cap))


# The reasons a score is given (tallycore.why): the codes that key the table of
# tallycore/reasons/most_count.py, which holds each one's clause and words:
# a counted hand's reasons (points._WHY_*) from the game's base, Numero's or
# Quatro's; a Numero hand nobody wins (Quatro's thirteen tricks always have a
# winner); the tricks Quatro adds up.
_R_NUMERO = const(0)
_R_NOBODY = const(3)
_R_QUATRO = const(4)
_R_TRICKS = const(7)


def apply(state, players, event, why=None):
    if event == END and state[_ADDS]:
        # docs/rules.md QU3: the session total is the tricks: each player's
        # tricks of the hand are added to his total
        for p in range(players):
            points.add(state, p, state[_COUNTS + p])
            if why is not None:
                why.add(p, state[_COUNTS + p], _R_TRICKS)
        points.close_counts(state, players)
        return
    # docs/rules.md NU2, NU3, QU2, QU3 (hands_won): most cards at the end
    # (Numero) or most tricks (Quatro) wins the hand, and a hand won counts 1;
    # G6: a Numero hand in which nobody has a card has no winner.
    # Quatro's tricks add up to 13, so the most is never 0.
    points.apply_counts(state, players, event, why, _R_NUMERO if state[_CAP] == PACK else _R_QUATRO, _R_NOBODY)


def count(state, player):
    """The count entered so far in the hand in progress."""
    return state[_COUNTS + player]


total = points.player_total
hands = points.hands
ends_hand = points.ends_counts
complete = points.complete_dealt
winners = points.winners_highest


# The wire of this game (tallycore.game explains the declarations): no verb
# of its own (a host sends EV with the packed event), and its event's layout.
VERBS = ()
OPTION_FIELDS = (points.DEALER_OPTION, (b"hands_won", 3, 1, 0, 1, b"", 0, "Quatro only: 1 a total counts hands won, not tricks (QU3)"),)
EVENT_FORMS = (
    (b"end", 0x3FF, END, (), "closes the hand: every player's count is in", 1),
    (b"count", END, 0, points.COUNT_FIELDS, "one player's count for the hand", 0),
)
