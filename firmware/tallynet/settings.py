# A board's club link settings (protocol.NET_KEYS), kept in net.txt on
# flash apart from config.txt, and the link's state that NET reports. The
# file is "key value" lines, each value %XX-escaped as NET SET takes it,
# written as net.txt.tmp then renamed (atomic on littlefs). Every value is
# checked again when loaded; a line that does not pass is left out (the key
# is unset). Nothing read is evaluated.
from tallycore import os

from tallyrun.config import read_small
from tallyrun.protocol import NET_KEYS, NET_BROKER_PORT, NET_KEY
from tallynet.tablestate import board_ident

NET_FILE = "net.txt"
# the link's receive buffer: the largest message from the director (a round) it takes whole. Made
# before the link's modules are loaded (tallypanel.start), while the heap still has a block this large
RX_BUFFER = 4096
_HEX = b"0123456789ABCDEF"

# the link's last problem (NET's error=): a word from docs/protocol.md's table
NO_WIFI = "no_wifi"
NOT_ENROLLED = "not_enrolled"


def escape(value):
    """bytes -> the %XX-escaped token NET SET takes and NET GET writes."""
    out = bytearray()
    for c in value:
        if c <= 32 or c > 126 or c == 42 or c == 37:
            out.append(37)
            out.append(_HEX[c >> 4])
            out.append(_HEX[c & 15])
        else:
            out.append(c)
    return bytes(out)


def unescape(token):
    """The %XX-escaped token (bytes) decoded; ValueError if it is not one."""
    out = bytearray()
    i = 0
    n = len(token)
    while i < n:
        c = token[i]
        if c <= 32 or c > 126 or c == 42:
            raise ValueError("write each space, *, % and byte outside printable ASCII as %XX")
        if c == 37:
            high = _hex_digit(token[i + 1]) if i + 2 < n else -1
            low = _hex_digit(token[i + 2]) if i + 2 < n else -1
            if high < 0 or low < 0:
                raise ValueError("a % without two hex digits after it")
            c = high << 4 | low
            i += 3
        else:
            i += 1
        out.append(c)
    return bytes(out)


def _hex_digit(c):
    if 48 <= c <= 57:
        return c - 48
    if 65 <= c <= 70:
        return c - 55
    if 97 <= c <= 102:
        return c - 87
    return -1


def hex_text(data):
    """bytes -> uppercase hex digits (bytes)."""
    out = bytearray(2 * len(data))
    for i in range(len(data)):
        out[2 * i] = _HEX[data[i] >> 4]
        out[2 * i + 1] = _HEX[data[i] & 15]
    return bytes(out)


def _is_name(text, lo, hi, first_alnum):
    if len(text) < lo or len(text) > hi:
        return False
    for i in range(len(text)):
        c = text[i]
        alnum = 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122
        if not alnum and (i == 0 and first_alnum or c not in b"_.-"):
            return False
    return True


def check(key, value):
    """The value (decoded bytes, or None for "-") NET SET may store for key:
    bytes, an int (broker_port) or None. ValueError saying what it must be."""
    row = NET_KEYS[key]
    name = row[0].decode()
    form = row[1]
    lo = row[2]
    hi = row[3]
    if value is None:
        if not row[5]:
            raise ValueError("%s: must be set; - (none) is not allowed" % name)
        return None
    if form == b"int":
        return _number(name, value, lo, hi)
    if form == b"key":
        return _key(name, value, lo)
    if form == b"name":
        if not _is_name(value, lo, hi, True):
            raise ValueError("%s: must be %d to %d letters, digits, _ . - starting with a letter or digit"
                             % (name, lo, hi))
        return value
    if form == b"host":
        if not _is_name(value, lo, hi, True) or b"_" in value:
            raise ValueError("%s: must be a host name or IPv4 address (%d to %d letters, digits, . -)"
                             % (name, lo, hi))
        return value
    if len(value) < lo or len(value) > hi:
        raise ValueError("%s: must be %d to %d bytes" % (name, lo, hi))
    return value


def _number(name, value, lo, hi):
    if not 1 <= len(value) <= 5 or any(c < 48 or c > 57 for c in value):
        raise ValueError("%s: must be a number %d to %d" % (name, lo, hi))
    number = int(value)
    if number < lo or number > hi:
        raise ValueError("%s: must be a number %d to %d" % (name, lo, hi))
    return number


def _key(name, value, size):
    """A key of `size` bytes from its 2 * size hex digits."""
    if len(value) != 2 * size:
        raise ValueError("%s: must be %d hex digits" % (name, 2 * size))
    out = bytearray(size)
    for i in range(size):
        high = _hex_digit(value[2 * i])
        low = _hex_digit(value[2 * i + 1])
        if high < 0 or low < 0:
            raise ValueError("%s: must be %d hex digits" % (name, 2 * size))
        out[i] = high << 4 | low
    return bytes(out)


class Net:
    """The club link's settings and state, one per board with Wi-Fi (app.net).
    on_mark(): called when the link's mark changes (tallypanel.powerup: the
    painter's, and the sheet redraws), or None."""

    def __init__(self, root="", on_mark=None):
        self.path = root + NET_FILE
        self.values = [None] * len(NET_KEYS)
        self.problems = 0            # lines of net.txt that were not understood
        self.generation = 0          # one more at every change of the settings: the link rejoins
        # the link's state (tallynet.link writes it; NET reads it)
        self.joined = False
        self.broker = False
        self.waiting = 0
        self.error = NOT_ENROLLED     # type: str | None  # None: no problem now
        self.mark = b""              # the link's state on the OLED's heading (tallynet.link: MARK_*)
        self.on_mark = on_mark       # called when the mark changes, or the notice
        self.notice = None           # an update's words on the OLED's last row (tallynet.update), or None
        self.starter = None          # called when NET leaves the board enrolled (on_enrol)
        self.forget = None           # called by NET LEAVE to forget the numbering (the link's outbox)

    def on_enrol(self, starter):
        """starter() is called when NET leaves the board enrolled (tallypanel.start's
        LinkStarter: the link starts, once). The starter is made after the app, which
        is made with this Net, so it registers here (as the app's listeners do with
        App.on_change) rather than being given to the Net when it is made."""
        self.starter = starter

    def on_leave(self, forget):
        """forget() is called by NET LEAVE to forget the evening's numbering (the link's outbox
        and seat): the link, made once the board is enrolled, registers here."""
        self.forget = forget

    def get(self, key):
        value = self.values[key]
        if value is None and key == NET_BROKER_PORT:
            return NET_KEYS[key][6]
        return value

    def set(self, key, value):
        """Store a checked value (check()) in RAM; save() writes it."""
        self.values[key] = value
        self._changed()

    def _changed(self):
        """The link rejoins with the new settings: what it said of the old ones no longer holds
        (a Wi-Fi that refused the old passphrase has not refused the new one)."""
        self.generation += 1
        self.joined = False
        self.broker = False
        self.error = None

    def enrolled(self, config):
        """Whether the board has every setting a link needs (and its CFG event and table)."""
        for key in range(len(NET_KEYS)):
            if self.values[key] is None and not NET_KEYS[key][5] and NET_KEYS[key][6] is None:
                return False
        return config.event != 0 and config.table != 0

    def ident(self, config):
        """The board's identity at the evening (tablestate.board_ident)."""
        return board_ident(config.event, config.table)

    def key(self):
        """The table's key: it signs the board's messages and checks the board's own
        tag of the director's (there is no director's key on a board: issue 30)."""
        return self.values[NET_KEY]

    def clear(self):
        for key in range(len(NET_KEYS)):
            self.values[key] = None
        self._changed()

    def text(self):
        lines = []
        for key in range(len(NET_KEYS)):
            value = self.values[key]
            if value is None:
                continue
            if isinstance(value, int):
                value = str(value).encode()
            elif NET_KEYS[key][1] == b"key":
                value = hex_text(value)
            lines.append(NET_KEYS[key][0] + b" " + escape(value))
        return b"\n".join(lines) + b"\n"

    def save(self):
        """Write-then-rename. Raises OSError if the flash write fails."""
        tmp = self.path + ".tmp"
        f = open(tmp, "wb")
        try:
            f.write(self.text())
            f.flush()
        finally:
            f.close()
        os.rename(tmp, self.path)

    def load(self):
        """Read net.txt if there is one; True if it was there."""
        data = read_small(self.path, 2048)
        if data is None:
            return False
        self.problems = 0
        for raw in data.split(b"\n"):
            if not raw:
                continue
            space = raw.find(b" ")
            found = -1
            for key in range(len(NET_KEYS)):
                if raw[:space] == NET_KEYS[key][0]:
                    found = key
            try:
                if space < 1 or found < 0:
                    raise ValueError("line")
                self.values[found] = check(found, unescape(raw[space + 1:]))
            except (ValueError, IndexError):
                self.problems += 1
        self.generation += 1
        return True
