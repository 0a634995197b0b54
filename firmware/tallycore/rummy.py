# Rummy (1916) and Parquet: two players get 8 cards, three or more 6; the
# first player out wins the hand and every other player has his unplayed
# cards' total set down against him; one deal per player; fewest points
# against wins. Rules: docs/rules.md RU and PQ, Rummy (seed
# 002, "RULES FOR RUMMY": "a player left with 10, 3 and 4 has 17 set down
# against himself"); Parquet, Rummy with the played cards "parked" together
# in the centre, is scored exactly as Rummy ("Rummy (and Parquet, same
# scoring)"; seed 002, "PARQUET"): one rule under two names, the two rows of
# tallycore/games.py.
#
# Card values (docs/rules.md RU3, G3): ace 1, pips at face, J 11, Q 12,
# K 13 by default (the text's sequence "9, 10, 11"); option: faces count 10.
#
# Event encoding (a hand is a sequence, each a small int below 2**11):
#   card    a card event (cards.py): the player and one of his unplayed
#           cards (suit 4 = not given)
#   OUT     bit 10 | player who went out: closes the hand. He holds no card;
#           every other player holds at least one (only one player goes out)
#
# State: the shared layout of points.py, then the hand in progress:
#   [20..26) unplayed cards of players 0..5    [26..32) their total, u8
#   [32..45) cards of each rank seen (one pack: at most 4)
#   [45..52) the suited cards seen, one bit per card (suit * 13 + rank - 1)
#   [52]     options
# Options: bits 0-2 first dealer; bit 3 faces count 10.
from tallycore import const

from tallycore import points
from tallycore.cards import CARD_AT, NO_SUIT, NO_SUIT_CARD, RANK_FIELD, SUIT_FIELD, card_event, card_of, player_of, \
    rank_of, suit_of
from tallycore.layout import SHIFT
from tallycore.steps import PLAYER, CHOOSE, EACH, LIST, EMIT, DONE, FOLLOWING, RANKS

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(6)
STATE_SIZE = const(53)
VIEW = None            # the panel's screens for any short game
TARGET = const(0)        # one deal per player, fewest points against wins
OUT = const(1024)
OPT_FACES_TEN = const(8)

_COUNT = const(20)
_SUM = const(26)
_RANKS = const(32)
_SEEN = const(45)
_OPTIONS = const(52)

# The reasons a score is given (tallycore.why): the codes that key the table of
# tallycore/reasons/rummy.py, which holds each one's clause and words.
_R_CARD = const(0)
_R_OUT = const(1)
_R_AGAINST = const(2)
_R_AGAINST_TEN = const(3)


# The board's own entry (tallypanel.entry, docs/display.md): each player's
# unplayed cards by rank (the suit not given: 4), an event each with the
# player in bits 0-2, DONE after his last; then who went out (OUT | player).
ENTRY = (
    (b"cards", CHOOSE, 1, 0, RANK_FIELD[SHIFT], NO_SUIT_CARD, EACH | LIST | EMIT, FOLLOWING, None, 0, RANKS,
     ((b"DONE", DONE, 1),)),
    (b"out", PLAYER, 0, 0, 0, OUT, EMIT, FOLLOWING, None, 0, None, None),
)

def pack_card(player, card):
    if rank_of(card) < 1 or rank_of(card) > 13 or suit_of(card) > NO_SUIT:
        raise ValueError("cards: unknown card")
    return card_event(player, card)


def pack_out(player):
    return OUT | player


def hand_size(players):
    # docs/rules.md RU1: two players get 8 cards, three or more get 6.
    return 8 if players == 2 else 6


def card_value(card, options):
    rank = rank_of(card)
    if options & OPT_FACES_TEN and rank > 10:
        return 10
    return rank


def check_options(players, options, name):
    if options >> 4:
        raise ValueError("options: %s has first_dealer and faces" % name)
    points.check_first_dealer(players, options)


def reset(state, players, options, variant):
    state[_OPTIONS] = options


def check(state, players, event):
    points.check_deal_left(state, players)
    player = player_of(event)
    if player >= players:
        raise ValueError("%s: player %d is out of range 0 to %d" % (
            "out" if event & OUT else "cards", player, players - 1))
    if event & OUT:
        if event != OUT | player:
            raise ValueError("event: not a Rummy hand")
        if state[_COUNT + player]:
            raise ValueError("out: player %d went out but has cards left" % player)
        for p in range(players):
            if p != player and state[_COUNT + p] == 0:
                raise ValueError("cards: players %d and %d both have no cards left; only one goes out" % (
                    player, p))
        return
    card = card_of(event)
    rank = rank_of(card)
    suit = suit_of(card)
    if event >> 10 or rank < 1 or rank > 13 or suit > NO_SUIT:
        raise ValueError("cards: player %d: unknown card" % player)
    if state[_COUNT + player] >= hand_size(players):
        raise ValueError("cards: player %d holds at most %d cards" % (player, hand_size(players)))
    if state[_RANKS + rank - 1] >= 4:
        raise ValueError("cards: player %d: a fifth card of one rank (one pack)" % player)
    if suit < NO_SUIT:
        bit = suit * 13 + rank - 1
        if state[_SEEN + (bit >> 3)] >> (bit & 7) & 1:
            raise ValueError("cards: player %d: the same card twice" % player)


def apply(state, players, event, why=None):
    player = player_of(event)
    if event & OUT:
        # docs/rules.md RU2: each opponent of the player out has his unplayed
        # cards' total set down against him; the player out scores nothing.
        for p in range(players):
            points.add(state, p, state[_SUM + p])
            if why is not None:
                why.add(p, state[_SUM + p], _R_OUT if p == player else
                        _R_AGAINST_TEN if state[_OPTIONS] & OPT_FACES_TEN else _R_AGAINST)
        for i in range(_COUNT, _OPTIONS):
            state[i] = 0
        points.end_hand(state)
        return
    if why is not None:
        why.add(player, 0, _R_CARD)   # docs/rules.md RU2: counted when a player goes out
    card = card_of(event)
    rank = rank_of(card)
    state[_COUNT + player] += 1
    state[_SUM + player] += card_value(card, state[_OPTIONS])
    state[_RANKS + rank - 1] += 1
    if suit_of(card) < NO_SUIT:
        bit = suit_of(card) * 13 + rank - 1
        state[_SEEN + (bit >> 3)] |= 1 << (bit & 7)


def against(state, player):
    """Points against the player in the hand in progress."""
    return state[_SUM + player]


total = points.player_total
hands = points.hands


def ends_hand(event):
    return event & OUT != 0


# docs/rules.md RU4: one deal per player.
complete = points.complete_dealt
winners = points.winners_lowest  # fewest points against
LOW_WINS = True  # the hand's best is its fewest points (docs/rules.md CF2)


# The wire of this game (tallycore.game explains the declarations): no verb
# of its own (a host sends EV with the packed event), and its event's layout.
VERBS = ()
OPTION_FIELDS = (points.DEALER_OPTION, (b"faces", 3, 1, 0, 1, b"", 0, "1: court cards count 10"),)
EVENT_FORMS = (
    (b"out", OUT, OUT, ((b"player", 0, CARD_AT, 0, 5, b"player", 0, "who went out"),),
     "closes the hand: that player holds no card, every other at least one", 1),
    (b"card", OUT, 0, (
        (b"player", 0, CARD_AT, 0, 5, b"player", 0, "who holds the card"), RANK_FIELD, SUIT_FIELD),
     "one of a player's unplayed cards", 0),
)
