# The journal's storage (docs/firmware.md, "The journal"): a ring of 4 KB
# blocks in raw flash where each record is programmed into erased flash in
# place, with no filesystem in the way; and, at the end, a snapshot's bytes
# (the game, its events and the little-endian numbers around them) as both
# journals write and read them, journal.py and oldjournal.py (the journal of
# earlier firmware, read once). One module, not two: each module more costs
# the power-up its file's lookup on littlefs (the twin: BOOT 14 ms later). littlefs rewrites a file's last block on every synced append
# (1-2 sector erases and 4-13 page programs per 12-byte record on the chip);
# here a record costs one page program, and a block one erase per 315 records.
#
# Where the blocks are:
#   on the chip: the data blocks of one littlefs file, journal.raw (128 KB,
#     written once, never written through littlefs again), found by the marker
#     written at the start of each block's data, listed with each block's first
#     48 bytes in journal.map. littlefs keeps a file's block list in the blocks
#     themselves (CTZ skip-list: block i > 0 starts with ctz(i) + 1 pointers),
#     so after erasing a block the ring programs those bytes back at once, and
#     repair() restores them at boot after a power cut in between. The
#     filesystem must span the whole storage region (MicroPython's _boot.py
#     formats it afresh otherwise), so the ring lives inside it.
#   under the emulator and CPython: journal.raw is a plain file holding the
#     blocks (FileDevice), with the same erase and program rules as NOR flash.
#
# Block layout: page 0 holds littlefs's pointers and the marker; pages 1..15
# hold 21 records of 12 bytes each (the last 4 bytes of a page unused), so a
# record never straddles a page and is programmed by one page program (0xFF
# everywhere else in the page leaves those bytes as they are).
from tallycore import os

from tallycore import const
from tallycore.games import index_of
from tallyrun.protocol import crc16

BLOCK = const(4096)
_PAGE = const(256)
RECORD = const(12)
_PER_PAGE = const(21)
SLOTS = const(315)          # records in a block: 15 pages of 21
RING_BLOCKS = const(32)     # 128 KB: 10,080 records between two snapshots
PREFIX = const(48)          # page 0's bytes kept per block: pointers (<= 24) and marker (16)
PLACEHOLDER = "journal.raw"
MAP = "journal.map"
_MARK = b"TBJR"
_MAP_MAGIC = b"TBJM"
_ERASE = const(6)           # MP_BLOCKDEV_IOCTL_BLOCK_ERASE
_COUNT = const(4)           # MP_BLOCKDEV_IOCTL_BLOCK_COUNT


def slot_offset(slot):
    """The byte offset of a record slot in its block."""
    return _PAGE + (slot // _PER_PAGE) * _PAGE + (slot % _PER_PAGE) * RECORD


def pointer_bytes(index):
    """littlefs's CTZ skip-list: file block index > 0 starts with ctz(index) + 1 pointers."""
    if index == 0:
        return 0
    zeros = 0
    while not (index >> zeros) & 1:
        zeros += 1
    return 4 * (zeros + 1)


class FileDevice:
    """A block device in one host file (the emulator and CPython): an erase
    sets a block to 0xFF, a program can only clear bits (as NOR flash does).
    Counts erases and page programs."""

    def __init__(self, path, blocks):
        self.path = path
        self.blocks = blocks
        self.erases = 0
        self.programs = 0
        self.scratch = bytearray(_PAGE)
        self.whole = memoryview(self.scratch)   # a page program reads and writes through it: no allocation
        self.remade = ""      # why the file was made again, if it was there but not whole
        try:
            size = os.stat(path)[6]
        except OSError:
            size = -1
        if size >= 0 and size != blocks * BLOCK:
            self.remade = "%s was %d bytes, not %d (kept as %s.bad)" % (PLACEHOLDER, size, blocks * BLOCK,
                                                                      PLACEHOLDER)
            os.rename(path, path + ".bad")
        if size != blocks * BLOCK:
            blank = self.scratch       # a page at a time: a block's worth in one piece is a 4 KB block
            for i in range(_PAGE):      # of the heap, which a board on Wi-Fi may no longer have
                blank[i] = 0xFF
            with open(path, "wb") as f:
                for _ in range(blocks * (BLOCK // _PAGE)):
                    f.write(blank)
        self.file = open(path, "r+b")

    def readblocks(self, block, buf, offset=0):
        self.file.seek(block * BLOCK + offset)
        self.file.readinto(buf)

    def writeblocks(self, block, buf, offset=None):
        if offset is None:
            self.ioctl(_ERASE, block)
            offset = 0
        scratch = self.scratch
        at = 0
        while at < len(buf):
            length = min(_PAGE, len(buf) - at)
            where = block * BLOCK + offset + at
            self.file.seek(where)
            view = self.whole if length == _PAGE else self.whole[:length]
            self.file.readinto(view)
            for i in range(length):
                scratch[i] &= buf[at + i]
            self.file.seek(where)
            self.file.write(view)
            self.programs += 1
            at += length
        self.file.flush()

    def ioctl(self, op, arg):
        if op == _COUNT:
            return self.blocks
        if op == 5:
            return BLOCK
        if op == _ERASE:
            self.file.seek(arg * BLOCK)
            for _ in range(BLOCK // _PAGE):
                self.file.write(b"\xff" * _PAGE)
            self.file.flush()
            self.erases += 1
            return 0
        return 0

    def close(self):
        self.file.close()


class Ring:
    """RING_BLOCKS blocks of a block device, in ring order. Positions are
    (k, slot): the k-th block of the ring, the slot in it."""

    def __init__(self, device, blocks, prefixes):
        self.device = device
        self.blocks = blocks          # physical block numbers, in ring order
        self.prefixes = prefixes      # each block's first PREFIX bytes, or None (a plain file)
        self.page = bytearray(b"\xff" * _PAGE)
        self.erased_page = bytes(self.page)   # what an erased page reads as
        self.read_back = bytearray(_PAGE)
        self.head = bytearray(PREFIX)
        self.lost = ""                # made again just now: why its records are gone (for people)

    def read(self, k, slot, buf):
        self.device.readblocks(self.blocks[k], buf, slot_offset(slot))

    def program(self, k, slot, record):
        """One page program: the record's bytes, 0xFF around them."""
        offset = slot_offset(slot)
        page_at = offset - offset % _PAGE
        at = offset - page_at
        page = self.page
        for i in range(RECORD):
            page[at + i] = record[i]
        try:
            self.device.writeblocks(self.blocks[k], page, page_at)
        finally:
            for i in range(RECORD):
                page[at + i] = 0xFF

    def erase(self, k):
        """Erase a block, then give littlefs its pointers (and the marker) back."""
        self.device.ioctl(_ERASE, self.blocks[k])
        if self.prefixes is not None:
            self._put_prefix(k)

    def _put_prefix(self, k):
        page = self.page
        prefix = self.prefixes[k]
        for i in range(PREFIX):
            page[i] = prefix[i]
        try:
            self.device.writeblocks(self.blocks[k], page, 0)
        finally:
            for i in range(PREFIX):
                page[i] = 0xFF

    def erased(self, k):
        """True when every record slot of block k is erased. One comparison
        per page (a loop over its bytes cost ~30 ms of the chip's boot)."""
        page = self.read_back
        for p in range(1, BLOCK // _PAGE):
            self.device.readblocks(self.blocks[k], page, p * _PAGE)
            if page != self.erased_page:
                return False
        return True

    def repair(self):
        """After a power cut between an erase and its pointers: put them back.
        Raises OSError when a block holds something else (the placeholder file
        was removed and its blocks reused): the ring must not be used."""
        if self.prefixes is None:
            return
        head = self.head
        for k in range(len(self.blocks)):
            self.device.readblocks(self.blocks[k], head, 0)
            if head == self.prefixes[k]:
                continue
            for i in range(PREFIX):
                if head[i] != 0xFF:
                    raise OSError("journal: block %d is not the journal's any more" % self.blocks[k])
            self._put_prefix(k)


def open_ring(root, device=None):
    """The ring: in journal.raw's blocks on a littlefs block device (the
    chip: rp2.Flash()), or, without a device, in journal.raw as a plain file.
    Creates what is missing (the placeholder, its map). Raises OSError when
    the flash cannot hold it."""
    if device is None:
        device = FileDevice(root + PLACEHOLDER, RING_BLOCKS)
        ring = Ring(device, list(range(RING_BLOCKS)), None)
        ring.lost = device.remade
        return ring
    ring = _load_map(root, device)
    if ring is None:
        ring = _create(root, device)
    ring.repair()
    return ring


def _load_map(root, device):
    try:
        os.stat(root + PLACEHOLDER)
        with open(root + MAP, "rb") as f:
            data = f.read()
    except OSError:
        return None
    count = RING_BLOCKS
    if len(data) != 8 + count * (2 + PREFIX) or data[0:4] != _MAP_MAGIC:
        return None
    blocks = []
    prefixes = []
    at = 8
    total = device.ioctl(_COUNT, 0)
    for _ in range(count):
        block = data[at] | data[at + 1] << 8
        if block >= total:
            return None
        blocks.append(block)
        prefixes.append(bytes(data[at + 2:at + 2 + PREFIX]))
        at += 2 + PREFIX
    return Ring(device, blocks, prefixes)


def _create(root, device):
    """Write journal.raw (a marker at the start of each block's data, 0xFF
    everywhere else), find its blocks on the device, write journal.map."""
    nonce = os.urandom(4)
    path = root + PLACEHOLDER
    # written a page at a time: a whole block's buffer (4 KB in one piece) is
    # more than a fragmented heap may hold when the board's first game starts
    blank = b"\xff" * _PAGE
    first = bytearray(blank)
    with open(path + ".tmp", "wb") as f:
        for index in range(RING_BLOCKS):
            _marker(first, 0, index, nonce)
            f.write(first)
            left = BLOCK - pointer_bytes(index) - _PAGE
            while left:
                chunk = _PAGE if left > _PAGE else left
                f.write(blank if chunk == _PAGE else memoryview(blank)[:chunk])
                left -= chunk
    os.rename(path + ".tmp", path)
    found = [-1] * RING_BLOCKS
    prefixes = [b""] * RING_BLOCKS
    head = bytearray(PREFIX)
    for block in range(device.ioctl(_COUNT, 0)):
        device.readblocks(block, head, 0)
        for at in range(0, PREFIX - 16 + 1, 4):
            if head[at:at + 4] == _MARK and head[at + 6:at + 10] == nonce:
                index = head[at + 4]
                if index < RING_BLOCKS and pointer_bytes(index) == at:
                    found[index] = block
                    prefixes[index] = bytes(head)
                break
    if -1 in found:
        raise OSError("journal: journal.raw's blocks were not found on the flash")
    remove_quietly(root + MAP)
    table = bytearray(8 + RING_BLOCKS * (2 + PREFIX))
    table[0:4] = _MAP_MAGIC
    table[4:8] = nonce
    at = 8
    for index in range(RING_BLOCKS):
        table[at] = found[index] & 0xFF
        table[at + 1] = found[index] >> 8
        table[at + 2:at + 2 + PREFIX] = prefixes[index]
        at += 2 + PREFIX
    with open(root + MAP + ".tmp", "wb") as f:
        f.write(table)
    os.rename(root + MAP + ".tmp", root + MAP)
    ring = Ring(device, found, prefixes)
    ring.lost = "%s was missing" % PLACEHOLDER
    return ring


def remove_quietly(path):
    try:
        os.remove(path)
    except OSError:
        pass   # not there


def _marker(buf, at, index, nonce):
    buf[at:at + 4] = _MARK
    buf[at + 4] = index
    buf[at + 5] = RING_BLOCKS
    buf[at + 6:at + 10] = nonce


# --- a snapshot's bytes (both journals) -------------------------------------
BAD = ".bad"             # a damaged file, kept aside under its name + BAD
HEAD = const(34)         # snapshot bytes before the events:
#   magic 4, generation u32, name length, name 16, players, options u32, n u16, top u16
NAME_MAX = const(16)


def put16(buf, at, value):
    buf[at] = value & 0xFF
    buf[at + 1] = (value >> 8) & 0xFF


def get16(buf, at):
    return buf[at] | buf[at + 1] << 8


def put32(buf, at, value):
    buf[at] = value & 0xFF
    buf[at + 1] = (value >> 8) & 0xFF
    buf[at + 2] = (value >> 16) & 0xFF
    buf[at + 3] = (value >> 24) & 0xFF


def get32(buf, at):
    # events are below 2**30, so this stays a small int on the RP2040
    return buf[at] | buf[at + 1] << 8 | buf[at + 2] << 16 | buf[at + 3] << 24


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def put_game(full, magic, generation, name, players, options, log, n, top, accepted=None):
    """Write a snapshot's magic, head and events into full (load_game reads
    them back), then who accepted each (Game.accepted: a nibble an event,
    (top + 1) // 2 bytes) if given; returns where its tail starts."""
    full[0:4] = magic
    put32(full, 4, generation)
    name_bytes = name.encode()
    full[8] = len(name_bytes)
    for i in range(NAME_MAX):   # game names are at most 16 bytes
        full[9 + i] = name_bytes[i] if i < len(name_bytes) else 0
    full[25] = players
    put32(full, 26, options)
    put16(full, 30, n)
    put16(full, 32, top)
    for i in range(top):
        put32(full, HEAD + 4 * i, log[i])
    if accepted is None:
        return HEAD + 4 * top
    nibbles = (top + 1) >> 1
    for i in range(nibbles):
        full[HEAD + 4 * top + i] = accepted[i] if i < nibbles - 1 or not top & 1 else accepted[i] & 15
    return HEAD + 4 * top + nibbles


def load_game(game, data, magic, tail, accepted=False):
    """Rebuild game from a snapshot's bytes: magic, the head (HEAD bytes), the
    events, (accepted: a nibble per event, Game.accepted), then tail bytes
    ending in the CRC-16 of all before it. Returns
    where the tail starts, or -1 (the bytes are not a whole snapshot; a
    snapshot of no game leaves game.rules None)."""
    if len(data) < HEAD + tail or data[0:4] != magic:
        return -1
    top = get16(data, 32)
    body = HEAD + 4 * top + ((top + 1) >> 1 if accepted else 0)
    if len(data) != body + tail or crc16(data, 0, body + tail - 2) != get16(data, body + tail - 2):
        return -1
    name_len = data[8]
    n = get16(data, 30)
    if name_len > NAME_MAX or n > top or top > len(game.log):
        return -1
    if not name_len:
        game.rules = None
        return body
    try:
        game.new(index_of(bytes(data[9:9 + name_len]).decode()), data[25], get32(data, 26))
        for i in range(top):
            game.apply(get32(data, HEAD + 4 * i))
        for i in range(top - n):
            game.undo()
        if accepted:
            for i in range((top + 1) >> 1):
                game.accepted[i] = data[HEAD + 4 * top + i]
    except (ValueError, ImportError, UnicodeError):
        game.rules = None
        return -1
    return body


def read_whole(path):
    """A file's bytes; None when there is none (b"" when it cannot be read)."""
    try:
        f = open(path, "rb")
    except OSError:
        return None
    try:
        return f.read()
    except OSError:
        return b""
    finally:
        f.close()


def set_aside(path):
    """Keep a damaged file as path + BAD (nothing when there is none)."""
    try:
        os.rename(path, path + BAD)
    except OSError:
        pass


def write_atomic(path, data, length):
    tmp = path + ".tmp"
    f = open(tmp, "wb")
    try:
        f.write(memoryview(data)[:length])
        f.flush()
    finally:
        f.close()
    os.rename(tmp, path)
