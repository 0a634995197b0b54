# A release's switch and its rollback (issue 43; docs/club-wifi.md, "Updates
# over the air"). On tallyboard's images the firmware's packages run from the
# ROMFS partition (image/README.md). A Pico W's partition holds one release
# (190 KB of 256 KiB), so the second one, the "B" of A/B, is a file on
# littlefs: update/new.rom while a release is staged, update/old.rom once it
# is installed (the release it replaced, kept to go back to).
#
# The switch is one atomic write: update/state, written new then renamed,
# says which file belongs in the partition. main.py runs boot() before any
# package is imported when that file exists, and boot() puts the partition
# right: it copies the file named into the partition (block 0, the ROMFS
# header, erased first and written last) and checks the partition's SHA-256.
# A power cut during the copy leaves the state as it was, so the next power-up
# copies again: the board boots one of the two releases, whole, whenever the
# power goes. The game is on littlefs (the journal): an update never touches it.
#
#   install  new.rom belongs in the partition; once it is there: trial
#   trial    the new release's first power-up is under way. The board keeps it
#            (keep(): the state goes) once it has restored its game and its link
#            reached the broker within the trial's time (the release's
#            manifest states it: TRIAL_S by default); otherwise, or if it resets
#            before, restore
#   restore  old.rom belongs in the partition; once it is there: back
#   back     rolled back: the board runs the old release and says why (its
#            update status), until the next release
#
# This module is outside the packages, on littlefs, compiled: an update never
# replaces it, so a release that cannot even import is still rolled back.
# It imports nothing of the firmware's.
import os

FOLDER = "update"
STATE = "update/state"      # main.py asks for this name before importing this module
NEW = "update/new.rom"
OLD = "update/old.rom"
ROM = "/rom"
TRIAL_S = 180               # a new release must have linked by then, unless its manifest says (3 minutes)
BLOCK = 4096                # rp2's flash sector: the partition is erased and written a block at a time
HEADER = b"\xd2\xcd\x31"    # a ROMFS image's first bytes (MicroPython's vfs_rom)

INSTALL = "install"
TRIAL = "trial"
RESTORE = "restore"
BACK = "back"
STEPS = (INSTALL, TRIAL, RESTORE, BACK)

# why a board went back (the state's last word; the update status says it, docs/club-mqtt.md)
WHY_RESET = "reset"              # it reset before it linked (a crash, the watchdog, the power)
WHY_NO_LINK = "no_link"          # it did not reach the broker within the trial's time
WHY_FAILED = "failed"            # its app stopped with an error
WHY_DAMAGED = "damaged"          # the staged file did not match its release (flash gone bad)

_timer = None


# ---------------------------------------------------------------- the state file
# One line: step, then the new release's id, size and SHA-256 (hex), then the
# old one's, then why (- while there is no why), then the trial's seconds.

def read_state(root=""):
    """The state's words (a list of 9 str), or None: no update under way, or a
    state that cannot be read (as none: the partition stays as it is)."""
    try:
        with open(root + STATE, "rb") as f:
            words = f.read(400).decode().split()
    except (OSError, ValueError):       # UnicodeError is a ValueError
        return None
    if len(words) != 9 or words[0] not in STEPS or not (words[2].isdigit() and words[5].isdigit()):
        return None
    return words


def write_state(words, root=""):
    """The state, atomically: written as state.tmp, then renamed (littlefs's rename is atomic)."""
    path = root + STATE
    with open(path + ".tmp", "w") as f:
        f.write(" ".join(words))
    os.rename(path + ".tmp", path)


def clear(root=""):
    """No update under way: the state file goes (the staged file with it)."""
    for path in (STATE, STATE + ".tmp", NEW):
        try:
            os.remove(root + path)
        except OSError:
            pass


def step(root=""):
    """The step under way (INSTALL, TRIAL, RESTORE, BACK), or None."""
    words = read_state(root)
    return None if words is None else words[0]


# ---------------------------------------------------------------- the partition

def partition():
    """The ROMFS partition as a block device with the memory's bytes (rp2's
    vfs.rom_ioctl(2, 0); the emulator's stand-in, firmware/emu/updating.py), or
    None: an image without one."""
    rom_ioctl = None
    try:
        import vfs
        rom_ioctl = getattr(vfs, "rom_ioctl", None)
    except ImportError:
        pass
    if rom_ioctl is None:
        try:
            import machine
        except ImportError:
            return None
        rom_ioctl = getattr(machine, "rom_ioctl", None)
        if rom_ioctl is None:
            return None
    try:
        if rom_ioctl(1) < 1:
            return None
        segment = rom_ioctl(2, 0)
    except OSError:
        return None
    return None if isinstance(segment, int) else segment


def image_size(memory):
    """The size of the ROMFS image at the start of memory (bytes), or 0: none there."""
    if len(memory) < 5 or bytes(memory[0:3]) != HEADER:
        return 0
    at = 3
    length = 0
    while at < len(memory) and at < 12:
        b = memory[at]
        at += 1
        length = length << 7 | (b & 0x7F)
        if not b & 0x80:
            return at + length
    return 0


def sha256_hex(data):
    from hashlib import sha256
    from binascii import hexlify
    return hexlify(sha256(data).digest()).decode()


def running(part=None):
    """The image in the partition: (size, SHA-256 hex), or None."""
    part = part if part is not None else partition()
    if part is None:
        return None
    memory = memoryview(part)
    size = image_size(memory)
    if not 0 < size <= len(memory):
        return None
    return size, sha256_hex(memory[:size])


def save_running(part, root=""):
    """The partition's image copied to old.rom (what a rollback copies back):
    (size, SHA-256 hex), or None when the partition holds none. Kept as it is
    when old.rom holds it already."""
    found = running(part)
    if found is None:
        return None
    size, digest = found
    path = root + OLD
    try:
        if os.stat(path)[6] == size and file_sha256(path, size) == digest:
            return found
    except OSError:
        pass
    try:
        os.remove(path)          # no state names it yet: its room is the new copy's (littlefs holds three images hardly)
    except OSError:
        pass
    memory = memoryview(part)
    with open(path + ".tmp", "wb") as f:
        for at in range(0, size, BLOCK):
            f.write(memory[at:min(at + BLOCK, size)])
    if file_sha256(path + ".tmp", size) != digest:
        raise OSError(5)         # EIO: the copy is not the image; no switch is written without it
    os.rename(path + ".tmp", path)
    return found


def file_sha256(path, size):
    """The SHA-256 (hex) of a file's first size bytes; "" when it is shorter or cannot be read."""
    from hashlib import sha256
    from binascii import hexlify
    h = sha256()
    buf = bytearray(BLOCK)
    left = size
    with open(path, "rb") as f:
        while left > 0:
            n = f.readinto(buf)
            if not n:
                return ""
            n = min(n, left)
            h.update(memoryview(buf)[:n])
            left -= n
    return hexlify(h.digest()).decode()


def copy_in(part, path, size, digest):
    """The file's first size bytes into the partition: block 0 erased first and
    written last, so a partition cut short holds no ROMFS; then its bytes
    checked against digest. True when the partition holds exactly them."""
    if not 0 < size <= len(memoryview(part)):
        return False
    _unmount()
    buf = bytearray(BLOCK)
    blocks = (size + BLOCK - 1) // BLOCK
    try:
        part.ioctl(6, 0)
        with open(path, "rb") as f:
            for block in list(range(1, blocks)) + [0]:
                f.seek(block * BLOCK)
                n = f.readinto(buf)
                if n is None or n < min(BLOCK, size - block * BLOCK):
                    return False
                for i in range(n, BLOCK):
                    buf[i] = 0xFF
                part.writeblocks(block, buf)
    except OSError:
        return False
    return sha256_hex(memoryview(part)[:size]) == digest


def _unmount():
    try:
        import vfs
        vfs.umount(ROM)
    except (ImportError, OSError, AttributeError):
        pass


def mount(part):
    """The partition's image mounted at /rom (again: after a copy the image's
    size may have changed). False when it holds none."""
    _unmount()
    try:
        import vfs
        vfs.mount(getattr(vfs, "VfsRom")(part), ROM)    # (the stubs' vfs has no VfsRom)
    except (ImportError, OSError, AttributeError):
        return False
    import sys
    if ROM not in sys.path:    # a partition that held no image at the start: the port left it off the path
        sys.path.append(ROM)
    return True


# ---------------------------------------------------------------- at power-up

def boot(root=""):
    """main.py's, before the firmware's packages load, when the state file is
    there: the partition put right for the step under way. Returns the step
    the board boots in."""
    words = read_state(root)
    if words is None:
        return None
    part = partition()
    if part is None:
        return words[0]      # an image without a partition: nothing here to switch
    if words[0] == TRIAL:
        # reset during the trial, before the release was kept
        words[0], words[7] = RESTORE, WHY_RESET
        write_state(words, root)
    if words[0] == INSTALL:
        if copy_in(part, root + NEW, int(words[2]), words[3]):
            words[0] = TRIAL
            write_state(words, root)
            mount(part)
            arm(int(words[8]) if words[8].isdigit() else TRIAL_S, root)
            return TRIAL
        words[0], words[7] = RESTORE, WHY_DAMAGED
        write_state(words, root)
    if words[0] == RESTORE:
        # the release before: it is in old.rom (or, if the copy of new never began, still in the partition)
        found = running(part)
        if found is None or found[1] != words[6]:
            if not copy_in(part, root + OLD, int(words[5]), words[6]):
                # old.rom unreadable: the new release back rather than no release at all
                copy_in(part, root + NEW, int(words[2]), words[3])
        words[0] = BACK
        write_state(words, root)
        mount(part)
    return words[0]


def arm(seconds, root=""):
    """The trial's guards: the release is rolled back unless kept within
    seconds (a timer of the chip's, whose callback this module owns, so a
    release that hangs is gone too), and the watchdog runs from now on (the
    app feeds it; a release that never gets that far resets)."""
    global _timer
    try:
        import machine
    except ImportError:
        return
    try:
        machine.WDT(timeout=8388)
    except (AttributeError, ValueError):
        pass
    timer_type = getattr(machine, "Timer", None)
    if timer_type is None:
        return
    _timer = timer_type(-1)
    _timer.init(mode=timer_type.ONE_SHOT, period=max(seconds, 1) * 1000, callback=lambda t: expired(root))


def expired(root=""):
    """The trial's time gone and the release not kept: back to the old one."""
    _back_now(WHY_NO_LINK, root)


def failed(root=""):
    """main.py's, when the app stopped with an error during a trial: back to the old one now."""
    _back_now(WHY_FAILED, root)


def _back_now(why, root):
    """A trial that ends unkept: restore written with why, and a restart into it."""
    words = read_state(root)
    if words is None or words[0] != TRIAL:
        return
    words[0], words[7] = RESTORE, why
    write_state(words, root)
    import machine
    machine.reset()


def keep(root=""):
    """The link's, once the new release has restored its game and reached the
    broker: the release is kept. The state goes, and new.rom with it (its
    bytes are the partition's now). True if a trial ended here."""
    global _timer
    words = read_state(root)
    if words is None or words[0] != TRIAL:
        return False
    if _timer is not None:
        _timer.deinit()
        _timer = None
    clear(root)
    return True
