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
TARGET = const(0)
END = const(512)
PACK = const(52)

_HELD = const(20)
_GIVEN = const(28)


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
        if state[_GIVEN] != (1 << players) - 1:
            raise ValueError("cards: one count per player")
        held = 0
        for p in range(players):
            held += state[_HELD + p]
        if held > PACK:
            raise ValueError("cards: %d cards held, but the pack has 52" % held)
        return
    if event >> 9:
        raise ValueError("event: not a Numero hand")
    player = event & 7
    if player >= players:
        raise ValueError("cards: player %d is out of range 0 to %d" % (player, players - 1))
    if state[_GIVEN] >> player & 1:
        raise ValueError("cards: player %d counted twice" % player)
    if event >> 3 > PACK:
        raise ValueError("cards: must be 0 to 52")


def apply(state, players, event):
    if event != END:
        state[_HELD + (event & 7)] = event >> 3
        state[_GIVEN] |= 1 << (event & 7)
        return
    # GAMES.md Numero: most cards at the end wins (the hand).
    most = 0
    for p in range(players):
        if state[_HELD + p] > most:
            most = state[_HELD + p]
    for p in range(players):
        if most and state[_HELD + p] == most:
            points.add(state, p, 1)
        state[_HELD + p] = 0
    state[_GIVEN] = 0
    points.end_hand(state)


def held(state, player):
    """Cards counted so far in the hand in progress."""
    return state[_HELD + player]


total = points.player_total
hands = points.hands


def ends_hand(event):
    return event == END


complete = points.complete_dealt
winners = points.winners_highest
