# The game's hash chain (docs/records.md, "The chain"): each event the board
# keeps, with who accepted it, commits to every one before it, so a record
# whose hands were changed after the board kept them no longer leads to the
# head the board shows and signs. The first link is the game itself:
#     head = SHA-256(32 zero bytes || its NEW packed (journal.pack_new), 4 bytes LE || 0xFF)
# its options without the confirmation flag (CONFIRM: the board's, no record holds it)
# and each event log[i] of the game, in order, one link more:
#     head = SHA-256(head || log[i], 4 bytes LE || 1 + the player who accepted it, 0: nobody)
# One SHA-256 block a link: tallyrun.native's machine code on the chip (no
# allocation), hashlib where that does not load (the emulator's unix port; the
# host's verify: the same bytes). The board keeps the head only: its journal
# holds the events, and the head is made again from them after a power-up.
from tallycore import const, hashlib
from tallycore.game import CONFIRM
from tallyrun.journal import pack_new

HEAD_SIZE = const(32)
SHORT = const(4)       # the head's first bytes, as the board's summary screen shows them
FIRST = const(0xFF)    # the last byte of the first link's message (who accepted a NEW: nobody can)

# SHA-256's initial hash value (FIPS 180-4 5.3.3) and round constants (4.2.2)
# as u32 little-endian, then the 32-bit mask: for the machine code, written out
# (tests/mp/test_chain.py computes them from the primes and compares)
_CONSTANTS = bytes.fromhex(
    "67e6096a85ae67bb72f36e3c3af54fa57f520e518c68059babd9831f19cde05b982f8a4291443771cffbc0b5a5dbb5e9"
    "5bc25639f111f159a4823f92d55e1cab98aa07d8015b8312be853124c37d0c55745dbe72feb1de80a706dc9b74f19bc1"
    "c1699be48647beefc69dc10fcca10c246f2ce92daa84744adca9b05cda88f97652513e986dc631a8c82703b0c77f59bf"
    "f30be0c64791a7d55163ca0667292914850ab72738211b2efc6d2c4d130d385354730a65bb0a6a762ec9c281852c7292"
    "a1e8bfa24b661aa8708b4bc2a3516cc719e892d1240699d685350ef470a06a1016c1a419086c371e4c774827b5bcb034"
    "b30c1c394aaad84e4fca9c5bf36f2e68ee828f746f63a5781478c8840802c78cfaffbe90eb6c50a4f7a3f9bef27871c6"
    "ffffffff")


def _link_hashlib(constants, scratch, event, who):
    scratch[0:HEAD_SIZE] = hashlib.sha256(bytes(scratch[0:HEAD_SIZE]) + event.to_bytes(4, "little") + bytes((who,))).digest()


_link = _link_hashlib
try:
    # machine code (viper), compiled for the chip; the emulator (the unix port)
    # cannot load the chip's machine code and keeps hashlib
    from tallyrun.native import sha256_link as _link
except (ImportError, ValueError):   # CPython; an .mpy for another arch
    pass


class Chain:
    """The head of a game's chain over its first `count` events; extended an
    event at a time, made again from the start when an event it covers
    changes (rewritten)."""

    def __init__(self):
        self.scratch = bytearray(HEAD_SIZE + 64)   # the head, then the schedule's 16 words
        self.head = memoryview(self.scratch)[0:HEAD_SIZE]
        self.count = -1        # the head is of log[0:count]; -1: not made yet

    def rewritten(self, at):
        """The game's log (or who accepted an event) changed from event at on;
        -1: a new game."""
        if self.count > at:
            self.count = -1

    def head_of(self, game, n):
        """The head after game.log[0:n] (n <= game.n): self.head. Allocation-free
        on the chip."""
        if self.count < 0 or self.count > n:
            scratch = self.scratch
            for i in range(HEAD_SIZE):
                scratch[i] = 0
            _link(_CONSTANTS, scratch, pack_new(game.index, game.players, game.options & ~CONFIRM), FIRST)
            self.count = 0
        log = game.log
        while self.count < n:
            at = self.count
            _link(_CONSTANTS, self.scratch, log[at], game.accepted_by(at) + 1)
            self.count = at + 1
        return self.head
