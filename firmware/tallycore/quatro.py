# Quatro: the whole pack dealt; a trick is four cards of one number, won by
# asking the other players for cards; no points: most tricks wins the hand.
# Rules: GAMES.md "Rummy and the short games", Quatro (seed 002, "QUATRO").
#
# The board keeps a session: totals count hands won (every player tied on
# most tricks wins that hand); complete when every player has dealt once;
# most hands won wins.
#
# Event encoding (a hand is a sequence, each a small int below 2**10):
#   count   bits 0-2 player, bits 3-6 tricks of four (0..13)
#   END     bit 9 alone: closes the hand; every player's count must be in and
#           they add up to 13 (the game ends when "all the cards have been
#           formed into tricks": thirteen numbers, one trick each)
#
# State: the shared layout of points.py, then the hand in progress:
#   [20..28) tricks of players 0..7   [28] mask of players counted
# Options: bits 0-2 first dealer.
try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

from tallycore import points

NAME = "quatro"
MIN_PLAYERS = const(2)
MAX_PLAYERS = const(8)
STATE_SIZE = const(29)
VIEW = None            # the panel's screens for any short game
TARGET = const(0)
END = points.COUNTS_END
TRICKS = const(13)

_TRICKS = const(20)  # points.HAND: the counted-hand layout of points.py


def pack_count(player, tricks):
    if tricks < 0 or tricks > TRICKS:
        raise ValueError("tricks: must be 0 to 13")
    return player | tricks << 3


def check_options(players, options):
    points.check_dealer_only(NAME, players, options)


reset = points.reset_nothing


def check(state, players, event):
    points.check_deal_left(state, players)
    if event == END:
        made = points.sum_counts(state, players, "tricks")
        if made != TRICKS:
            raise ValueError("tricks: must add up to 13, not %d" % made)
        return
    if event >> 7:
        raise ValueError("tricks: must be 0 to 13")
    points.check_count(state, players, event, "tricks")
    if event >> 3 > TRICKS:
        raise ValueError("tricks: must be 0 to 13")


# GAMES.md Quatro: most tricks wins (the hand). The tricks add up to 13, so
# the most is never 0.
apply = points.apply_counts


def tricks(state, player):
    """Tricks counted so far in the hand in progress."""
    return state[_TRICKS + player]


total = points.player_total
hands = points.hands
ends_hand = points.ends_counts
complete = points.complete_dealt
winners = points.winners_highest
