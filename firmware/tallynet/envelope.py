# The club's signed envelope on the board (docs/club-mqtt.md, "The
# envelope"): the same bytes as the host's tallyboard.club.envelope.seal,
# so the director cannot tell a board's message from a table host's.
#
#   {"board":..,"body":{..},"event":..,"kind":..,"seq":..,"sig":"<64 hex>","v":1}
#
# canonical(): JSON with the keys sorted, "," and ":" without spaces, ASCII
# only (\uXXXX beyond), as Python's json.dumps(sort_keys=True,
# separators=(",", ":"), ensure_ascii=True) writes it; MicroPython's json
# sorts nothing, so it is written here. Whole numbers only: a float is refused.
# hmac_sha256(): RFC 2104 over hashlib.sha256 (on rp2 and the unix port).
# open_director(): a message from the director checked as the host checks
# it: exactly the envelope's fields, this evening, this board's own tag of it
# (compared in constant time), a whole-number seq. Nothing is evaluated.
# The director's message has `tags` where a table's has `sig`: one HMAC per
# table, each keyed with that table's key, so a board checks its own with
# its own key (one HMAC, as one signature cost before) and holds no key that
# could speak for the director to another table (issue 30, finding 2).
from tallycore import binascii, const, hashlib, json

VERSION = const(1)
DIRECTOR = "director"
MAX_BYTES = const(65536)
MAX_DEPTH = const(8)
_BLOCK = const(64)
_SIG_FIELD = const(73)     # ,"sig":"<64 hex>"
_HEX = "0123456789abcdef"
_ESCAPES = {34: '\\"', 92: "\\\\", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t"}
_FIELDS = ("board", "body", "event", "kind", "seq", "sig", "v")
_DIRECTOR_FIELDS = ("board", "body", "event", "kind", "seq", "tags", "v")
# a round numbered more than this above the last taken is refused (round_ahead): the host's
# envelope.ROUND_AHEAD, and why there
ROUND_AHEAD = const(64)


def _string(text, out):
    out.append('"')
    start = 0
    for i in range(len(text)):
        c = ord(text[i])
        if 32 <= c < 127 and c != 34 and c != 92:
            continue
        if start < i:
            out.append(text[start:i])
        start = i + 1
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif c < 0x10000:
            out.append("\\u%04x" % c)
        else:   # beyond the BMP: a surrogate pair, as Python writes it
            c -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 | c >> 10, 0xDC00 | c & 0x3FF))
    if start < len(text):
        out.append(text[start:])
    out.append('"')


def _value(value, out, depth):
    if depth > MAX_DEPTH + 1:
        raise ValueError("nested deeper than %d" % MAX_DEPTH)
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, str):
        _string(value, out)
    elif isinstance(value, dict):
        out.append("{")
        first = True
        for key in sorted(value):
            if not isinstance(key, str):
                raise ValueError("a key that is not text")
            if not first:
                out.append(",")
            first = False
            _string(key, out)
            out.append(":")
            _value(value[key], out, depth + 1)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i in range(len(value)):
            if i:
                out.append(",")
            _value(value[i], out, depth + 1)
        out.append("]")
    else:
        raise ValueError("only whole numbers, text, true, false, null, lists and objects are sent")


class _Scratch:
    """The one buffer canonical JSON is written into (made once: prepare()).
    A list of pieces joined and encoded wanted blocks of two and three times
    the message's size, which a Pico W's heap, an evening into its use, often
    no longer has; written here, a body costs one block of its own size, and
    a signature none. A value too long for it goes the list's way."""

    def __init__(self, size):
        self.buf = bytearray(size)
        self.view = memoryview(self.buf)
        self.size = size
        self.n = 0

    def append(self, text):
        n = self.n
        end = n + len(text)
        if end > self.size:
            raise _Overflow()
        if _STR_IS_BUFFER:
            self.buf[n:end] = text
        else:                         # a small bytes a piece (ASCII: every piece is escaped)
            self.buf[n:end] = text.encode()
        self.n = end


class _Overflow(Exception):
    pass


def _str_is_buffer():
    try:
        bytearray(1)[0:1] = "a"  # type: ignore[assignment]
        return True
    except (TypeError, NotImplementedError):   # MicroPython: bytes or an array only
        return False


_STR_IS_BUFFER = _str_is_buffer()
_SCRATCH = const(2048)      # a board's body with a game's hands, a round of a club of 40: larger ones go the list's way
_scratch = None


def prepare():
    """The scratch buffer made now (the link's start: the heap not yet cut up)."""
    global _scratch
    if _scratch is None:
        _scratch = _Scratch(_SCRATCH)
    return _scratch


def _written(fields):
    """The canonical JSON in the scratch buffer (a view of it: good until the
    next call), or None if it does not fit."""
    out = prepare()
    out.n = 0
    try:
        _value(fields, out, 0)
    except _Overflow:
        return None
    return out.view[:out.n]


def canonical(fields):
    """The canonical JSON of a value, as bytes (ASCII)."""
    view = _written(fields)
    if view is not None:
        return bytes(view)
    out = []
    _value(fields, out, 0)
    return "".join(out).encode()


def hmac_sha256(key, data):
    """HMAC-SHA256 (RFC 2104) of data with key: 32 bytes."""
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    inner = bytearray(_BLOCK)
    outer = bytearray(_BLOCK)
    for i in range(_BLOCK):
        c = key[i] if i < len(key) else 0
        inner[i] = c ^ 0x36
        outer[i] = c ^ 0x5C
    digest = hashlib.sha256(inner)
    digest.update(data)
    second = hashlib.sha256(outer)
    second.update(digest.digest())
    return second.digest()


def broker_password(key):
    """A table's broker password from its board's key, as the host's
    envelope.broker_password derives it (the director writes the broker's
    users with it): HMAC-SHA256 of "broker", 18 bytes in base64url."""
    text = binascii.b2a_base64(hmac_sha256(key, b"broker")[:18]).strip()
    return text.replace(b"+", b"-").replace(b"/", b"_").decode()


def hex_digest(data):
    out = []
    for c in data:
        out.append(_HEX[c >> 4])
        out.append(_HEX[c & 15])
    return "".join(out)


def signature(key, fields):
    """The sig of an envelope's fields (every one but sig): 64 lowercase hex digits."""
    view = _written(fields)
    return hex_digest(hmac_sha256(key, view if view is not None else canonical(fields)))


def seal(key, event, board, seq, kind, body):
    """The message's bytes, signed: what the host's envelope.seal gives."""
    return seal_body(key, event, board, seq, kind, canonical(body))


def seal_body(key, event, board, seq, kind, body):
    """seal() for a body already in canonical JSON (bytes): a message sent
    again after a power cut is the same bytes as before it."""
    head = canonical({"board": board})[:-1] + b',"body":'
    tail = (b"," + canonical({"event": event, "kind": kind, "seq": seq})[1:-1])
    end = b',"v":%d}' % VERSION
    out = prepare()
    if len(head) + len(body) + len(tail) + len(end) + _SIG_FIELD <= out.size:
        # in the scratch buffer: one block of the message's size, not six (each + made one)
        buf = out.buf
        n = _put(buf, _put(buf, _put(buf, 0, head), body), tail)
        sig = hex_digest(hmac_sha256(key, out.view[:_put(buf, n, end)])).encode()
        n = _put(buf, _put(buf, _put(buf, n, b',"sig":"'), sig), b'"')
        data = bytes(out.view[:_put(buf, n, end)])
    else:
        unsigned = head + body + tail + end
        sig = hex_digest(hmac_sha256(key, unsigned)).encode()
        data = head + body + tail + b',"sig":"' + sig + b'"' + end
    if len(data) > MAX_BYTES:
        raise ValueError("message of %d bytes; at most %d" % (len(data), MAX_BYTES))
    return data


def _put(buf, n, data):
    end = n + len(data)
    buf[n:end] = data
    return end


def _same(a, b):
    # constant time over the length of a signature
    if len(a) != len(b):
        return False
    diff = 0
    for i in range(len(a)):
        diff |= ord(a[i]) ^ ord(b[i])
    return diff == 0


def open_director(data, key, event, kind, board):
    """A director's message of that kind (round, applied) from the bytes
    received, checked by `board`'s tag with `key` (the board's own);
    ValueError (a short word for NET's error=, then why) if it is not to be
    taken."""
    if len(data) > MAX_BYTES:
        raise ValueError("too long")
    try:
        message = json.loads(data)
    except (ValueError, TypeError):
        raise ValueError("not JSON")
    if not isinstance(message, dict) or sorted(message) != list(_DIRECTOR_FIELDS):
        raise ValueError("not an envelope")
    if message["v"] != VERSION or message["event"] != event or message["board"] != DIRECTOR:
        raise ValueError("another version, evening or sender")
    if message["kind"] != kind or not isinstance(message["body"], dict):
        raise ValueError("not a %s" % kind)
    seq = message["seq"]
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0 or seq > 0x1FFFFFFFFFFFFF:
        raise ValueError("seq out of range")
    tags = message.pop("tags")
    tag = tags.get(board) if isinstance(tags, dict) else None
    if not isinstance(tag, str) or not _same(signature(key, message), tag):
        raise ValueError("signature")
    return message
