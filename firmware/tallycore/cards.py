# Cards as small ints, for the games that total or name cards.
#
# Encoding: card = rank | suit << 4, below 80.
#   rank 1..13: ace 1, 2..10, jack 11, queen 12, king 13 (docs/rules.md G3:
#        the text's sequences "9, 10, 11" make J 11,
#        Q 12, K 13)
#   suit 0 clubs, 1 spades, 2 hearts, 3 diamonds, 4 not given
from tallycore import const

KING = const(13)
NO_SUIT = const(4)
RANKS = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = "CSHD"


def card(rank, suit=NO_SUIT):
    if rank < 1 or rank > 13:
        raise ValueError("card: rank must be A, 2..10, J, Q or K")
    if suit < 0 or suit > NO_SUIT:
        raise ValueError("card: suit must be C, S, H or D")
    return rank | suit << 4


def rank_of(card):
    return card & 15


def suit_of(card):
    return card >> 4


def parse(text):
    """'10H' -> card; a rank alone ('K') has no suit."""
    suit = NO_SUIT
    if len(text) > 1 and text[-1] in SUITS:
        suit = SUITS.index(text[-1])
        text = text[:-1]
    for rank in range(1, 14):
        if RANKS[rank] == text:
            return rank | suit << 4
    raise ValueError("card: unknown card %s" % text)


def text(card):
    suit = card >> 4
    return RANKS[card & 15] + ("" if suit == NO_SUIT else SUITS[suit])


def value(card, faces_ten=False):
    """Counting value: ace 1, pips at face, J Q K 11 12 13 (or 10 each)."""
    rank = card & 15
    if faces_ten and rank > 10:
        return 10
    return rank
