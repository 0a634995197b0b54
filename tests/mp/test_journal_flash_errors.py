# A flash write that fails (flash full, worn out) is answered ERR FLASH and
# changes nothing, in RAM or on flash; the board recovers on the next write.
# Runs under CPython and the MicroPython unix port.
from mpfixtures import booted_app, cleanup, folder, send, shut
from mpfixtures import bodies as read_bodies


class _FailingFlash:
    """A block device whose writes fail (flash full, worn out): ENOSPC."""

    def __init__(self, real):
        self.real = real
        self.failing = True

    def readblocks(self, block, buf, offset=0):
        self.real.readblocks(block, buf, offset)

    def writeblocks(self, block, buf, offset=None):
        if self.failing:
            raise OSError(28)
        self.real.writeblocks(block, buf, offset)

    def ioctl(self, op, arg):
        if self.failing and op == 6:
            raise OSError(28)
        return self.real.ioctl(op, arg)

    def close(self):
        self.real.close()


def test_a_failed_journal_write_changes_nothing_and_the_next_one_recovers():
    root = folder("flash")
    try:
        app, out = booted_app(root)
        send(app, 1, "NEW roquet 2", "PEG 0 5")
        # the flash fails: records, and the snapshot that would follow
        journal = app.journal
        flash = _FailingFlash(journal.ring.device)
        journal.ring.device = flash
        real_write = journal._write_snapshot

        def snapshot(*args):
            if flash.failing:
                raise OSError(28)
            real_write(*args)

        journal._write_snapshot = snapshot
        send(app, 3, "PEG 1 3", "SCORE", "UNDO")
        # the flash works again: the next write snapshots, then appends
        flash.failing = False
        send(app, 6, "PEG 1 3", "SCORE")
        shut(app, out)
        bodies = read_bodies(root)
        assert bodies[-6] == b"3 ERR FLASH the board's flash is full; nothing changed: free space (mpremote rm) or redeploy"
        assert bodies[-5] == b"4 OK hands=0 complete=0 winners=1 totals=5,0"
        assert bodies[-4].startswith(b"5 ERR FLASH ")
        # PEG 1 3: 1 << 2 | 3 << 3 = 28; totals 5 and 3
        assert bodies[-3] == b"6 OK n=2 top=2 eseq=4 ev=28"
        assert bodies[-2] == b"! 4 EV n=2 top=2 ev=28 src=host totals=5,3"   # no event for the failures
        assert bodies[-1] == b"7 OK hands=0 complete=0 winners=1 totals=5,3"
        again, out = booted_app(root)
        assert again.game.n == 2 and again.game.total(0) == 5 and again.game.total(1) == 3
        shut(again, out)
    finally:
        cleanup(root)


def test_a_failed_new_game_keeps_the_game_in_progress_on_flash_too():
    root = folder("flash")
    try:
        app, out = booted_app(root)
        send(app, 1, "NEW roquet 2", "PEG 0 7")
        journal = app.journal
        journal.ring.device = _FailingFlash(journal.ring.device)
        send(app, 3, "NEW skicket 4", "STATE")
        shut(app, out)
        bodies = read_bodies(root)
        # a new game is not a setting: the message says what was kept
        assert bodies[-2] == (b"3 ERR FLASH the board's flash is full; the game in progress is kept: "
                              b"free space (mpremote rm) or redeploy")
        assert bodies[-1].startswith(b"4 OK game=roquet players=2 options=0 n=1 top=1 ")
        again, out = booted_app(root)
        assert again.game.name() == "roquet" and again.game.total(0) == 7
        shut(again, out)
    finally:
        cleanup(root)


def test_damaged_storage_is_a_note_at_boot_that_state_counts_and_note_reads():
    root = folder("flash")
    try:
        app, out = booted_app(root)
        send(app, 1, "NEW roquet 2", "PEG 0 5", "PEG 0 6", "PEG 0 7")
        shut(app, out)
        from tallyrun import ring as R
        journal = app.journal
        # the game's records: the NEW, then pegs 5, 6, 7; damage the second of them (record 3),
        # in place (reading the whole 128 KB ring needs 256 KB of one piece of a fragmented heap)
        at = journal.start_k * R.BLOCK + R.slot_offset(2)
        with open(root + R.PLACEHOLDER, "r+b") as f:
            f.seek(at + 1)
            byte = bytearray(f.read(1))
            byte[0] ^= 0xFF
            f.seek(at + 1)
            f.write(byte)
        with open(root + "out.txt", "wb"):
            pass
        app, out = booted_app(root)
        send(app, 9, "STATE", "NOTE 0", "NOTE 1")
        shut(app, out)
        bodies = read_bodies(root)
        assert bodies[0].startswith(b"! 1 BOOT ") and b" n=1 " in bodies[0]   # peg 5 survived
        # the game's 4 records (NEW and three pegs); the 3rd and the one after it:
        # 4 - 3 + 1 = 2 changes dropped
        text = b"journal_record_3_of_4_damaged:_2_changes_dropped;_kept_as_game.jnl.bad"
        assert bodies[1] == b"! 2 NOTE text=" + text
        assert bodies[2].endswith(b" notes=1")
        assert bodies[3] == b"10 OK count=1 text=" + text
        assert bodies[4] == b"11 ERR RANGE no note at that index; STATE says how many (notes)"
    finally:
        cleanup(root)
