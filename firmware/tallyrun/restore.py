# The power-up's first part: the settings read, the game restored from the
# journal and BOOT sent, before the app's own code (tallyrun/app.py: the
# requests, the changes, the sessions) is loaded. BOOT says the game as it
# stands, so it needs the journal, the engine and the game's rules, and the
# writer of an event's fields (replies.fields); the app's module, ~60 ms of
# the power-up on the chip, loads after it (docs/benchmarks.md, issue 20).
# The app then takes over what is made here (App(restored=...)).
import sys

from tallycore import os, ticks_ms
from tallyrun import protocol
from tallyrun.outgoing import Writer
from tallyrun import replies
from tallycore.game import Game, LOG_CAPACITY
from tallyrun.journal import Journal
from tallyrun.config import Config

BOARD_DIR = "board"
RESETS = "resets"   # the board's resets since its flash was first written: a number (a board's health)
_LENGTH_WRITE = sys.implementation.name == "micropython"  # stream.write(buf, n)


def emit(out, buf, length):
    """Send length bytes of buf on the line."""
    if _LENGTH_WRITE:
        out.write(buf, length)   # MicroPython streams take a length: no slice
    else:
        out.write(bytes(buf[:length]))
        out.flush()


class Restored:
    """The game, its journal and the settings, as the power-up restores them.
    flash: the chip's block device for the journal's ring (hw.journal_flash()),
    None for a plain file (the emulator, tests)."""

    def __init__(self, out=None, root="", flash=None):
        self.out = out if out is not None else sys.stdout.buffer
        self.root = root
        self.game = Game(LOG_CAPACITY)
        self.journal = Journal(self.game, root, flash)
        self.config = Config(root)
        self.events = Writer()     # the app's writer of pushed events, once it runs
        self.eseq = 0
        self.started_ms = ticks_ms()   # the power-up's first tick here (a board's health counts its uptime from it)

    def restore(self):
        """The game in progress back from flash."""
        try:
            self.journal.restore()
        except OSError:
            pass  # a game restored without compaction is still right; the next write retries

    def send_boot(self):
        """BOOT, the first event after a restart (eseq 1), with its fields as
        protocol.EVENTS names them."""
        self.eseq = 1
        w = self.events
        w.event(self.eseq, protocol.EV_BOOT)
        replies.fields(self, w, protocol.EVENTS[protocol.EV_BOOT][1])
        w.finish()
        emit(self.out, w.buf, w.length)


def _read_count(path):
    """The number in a resets file, or -1 (none, or not a number)."""
    try:
        with open(path, "rb") as f:
            data = f.read(12)
    except OSError:
        return -1
    if not 0 < len(data) <= 10:
        return -1
    for b in data:
        if not 48 <= b <= 57:
            return -1
    return int(data.decode())


def count_reset(root=""):
    """The power-up counted on flash (tallynet.health's resets): the number in
    `resets`, plus one, written as resets.tmp then renamed (atomic on littlefs),
    so a cut mid-write leaves the count before (one short, never worse); a
    missing or damaged file counts from the .tmp a cut left, else from 0. A
    failed write never stops the power-up: the count is then this boot's own.
    One small write per boot."""
    path = root + RESETS
    count = _read_count(path)
    if count < 0:
        count = max(_read_count(path + ".tmp"), 0)
    count = min(count + 1, 0x3FFFFFFF)
    try:
        with open(path + ".tmp", "wb") as f:
            f.write(("%d" % count).encode())
        os.rename(path + ".tmp", path)
    except OSError:
        pass
    return count
