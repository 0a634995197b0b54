# The power-cut-safe journal of the game in progress (docs/firmware.md, "The journal").
#
# A snapshot file and a ring of records in raw flash (ring.py):
#   game.snp  snapshot: the game (or none), its whole event log and a nibble
#             per event of who accepted it (TBS4; TBS3 and TBS2 without), n, a
#             generation number, the last request's seq and CRC, and where in
#             the ring its records start; CRC-16 over it all. Written as
#             game.snp.tmp then renamed; then the same again as game.snb, its
#             copy, read when game.snp is damaged. Written only when the ring
#             comes round to its oldest block (every ~10,000 records), after
#             damage, and when a board first runs this journal.
#   the ring  12-byte records, each programmed once into erased flash:
#               [0] kind  [1..5) event u32 LE  [5..7) seq u16 LE
#               [7..9) request CRC u16 LE  [9] generation & 0xFF  [10..12) CRC-16
#             A NEW is a record too (its event packs game, players, options).
#             A change held for its confirmation (docs/rules.md CF) is one
#             record, KIND_HELD | its kind, and its accept or reject another;
#             an accept is KIND_ACCEPT_BY | the player who accepted it (6,
#             KIND_ACCEPT, in a journal before issue 33: nobody recorded).
#             So is KEPT: the host's archive holds the game as it stands (its
#             event packs n | lcrc << 10, the log CRC of log[0:n]); a new
#             snapshot writes the KEPT of its game again after it.
#             Each block is erased ahead of use, after the reply that filled
#             the one before it.
# Boot: the snapshot (or its copy); then the ring from the snapshot's start:
# the last block in use is found by each block's last slot, the current game's
# records by its last NEW, and those are replayed. A torn last record (a power
# cut in the middle of a program, before its OK) or a damaged one ends the
# replay; the journal then goes on after a new snapshot in the next block, so
# new records never follow garbage. Damage is reported in `problems` (the
# app's boot NOTEs) and its records are copied to game.jnl.bad; a damaged
# snapshot is kept as game.snp.bad.
from tallycore import const
from tallyrun.protocol import crc16
from tallyrun.ring import (BAD, HEAD, RING_BLOCKS, SLOTS, exists, get16, get32, load_game, open_ring, put16, put32,
                           put_game, read_whole, remove_quietly, set_aside, write_atomic)
from tallycore.games import find
from tallycore.game import LOG_CAPACITY

SNAPSHOT = "game.snp"
SNAPSHOT_COPY = "game.snb"
OLD_JOURNAL = "game.jnl"     # the littlefs-append journal of earlier firmware (oldjournal.py)
BAD_RECORDS = "game.jnl.bad"
RECORD_SIZE = const(12)

KIND_APPLY = const(1)
KIND_UNDO = const(2)
KIND_REDO = const(3)
_KIND_NEW = const(5)
KIND_ACCEPT = const(6)    # the held change accepted: made now (before issue 33: by nobody recorded)
KIND_ACCEPT_BY = const(64)  # | the player who accepted it: the held change accepted, made now
_KIND_REJECT = const(7)    # the held change rejected: dropped
KIND_REJECT_HAND = const(32)  # rejected with the event's count of its hand's earlier events, taken back with it
KIND_HELD = const(8)      # | KIND_APPLY, KIND_UNDO or KIND_REDO: a change held for its confirmation
_KIND_KEPT = const(16)     # the host's archive holds the game (not 6: ACCEPT; not 8 | k: held)
_ERASED = const(0xFF)

_MAGIC = b"TBS4"
_MAGIC_TBS3 = b"TBS3"   # the snapshot before accepted_by: no byte per event of who accepted it
_MAGIC_TBS2 = b"TBS2"   # the snapshot before confirmation: no held change
_TAIL = const(16)   # after the events: seq u16, crc u16, ring block u16, ring slot u16,
#                     held kind u16 (0: none), held event u32, CRC-16
_TAIL_TBS2 = const(10)   # the same without the held change
_SNAPSHOT_MAX = HEAD + 4 * LOG_CAPACITY + (LOG_CAPACITY + 1) // 2 + _TAIL   # the events, who accepted each


def pack_new(index, players, options):
    """A NEW record's event: game index (5 bits), players (4), options (16)."""
    return index | players << 5 | options << 9


class Journal:
    """Keeps one Game (tallycore.game) on flash. root: folder prefix ("" =
    cwd); device: the littlefs block device the ring lives in (the chip's
    rp2.Flash()), or None for a plain file (the emulator, tests)."""

    def __init__(self, game, root="", device=None):
        self.game = game
        self.root = root
        self.device = device
        self.ring = None
        self.record = bytearray(RECORD_SIZE)
        self.generation = 0
        self.k = 0             # the ring position of the next record: block k, slot
        self.slot = 0
        self.start_k = 0       # where the snapshot's records start
        self.start_slot = 0
        self.records = 0       # records after the snapshot
        self.last_seq = 0      # the last state-changing request written
        self.kept = 0          # the game's last KEPT (n | lcrc << 10), 0: none since its NEW
        self.last_crc = 0
        self.dirty = False     # a write failed or a record was torn: snapshot before appending
        self.erase_due = False  # the block after this one wants erasing (after the reply)
        self.restored = 0      # records replayed at the last restore
        self.cut = False       # the last restore found a torn or corrupt tail
        self.problems = []     # what the last restore dropped, and why (for people)
        # the one snapshot buffer: a compaction allocates nothing, so it cannot
        # fail for want of memory after its change was applied
        self.snapshot = bytearray(_SNAPSHOT_MAX)

    def _path(self, name):
        return self.root + name

    def _open_ring(self):
        ring = self.ring
        if ring is None:
            ring = open_ring(self.root, self.device)
            self.ring = ring
        return ring

    # --- writing ---------------------------------------------------------
    def start(self, game, players, options, seq=0, crc=0):
        """Persist a new, empty game (before it replaces the one in RAM); game
        as Game.new takes it (index, name or rules module). One record.

        Raises OSError if the flash write fails; then nothing changed."""
        self.append(_KIND_NEW, pack_new(find(game), players, options), seq, crc)
        self.kept = 0

    def keep(self, kept, seq=0, crc=0):
        """Persist that the host's archive holds the game as it stands
        (kept = n | lcrc << 10). One record; OSError if the write fails."""
        self.append(_KIND_KEPT, kept, seq, crc)
        self.kept = kept

    def append(self, kind, event=0, seq=0, crc=0):
        """Program one record. Allocation-free unless a snapshot is due.
        Raises OSError if the flash write fails."""
        ring = self._open_ring()
        if self.dirty:
            self.compact()
        rec = self.record
        rec[0] = kind
        put32(rec, 1, event)
        put16(rec, 5, seq)
        put16(rec, 7, crc)
        rec[9] = self.generation & 0xFF
        put16(rec, 10, crc16(rec, 0, 10))
        try:
            ring.program(self.k, self.slot, rec)
        except OSError:
            self.dirty = True
            raise
        self.records += 1
        if seq:
            self.last_seq = seq
            self.last_crc = crc
        self.slot += 1
        if self.slot == SLOTS:
            self.slot = 0
            self.k = (self.k + 1) % RING_BLOCKS
            self.erase_due = True

    def after_append(self):
        """After the reply: erase the next block ahead of use, or, when the ring
        has come round to the snapshot's first block, take a new snapshot."""
        if not self.erase_due and not self.dirty:
            return
        try:
            if self.dirty:
                self.compact()
            elif (self.k + 1) % RING_BLOCKS == self.start_k:
                self.compact()
            else:
                self._open_ring().erase((self.k + 1) % RING_BLOCKS)
                self.erase_due = False
        except OSError:
            self.dirty = True

    def compact(self):
        """Snapshot the game in RAM; the ring goes on from the start of the next
        block. The snapshot is in before that block is erased: a cut between
        leaves its stale records there, which the next boot recognises (another
        generation) and erases."""
        game = self.game
        ring = self._open_ring()
        k = (self.k + 1) % RING_BLOCKS
        if game.rules is None:
            self._write_snapshot("", 0, 0, game.log, 0, 0, self.last_seq, self.last_crc, k, 0, 0)
        else:
            self._write_snapshot(game.name(), game.players, game.options, game.log,
                                 game.n, game.top, self.last_seq, self.last_crc, k,
                                 game.held, game.held_event)
        ring.erase(k)
        ring.erase((k + 1) % RING_BLOCKS)
        if self.kept and game.rules is not None:
            # the snapshot holds no KEPT: write it again after it (a cut just
            # before loses it, and the board asks again: the safe side)
            self.keep(self.kept)

    def _write_snapshot(self, name, players, options, log, n, top, seq, crc, k, held, held_event):
        generation = self.generation + 1
        full = self.snapshot
        body = put_game(full, _MAGIC, generation, name, players, options, log, n, top, self.game.accepted)
        put16(full, body, seq)          # the request that made this state
        put16(full, body + 2, crc)
        put16(full, body + 4, k)        # where its records start in the ring
        put16(full, body + 6, 0)
        put16(full, body + 8, held)     # a change held for its confirmation
        put32(full, body + 10, held_event)
        put16(full, body + 14, crc16(full, 0, body + 14))
        write_atomic(self._path(SNAPSHOT), full, body + _TAIL)
        # the snapshot is in; the copy follows (a cut before the copy's rename
        # leaves the snapshot itself whole)
        write_atomic(self._path(SNAPSHOT_COPY), full, body + _TAIL)
        self.generation = generation
        self.last_seq = seq
        self.last_crc = crc
        self.k = self.start_k = k
        self.slot = self.start_slot = 0
        self.records = 0
        self.dirty = False
        self.erase_due = False

    def erases(self):
        """The ring's block erases since the flash was formatted, from what the
        journal keeps already (no write of its own): each snapshot (generation)
        erases two blocks and each block filled after it one more, so a snapshot
        taken when the ring came round follows RING_BLOCKS erases. Exact while
        every snapshot came from the ring coming round (a board's ordinary
        life); a snapshot taken early (after damage, a first run) is counted
        as a whole round, so the count errs high, on wear's safe side (but for
        an erase done again at a power-up after a cut mid-erase). For a
        board's health: its journal's wear."""
        if self.generation <= 0:
            return 0
        now = 2 + (self.k - self.start_k) % RING_BLOCKS
        if self.generation > (0x3FFFFFFF - now) // RING_BLOCKS:
            return 0x3FFFFFFF
        return (self.generation - 1) * RING_BLOCKS + now

    def close(self):
        """Every record is on flash when append returns; this lets go of the
        emulator's journal file."""
        if self.ring is not None and self.device is None:
            self.ring.device.close()
            self.ring = None

    # --- reading ---------------------------------------------------------
    def restore(self):
        """Rebuild the game from flash. Returns True if a game was restored.

        A damaged snapshot is replaced by its copy; with both damaged there is
        no game (the files are kept aside as .bad). Never raises on bad data;
        raises OSError only if the snapshot after a torn tail cannot be written.
        problems says, for people, what was dropped and why."""
        game = self.game
        self.restored = 0
        self.cut = False
        self.problems = []
        self.kept = 0
        snapshot = self._read(SNAPSHOT)
        if (snapshot is not None and snapshot[0:4] == b"TBS1") or exists(self._path(OLD_JOURNAL)):
            return self._restore_old()
        if snapshot is not None or exists(self._path(SNAPSHOT_COPY)):
            # a blank board makes its ring at its first record, not at power-up
            try:
                self._open_ring()
            except OSError as exc:
                self.problems.append("journal flash unusable (%s): the game is kept in the snapshot only" % exc)
                self.ring = None
        if snapshot is None or not self._load_snapshot(snapshot):
            copy = self._read(SNAPSHOT_COPY)
            if copy is not None and self._load_snapshot(copy):
                if snapshot is not None:
                    self._set_aside(SNAPSHOT)
                self.problems.append("snapshot %s %s: the game was restored from its copy %s" % (
                    SNAPSHOT, "missing" if snapshot is None else "damaged (kept as %s%s)" % (SNAPSHOT, BAD),
                    SNAPSHOT_COPY))
            elif snapshot is not None or copy is not None:
                self._set_aside(SNAPSHOT)
                self._set_aside(SNAPSHOT_COPY)
                self.problems.append("snapshot %s and its copy damaged: no game restored; the files "
                                     "are kept as %s%s and %s%s" % (SNAPSHOT, SNAPSHOT, BAD, SNAPSHOT_COPY, BAD))
                game.rules = None
                self.dirty = True
                return False
            else:
                game.rules = None      # a blank board: the first record writes the first snapshot
                self.dirty = True
                return False
        if self.ring is None:
            self.dirty = True
        elif self.ring.lost:
            self.problems.append("%s: made again; the changes after the last snapshot are lost"
                                 % self.ring.lost)
            self.cut = True
        else:
            self._replay()
        if self.cut:
            self.compact()
        return game.rules is not None

    def _restore_old(self):
        # a board whose game was written by the earlier journal: read it that
        # way once, then carry it into this one
        from tallyrun.oldjournal import Journal as OldJournal
        old = OldJournal(self.game, self.root)
        restored = old.restore()
        old.close()
        self.problems.extend(old.problems)
        self.last_seq = old.last_seq
        self.last_crc = old.last_crc
        self._open_ring()
        self.compact()
        for name in (OLD_JOURNAL, OLD_JOURNAL + ".tmp"):
            remove_quietly(self._path(name))
        return restored

    def _read(self, name):
        return read_whole(self._path(name))

    def _set_aside(self, name):
        set_aside(self._path(name))

    def _load_snapshot(self, data):
        game = self.game
        if data[0:4] == _MAGIC_TBS2:
            body = load_game(game, data, _MAGIC_TBS2, _TAIL_TBS2)
        elif data[0:4] == _MAGIC_TBS3:
            body = load_game(game, data, _MAGIC_TBS3, _TAIL)
        else:
            body = load_game(game, data, _MAGIC, _TAIL, True)
        if body < 0:
            return False
        k = get16(data, body + 4)
        if k >= RING_BLOCKS:
            game.rules = None
            return False
        held = get16(data, body + 8) if data[0:4] != _MAGIC_TBS2 else 0
        if held:
            try:
                game.hold(held, get32(data, body + 10))
            except ValueError:
                game.rules = None
                return False
        self.generation = get32(data, 4)
        self.last_seq = get16(data, body)
        self.last_crc = get16(data, body + 2)
        self.k = self.start_k = k
        self.slot = self.start_slot = 0
        return True

    # --- the ring ---------------------------------------------------------
    def _valid(self, k, slot):
        """Read the record at (k, slot) into self.record: 1 a record of this
        generation, 0 erased flash, 2 a whole record of another generation (a
        block not yet erased), -1 anything else (torn or damaged)."""
        rec = self.record
        self._open_ring().read(k, slot, rec)
        if crc16(rec, 0, 10) == get16(rec, 10):
            return 1 if rec[9] == self.generation & 0xFF else 2
        for i in range(RECORD_SIZE):
            if rec[i] != _ERASED:
                return -1
        return 0

    def _at(self, position):
        return self._valid((self.start_k + position // SLOTS) % RING_BLOCKS, position % SLOTS)

    def _replay(self):
        """Apply the current game's records; find the head; report damage."""
        ring = self._open_ring()
        head, tail, total = self._ends()
        # the current game starts at its last NEW (or with the snapshot)
        begin = head
        while begin > 0:
            begin -= 1
            self._at(begin)
            if self.record[0] == _KIND_NEW:
                break
        index = begin
        why = None
        while index < total:
            if self._at(index) != 1:
                why = "damaged"
                break
            rec = self.record
            try:
                why = self._apply(rec[0], get32(rec, 1))
            except (ValueError, ImportError):
                why = "refused by the rules"
            if why is not None:
                break
            self.restored += 1
            seq = get16(rec, 5)
            if seq:
                self.last_seq = seq
                self.last_crc = get16(rec, 7)
            index += 1
        self.records = index
        self.k = (self.start_k + index // SLOTS) % RING_BLOCKS
        self.slot = index % SLOTS
        if why is not None:
            self.cut = True
            self._keep_bad(begin, total)
            self.problems.append("journal record %d of %d %s: %d changes dropped; kept as %s"
                                 % (index - begin + 1, total - begin, why, total - index, BAD_RECORDS))
        elif tail == -1:
            self.cut = True
            self.problems.append("journal ends in a partial record (the change being written when the "
                                 "power went, never acknowledged): dropped")
        elif tail == 2:
            self.cut = True          # a block not erased yet (a cut before its erase): quietly
        elif not ring.erased((self.k + 1) % RING_BLOCKS):
            ring.erase((self.k + 1) % RING_BLOCKS)   # a cut while it was erased ahead

    def _ends(self):
        """(head, tail, total): the first slot of the last block in use that
        holds no record, what is there (_at: -1 torn or damaged, 2 erased), and
        the end of the records to replay (past head when good records follow a
        damaged one)."""
        capacity = RING_BLOCKS * SLOTS
        # the last block in use: blocks fill one after another from the start
        full = 0
        while full < RING_BLOCKS - 1 and self._at(full * SLOTS + SLOTS - 1) == 1:
            full += 1
        head = full * SLOTS
        while head < (full + 1) * SLOTS and self._at(head) == 1:
            head += 1
        tail = self._at(head) if head < capacity else 0
        total = head
        if tail == -1:
            # torn (the last write) or damaged (good records follow it)?
            position = head + 1
            while position < capacity:
                state = self._at(position)
                if state == 1:
                    total = position + 1
                elif state != -1:
                    break
                position += 1
        return head, tail, total

    def _apply(self, kind, event):
        """One record made again in the game; None, or why it cannot be
        ("damaged": a kind no journal writes). ValueError: the rules refuse it."""
        game = self.game
        if kind == KIND_APPLY:
            game.apply(event)
        elif kind == KIND_UNDO:
            game.undo()
        elif kind == KIND_REDO:
            game.redo()
        elif kind == _KIND_NEW:
            game.new(event & 0x1F, (event >> 5) & 0xF, (event >> 9) & 0xFFFF)
            self.kept = 0
        elif kind == _KIND_KEPT:
            self.kept = event
        elif kind & KIND_ACCEPT_BY:
            game.accept(kind & ~KIND_ACCEPT_BY)
        elif kind & KIND_HELD:
            game.hold(kind & ~KIND_HELD, event)
        elif kind == KIND_ACCEPT:
            game.accept()
        elif kind == _KIND_REJECT:
            game.reject()
        elif kind == KIND_REJECT_HAND:
            game.reject(event)
        else:
            return "damaged"
        return None

    def _keep_bad(self, begin, total):
        # the current game's records as they are on flash, for inspection
        try:
            with open(self._path(BAD_RECORDS), "wb") as f:
                for index in range(begin, total):
                    self._open_ring().read((self.start_k + index // SLOTS) % RING_BLOCKS,
                                           index % SLOTS, self.record)
                    f.write(self.record)
        except OSError:
            pass
