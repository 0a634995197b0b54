# The switch between two releases and the rollback (firmware/tallyboot.py;
# issue 43): a partition stand-in whose writes can be cut like the power,
# the state file through each step, a cut at every block of a copy. Under
# CPython and the unix port (tests/mp/run.py); on the chip, tests/test_twin_update.py.
import sys

from mpfixtures import cleanup, folder, read_file, write_file
import tallyboot

HEADER = b"\xd2\xcd\x31"
# Two ROMFS images made by hand: the header, the length as a varint, the bytes.
# A: 100 bytes after a one-byte length: 3 + 1 + 100 = 104 bytes, one block.
IMAGE_A = HEADER + bytes([100]) + bytes(range(100))
# B: 5000 bytes after a two-byte length (5000 = 39 * 128 + 8: 0xA7 0x08): 3 + 2 + 5000 = 5005 bytes,
# two 4096-byte blocks.
IMAGE_B = HEADER + b"\xa7\x08" + bytes((i * 7) & 0xFF for i in range(5000))


class PowerCut(Exception):
    pass


class Partition(bytearray):
    """rp2.Flash over the ROMFS partition: 4 blocks of 4096 bytes; `cut_after`
    writes (erases and programs) go through, the next one cuts the power."""

    def __init__(self, data=b""):
        super().__init__(b"\xff" * 16384)
        self[0:len(data)] = data
        self.cut_after = -1
        self.writes = []

    def _spend(self):
        if self.cut_after == 0:
            raise PowerCut()
        self.cut_after -= 1

    def writeblocks(self, block, buf):
        self._spend()
        self[block * 4096:block * 4096 + len(buf)] = buf
        self.writes.append(block)

    def ioctl(self, op, arg):
        if op == 6:
            self._spend()
            self[arg * 4096:arg * 4096 + 4096] = b"\xff" * 4096
            self.writes.append(-1 - arg)
        return 0


class Machine:
    resets = 0

    @staticmethod
    def reset():
        Machine.resets += 1


def _flash(part):
    root = folder("update")
    import os
    os.mkdir(root + tallyboot.FOLDER)
    tallyboot.partition = lambda: part
    return root


def _cleanup(root):
    import os
    for name in os.listdir(root + tallyboot.FOLDER):
        os.remove(root + tallyboot.FOLDER + "/" + name)
    os.rmdir(root + tallyboot.FOLDER)
    cleanup(root)


def _staged(root, part):
    """B staged beside A, the old one saved and the switch written: what the link does."""
    write_file(root + tallyboot.NEW, IMAGE_B)
    size, digest = tallyboot.save_running(part, root)
    assert (size, digest) == (104, tallyboot.sha256_hex(IMAGE_A))
    tallyboot.write_state([tallyboot.INSTALL, "bbbb", "5005", tallyboot.sha256_hex(IMAGE_B),
                           "aaaa", str(size), digest, "-", "180"], root)


class Flash:
    """A scratch flash with A in the partition (and, staged, B switched to as the link does), gone after."""

    def __init__(self, staged=True):
        self.staged = staged

    def __enter__(self):
        self.part = Partition(IMAGE_A)
        self.root = _flash(self.part)
        if self.staged:
            _staged(self.root, self.part)
        return self.root, self.part

    def __exit__(self, *exc):
        _cleanup(self.root)


def _cut_at(part, root, cut):
    """Power up with the power cut before write `cut`; the step the flash is left in."""
    part.cut_after = cut
    try:
        tallyboot.boot(root)
        assert False, "the power was cut"
    except PowerCut:
        pass
    part.cut_after = -1
    return tallyboot.step(root)


def test_an_image_size_is_read_from_its_header():
    assert tallyboot.image_size(memoryview(IMAGE_A)) == 104
    assert tallyboot.image_size(memoryview(IMAGE_B)) == 5005
    assert tallyboot.image_size(memoryview(b"\xff" * 64)) == 0         # an erased partition
    assert tallyboot.image_size(memoryview(HEADER + b"\x80\x05" + bytes(5))) == 3 + 2 + 5   # a padded length


def test_no_state_changes_nothing():
    with Flash(staged=False) as (root, part):
        assert tallyboot.boot(root) is None
        assert part.writes == [] and bytes(part[:104]) == IMAGE_A


def test_the_switch_installs_the_new_one_block_zero_last_and_a_trial_begins():
    with Flash() as (root, part):
        assert read_file(root + tallyboot.OLD) == IMAGE_A
        assert tallyboot.boot(root) == tallyboot.TRIAL
        # block 0 erased first (-1), then block 1 written, then block 0
        assert part.writes == [-1, 1, 0]
        assert bytes(part[:5005]) == IMAGE_B
        assert tallyboot.step(root) == tallyboot.TRIAL
        assert tallyboot.keep(root) is True               # it linked: kept
        assert tallyboot.step(root) is None
        assert read_file(root + tallyboot.OLD) == IMAGE_A     # the one before stays, to go back to
        try:
            read_file(root + tallyboot.NEW)
            assert False, "new.rom is the partition's now"
        except OSError:
            pass
        assert tallyboot.keep(root) is False              # nothing under way


def test_a_power_cut_at_every_write_of_the_switch_boots_one_whole_release():
    # The switch makes 3 writes (erase 0, block 1, block 0); cut before each in turn, then power up
    # again on a flash that holds: the board ends in a trial of B, whole, every time.
    for cut in range(3):
        with Flash() as (root, part):
            assert _cut_at(part, root, cut) == tallyboot.INSTALL      # the state as it was
            assert tallyboot.image_size(memoryview(part)) in (0, 104)   # no ROMFS, or A before the erase
            assert tallyboot.boot(root) == tallyboot.TRIAL
            assert bytes(part[:5005]) == IMAGE_B


def test_a_reset_during_the_trial_goes_back_to_the_old_release_and_says_why():
    with Flash() as (root, part):
        assert tallyboot.boot(root) == tallyboot.TRIAL
        # the new release reset before it linked: the next power-up goes back
        assert tallyboot.boot(root) == tallyboot.BACK
        assert bytes(part[:104]) == IMAGE_A and tallyboot.image_size(memoryview(part)) == 104
        words = tallyboot.read_state(root)
        assert (words[0], words[1], words[4], words[7]) == ("back", "bbbb", "aaaa", tallyboot.WHY_RESET)
        assert tallyboot.boot(root) == tallyboot.BACK      # and stays there: nothing copied again
        assert part.writes[-1] == 0 and len(part.writes) == 3 + 2   # B's 3 writes, then A's erase and block 0


def test_a_cut_while_going_back_still_ends_on_the_old_release():
    for cut in range(2):       # A is one block: erase 0, block 0
        with Flash() as (root, part):
            tallyboot.boot(root)
            assert _cut_at(part, root, cut) == tallyboot.RESTORE
            assert tallyboot.boot(root) == tallyboot.BACK
            assert bytes(part[:104]) == IMAGE_A


def test_a_damaged_staged_file_is_never_booted():
    with Flash() as (root, part):
        write_file(root + tallyboot.NEW, IMAGE_B[:-1] + b"\x00")    # one byte changed on flash
        assert tallyboot.boot(root) == tallyboot.BACK
        assert bytes(part[:104]) == IMAGE_A
        assert tallyboot.read_state(root)[7] == tallyboot.WHY_DAMAGED


def test_not_linked_in_time_or_an_app_that_fails_goes_back():
    saved = sys.modules.get("machine")
    sys.modules["machine"] = Machine
    try:
        for fail, why in ((tallyboot.expired, tallyboot.WHY_NO_LINK), (tallyboot.failed, tallyboot.WHY_FAILED)):
            with Flash() as (root, part):
                tallyboot.boot(root)
                before = Machine.resets
                fail(root)
                assert Machine.resets == before + 1
                assert tallyboot.read_state(root)[0] == tallyboot.RESTORE
                assert tallyboot.read_state(root)[7] == why
                assert tallyboot.boot(root) == tallyboot.BACK and bytes(part[:104]) == IMAGE_A
                before = Machine.resets
                fail(root)                      # not in a trial: nothing
                assert Machine.resets == before
    finally:
        if saved is None:
            del sys.modules["machine"]
        else:
            sys.modules["machine"] = saved


def test_a_state_that_cannot_be_read_is_none():
    with Flash(staged=False) as (root, part):
        write_file(root + tallyboot.STATE, b"install too few words")
        assert tallyboot.read_state(root) is None and tallyboot.boot(root) is None
        write_file(root + tallyboot.STATE, b"\xff\xfe")
        assert tallyboot.read_state(root) is None
        write_file(root + tallyboot.STATE, b"install b 5x05 s a 104 s - 180")     # a size that is no number
        assert tallyboot.read_state(root) is None and tallyboot.boot(root) is None
        assert part.writes == []
