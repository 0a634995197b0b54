# A packed event's fields (tallycore.game, "The wire of a game"): a rules
# module states each field of its events once, as a tuple
#   (name, shift, width, lo, hi, index, each, meaning)
# its value is (event >> shift) & (2**width - 1), within lo..hi; each 1: one
# such field per player, player p's at shift + p * width; index: b"player",
# b"seat" or b"". The same tuples are its EVENT_FORMS' fields (the wire's
# documentation), its packing and its accessors, and the shift of its ENTRY's
# steps, so the layout is written in one place.
from tallycore import const

NAME = const(0)
SHIFT = const(1)
WIDTH = const(2)
LO = const(3)
HI = const(4)
INDEX = const(5)
EACH = const(6)
MEANING = const(7)


def name(field):
    """The field's name as text (a record's key)."""
    return field[NAME].decode()


def get(event, field, at=0):
    """The field's value in event (at: the player of an each field). Allocation-free."""
    width = field[WIDTH]
    return (event >> (field[SHIFT] + at * width)) & ((1 << width) - 1)


def put(field, value, at=0):
    """value in the field's place (at: the player of an each field), to be or-ed
    into an event; the caller knows it is within lo..hi (else checked())."""
    return value << (field[SHIFT] + at * field[WIDTH])


def checked(field, value, wrong, at=0):
    """put(field, value, at), or ValueError(wrong) when value is not within lo..hi.
    Allocation-free when it fits."""
    if not field[LO] <= value <= field[HI]:
        raise ValueError(wrong)
    return value << (field[SHIFT] + at * field[WIDTH])


def mask(field):
    """The field's value's bits, at bit 0."""
    return (1 << field[WIDTH]) - 1


def offset(field, at):
    """The first bit of player at's value of an each field. Allocation-free."""
    return field[SHIFT] + at * field[WIDTH]


def above(field):
    """The first bit above the field (a field of one value, not each). Allocation-free."""
    return field[SHIFT] + field[WIDTH]
