# DESC (docs/protocol.md, "The board describes itself"): the board's protocol
# written from its own rows (tallyrun.protocol), as Klipper's MCU sends its
# command dictionary: the host builds its encoder and decoder from it, keyed by
# its id, and asks for a capability rather than a version. Loaded by the first
# DESC; its items are made as they are asked (it is no hot path).
#
# An item is one word: its kind, then its parts after colons.
#   V:<verb>:<optional args>:<what it changes>:<reply keys, commas>
#   A:<verb>:<arg>:<type>:<lo>:<hi>    a word arg: <words, |> for lo, or @cfg / @net
#   E:<event kind>:<keys, commas>
#   C:<config key>:<type>:<lo>:<hi>:<per player>
#   K:<NET key>:<form>:<lo>:<hi>:<secret>:<may be none>
#   R:<error codes, commas>
#   L:<limit>:<value>
#   F:<capabilities, commas>
# A page holds as many whole items as fit, "~" between them, from item at; an
# item is at most ITEM_MOST characters, so that one fits the longest page's head
# (tests/test_describe.py holds every item to it).
ITEM_MOST = 76
from tallyrun import protocol
from tallyrun.protocol import crc16

_SEP = b"~"

# What DESC says besides the rows (here, not in tallyrun.protocol: the board holds them only once
# asked): the limits a client sizes its frames and sessions by, and the capabilities a host may ask
# for by name (docs/protocol.md says each). sessions: HELLO and OPEN hand each host session its own
# seqs (seqs=); held: a change may be held for an opponent's accept (docs/rules.md CF), its reply
# says held= and n stays; cut: a message with words left out to fit the frame ends in " ..."
LIMITS = ((b"frame", protocol.MAX_FRAME), (b"seq", protocol.MAX_SEQ), (b"seqs", protocol.SESSION_SEQS),
          (b"name", protocol.MAX_NAME), (b"board", protocol.MAX_BOARD_NAME), (b"table", protocol.MAX_TABLE),
          (b"players", protocol.MAX_PLAYERS), (b"log", protocol.LOG_CAPACITY), (b"eseq", protocol.EVENT_SEQ_LIMIT))
CAPABILITIES = (b"sessions", b"held", b"cut")


def _words(lo):
    if lo is protocol.NET_KEY_NAMES:
        return b"@net"
    if lo == 0:
        return b"@cfg"
    return b"|".join(lo)


def _arg(verb, arg):
    name, kind, lo, hi = arg[0], arg[1], arg[2], arg[3]
    head = b"A:%s:%s:%s:" % (verb, name, protocol.TYPE_NAMES[kind].encode())
    if kind == protocol.T_WORD:
        return head + _words(lo) + b":0"
    return head + b"%d:%d" % (lo, hi)


def _keys(names):
    return b",".join(name[name.find(".") + 1:].encode() for name in names)


def items():
    """Every item of the description, in order."""
    for row in protocol.VERBS:
        yield b"V:%s:%d:%s:%s" % (row[0], row[2], row[4], _keys(row[3]))
        for arg in row[1]:
            yield _arg(row[0], arg)
    for kind, names in protocol.EVENTS:
        yield b"E:%s:%s" % (kind, _keys(names))
    for key, kind, lo, hi, each, _default in protocol.CONFIG_KEYS:
        yield b"C:%s:%s:%d:%d:%d" % (key, protocol.TYPE_NAMES[kind].encode(), lo, hi, each)
    for key, form, lo, hi, secret, may_be_none, _default in protocol.NET_KEYS:
        yield b"K:%s:%s:%d:%d:%d:%d" % (key, form, lo, hi, secret, may_be_none)
    yield b"R:" + b",".join(protocol.ERRORS)
    for name, value in LIMITS:
        yield b"L:%s:%d" % (name, value)
    yield b"F:" + b",".join(CAPABILITIES)


def identify():
    """(how many items, their CRC-16 over all of them with "~" between): the description's id."""
    count = 0
    crc = 0xFFFF
    for item in items():
        if count:
            crc = crc16(_SEP, 0, 1, crc)
        crc = crc16(item, 0, len(item), crc)
        count += 1
    return count, crc


def serve(app, seq, req):
    """DESC [at]: the items from at on that fit the frame, with how many there are and the id."""
    at = req.values[0] if req.nargs else 0
    count, crc = identify()
    if at >= count:
        w = app.writer
        w.error(seq, protocol.E_RANGE, b"at: must be 0 to ")
        w.number(count - 1)
        w.text(b" (the description's items less one)")
        app.send_reply()
        return
    w = app.writer
    w.reply(seq)
    at_key, next_key, of_key, id_key, items_key = (name[name.find(".") + 1:].encode()
                                                   for name in protocol.VERBS[protocol.V_DESC][3])
    w.key(at_key)
    w.number(at)
    w.key(next_key)
    next_at = w.length
    w.text(b"000")            # the page's end: written once its items are counted
    w.key(of_key)
    w.number(count)
    w.key(id_key)
    w.hex(crc, 4)
    w.key(items_key)
    index = 0
    for item in items():
        if index >= at:
            if w.length + len(item) + (index > at) > protocol.MAX_FRAME - 6:
                break
            if index > at:
                w.text(_SEP)
            w.text(item)
        index += 1
    _three(w.buf, next_at, index)
    app.send_reply()


def _three(buf, at, value):
    """value as three digits at buf[at:at + 3] (the page's end, once counted)."""
    buf[at] = 48 + value // 100
    buf[at + 1] = 48 + value // 10 % 10
    buf[at + 2] = 48 + value % 10
