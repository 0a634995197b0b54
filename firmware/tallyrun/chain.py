# The game's hash chain (docs/records.md, "The chain"): each event the board
# keeps, with who accepted it, commits to every one before it, so a record
# whose hands were changed after the board kept them no longer leads to the
# head the board shows and signs. The first link is the game itself:
#     head = SHA-256(32 zero bytes || its NEW packed (journal.pack_new), 4 bytes LE || 0xFF)
# its options without the confirmation flag (CONFIRM: the board's, no record holds it)
# and each event log[i] of the game, in order, one link more:
#     head = SHA-256(head || log[i], 4 bytes LE || 1 + the player who accepted it, 0: nobody)
# One SHA-256 block a link: tallyrun.chainlink's machine code on the chip (no
# allocation), hashlib where that does not load (the emulator's unix port; the
# host's verify: the same bytes). The board keeps the head only: its journal
# holds the events, and the head is made again from them after a power-up.
# Loaded once a game is in play (the app's log_changed(-1)); chainlink when
# the first head is asked.
from tallycore import const, hashlib
from tallycore.game import CONFIRM
from tallyrun.journal import pack_new

HEAD_SIZE = const(32)
FIRST = const(0xFF)    # the last byte of the first link's message (who accepted a NEW: nobody can)
SHORT = const(4)       # the head's first bytes STATE's chain says, as the board's summary screen shows them
_HEX_DIGITS = b"0123456789ABCDEF"


def _link_hashlib(constants, scratch, event, who):
    h = hashlib.sha256(memoryview(scratch)[0:HEAD_SIZE])
    h.update(event.to_bytes(4, "little"))
    h.update(bytes((who,)))
    scratch[0:HEAD_SIZE] = h.digest()


def _machine():
    """(the link, its constants): tallyrun.chainlink's machine code, compiled
    for the chip, loaded the first time a head is asked (a board on the club's
    Wi-Fi asks none of its Skicket game's before its end); hashlib where it does
    not load (CPython; the emulator's unix port, an .mpy for another arch)."""
    try:
        from tallyrun.chainlink import CONSTANTS, sha256_link
        return sha256_link, CONSTANTS
    except (ImportError, ValueError):
        return _link_hashlib, b""


class Chain:
    """The head of a game's chain over its first `count` events; extended an
    event at a time, made again from the start when an event it covers
    changes (rewritten)."""

    def __init__(self):
        self.scratch = bytearray(HEAD_SIZE + 64)   # the head, then the schedule's 16 words
        self.head = memoryview(self.scratch)[0:HEAD_SIZE]
        self.count = -1        # the head is of log[0:count]; -1: not made yet
        self.link = None       # _machine()'s, at the first head
        self.constants = b""

    def rewritten(self, at):
        """The game's log (or who accepted an event) changed from event at on;
        -1: a new game."""
        if self.count > at:
            self.count = -1

    def put_short(self, line, end, game):
        """The head's short form after the game's applied events (its first
        SHORT bytes in hex, two groups: 3F9A 21C0, the digits STATE's
        chain= gives) into line, ending before column end (the screen's:
        sheetview.put_chain). Allocation-free."""
        head = self.head_of(game, game.n)
        at = end - 2 * SHORT - 1
        for i in range(SHORT):
            if i == SHORT >> 1:
                line[at] = 32
                at += 1
            line[at] = _HEX_DIGITS[head[i] >> 4]
            line[at + 1] = _HEX_DIGITS[head[i] & 15]
            at += 2

    def write_short(self, w, game):
        """The head's short form after the game's applied events into a reply
        (tallyrun.outgoing.Writer: STATE's chain). Allocation-free."""
        head = self.head_of(game, game.n)
        for i in range(SHORT):
            w.hex(head[i], 2)

    def head_of(self, game, n):
        """The head after game.log[0:n] (n <= game.n): self.head. Allocation-free
        on the chip once the first head loaded the link."""
        if self.link is None:
            self.link, self.constants = _machine()     # once: the only allocation
        link = self.link
        if self.count < 0 or self.count > n:
            scratch = self.scratch
            for i in range(HEAD_SIZE):
                scratch[i] = 0
            link(self.constants, scratch, pack_new(game.index, game.players, game.options & ~CONFIRM), FIRST)
            self.count = 0
        log = game.log
        while self.count < n:
            at = self.count
            link(self.constants, self.scratch, log[at], game.accepted_by(at) + 1)
            self.count = at + 1
        return self.head


class Held:
    """A chain held as its .chain, as the app holds the game's: for a screen
    drawn without the app (tallyboard show, tests)."""

    def __init__(self):
        self.chain = Chain()
