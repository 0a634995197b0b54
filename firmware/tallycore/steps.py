# How a hand is entered on the board's own controls: the words of a rules
# module's ENTRY, the one description of its hand (docs/display.md, "Entry
# on the board"). tallypanel.entry walks any description with the knob and
# the seat buttons and turns the values into the packed events the rules
# module documents, the events the host sends for a record hand.
#
# ENTRY is a tuple of steps (a module scoring games whose fields differ by
# name has entry(variant) instead); a step is a tuple:
#   (name, kind, low, high, shift, base, flags, then, skip, stride, words, specials)
# name      the record field (docs/records.md) as bytes: the prompt, and the
#           step a refused hand returns to (the core's message starts with
#           the name up to its first space, then ":"); a refusal naming no
#           step returns to the value just chosen
# kind      PLAYER, NUMBER or CHOOSE (shown), CONST, PLAYERS or REST (not shown)
# low, high NUMBER: the range; CHOOSE: low is added to the word's index; PLAYER: high is the code of
#           NOBODY; REST: the value is high - the value of step low
# shift     where the value goes in the event (value << shift): the shift of
#           its field in the module's layout (tallycore.layout); -1: nowhere
#           (a step that only decides which steps follow)
# base      bits every event of the step carries
# flags     EMIT: the event is complete after this step (checked by the core
#           on a copy of the game and kept); EACH: the step is taken once per
#           player, the player in bits 0-2 (stride 0) or the value at
#           shift + stride * player; LIST (with EACH): the step repeats for
#           one player until a special moves to the next; OFFERS_NOBODY: a
#           PLAYER step also offers NOBODY; NEXT: a PLAYER step suggests the player
#           after the one chosen last
# then      the step after this one (-1: the next in the tuple)
# skip      (step, value): this step is left out while that step has that
#           value, or None
# words     the words of a CHOOSE step, or None
# specials  ((word, event, goto), ...) offered after the step's values:
#           the event (DONE: none) is kept and the entry goes to step goto
#           (len(ENTRY): the hand is complete); in an EACH LIST step, a
#           special moves on to the next player first
from tallycore import const

NAME = const(0)
KIND = const(1)
LOW = const(2)
HIGH = const(3)
SHIFT = const(4)
BASE = const(5)
FLAGS = const(6)
THEN = const(7)
SKIP = const(8)
STRIDE = const(9)
WORDS = const(10)
SPECIALS = const(11)

# kinds
PLAYER = const(0)
NUMBER = const(1)
CHOOSE = const(2)
CONST = const(3)
PLAYERS = const(4)   # the number of players less one
REST = const(5)

# flags
EMIT = const(1)
EACH = const(2)
LIST = const(4)
OFFERS_NOBODY = const(8)
NEXT = const(16)

DONE = const(-1)      # a special that keeps no event
FOLLOWING = const(-1)  # then: the next step of the tuple

YES_NO = (b"NO", b"YES")
RANKS = (b"A", b"2", b"3", b"4", b"5", b"6", b"7", b"8", b"9", b"10", b"J", b"Q", b"K")
