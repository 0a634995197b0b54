# Numero (for children): the whole pack dealt; piles captured by matching the
# first card; no points: most cards at the end wins the hand.
# Rules: GAMES.md "Rummy and the short games", Numero (seed 002, "NUMERO").
#
# The board keeps a session: totals count hands won (every player tied on
# most cards wins that hand); complete when every player has dealt once;
# most hands won wins.
#
# Event encoding (a hand is a sequence, each a small int below 2**10):
#   count   bits 0-2 player, bits 3-8 cards held at the end (0..52)
#   END     bit 9 alone: closes the hand; every player's count must be in
#           and they add up to at most 52 (the last pile may lie uncaptured)
#
# State: the shared layout of points.py, then the hand in progress:
#   [20..28) cards held by players 0..7   [28] mask of players counted
# Options: bits 0-2 first dealer.
try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

from tallycore import points

NAME = "numero"
MIN_PLAYERS = const(2)
MAX_PLAYERS = const(8)
STATE_SIZE = const(29)
VIEW = None            # the panel's screens for any short game
TARGET = const(0)
END = points.COUNTS_END
PACK = const(52)

_HELD = const(20)  # points.HAND: the counted-hand layout of points.py


def pack_count(player, cards):
    if cards < 0 or cards > PACK:
        raise ValueError("cards: must be 0 to 52")
    return player | cards << 3


def check_options(players, options):
    points.check_dealer_only(NAME, players, options)


reset = points.reset_nothing


def check(state, players, event):
    points.check_deal_left(state, players)
    if event == END:
        held = points.sum_counts(state, players, "cards")
        if held > PACK:
            raise ValueError("cards: %d cards held, but the pack has 52" % held)
        return
    if event >> 9:
        raise ValueError("event: not a Numero hand")
    points.check_count(state, players, event, "cards")
    if event >> 3 > PACK:
        raise ValueError("cards: must be 0 to 52")


# GAMES.md Numero: most cards at the end wins (the hand).
apply = points.apply_counts


def held(state, player):
    """Cards counted so far in the hand in progress."""
    return state[_HELD + player]


total = points.player_total
hands = points.hands
ends_hand = points.ends_counts
complete = points.complete_dealt
winners = points.winners_highest
