# Stand-ins for what an update over the air uses of rp2's `machine` and `vfs` on the
# emulator (firmware/tallyboot.py): the ROMFS partition, as vfs.rom_ioctl gives it, and
# a one-shot machine.Timer. emu/machine.py hands them out when first asked for, so a
# board that takes no update holds none of this in its heap. Never deployed.
#   romfs.bin (in the flash folder, the board's own): the partition of tallyboard's images
#             (image/README.md), when the emulated board has one: its bytes, written a 4 KB
#             block at a time, each write kept in the file at once (a power cut keeps it)
import os
import time

ROMFS_FILE = "romfs.bin"
_BLOCK = 4096


class _Partition(bytearray):
    """rp2's ROMFS partition (rp2.Flash): its bytes readable as memory (VfsRom
    mounts it, hashlib reads it), written a 4 KB block at a time, each write
    kept in romfs.bin at once (a power cut keeps what was written)."""

    def readblocks(self, block, buf, offset=0):
        at = block * _BLOCK + offset
        buf[:] = self[at:at + len(buf)]

    def writeblocks(self, block, buf, offset=None):
        at = block * _BLOCK
        if offset is None:
            self._store(at, b"\xff" * len(buf))      # erased first, as rp2.Flash does with three arguments
        else:
            at += offset
        self._store(at, buf)

    def ioctl(self, op, arg):
        if op == 4:
            return len(self) // _BLOCK
        if op == 5:
            return _BLOCK
        if op == 6:
            self._store(arg * _BLOCK, b"\xff" * _BLOCK)
        return 0

    def _store(self, at, data):
        self[at:at + len(data)] = data
        with open(ROMFS_FILE, "r+b") as f:
            f.seek(at)
            f.write(data)


_partition = []


def rom_ioctl(op, *args):
    """vfs.rom_ioctl's stand-in: op 1, the number of partitions (0 without
    romfs.bin); op 2, partition 0."""
    if not _partition:
        try:
            part = _Partition(os.stat(ROMFS_FILE)[6])     # (in the heap: the emulator adds its size to it)
            with open(ROMFS_FILE, "rb") as f:
                f.readinto(part)
            _partition.append(part)
        except OSError:
            _partition.append(None)
    part = _partition[0]
    if op == 1:
        return 0 if part is None else 1
    if op == 2 and part is not None and args == (0,):
        return part
    return -22


class Timer:
    """machine.Timer's one-shot (tallyboot's trial): its callback is scheduled
    from a thread once the period has gone, as the chip's soft timer schedules it."""
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id=-1, **kwargs):
        self.generation = 0
        if kwargs:
            self.init(**kwargs)

    def init(self, mode=ONE_SHOT, period=-1, callback=None):
        import _thread
        import micropython
        self.generation += 1
        generation = self.generation

        def wait():
            time.sleep_ms(period)
            if self.generation == generation and callback is not None:
                micropython.schedule(callback, self)
        _thread.start_new_thread(wait, ())

    def deinit(self):
        self.generation += 1
