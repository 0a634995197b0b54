# The board's side of a request (docs/protocol.md): its bytes collected into a
# line (LineReader), the line checked and parsed in place against the message
# table (Request), NET SET's escaped values read (unescape_into). All in
# preallocated buffers: nothing is allocated for a valid line.
from tallycore import array

from tallycore import const
from tallycore.game import NOBODY, STRAINS
from tallyrun.protocol import crc16
from tallyrun.protocol import (CFG_OP, CFG_OPS, CFG_PLAYER, CONFIG_KEYS, E_ARGS, E_CRC, E_FRAME, E_OK, E_RANGE,
                               E_SEQ, E_VERB, EVENT_LIMIT, GAME_NAMES, MAX_FRAME, MAX_PLAYERS, MAX_SEQ, MAX_TOKENS,
                               T_BID, T_ESC, T_GAME, T_HEX, T_INT, T_RGB, T_TEXT, T_WHO, T_WORD,
                               V_CFG, V_GAME_VERB, VERBS)



def _scan_bytecode(line, length, starts, ends, most):
    """tallyrun.native.scan_line's loop in bytecode (its docstring says what it returns)."""
    star = -1
    for i in range(length):
        c = line[i]
        if c < 32 or c > 126:
            return -1
        if c == 42:
            star = i
    end = star if star >= 0 else length
    n = 0
    i = 0
    while i < end:
        if line[i] == 32:
            i += 1
            continue
        if n >= most:
            return (star + 1) | (n << 8) | (1 << 12)
        starts[n] = i
        while i < end and line[i] != 32:
            i += 1
        ends[n] = i
        n += 1
    return (star + 1) | (n << 8)


def _decimal_bytecode(line, span, limit):
    """tallyrun.native.decimal's loop in bytecode."""
    start = span >> 16
    end = span & 0xFFFF
    if end - start < 1 or end - start > 10:
        return -1
    value = 0
    for i in range(start, end):
        d = line[i] - 48
        if d < 0 or d > 9:
            return -1
        value = value * 10 + d
        if value > limit:
            return -1
    return value


_scan = _scan_bytecode
_decimal = _decimal_bytecode
try:
    # machine code (viper), compiled for the chip: every request is scanned on the request's path.
    # The emulator (the unix port) cannot load the chip's machine code and keeps the loops above.
    from tallyrun.native import decimal as _decimal
    from tallyrun.native import scan_line as _scan
except (ImportError, ValueError):   # CPython; an .mpy for another arch
    pass


def _hex_value(c):
    if 48 <= c <= 57:
        return c - 48
    if 65 <= c <= 70:
        return c - 55
    return -1   # lowercase is not accepted: the contract says uppercase


def _upper(c):
    return c - 32 if 97 <= c <= 122 else c


def _same_word(buf, start, end, word, fold):
    """buf[start:end] == word (bytes); fold: case-insensitive."""
    if end - start != len(word):
        return False
    for i in range(end - start):
        c = buf[start + i]
        w = word[i]
        if c != w and not (fold and _upper(c) == _upper(w)):
            return False
    return True


# --- board side: collecting lines --------------------------------------------
class LineReader:
    """Collects bytes into one preallocated line buffer.

    feed(byte) returns FEED_MORE, FEED_LINE (self.length bytes in self.line,
    newline and \r stripped) or FEED_OVERFLOW (a line longer than MAX_FRAME
    ended; it was discarded). Noise resynchronises at the next newline."""

    def __init__(self):
        self.line = bytearray(MAX_FRAME)
        self.length = 0
        self.overflow = False

    def feed(self, byte):
        # on every byte's path: one attribute read and one write for a byte of a line
        n = self.length
        if byte != 10:
            if n < MAX_FRAME - 1:
                self.line[n] = byte
                self.length = n + 1
            else:
                self.overflow = True     # no room left for the newline
            return FEED_MORE
        if self.overflow:
            self.overflow = False
            self.length = 0
            return FEED_OVERFLOW
        if n and self.line[n - 1] == 13:
            self.length = n - 1
        return FEED_LINE

    def clear(self):
        self.length = 0
        self.overflow = False


FEED_MORE = const(0)
FEED_LINE = const(1)
FEED_OVERFLOW = const(2)
TOO_LONG = b"line longer than 128 bytes; resend the frame"   # the answer to FEED_OVERFLOW (the sharer's too)


# --- board side: parsing one request -------------------------------------------
class Request:
    """One parsed request, in place: token positions and argument values."""

    def __init__(self, game=None):
        self.starts = array("H", bytearray(2 * MAX_TOKENS))
        self.ends = array("H", bytearray(2 * MAX_TOKENS))
        self.tokens = 0
        self.values = array("i", bytearray(4 * MAX_TOKENS))  # parsed arguments
        self.nargs = 0
        self.seq = 0
        self.crc = 0         # the request's own CRC (with seq, tells a retry from a new line)
        self.verb = -1
        self.line = bytearray(0)   # the line being parsed (set by parse)
        self.error = E_OK
        self.message = b""   # a bytes literal naming what is wrong
        self.cfg_key = -1
        self.cfg_player = -1
        self.cfg_value = -1  # token index of the value (SET)
        self.game = game     # the game in play (its rules' VERBS are taken too): the app's
        self.arg = None      # the argument an ARGS or RANGE error is about: its spec row

    def _fail(self, code, message):
        self.error = code
        self.message = message
        return code

    # size: parses every line in place; a call more costs every request
    def parse(self, line, length):
        """Parse line[0:length]. Returns E_OK or an error code (self.message says why)."""
        self.line = line
        self.seq = 0
        self.verb = -1
        self.nargs = 0
        self.tokens = 0
        self.error = E_OK
        self.message = b""
        self.arg = None
        # one pass (tallyrun.native on the chip): printable ASCII only, the checksum's star, the tokens
        scanned = _scan(line, length, self.starts, self.ends, MAX_TOKENS)
        if scanned < 0:
            return self._fail(E_FRAME, b"not printable ASCII; resend the frame")
        code = self._checksum(line, length, (scanned & 0xFF) - 1)
        if code:
            return code
        if scanned & 0x1000:
            return self._fail(E_ARGS, b"too many arguments; docs/protocol.md lists each verb's arguments")
        n = (scanned >> 8) & 0xF
        self.tokens = n
        if n == 0:
            return self._fail(E_SEQ, b"no sequence number")
        seq = self.int_at(0, MAX_SEQ)
        if seq < 1:
            return self._fail(E_SEQ, b"the sequence number must be 1 to 65535")
        self.seq = seq
        if n < 2:
            return self._fail(E_VERB, b"no verb; send HELLO to start")
        start = self.starts[1]
        end = self.ends[1]
        verb = _find(VERBS, line, start, end)
        optional = 0
        if verb >= 0:
            row = VERBS[verb]
            optional = row[2]
        else:
            # the game in play's own verbs (tallycore.game: VERBS)
            rules = None if self.game is None else self.game.rules
            own = () if rules is None else rules.VERBS
            verb = _find(own, line, start, end)
            if verb < 0:
                return self._fail(E_VERB, b"unknown verb, or not the game in play's; docs/protocol.md lists "
                                          b"each game's verbs; EV enters any event")
            row = own[verb]
            verb += V_GAME_VERB
        self.verb = verb
        if verb == V_CFG:
            return self._parse_cfg()
        spec = row[1]
        given = n - 2
        if given > len(spec):
            return self._fail(E_ARGS, b"too many arguments; docs/protocol.md lists each verb's arguments")
        if given < len(spec) - optional:
            self.arg = spec[given]     # the first one missing
            return self._fail(E_ARGS, b"missing; docs/protocol.md lists each verb's arguments")
        for a in range(given):
            arg = spec[a]
            code = self._value(a, 2 + a, arg[1], arg[2], arg[3])
            if code:
                self.arg = arg
                return code
        self.nargs = given
        return E_OK

    def _checksum(self, line, length, star):
        """The frame's *XXXX after its last star, checked: E_OK (self.crc is
        it) or E_CRC."""
        if star < 0:
            return self._fail(E_CRC, b"no checksum; end the frame with *XXXX (4 hex digits of CRC-16/CCITT-FALSE)")
        if length - star != 5:
            return self._fail(E_CRC, b"the checksum must be 4 uppercase hex digits")
        given = 0
        for i in range(star + 1, length):
            h = _hex_value(line[i])
            if h < 0:
                return self._fail(E_CRC, b"the checksum must be 4 uppercase hex digits")
            given = given << 4 | h
        if crc16(line, 0, star) != given:
            return self._fail(E_CRC, b"checksum mismatch; resend the frame")
        self.crc = given
        return E_OK

    # size: one branch per argument type of the message table, in place and allocation-free
    def _value(self, slot, token, kind, lo, hi):
        """Parse token into self.values[slot]; E_OK or an error code."""
        line = self.line
        start = self.starts[token]
        end = self.ends[token]
        if kind == T_INT:
            value = self.int_at(token, EVENT_LIMIT - 1)
            if value < 0:
                if _digits(line, start, end):
                    return self._fail(E_RANGE, b"must be")     # a number, too large for any
                return self._fail(E_ARGS, b"must be a decimal number")
            if value < lo or value > hi:
                return self._fail(E_RANGE, b"must be")
        elif kind == T_WHO:
            if end - start == 1 and line[start] == 45:  # "-"
                value = NOBODY
            else:
                value = self.int_at(token, EVENT_LIMIT - 1)
                if value < 0:
                    if _digits(line, start, end):
                        return self._fail(E_RANGE, b"must be - or")
                    return self._fail(E_ARGS, b"must be a player number or - for nobody")
                if value < lo or value > hi:
                    return self._fail(E_RANGE, b"must be - or")
        elif kind == T_GAME:
            value = _one_of(GAME_NAMES, line, start, end)
            if value < 0:
                return self._fail(E_RANGE, b"unknown game; GAME 0 to games-1 (HELLO) lists them")
        elif kind == T_BID:
            level = line[start] - 48
            if end - start < 2 or level < 1 or level > 7:
                return self._fail(E_RANGE, b"must be a level 1 to 7 then C, S, H, D, NT or NK")
            strain = _one_of(STRAINS, line, start + 1, end)
            if strain < 0:
                return self._fail(E_RANGE, b"must be a level 1 to 7 then C, S, H, D, NT or NK")
            value = level | strain << 3
        elif kind == T_TEXT:
            if end - start < lo or end - start > hi:
                return self._fail(E_RANGE, b"must be")
            for i in range(start, end):
                if not _name_char(line[i]):
                    return self._fail(E_RANGE, b"must be letters, digits, _ - and . only")
            value = start << 8 | end
        elif kind == T_RGB:
            value = _hex_digits(line, start, end, 6)
            if value < 0:
                return self._fail(E_ARGS, b"must be RRGGBB in hex")
        elif kind == T_HEX:
            value = _hex_digits(line, start, end, 4)
            if value < 0:
                return self._fail(E_ARGS, b"must be 4 hex digits, as STATE writes it")
        elif kind == T_ESC:
            if end - start > hi:
                return self._fail(E_RANGE, b"too long for one line: at most 84 characters, escapes included")
            if unescape_into(line, start, end, None) < 0:
                return self._fail(E_ARGS, b"write each space, *, % and byte outside printable ASCII as %XX")
            value = start << 8 | end
        else:  # T_WORD: lo is the tuple of words
            value = _one_of(lo, line, start, end)
            if value < 0:
                return self._fail(E_RANGE, b"must be one of")
        self.values[slot] = value
        return E_OK

    def _parse_cfg(self):
        # CFG GET key [player] | CFG SET key [player] value
        n = self.tokens
        if n < 4:
            return self._fail(E_ARGS, b"CFG GET key [player] or CFG SET key [player] value")
        code = self._value(0, 2, T_WORD, CFG_OPS, 0)
        if code:
            self.arg = CFG_OP
            return code
        key = -1
        for k in range(len(CONFIG_KEYS)):
            if _same_word(self.line, self.starts[3], self.ends[3], CONFIG_KEYS[k][0], True):
                key = k
        if key < 0:
            return self._fail(E_RANGE, b"key: must be brightness, budget_ma, name, colour, board, confirm, event, table or round")
        self.values[1] = key
        spec = CONFIG_KEYS[key]
        setting = self.values[0] == 1
        want = 4 + (1 if spec[4] else 0) + (1 if setting else 0)
        if n != want:
            return self._fail(E_ARGS, b"CFG GET key [player] or CFG SET key [player] value")
        self.cfg_key = key
        self.cfg_player = -1
        token = 4
        if spec[4]:
            code = self._value(2, 4, T_INT, 0, MAX_PLAYERS - 1)
            if code:
                self.arg = CFG_PLAYER
                return code
            self.cfg_player = self.values[2]
            token = 5
        self.cfg_value = -1
        if setting:
            code = self._value(3, token, spec[1], spec[2], spec[3])
            if code:
                self.arg = spec
                return code
            self.cfg_value = token
        self.nargs = n - 2
        return E_OK

    def int_at(self, token, limit):
        """The decimal token as an int 0..limit, or -1 if it is not one."""
        return _decimal(self.line, self.starts[token] << 16 | self.ends[token], limit)


def unescape_into(line, start, end, out):
    """Decode the %XX-escaped token line[start:end] (NET SET's values) into out
    (a bytearray of at least end - start bytes; None: only check it). Its
    length, or -1 if it is not a token of printable ASCII without * whose
    every % starts two hex digits (either case). Allocation-free."""
    n = 0
    i = start
    while i < end:
        c = line[i]
        if c <= 32 or c > 126 or c == 42:
            return -1
        if c == 37:
            if i + 2 >= end:
                return -1
            hi = _hex_value(_upper(line[i + 1]))
            lo = _hex_value(_upper(line[i + 2]))
            if hi < 0 or lo < 0:
                return -1
            c = hi << 4 | lo
            i += 3
        else:
            i += 1
        if out is not None:
            out[n] = c
        n += 1
    return n


def _digits(line, start, end):
    """Whether line[start:end] is decimal digits only (a number, of any size)."""
    for i in range(start, end):
        c = line[i]
        if c < 48 or c > 57:
            return False
    return end > start


def _one_of(words, line, start, end):
    """The index of line[start:end] in words (bytes, either case), or -1."""
    for w in range(len(words)):
        if _same_word(line, start, end, words[w], True):
            return w
    return -1


def _find(rows, line, start, end):
    """The index of the verb's row (VERBS, a game's VERBS: each verb in capitals) whose
    verb is line[start:end] in either case, or -1. The length and the first letter rule
    out all but one or two: only those are compared whole."""
    length = end - start
    first = _upper(line[start])
    for r in range(len(rows)):
        word = rows[r][0]
        if len(word) == length and word[0] == first and _same_word(line, start, end, word, True):
            return r
    return -1


def _hex_digits(line, start, end, digits):
    """line[start:end] as exactly that many hex digits (either case), or -1."""
    if end - start != digits:
        return -1
    value = 0
    for i in range(start, end):
        h = _hex_value(_upper(line[i]))
        if h < 0:
            return -1
        value = value << 4 | h
    return value


def _name_char(c):
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c == 95 or c == 45 or c == 46
