# A snapshot's bytes (docs/firmware.md, "The journal"): the game, its events
# and the little-endian numbers around them, as both journals write and read
# them (journal.py, and oldjournal.py, the journal of earlier firmware that a
# board's first boot on this one reads once).
import os

from tallycore import const
from tallycore.games import index_of
from tallyrun.protocol import crc16

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


def put_game(full, magic, generation, name, players, options, log, n, top):
    """Write a snapshot's magic, head and events into full (load_game reads
    them back); returns where its tail starts."""
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
    return HEAD + 4 * top


def load_game(game, data, magic, tail):
    """Rebuild game from a snapshot's bytes: magic, the head (HEAD bytes), the
    events, then tail bytes ending in the CRC-16 of all before it. Returns
    where the tail starts, or -1 (the bytes are not a whole snapshot; a
    snapshot of no game leaves game.rules None)."""
    if len(data) < HEAD + tail or data[0:4] != magic:
        return -1
    top = get16(data, 32)
    body = HEAD + 4 * top
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
