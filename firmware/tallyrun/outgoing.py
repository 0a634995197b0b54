# The board's side of a reply or an event (docs/protocol.md): one frame built
# in a preallocated buffer, its checksum and newline after it. Allocates
# nothing on a reply's path.
from tallyrun.protocol import crc16
from tallyrun.protocol import E_RANGE, ERRORS, EVENTS, MAX_FRAME, T_HEX, T_RGB, T_TEXT, T_WORD

_HEX = b"0123456789ABCDEF"
CUT = b" ..."    # the end of a message that had words left out to fit the frame


class Writer:
    """Builds one outgoing frame in a preallocated buffer.

    w.reply(seq) / w.error(seq, code, message) / w.event(eseq, kind), then
    key()/number()/text() pieces, then finish(); the frame is buf[0:length]."""

    def __init__(self):
        self.buf = bytearray(MAX_FRAME + 8)
        self.length = 0
        self.full = False     # text or copy left something out: the frame had no room for it
        self._digits = bytearray(12)

    def start(self):
        self.length = 0

    def text(self, data):
        """Append bytes (or a str on error paths), keeping room for *XXXX\\n.

        Characters outside printable ASCII become '?'."""
        buf = self.buf
        at = self.length
        room = MAX_FRAME - 6
        for i in range(len(data)):
            if at >= room:
                self.full = True
                break
            c = data[i]
            if not isinstance(c, int):
                c = ord(c)
            buf[at] = c if 32 <= c <= 126 and c != 42 else 63
            at += 1
        self.length = at

    def copy(self, src, start, end):
        """Append src[start:end] (bytes), no allocation."""
        buf = self.buf
        at = self.length
        room = MAX_FRAME - 6
        for i in range(start, end):
            if at >= room:
                self.full = True
                break
            buf[at] = src[i]
            at += 1
        self.length = at

    def byte(self, c):
        if self.length < MAX_FRAME - 6:
            self.buf[self.length] = c
            self.length += 1

    def number(self, value):
        # on every reply's path: the digits go straight into the buffer, no
        # method call per digit (divmod() would allocate its tuple)
        buf = self.buf
        at = self.length
        room = MAX_FRAME - 6
        if value < 0:
            if at < room:
                buf[at] = 45
                at += 1
            value = -value
        digits = self._digits
        n = 0
        while True:
            digits[n] = 48 + value % 10
            n += 1
            value //= 10
            if value == 0:
                break
        while n:
            n -= 1
            if at < room:
                buf[at] = digits[n]
                at += 1
        self.length = at

    def hex(self, value, width):
        for shift in range(4 * (width - 1), -1, -4):
            self.byte(_HEX[(value >> shift) & 15])

    def key(self, name):
        """ ' name=' (name is bytes)."""
        buf = self.buf
        at = self.length
        if at + len(name) + 2 <= MAX_FRAME - 6:
            buf[at] = 32
            at += 1
            for i in range(len(name)):
                buf[at] = name[i]
                at += 1
            buf[at] = 61
            self.length = at + 1
            return
        self.byte(32)
        self.text(name)
        self.byte(61)

    def reply(self, seq):
        self.length = 0
        self.number(seq)
        self.text(b" OK")

    def error(self, seq, code, message):
        words = self._error_head(seq, code)
        if isinstance(message, bytes):
            # the firmware's own words, kept as written ("end the frame with
            # *XXXX": a reader takes the last * of a line for the checksum's)
            self.copy(message, 0, len(message))
        else:
            self.text(message)   # words from an exception: printable, no *
        self._whole_words(words)

    def _error_head(self, seq, code):
        """"<seq> ERR <CODE> " begun afresh; returns where the message begins."""
        self.length = 0
        self.full = False
        self.number(seq)
        self.text(b" ERR ")
        self.text(ERRORS[code - 1])
        self.byte(32)
        return self.length

    def _whole_words(self, words):
        """Words that did not fit the frame go whole, and the message says so: it
        ends at the last whole word after words (where the message began) that
        leaves room for CUT (docs/protocol.md, Errors)."""
        if not self.full:
            return
        buf = self.buf
        at = self.length
        if at > MAX_FRAME - 6 - len(CUT):
            at = MAX_FRAME - 6 - len(CUT)
            if buf[at] != 32:             # a word cut through: back to its start
                while at > words and buf[at - 1] != 32:
                    at -= 1
        else:
            while at > words and buf[at - 1] != 32:
                at -= 1
        while at > words and buf[at - 1] == 32:
            at -= 1
        if at <= words:                   # no whole word fits: as much of the first as does
            at = MAX_FRAME - 6 - len(CUT)
        for i in range(len(CUT)):
            buf[at + i] = CUT[i]
        self.length = at + len(CUT)

    def error_arg(self, seq, code, message, arg):
        """ERR naming the argument: "ERR RANGE player: must be 0 to 1". arg: a
        verb's argument row (name, type, lo, hi, ...) or a CONFIG_KEYS row;
        message: what it must be; a RANGE message that ends "must be" or
        "must be - or" gets the range after it. Allocation-free."""
        words = self._error_head(seq, code)
        self._about(code, message, arg)
        self._whole_words(words)

    def _about(self, code, message, arg):
        # the argument's name, what it must be, and (RANGE) its range or words
        self.text(arg[0])
        self.text(b": ")
        self.text(message)
        last = message[len(message) - 1]
        if code == E_RANGE and arg[1] == T_WORD and last == 102 and isinstance(arg[2], tuple):
            words = arg[2]     # "must be one of": the words, from the row
            for w in range(len(words)):
                self.text(b", " if w else b" ")
                self.text(words[w])
            return
        if code != E_RANGE or (last != 101 and last != 114) or not isinstance(arg[2], int):
            return
        kind = arg[1]
        if kind == T_HEX or kind == T_RGB:
            self.text(b" 0 to ")
            self.hex(arg[3], 4 if kind == T_HEX else 6)
            return
        self.byte(32)
        self.number(arg[2])
        self.text(b" to ")
        self.number(arg[3])
        if kind == T_TEXT:
            self.text(b" characters")

    def event(self, eseq, kind):
        self.length = 0
        self.text(b"! ")
        self.number(eseq)
        self.byte(32)
        self.text(EVENTS[kind][0])

    def room(self):
        """Bytes still free before the *XXXX\\n tail."""
        return MAX_FRAME - 6 - self.length

    def finish(self):
        crc = crc16(self.buf, 0, self.length)
        buf = self.buf
        at = self.length
        buf[at] = 42
        for i in range(4):
            buf[at + 1 + i] = _HEX[(crc >> (12 - 4 * i)) & 15]
        buf[at + 5] = 10
        self.length = at + 6
        return self.length
