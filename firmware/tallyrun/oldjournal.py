# The journal of the firmware before the raw-flash ring (tallyrun/journal.py
# reads a board's game through this once, at the first boot of the new
# firmware, and writes it anew in its own format). The board only reads it;
# the writers that make such a flash for tests are tests/mp/oldjournal_writer.py.
#
# Files in the flash root (littlefs: os.rename is atomic):
#   game.snp  snapshot "TBS1": the game, its whole event log, n, a generation
#             number, the last request's seq and CRC; CRC-16 over it all.
#   game.jnl  append-only 12-byte records after that snapshot:
#               [0] kind  [1..5) event u32 LE  [5..7) seq u16 LE
#               [7..9) request CRC u16 LE  [9] generation & 0xFF  [10..12) CRC-16
#             The first record is a header naming the snapshot's generation.
# Reading: the snapshot, then the longest valid prefix of the journal if its
# header names the snapshot's generation. What could not be read is said in
# `problems`; damaged files are kept as .bad.
from tallycore import os

from tallycore import const

from tallyrun.protocol import crc16
from tallyrun.ring import BAD, get16, get32, load_game, read_whole, remove_quietly, set_aside

SNAPSHOT = "game.snp"
JOURNAL = "game.jnl"
RECORD_SIZE = const(12)

KIND_APPLY = const(1)
KIND_UNDO = const(2)
KIND_REDO = const(3)
KIND_HEADER = const(4)

MAGIC = b"TBS1"   # the snapshot: magic 4, generation u32, name length, name 16, players,
#                   options u32, n u16, top u16, the events, seq u16, crc u16, CRC-16


class Journal:
    """Keeps one Game (tallycore.game) on flash. root: folder prefix ("" = cwd)."""

    def __init__(self, game, root=""):
        self.game = game
        self.root = root
        self.record = bytearray(RECORD_SIZE)
        self.file = None
        self.generation = 0
        self.records = 0       # records in the journal after its header
        self.last_seq = 0      # the last state-changing request written
        self.last_crc = 0
        self.restored = 0      # journal records replayed at the last restore
        self.cut = False       # the last restore found a torn or corrupt tail
        self.problems = []     # what the last restore dropped, and why (for people)

    def _path(self, name):
        return self.root + name

    def close(self):
        if self.file is not None:
            try:
                self.file.close()
            except OSError:
                pass
            self.file = None

    def clear(self):
        """Forget the game on flash (no game in progress)."""
        self.close()
        remove_quietly(self._path(JOURNAL))
        remove_quietly(self._path(SNAPSHOT))

    # --- reading ---------------------------------------------------------
    def restore(self):
        """Read the game this journal left on flash; returns True if there was
        one. Reads only: tallyrun.journal writes it anew in its own format.
        problems says, for people, what could not be read."""
        self.restored = 0
        self.cut = False
        self.problems = []
        self.close()
        snapshot = self._read(SNAPSHOT)
        if snapshot is None:
            return False
        if not self._load_snapshot(snapshot):
            self._set_aside(SNAPSHOT)
            self._set_aside(JOURNAL)
            self.problems.append("snapshot %s (of the earlier journal) damaged: no game restored; the files "
                                 "are kept as %s%s and %s%s" % (SNAPSHOT, SNAPSHOT, BAD, JOURNAL, BAD))
            return False
        found = len(self.problems)
        self._replay_journal()
        if len(self.problems) > found:
            self._set_aside(JOURNAL)    # damaged: kept for inspection
        return self.game.rules is not None

    def _read(self, name):
        return read_whole(self._path(name))

    def _set_aside(self, name):
        set_aside(self._path(name))

    def _load_snapshot(self, data):
        body = load_game(self.game, data, MAGIC, 6)
        if body < 0:
            return False
        self.generation = get32(data, 4)
        self.last_seq = get16(data, body)
        self.last_crc = get16(data, body + 2)
        return self.game.rules is not None

    def _apply(self, rec):
        """One record after the header made again; None, or why it cannot be."""
        if crc16(rec, 0, 10) != get16(rec, 10):
            return "damaged"
        if rec[9] != self.generation & 0xFF:
            return "from another snapshot"
        kind = rec[0]
        try:
            if kind == KIND_APPLY:
                self.game.apply(get32(rec, 1))
            elif kind == KIND_UNDO:
                self.game.undo()
            elif kind == KIND_REDO:
                self.game.redo()
            else:
                return "damaged"
        except ValueError:
            return "refused by the rules"
        return None

    def _replay_journal(self):
        rec = self.record
        try:
            f = open(self._path(JOURNAL), "rb")
        except OSError:
            return
        try:
            size = os.stat(self._path(JOURNAL))[6]
        except OSError:
            size = 0
        whole = max(size // RECORD_SIZE - 1, 0)   # the records after the header
        why = None                           # why the valid prefix ended early
        index = 0                            # records read after the header
        first = True
        try:
            while True:
                got = f.readinto(rec)
                if not got:
                    break   # the end
                if got != RECORD_SIZE:
                    self.cut = True
                    if first:
                        why = "damaged"
                    else:
                        self.problems.append("journal ends in a partial record (the change being written "
                                             "when the power went, never acknowledged): dropped")
                    break
                if first:
                    first = False
                    why = self._check_header(rec)
                    if self.cut:
                        break
                    continue
                index += 1
                why = self._apply(rec)
                if why is not None:
                    self.cut = True
                    break
                self.restored += 1
                seq = get16(rec, 5)
                if seq:
                    self.last_seq = seq
                    self.last_crc = get16(rec, 7)
            if first and why is None:
                self.cut = True
                why = "damaged"    # an empty journal: it is written whole, then renamed
        finally:
            f.close()
        self.records = self.restored
        if why is not None:
            self._dropped(why, index, whole)

    def _check_header(self, rec):
        """The journal's first record: None, or "damaged"; cut if it is not this snapshot's."""
        if crc16(rec, 0, 10) != get16(rec, 10) or rec[0] != KIND_HEADER:
            self.cut = True
            return "damaged"
        if get32(rec, 1) != self.generation & 0x3FFFFFFF:
            self.cut = True  # a journal of an older snapshot: its changes are in the snapshot
        return None

    def _dropped(self, why, index, whole):
        """Said once: where the journal's valid prefix ended, and what was dropped."""
        if index == 0:
            self.problems.append("journal header %s: %d changes after the snapshot dropped; kept as %s%s"
                                 % (why, whole, JOURNAL, BAD))
        else:
            self.problems.append("journal record %d of %d %s: %d changes dropped; kept as %s%s"
                                 % (index, whole, why, whole - index + 1, JOURNAL, BAD))
