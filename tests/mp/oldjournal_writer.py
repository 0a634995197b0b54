# The writers of the earlier firmware's journal (firmware/tallyrun/oldjournal.py,
# which the board only reads): they make the flash of a board that ran that
# firmware, for the tests of its migration. As that firmware wrote them.
from tallycore import const

from tallyrun import oldjournal
from tallyrun.oldjournal import JOURNAL, SNAPSHOT, RECORD_SIZE, KIND_HEADER, MAGIC
from tallyrun.protocol import crc16
from tallyrun.ring import put16, put32, write_atomic, put_game
from tallycore.games import GAMES, find
from tallycore.game import LOG_CAPACITY

KIND_APPLY = oldjournal.KIND_APPLY
COMPACT_AFTER = const(256)   # records; about 3 KB of journal
_SNAPSHOT_MAX = 34 + 4 * LOG_CAPACITY + 6


class Journal(oldjournal.Journal):
    def __init__(self, game, root=""):
        super().__init__(game, root)
        self.dirty = False     # a write failed: compact before appending again
        self.snapshot = bytearray(_SNAPSHOT_MAX)

    # --- writing ---------------------------------------------------------
    def start(self, game, players, options, seq=0, crc=0):
        """Persist a new, empty game (before it replaces the one in RAM); game
        as Game.new takes it (index, name or rules module).

        Raises OSError if the flash write fails; then nothing changed."""
        self._write_snapshot(GAMES[find(game)][0], players, options, None, 0, 0, seq, crc)

    def append(self, kind, event=0, seq=0, crc=0):
        """Write one record and flush it. Allocation-free unless compaction
        is due. Raises OSError if the flash write fails."""
        if self.dirty or self.file is None:
            self.compact()
        rec = self.record
        rec[0] = kind
        put32(rec, 1, event)
        put16(rec, 5, seq)
        put16(rec, 7, crc)
        rec[9] = self.generation & 0xFF
        put16(rec, 10, crc16(rec, 0, 10))
        f = self.file
        if f is None:
            raise OSError("journal: no game in progress")
        try:
            f.write(rec)
            f.flush()
        except OSError:
            self.dirty = True
            raise
        self.records += 1
        if seq:
            self.last_seq = seq
            self.last_crc = crc

    def after_append(self):
        """Compact if the journal has grown long (call once the change is in RAM)."""
        if self.records >= COMPACT_AFTER:
            try:
                self.compact()
            except OSError:
                self.dirty = True

    def compact(self):
        """Snapshot the game in RAM and start an empty journal."""
        game = self.game
        if game.rules is None:
            self.close()
            return
        self._write_snapshot(game.name(), game.players, game.options, game.log,
                             game.n, game.top, self.last_seq, self.last_crc)

    def _write_snapshot(self, name, players, options, log, n, top, seq, crc):
        generation = self.generation + 1
        full = self.snapshot
        body = put_game(full, MAGIC, generation, name, players, options, log, n, top)
        # the request that made this state, after the events
        put16(full, body, seq)
        put16(full, body + 2, crc)
        put16(full, body + 4, crc16(full, 0, body + 4))
        self.close()
        write_atomic(self._path(SNAPSHOT), full, body + 6)
        # the snapshot is in; from here the old journal is stale
        self.generation = generation
        self.last_seq = seq
        self.last_crc = crc
        header = self.record
        header[0] = KIND_HEADER
        put32(header, 1, generation & 0x3FFFFFFF)
        put16(header, 5, 0)
        put16(header, 7, 0)
        header[9] = generation & 0xFF
        put16(header, 10, crc16(header, 0, 10))
        write_atomic(self._path(JOURNAL), header, RECORD_SIZE)
        self.file = open(self._path(JOURNAL), "ab")
        self.records = 0
        self.dirty = False
