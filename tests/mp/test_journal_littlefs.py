# The journal's ring on the chip's path: inside journal.raw, a file of a real
# littlefs (MicroPython's VfsLfs2, formatted as the rp2 port's _boot.py does,
# progsize 256) on a counting block device with the RP2040's flash geometry:
# 4096-byte sectors, 256-byte pages, a program can only clear bits, an erase
# sets a sector to 0xFF. Proves: one page program per acknowledged event, at
# most one sector erase per 250, the filesystem around the ring stays whole
# (other files written and read, remounted), a power cut between an erase and
# the reprogrammed littlefs pointers is repaired at boot, and a removed
# journal.raw is recreated and said. MicroPython only (CPython has no VfsLfs2).
import os
import sys

from tallycore import roquet, skicket
from tallycore.game import Game
from tallyrun import ring as R
from tallyrun.journal import Journal, KIND_APPLY, KIND_UNDO, KIND_REDO
from mpfixtures import skip

_SECTOR = 4096
_PAGE = 256
_ERASED_SECTOR = b"\xff" * _SECTOR


class CountingFlash:
    """NOR flash in RAM with the RP2040's geometry, counting erases and page programs."""

    def __init__(self, sectors):
        self.sectors = sectors
        # a sector each: no large block of the unix port's heap
        self.data = [bytearray(_ERASED_SECTOR) for _ in range(sectors)]
        self.erases = 0
        self.programs = 0

    def readblocks(self, block, buf, offset=0):
        buf[:] = memoryview(self.data[block])[offset:offset + len(buf)]

    def writeblocks(self, block, buf, offset=None):
        if offset is None:
            self.ioctl(6, block)
            offset = 0
        assert offset % _PAGE + len(buf) <= _PAGE or (offset % _PAGE == 0 and len(buf) % _PAGE == 0), \
            "a program must stay inside its pages"
        sector = self.data[block]
        for i in range(len(buf)):
            sector[offset + i] &= buf[i]
        self.programs += (len(buf) + _PAGE - 1) // _PAGE

    def ioctl(self, op, arg):
        if op == 4:
            return self.sectors
        if op == 5:
            return _SECTOR
        if op == 6:
            self.data[arg][:] = _ERASED_SECTOR
            self.erases += 1
            return 0
        return 0


_mounted = [0]


def _littlefs(sectors=48):
    if sys.implementation.name != "micropython":
        skip("needs MicroPython's VfsLfs2 (littlefs): runs in the MicroPython pass")
    import vfs
    flash = CountingFlash(sectors)
    vfs.VfsLfs2.mkfs(flash, progsize=_PAGE)
    _mounted[0] += 1
    point = "/lfs%d" % _mounted[0]
    vfs.mount(vfs.VfsLfs2(flash, progsize=_PAGE), point)
    return flash, point, point + "/"


def _remount(flash, point):
    import vfs
    vfs.umount(point)
    vfs.mount(vfs.VfsLfs2(flash, progsize=_PAGE), point)


def _unmount(point):
    import vfs
    vfs.umount(point)


def _write_file(path, size, fill):
    with open(path, "wb") as f:
        f.write(bytes([fill]) * size)


def _read_file(path):
    with open(path, "rb") as f:
        return f.read()


def test_one_page_program_per_event_and_a_whole_filesystem_around_the_ring():
    flash, point, root = _littlefs()
    try:
        game = Game()
        journal = Journal(game, root, flash)
        assert not journal.restore()
        journal.start(skicket, 4, 0, 0, 0)
        game.new(skicket, 4, 0)
        journal.after_append()
        erases, programs = flash.erases, flash.programs
        events = 0
        for i in range(3400):      # 10,200 changes: more than a turn of the ring (32 x 315)
            for kind in (KIND_APPLY, KIND_UNDO, KIND_REDO):
                journal.append(kind, skicket.MISDEAL if kind == KIND_APPLY else 0, 0, 0)
                if kind == KIND_APPLY:
                    game.apply(skicket.MISDEAL)
                elif kind == KIND_UNDO:
                    game.undo()
                else:
                    game.redo()
                journal.after_append()
                events += 1
            if game.n >= 590:
                journal.start(skicket, 4, 0, 0, 0)
                game.new(skicket, 4, 0)
                journal.after_append()
                events += 1
            if i % 500 == 0:
                # the rest of the board's files keep changing around the ring
                _write_file(root + "config.txt", 300 + i % 7, 65 + i % 26)
        erases = flash.erases - erases
        programs = flash.programs - programs
        # littlefs's own writes (the config file, 7 times; the snapshot and its
        # copy at the ring's turn) cost their programs on top: at most 2%
        assert programs <= events + events // 50, (programs, events)
        assert erases * 250 <= events, (erases, events)
        _write_file(root + "other.bin", 16000, 0x5A)
        _remount(flash, point)
        assert _read_file(root + "other.bin") == b"\x5a" * 16000
        again = Game()
        j2 = Journal(again, root, flash)
        assert j2.restore() and j2.problems == []
        assert (again.n, again.top, again.total(0)) == (game.n, game.top, game.total(0))
    finally:
        _unmount(point)


def test_a_cut_between_an_erase_and_the_pointers_is_repaired_at_boot():
    flash, point, root = _littlefs()
    try:
        game = Game()
        journal = Journal(game, root, flash)
        journal.restore()
        journal.start(roquet, 2, 0, 1, 1)
        game.new(roquet, 2, 0)
        journal.after_append()
        peg = 0 << 2 | 5 << 3           # player 0 pegs 5
        journal.append(KIND_APPLY, peg, 2, 2)
        game.apply(peg)
        journal.after_append()
        # a block of the ring erased, and the power went before its littlefs
        # pointers (and marker) were programmed back
        spare = (journal.k + 3) % R.RING_BLOCKS
        flash.ioctl(6, journal.ring.blocks[spare])
        _remount(flash, point)
        again = Game()
        j2 = Journal(again, root, flash)
        assert j2.restore() and again.total(0) == 5
        head = bytearray(R.PREFIX)
        flash.readblocks(j2.ring.blocks[spare], head, 0)
        assert bytes(head) == j2.ring.prefixes[spare]       # put back
        # littlefs can find every block of journal.raw again: new files go elsewhere
        _write_file(root + "after.bin", 24000, 0x33)
        _remount(flash, point)
        assert _read_file(root + "after.bin") == b"\x33" * 24000
        j3 = Journal(Game(), root, flash)
        assert j3.restore() and j3.game.total(0) == 5
    finally:
        _unmount(point)


def test_a_removed_journal_file_is_made_again_and_said():
    flash, point, root = _littlefs()
    try:
        game = Game()
        journal = Journal(game, root, flash)
        journal.restore()
        journal.start(roquet, 2, 0, 1, 1)
        game.new(roquet, 2, 0)
        journal.after_append()
        journal.compact()                       # the game (no pegs yet) is in the snapshot
        peg = 1 << 2 | 4 << 3                   # player 1 pegs 4
        journal.append(KIND_APPLY, peg, 2, 2)
        game.apply(peg)
        os.remove(root + R.PLACEHOLDER)         # someone's mpremote rm
        again = Game()
        j2 = Journal(again, root, flash)
        assert j2.restore()
        # the snapshot's game stands; the peg after it was in the removed file
        assert again.name() == "roquet" and again.total(1) == 0
        assert j2.problems == ["journal.raw was missing: made again; the changes after the last "
                               "snapshot are lost"]
        _write_file(root + "x.bin", 24000, 1)
        _remount(flash, point)
        assert _read_file(root + "x.bin") == b"\x01" * 24000
    finally:
        _unmount(point)


def _fragment_heap(hole):
    """Fill the heap, then free every other block of `hole` bytes: the heap
    has room (half of it) but not one free piece longer than `hole` bytes.
    Returns what holds the rest; drop it to give the heap back."""
    import gc
    held = [None] * 8000                  # made first: the list never grows
    count = 0
    for size in (hole, 1024, 256, 64, 16):
        try:
            while count < len(held):
                held[count] = bytearray(size)
                count += 1
        except MemoryError:
            pass
    for i in range(0, count, 2):
        if len(held[i]) == hole:
            held[i] = None
    gc.collect()
    return held


def test_the_ring_is_made_in_a_heap_with_no_free_piece_as_long_as_a_block():
    # The board's first game makes journal.raw; after a boot and a game's code
    # loaded, the heap's largest free piece can be under one 4096-byte block
    # (seen on the device twin: MemoryError allocating 4096 bytes on NEW)
    flash, point, root = _littlefs()
    held = None
    try:
        held = _fragment_heap(3072)
        ring = R.open_ring(root, flash)
        held = None
        assert ring.blocks and len(ring.blocks) == R.RING_BLOCKS
    finally:
        held = None
        _unmount(point)
