# The power-cut-safe journal (tallyrun/journal.py, tallyrun/ring.py), in
# process: every way a power cut or damage can leave the flash (a record
# programmed to any byte, a corrupt byte, a cut between a snapshot and its
# erase, an erase ahead cut short, a stale temporary file) restores the exact
# game up to the last whole record, says what it dropped, and new records after
# a restore never follow garbage. The ring lives in journal.raw, a plain file
# with NOR flash's rules (ring.FileDevice), so the flash work per event is
# counted too. Runs under CPython and under the MicroPython unix port.
import os
import sys

from tallycore import roquet, skicket
from tallycore.game import Game
from tallyrun import ring as R
from tallyrun.journal import (Journal, KIND_APPLY, KIND_UNDO, KIND_REDO, RECORD_SIZE,
                               SNAPSHOT, SNAPSHOT_COPY)
from mpfixtures import cleanup, folder, skip

def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def _peek(path, at, length):
    """length bytes of a file from offset at (the ring file is 128 KB: no whole copies)."""
    with open(path, "rb") as f:
        f.seek(at)
        return f.read(length)


def _poke(path, at, data):
    with open(path, "r+b") as f:
        f.seek(at)
        f.write(data)


def _journaled(root, rules, players, events):
    """A game on flash: new, then each event journaled and applied ('U' undo, 'R' redo)."""
    game = Game()
    journal = Journal(game, root)
    journal.restore()
    journal.start(rules, players, 0, 1, 0x1111)
    game.new(rules, players, 0)
    journal.after_append()
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
        journal.after_append()
        seq += 1
    return game, journal


def _restored(root):
    game = Game()
    journal = Journal(game, root)
    ok = journal.restore()
    return ok, game, journal


def _log(game):
    return [game.log[i] for i in range(game.top)]


def _offset(journal, position):
    """Where record `position` (0: the NEW) of the snapshot's records is in journal.raw."""
    k = (journal.start_k + position // R.SLOTS) % R.RING_BLOCKS
    return k * R.BLOCK + R.slot_offset(position % R.SLOTS)


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


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
        assert j2.restored == 4 and not j2.cut     # the NEW and three pegs
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




def test_a_record_programmed_to_any_byte_is_whole_or_dropped():
    root = folder("journal")
    try:
        for cut in range(0, RECORD_SIZE + 1):
            for name in os.listdir(root[:-1]):
                os.remove(root + name)
            game, journal = _journaled(root, roquet, 2, [P0_5, P1_17, P0_3])
            journal.close()
            # a page program cut short: the first `cut` bytes of peg 3 (record 3
            # after the NEW) are in, the rest still erased
            at = _offset(journal, 3)
            record = _peek(root + R.PLACEHOLDER, at, RECORD_SIZE)
            _poke(root + R.PLACEHOLDER, at, record[:cut] + b"\xff" * (RECORD_SIZE - cut))
            ok, again, j2 = _restored(root)
            assert ok, cut
            if cut == RECORD_SIZE:
                assert _log(again) == [40, 140, 24] and j2.problems == [], cut
            else:
                # peg 3 never was acknowledged: 5 and 17 stand
                assert _log(again) == [40, 140], cut
                assert again.total(0) == 5 and again.total(1) == 17
                expected = [] if cut == 0 else ["journal ends in a partial record (the change being "
                                                "written when the power went, never acknowledged): dropped"]
                assert j2.problems == expected, (cut, j2.problems)
            # carry on after the cut: the next record is found on the next boot
            again.check(P0_3)
            j2.append(KIND_APPLY, P0_3, 9, 0x0909)
            again.apply(P0_3)
            j2.after_append()
            j2.close()
            ok, third, j3 = _restored(root)
            assert _log(third) == _log(again), cut
            assert j3.last_seq == 9 and j3.problems == [], cut
            j3.close()
    finally:
        cleanup(root)


def test_a_damaged_record_in_the_middle_is_reported_and_the_rest_kept_aside():
    root = folder("journal")
    try:
        # 11 pegs after the NEW: player 0 pegs 1, 2, ..., 11 points
        pegs = [0 << 2 | k << 3 for k in range(1, 12)]
        game, journal = _journaled(root, roquet, 2, pegs)
        journal.close()
        at = _offset(journal, 3) + 2                     # peg 3 (record 3 after the NEW)
        _poke(root + R.PLACEHOLDER, at, bytes([_peek(root + R.PLACEHOLDER, at, 1)[0] ^ 0x10]))
        ok, again, j2 = _restored(root)
        # pegs 1 and 2 are intact and applied: 1 + 2 = 3 points
        assert ok and again.n == 2 and again.total(0) == 3
        # the game's records are the NEW and 11 pegs (12); the bad one is its 4th;
        # it and the 8 after it are dropped: 12 - 4 + 1 = 9
        assert j2.problems == ["journal record 4 of 12 damaged: 9 changes dropped; kept as game.jnl.bad"]
        assert len(_read(root + "game.jnl.bad")) == 12 * RECORD_SIZE
        # the journal goes on from the intact state; the next boot is clean
        j2.append(KIND_APPLY, P0_5, 99, 0x9999)
        again.apply(P0_5)
        j2.after_append()
        j2.close()
        ok, third, j3 = _restored(root)
        assert ok and third.total(0) == 3 + 5 and j3.problems == []
        j3.close()
    finally:
        cleanup(root)


def test_a_snapshot_and_its_copy_both_damaged_mean_no_game_and_the_files_are_kept():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5])
        journal.compact()          # the game is in the snapshot now
        journal.close()
        for name in (SNAPSHOT, SNAPSHOT_COPY):
            snapshot = bytearray(_read(root + name))
            snapshot[10] ^= 1
            _write(root + name, snapshot)
        ok, again, j2 = _restored(root)
        assert not ok and again.rules is None
        assert j2.problems == ["snapshot game.snp and its copy damaged: no game restored; the files are "
                               "kept as game.snp.bad and game.snb.bad"]
        for name in (SNAPSHOT, SNAPSHOT_COPY):
            assert _exists(root + name + ".bad") and not _exists(root + name), name
    finally:
        cleanup(root)


def test_a_cut_between_a_snapshot_and_its_erase_leaves_stale_records_that_are_ignored():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5, P1_17])
        journal.compact()              # snapshot: both pegs; the ring goes on in the next block
        journal.close()
        # the cut came after the snapshot's rename, before its block was erased:
        # that block still holds records of the old generation (the old block's, copied in)
        k = journal.start_k
        old = _peek(root + R.PLACEHOLDER, (k - 1) * R.BLOCK, R.BLOCK)
        _poke(root + R.PLACEHOLDER, k * R.BLOCK, old)
        ok, again, j2 = _restored(root)
        # the old generation's pegs are NOT applied a second time, and nothing is reported
        assert ok and _log(again) == [40, 140] and j2.problems == []
        j2.append(KIND_APPLY, P0_3, 30, 30)
        again.apply(P0_3)
        j2.close()
        ok, third, j3 = _restored(root)
        assert _log(third) == [40, 140, 24]
        j3.close()
    finally:
        cleanup(root)


def test_an_erase_ahead_cut_short_is_erased_again_at_boot():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5])
        journal.close()
        nxt = (journal.k + 1) % R.RING_BLOCKS
        _poke(root + R.PLACEHOLDER, nxt * R.BLOCK + 300, bytes(600))   # half erased: old bits still there
        ok, again, j2 = _restored(root)
        assert ok and _log(again) == [40]
        assert _peek(root + R.PLACEHOLDER, nxt * R.BLOCK, R.BLOCK) == b"\xff" * R.BLOCK
        j2.close()
    finally:
        cleanup(root)


def test_a_long_session_costs_one_page_program_per_event_and_an_erase_per_250_or_more():
    root = folder("journal")
    try:
        game, journal = _journaled(root, skicket, 4, [])
        device = journal.ring.device
        erases, programs = device.erases, device.programs
        # 12,000 changes (more than a turn of the ring: 32 blocks of 315 records):
        # misdeals, each undone and redone
        misdeal = skicket.MISDEAL
        events = 0
        for i in range(4000):
            for kind in (KIND_APPLY, KIND_UNDO, KIND_REDO):
                journal.append(kind, misdeal if kind == KIND_APPLY else 0, 0, 0)
                if kind == KIND_APPLY:
                    game.apply(misdeal)
                elif kind == KIND_UNDO:
                    game.undo()
                else:
                    game.redo()
                journal.after_append()
                events += 1
            if game.n >= 590:                # keep inside the log: a new game
                journal.start(skicket, 4, 0, 0, 0)
                game.new(skicket, 4, 0)
                journal.after_append()
                events += 1
        programs = device.programs - programs
        erases = device.erases - erases
        assert programs == events, (programs, events)            # one page program each
        assert erases * 250 <= events, (erases, events)          # at most one erase per 250
        journal.close()
        ok, again, j2 = _restored(root)
        assert again.n == game.n and again.top == game.top and j2.problems == []
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
        assert journal.records == 21
        journal.close()
    finally:
        cleanup(root)


def test_a_board_with_the_earlier_journal_keeps_its_game():
    import oldjournal_writer as oldjournal   # the earlier firmware's writers (the board only reads)
    root = folder("journal")
    try:
        game = Game()
        old = oldjournal.Journal(game, root)
        old.start(roquet, 2, 0, 1, 0x1111)
        game.new(roquet, 2, 0)
        for seq, event in ((2, P0_5), (3, P1_17)):
            old.append(oldjournal.KIND_APPLY, event, seq, 0x3000 + seq)
            game.apply(event)
        old.close()
        assert _exists(root + oldjournal.JOURNAL)
        ok, again, j2 = _restored(root)
        assert ok and _log(again) == [40, 140] and j2.last_seq == 3 and j2.problems == []
        assert not _exists(root + oldjournal.JOURNAL)
        j2.append(KIND_APPLY, P0_3, 4, 4)
        again.apply(P0_3)
        j2.close()
        ok, third, j3 = _restored(root)
        assert _log(third) == [40, 140, 24]
        j3.close()
    finally:
        cleanup(root)


def test_a_journal_file_cut_short_is_kept_aside_and_said():
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5])
        journal.compact()                  # the peg is in the snapshot
        journal.append(KIND_APPLY, P1_17, 9, 9)
        journal.close()
        raw = _peek(root + R.PLACEHOLDER, 0, 5000)
        _write(root + R.PLACEHOLDER, raw)
        ok, again, j2 = _restored(root)
        # the snapshot's game stands; the peg of 17 after it was in the lost part
        assert ok and _log(again) == [40]
        assert j2.problems == ["journal.raw was 5000 bytes, not 131072 (kept as journal.raw.bad): made again; "
                               "the changes after the last snapshot are lost"]
        assert _read(root + R.PLACEHOLDER + ".bad") == raw
        j2.close()
    finally:
        cleanup(root)


def test_the_archive_mark_is_kept_with_its_game_through_a_snapshot_and_dropped_by_new():
    # KEPT (docs/protocol.md, "The archive mark"): the host's archive holds the
    # game as it stands, n = 2 events with log CRC 0xBEEF: kept = 2 | 0xBEEF << 10
    kept = 2 | 0xBEEF << 10
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5, P1_17])
        journal.keep(kept, 10, 0x3010)
        journal.close()
        ok, again, j2 = _restored(root)
        assert ok and j2.kept == kept and _log(again) == [40, 140]
        assert j2.last_seq == 10 and j2.last_crc == 0x3010      # a retry of KEPT is not applied twice
        # the ring comes round: the snapshot has no room for the mark, which is written again after it
        j2.compact()
        j2.close()
        ok, third, j3 = _restored(root)
        assert ok and j3.kept == kept and _log(third) == [40, 140]
        # a new game has no mark
        j3.start(roquet, 2, 0, 11, 0x3011)
        third.new(roquet, 2, 0)
        assert j3.kept == 0
        j3.close()
        ok, fourth, j4 = _restored(root)
        assert ok and j4.kept == 0 and fourth.n == 0
        j4.close()
    finally:
        cleanup(root)


def test_a_cut_before_the_mark_is_written_again_loses_only_the_mark():
    kept = 1 | 0x1234 << 10
    root = folder("journal")
    try:
        game, journal = _journaled(root, roquet, 2, [P0_5])
        journal.keep(kept)
        journal.compact()
        journal.close()
        # the cut came after the snapshot, before the mark's record: erase it again
        _poke(root + R.PLACEHOLDER, _offset(journal, 0), b"\xff" * RECORD_SIZE)
        ok, again, j2 = _restored(root)
        # the game is whole; the mark is gone, so the board asks again (the safe side)
        assert ok and _log(again) == [40] and j2.kept == 0 and j2.problems == []
        j2.close()
    finally:
        cleanup(root)
