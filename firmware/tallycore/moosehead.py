# Moosehead (2 to 8 players): five cards each, played one at a time to a
# running count toward 30; making 15, 20, 25 or 30 pegs 2, a go pegs 1 to
# the last player; after the hand each player scores 2 for every combination
# of his five played cards that counts 15. First to 50.
# Rules: docs/rules.md MH (seed 002, "RULES
# FOR MOOSEHEAD", "SCORING", "EXAMPLE", "COUNTING THE HAND").
#
# Card values: ace 1, pips at face, J Q K 10 each as in cribbage (a reading,
# docs/rules.md MH2); option: J 11, Q 12, K 13.
#
# Event encoding (a hand is a sequence, each a small int below 2**12):
#   play   a card event (cards.py): the player and the card played (suit
#          4 = not given). The board adds it to the count;
#          15, 20, 25 or 30 pegs 2; a count of 30 closes the round.
#   GO     1024: all have passed ("I pass" in turn); the player who played
#          the last card pegs 1 and a new round starts from 0.
#   END    2048: closes the hand; every player has played his five cards;
#          each scores 2 per combination of them totalling 15.
#
# State: the shared layout of points.py, then the hand in progress:
#   [20]      running count (0..30; 0 = no round in progress)
#   [21]      the player who played the last card
#   [22..46)  players 0..7, 3 bytes each (24 bits): the values of the cards
#             he played, 4 bits each in bits 0-19, how many in bits 20-22
#   [46..53)  cards of each rank played, 4 bits each (one pack: at most 4)
#   [53..60)  the suited cards played, one bit per card (suit * 13 + rank - 1)
#   [60]      options
# Options: bits 0-2 first dealer; bit 3 faces count 11, 12, 13.
from tallycore import const

from tallycore import points
from tallycore.cards import CARD_AT, NO_SUIT, NO_SUIT_CARD, RANK_FIELD, SUIT_FIELD, card_event, card_of, player_of, \
    rank_of, suit_of
from tallycore.layout import SHIFT
from tallycore.steps import PLAYER, CHOOSE, CONST, EMIT, NEXT, DONE, RANKS, FOLLOWING

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(8)   # five cards each: 8 * 5 = 40
STATE_SIZE = const(61)
VIEW = None            # the panel's screens for any short game
TARGET = const(50)
GO = const(1024)
END = const(2048)
LIMIT = const(30)
CARDS = const(5)
OPT_FACES_RANK = const(8)

_COUNT = const(20)
_LAST = const(21)
_PLAYED = const(22)
_RANKS = const(46)
_SEEN = const(53)
_OPTIONS = const(60)


# The board's own entry (tallypanel.entry, docs/display.md): the plays in
# order: who played (the next player suggested), then the card's rank (the
# suit not given: 4), an event each; GO when all have passed; DONE after
# the last play, then END.
ENTRY = (
    (b"plays", PLAYER, 0, 0, 0, 0, NEXT, FOLLOWING, None, 0, None, ((b"GO", GO, 0), (b"DONE", DONE, 2))),
    (b"plays", CHOOSE, 1, 0, RANK_FIELD[SHIFT], NO_SUIT_CARD, EMIT, 0, None, 0, RANKS, None),
    (b"plays", CONST, 0, 0, -1, END, EMIT, FOLLOWING, None, 0, None, None),
)

def pack_play(player, card):
    if player < 0 or player > 7:
        raise ValueError("plays: player must be a player index")
    if rank_of(card) < 1 or rank_of(card) > 13 or suit_of(card) > NO_SUIT:
        raise ValueError("plays: unknown card")
    return card_event(player, card)


def card_value(card, options):
    rank = rank_of(card)
    if rank > 10 and not options & OPT_FACES_RANK:
        return 10
    return rank


def fifteens(hand):
    """Combinations of a player's five card values (4 bits each in hand) that
    total 15: every non-empty subset, as the 31 bit masks of five cards."""
    found = 0
    for subset in range(1, 32):
        total_value = 0
        for card in range(CARDS):
            if subset >> card & 1:
                total_value += (hand >> (4 * card)) & 15
        if total_value == 15:
            found += 1
    return found


def _played(state, player):
    at = _PLAYED + 3 * player
    return state[at] | state[at + 1] << 8 | state[at + 2] << 16


def check_options(players, options, name):
    if options >> 4:
        raise ValueError("options: moosehead has first_dealer and faces")
    points.check_first_dealer(players, options)


def reset(state, players, options, variant):
    state[_OPTIONS] = options


def check(state, players, event):
    points.check_not_over(state, TARGET)
    if event == GO:
        # docs/rules.md MH4: a go needs a round in progress below 30.
        if state[_COUNT] == 0:
            raise ValueError("plays: go: no card played since the count started")
        return
    if event == END:
        for p in range(players):
            played = state[_PLAYED + 3 * p + 2] >> 4
            if played != CARDS:
                raise ValueError("plays: player %d played %d cards; each plays all five" % (p, played))
        return
    player = player_of(event)
    card = card_of(event)
    rank = rank_of(card)
    if event >> 10 or rank < 1 or rank > 13 or suit_of(card) > NO_SUIT:
        raise ValueError("plays: unknown card")
    if player >= players:
        raise ValueError("plays: player %d is out of range 0 to %d" % (player, players - 1))
    if state[_PLAYED + 3 * player + 2] >> 4 >= CARDS:
        raise ValueError("plays: player %d has played his five cards" % player)
    count = state[_COUNT] + card_value(card, state[_OPTIONS])
    if count > LIMIT:
        raise ValueError("plays: %s would take the count to %d, past 30" % (_RANK_TEXT[rank], count))
    if (state[_RANKS + ((rank - 1) >> 1)] >> (4 * ((rank - 1) & 1))) & 15 >= 4:
        raise ValueError("plays: a fifth %s (one pack)" % _RANK_TEXT[rank])
    if suit_of(card) < NO_SUIT:
        bit = suit_of(card) * 13 + rank - 1
        if state[_SEEN + (bit >> 3)] >> (bit & 7) & 1:
            raise ValueError("plays: the same card twice")


_RANK_TEXT = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


# The reasons a score is given (tallycore.why): the codes that key the table of
# tallycore/reasons/moosehead.py, which holds each one's clause and words.
_R_PLAY = const(0)
_R_CALL_15 = const(1)    # then 20, 25, 30: _R_CALL_15 + (count - 15) // 5
_R_GO = const(5)
_R_FIFTEENS = const(6)
_R_FIFTY = const(7)


def apply(state, players, event, why=None):
    if event == GO:
        # docs/rules.md MH4 ("SCORING"): all passed: the last card pegs 1.
        points.add(state, state[_LAST], 1)
        if why is not None:
            why.add(state[_LAST], 1, _R_GO)
        state[_COUNT] = 0
        return
    if event == END:
        for p in range(players):
            # "COUNTING THE HAND": 2 for every combination counting 15.
            got = 2 * fifteens(_played(state, p) & 0xFFFFF)
            points.add(state, p, got)
            if why is not None:
                why.add(p, got, _R_FIFTEENS)
        for i in range(_COUNT, _OPTIONS):
            state[i] = 0
        points.end_hand(state)
        won = points.reach(state, players, TARGET)  # first to 50, at the end of the hand
        if why is not None:
            for p in range(players):
                if won >> p & 1:
                    why.add(p, 0, _R_FIFTY)
        return
    player = player_of(event)
    card = card_of(event)
    rank = rank_of(card)
    value = card_value(card, state[_OPTIONS])
    count = state[_COUNT] + value
    # "SCORING": calling 15, 20, 25 or 30 scores 2.
    if count == 15 or count == 20 or count == 25 or count == LIMIT:
        points.add(state, player, 2)
        if why is not None:
            why.add(player, 2, _R_CALL_15 + (count - 15) // 5)
    elif why is not None:
        why.add(player, 0, _R_PLAY)
    state[_COUNT] = 0 if count == LIMIT else count  # 30 is the limit of a round
    state[_LAST] = player
    hand = _played(state, player)
    played = hand >> 20
    hand |= value << (4 * played)
    hand = (hand & 0xFFFFF) | (played + 1) << 20
    at = _PLAYED + 3 * player
    state[at] = hand & 0xFF
    state[at + 1] = (hand >> 8) & 0xFF
    state[at + 2] = hand >> 16
    at = _RANKS + ((rank - 1) >> 1)
    state[at] += 1 << (4 * ((rank - 1) & 1))
    if suit_of(card) < NO_SUIT:
        bit = suit_of(card) * 13 + rank - 1
        state[_SEEN + (bit >> 3)] |= 1 << (bit & 7)


def count(state):
    """The running count of the round in progress (0 between rounds)."""
    return state[_COUNT]


def played_values(state, player, out):
    """The values of the cards the player has played this hand into out; returns how many."""
    hand = _played(state, player)
    played = hand >> 20
    for i in range(played):
        out[i] = (hand >> (4 * i)) & 15
    return played


total = points.player_total
hands = points.hands


def ends_hand(event):
    return event == END


complete = points.complete_first_to
winners = points.winners_first_to


# The wire of this game (tallycore.game explains the declarations): no verb
# of its own (a host sends EV with the packed event), and its event's layout.
VERBS = ()
OPTION_FIELDS = (points.DEALER_OPTION, (b"faces", 3, 1, 0, 1, b"", 0, "1: court cards count 11, 12, 13"),)
EVENT_FORMS = (
    (b"go", 0xFFF, GO, (), "all have passed: the player of the last card pegs 1, a new round from 0", 0),
    (b"end", 0xFFF, END, (), "closes the hand: every player has played his five cards", 1),
    (b"play", GO | END, 0, (
        (b"player", 0, CARD_AT, 0, 7, b"player", 0, "who plays"), RANK_FIELD, SUIT_FIELD),
     "a card played", 0),
)
