# The power-cut-safe journal (tallyrun/journal.py), in process: every way a
# power cut can leave the flash (a record cut at every byte, a corrupt byte,
# a cut in the middle of compaction, a stale temporary file) restores the
# exact game up to the last complete record, and new records after a restore
# never follow garbage. Runs under CPython and under the MicroPython unix port.
import os
import sys

from tallycore import roquet, skicket
from tallycore.game import Game
from tallyrun.journal import (Journal, KIND_APPLY, KIND_UNDO, KIND_REDO, RECORD_SIZE,
                               SNAPSHOT, SNAPSHOT_COPY, JOURNAL, COMPACT_AFTER)
from mpfixtures import cleanup, folder, skip

def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def _journaled(root, rules, players, events):
    """A game on flash: new, then each event journaled and applied ('U' undo, 'R' redo)."""
    game = Game()
    journal = Journal(game, root)
    journal.start(rules, players, 0, 1, 0x1111)
    game.new(rules, players, 0)
    seq = 2
    for event in events:
        if event == "U":
            journal.append(KIND_UNDO, 0, seq, 0x2000 + seq)
            game.undo()
        elif event == "R":
            journal.append(KIND_REDO, 0, seq, 0x2000 + seq)
            game.redo()
        else:
            game.check(event)
            journal.append(KIND_APPLY, event, seq, 0x2000 + seq)
            game.apply(event)
        seq += 1
    return game, journal


def _restored(root):
    game = Game()
    journal = Journal(game, root)
    ok = journal.restore()
    return ok, game, journal


def _log(game):
    return [game.log[i] for i in range(game.top)]


# Roquet pegs: event = player << 2 | points << 3
P0_5 = 0 << 2 | 5 << 3     # 40: player 0 pegs 5
P1_17 = 1 << 2 | 17 << 3   # 140: player 1 pegs 17
P0_3 = 0 << 2 | 3 << 3     # 24: player 0 pegs 3
END = roquet.HAND_END      # 1


def test_restore_after_clean_shutdown():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5, P1_17, P0_3])
        journal.close()
        ok, again, j2 = _restored(root)
        assert ok
        assert again.name() == "roquet" and again.players == 2
        assert _log(again) == [40, 140, 24]
        assert again.n == 3
        # player 0: 5 + 3 = 8; player 1: 17
        assert again.total(0) == 8 and again.total(1) == 17
        assert j2.last_seq == 4 and j2.last_crc == 0x2004
        assert j2.restored == 3 and not j2.cut
        j2.close()
    finally:
        cleanup(root)


def test_undo_and_redo_are_journaled():
    root = folder("journal")
    try:
        # peg 5, peg 17, undo (17 goes on the redo stack), undo, redo (5 back), peg 3 drops the stack
        game, journal = _journaled(root, roquet, 2, [P0_5, P1_17, "U", "U", "R"])
        journal.close()
        ok, again, j2 = _restored(root)
        assert ok
        assert again.n == 1 and again.top == 2
        assert _log(again) == [40, 140]
        assert again.total(0) == 5 and again.total(1) == 0
        j2.close()
    finally:
        cleanup(root)


def test_no_files_no_game():
    root = folder("journal")
    try:
        ok, game, journal = _restored(root)
        assert not ok
        assert game.rules is None
    finally:
        cleanup(root)


def test_a_cut_at_every_byte_of_the_last_record():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5, P1_17, P0_3])
        journal.close()
        full = _read(root + JOURNAL)
        # header + 3 records
        assert len(full) == 4 * RECORD_SIZE
        snapshot = _read(root + SNAPSHOT)
        for cut in range(len(full) - RECORD_SIZE, len(full)):
            _write(root + SNAPSHOT, snapshot)
            _write(root + JOURNAL, full[:cut])
            ok, again, j2 = _restored(root)
            assert ok, cut
            # the last record (peg 3) is torn: the game is after peg 5 and 17
            assert _log(again) == [40, 140], cut
            assert again.total(0) == 5 and again.total(1) == 17
            assert j2.cut == (cut != len(full) - RECORD_SIZE), cut
            # carry on after the cut: the new record must be found on the next boot
            again.check(P0_3)
            j2.append(KIND_APPLY, P0_3, 9, 0x0909)
            again.apply(P0_3)
            j2.close()
            ok, third, j3 = _restored(root)
            assert _log(third) == [40, 140, 24], cut
            assert third.total(0) == 8
            assert j3.last_seq == 9
            j3.close()
            # back to the original files for the next cut
            for name in os.listdir(root[:-1]):
                os.remove(root + name)
    finally:
        cleanup(root)


def test_a_cut_inside_the_header_of_a_fresh_journal():
    root = folder("journal")
    try:
        game, journal = _journaled(root, skicket, 4, [])
        journal.close()
        full = _read(root + JOURNAL)
        for cut in range(0, RECORD_SIZE):
            _write(root + JOURNAL, full[:cut])
            ok, again, j2 = _restored(root)
            assert ok and again.name() == "skicket" and again.n == 0
            j2.close()
    finally:
        cleanup(root)


def test_a_corrupt_byte_ends_the_valid_prefix():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5, P1_17, P0_3, END])
        journal.close()
        full = _read(root + JOURNAL)
        snapshot = _read(root + SNAPSHOT)
        # corrupt each byte of record 2 (peg 17, bytes 24..35): only peg 5 survives
        for at in range(2 * RECORD_SIZE, 3 * RECORD_SIZE):
            damaged = bytearray(full)
            damaged[at] ^= 0x5A
            _write(root + SNAPSHOT, snapshot)
            _write(root + JOURNAL, damaged)
            ok, again, j2 = _restored(root)
            assert ok
            assert _log(again) == [40], at
            assert j2.cut
            j2.close()
    finally:
        cleanup(root)


def test_a_cut_between_snapshot_and_journal_during_compaction():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5, P1_17])
        old_journal = _read(root + JOURNAL)
        journal.compact()              # snapshot generation 2 holds both pegs
        journal.close()
        # the cut came after the snapshot's rename, before the journal's:
        _write(root + JOURNAL, old_journal)
        ok, again, j2 = _restored(root)
        assert ok
        # the old journal's two pegs are NOT applied a second time
        assert _log(again) == [40, 140]
        assert again.total(0) == 5 and again.total(1) == 17
        j2.close()
    finally:
        cleanup(root)


def test_a_stale_temporary_snapshot_is_ignored():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5])
        journal.close()
        _write(root + SNAPSHOT + ".tmp", b"TBS1 half a snapshot")
        ok, again, j2 = _restored(root)
        assert ok and _log(again) == [40]
        j2.close()
    finally:
        cleanup(root)


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def test_a_corrupt_snapshot_is_replaced_by_its_copy_and_kept_aside():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5, P1_17])
        journal.close()
        damaged = bytearray(_read(root + SNAPSHOT))
        damaged[10] ^= 1
        _write(root + SNAPSHOT, damaged)
        ok, again, j2 = _restored(root)
        # the copy and the intact journal: both pegs, 5 and 17
        assert ok and _log(again) == [40, 140]
        assert j2.problems == ["snapshot game.snp damaged (kept as game.snp.bad): the game was "
                               "restored from its copy game.snb"]
        assert _read(root + SNAPSHOT + ".bad") == bytes(damaged)
        j2.close()
    finally:
        cleanup(root)


def test_a_snapshot_and_its_copy_both_damaged_mean_no_game_and_the_files_are_kept():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5])
        journal.close()
        for name in (SNAPSHOT, SNAPSHOT_COPY):
            snapshot = bytearray(_read(root + name))
            snapshot[10] ^= 1
            _write(root + name, snapshot)
        ok, again, j2 = _restored(root)
        assert not ok and again.rules is None
        assert j2.problems == ["snapshot game.snp and its copy damaged: no game restored; the files are "
                               "kept as game.snp.bad and game.jnl.bad"]
        for name in (SNAPSHOT, SNAPSHOT_COPY, JOURNAL):
            assert _exists(root + name + ".bad") and not _exists(root + name), name
    finally:
        cleanup(root)


def test_a_damaged_record_in_the_middle_is_reported_and_the_rest_kept_aside():
    root = folder("journal")
    try:
        # 11 records after the header: pegs of 1 to 11 points for player 0
        pegs = [0 << 2 | k << 3 for k in range(1, 12)]
        game, journal = _journaled(root, roquet, 2, pegs)
        journal.close()
        full = bytearray(_read(root + JOURNAL))
        full[3 * RECORD_SIZE + 2] ^= 0x10      # record 3 (the header is record 0)
        _write(root + JOURNAL, full)
        ok, again, j2 = _restored(root)
        # records 1 and 2 are intact and applied: 1 + 2 = 3 points
        assert ok and again.n == 2 and again.total(0) == 3
        # record 3 and the 8 after it: 11 - 3 + 1 = 9 changes dropped
        assert j2.problems == ["journal record 3 of 11 damaged: 9 changes dropped; kept as game.jnl.bad"]
        assert _read(root + JOURNAL + ".bad") == bytes(full)
        # the journal went on from the intact state; the next boot is clean
        j2.append(KIND_APPLY, P0_5, 99, 0x9999)
        again.apply(P0_5)
        j2.close()
        ok, third, j3 = _restored(root)
        assert ok and third.total(0) == 3 + 5 and j3.problems == []
        j3.close()
    finally:
        cleanup(root)


def test_a_partial_last_record_is_reported():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5, P1_17])
        journal.close()
        full = _read(root + JOURNAL)
        _write(root + JOURNAL, full[:len(full) - 5])
        ok, again, j2 = _restored(root)
        assert ok and _log(again) == [40]
        assert j2.problems == ["journal ends in a partial record (the change being written when the "
                               "power went, never acknowledged): dropped"]
        j2.close()
    finally:
        cleanup(root)


def test_compaction_keeps_the_game_and_the_redo_stack():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [])
        peg = 0 << 2 | 1 << 3   # player 0 pegs 1
        seq = 10
        for i in range(60):
            journal.append(KIND_APPLY, peg, seq, seq)
            game.apply(peg)
            journal.after_append()
            seq += 1
        journal.compact()   # snapshot: 60 events, n 60; journal: header only
        journal.append(KIND_UNDO, 0, seq, seq)
        game.undo()
        journal.after_append()
        # 60 pegs of 1, one undone: n 59, top 60, player 0 has 59
        assert journal.records == 1
        journal.close()
        ok, again, j2 = _restored(root)
        assert ok
        assert again.n == 59 and again.top == 60
        assert again.total(0) == 59
        assert j2.last_seq == seq
        j2.close()
    finally:
        cleanup(root)


def test_compaction_is_triggered_by_journal_length():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [])
        peg = 1 << 2 | 1 << 3
        for i in range(COMPACT_AFTER):
            journal.append(KIND_UNDO if i % 2 else KIND_APPLY, peg if i % 2 == 0 else 0, 0, 0)
            if i % 2:
                game.undo()
            else:
                game.apply(peg)
            journal.after_append()
        # the journal was compacted: only its header is left
        assert len(_read(root + JOURNAL)) == RECORD_SIZE
        journal.close()
        ok, again, j2 = _restored(root)
        assert again.n == 0 and again.top == 1   # the last peg is on the redo stack
        j2.close()
    finally:
        cleanup(root)


def test_append_allocates_nothing():
    if sys.implementation.name != "micropython":
        skip("needs micropython.heap_lock: runs in the MicroPython pass (tests/test_micropython_port.py)")
    import micropython
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [])
        micropython.heap_lock()
        try:
            for i in range(20):
                journal.append(KIND_APPLY, P0_3, i + 1, i)
        finally:
            micropython.heap_unlock()
        assert journal.records == 20
        journal.close()
    finally:
        cleanup(root)
