# Cards as small ints, for the games that total or name cards.
#
# Encoding: card = rank | suit << 4, below 80.
#   rank 1..13: ace 1, 2..10, jack 11, queen 12, king 13 (docs/rules.md G3:
#        the text's sequences "9, 10, 11" make J 11,
#        Q 12, K 13)
#   suit 0 clubs, 1 spades, 2 hearts, 3 diamonds, 4 not given
#
# A card event (Rummy's unplayed cards, Moosehead's plays): the player in
# bits 0-2, the card above; its rank and suit as fields (tallycore.layout).
from tallycore import const

KING = const(13)
NO_SUIT = const(4)
_SUIT_AT = const(4)
_SUIT_WIDTH = const(3)
CARD_AT = const(3)    # a card event's card, above its player
RANK_FIELD = (b"rank", CARD_AT, _SUIT_AT, 1, KING, b"", 0, "the card's rank: 1 ace .. 13 king")
SUIT_FIELD = (b"suit", CARD_AT + _SUIT_AT, _SUIT_WIDTH, 0, NO_SUIT, b"", 0,
              "the card's suit: 0 clubs, 1 spades, 2 hearts, 3 diamonds, 4 not given")
NO_SUIT_CARD = const(NO_SUIT << (CARD_AT + _SUIT_AT))   # a card event's suit bits when no suit is given
RANKS = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = "CSHD"


def card(rank, suit=NO_SUIT):
    if rank < 1 or rank > 13:
        raise ValueError("card: rank must be A, 2..10, J, Q or K")
    if suit < 0 or suit > NO_SUIT:
        raise ValueError("card: suit must be C, S, H or D")
    return rank | suit << _SUIT_AT


def rank_of(card):
    return card & ((1 << _SUIT_AT) - 1)


def suit_of(card):
    return card >> _SUIT_AT


def card_event(player, card):
    """A card event: the player's card."""
    return player | card << CARD_AT


def player_of(event):
    """The player of a card event (or of any event with the player in bits 0-2). Allocation-free."""
    return event & ((1 << CARD_AT) - 1)


def card_of(event):
    """The card of a card event (the bits above it are the game's). Allocation-free."""
    return (event >> CARD_AT) & ((1 << (_SUIT_AT + _SUIT_WIDTH)) - 1)


def parse(text):
    """'10H' -> card; a rank alone ('K') has no suit."""
    suit = NO_SUIT
    if len(text) > 1 and text[-1] in SUITS:
        suit = SUITS.index(text[-1])
        text = text[:-1]
    for rank in range(1, 14):
        if RANKS[rank] == text:
            return rank | suit << _SUIT_AT
    raise ValueError("card: unknown card %s" % text)


def text(card):
    suit = suit_of(card)
    return RANKS[rank_of(card)] + ("" if suit == NO_SUIT else SUITS[suit])


def value(card, faces_ten=False):
    """Counting value: ace 1, pips at face, J Q K 11 12 13 (or 10 each)."""
    rank = rank_of(card)
    if faces_ten and rank > 10:
        return 10
    return rank
