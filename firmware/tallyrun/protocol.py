# The wire protocol between the host and the board: ONE table of messages
# that both sides read (docs/protocol.md explains it for people).
#
# Frames are lines of printable ASCII (0x20..0x7E) ending in "\n" (a "\r"
# before it is ignored), at most MAX_FRAME bytes with the newline:
#   request  <seq> <VERB> <arg>...*<CRC>          seq 1..65535
#   reply    <seq> OK <key=value>...*<CRC>
#            <seq> ERR <CODE> <message>*<CRC>     seq 0: the line could not be trusted
#   event    ! <eseq> <KIND> <key=value>...*<CRC>
# CRC is 4 uppercase hex digits of CRC-16/CCITT-FALSE over every byte before "*".
#
# The board side (LineReader, Request.parse, Writer) works in preallocated
# buffers and allocates nothing for a valid line. The host side helpers at
# the end (encode_request, check_frame, fields) allocate freely.
from array import array

from tallycore import const

from tallycore import VERSION
from tallycore.games import GAMES
from tallycore.game import (LOG_CAPACITY, ARG_INT, ARG_GAME, ARG_WHO, ARG_BID, ARG_TEXT, ARG_RGB,
                            ARG_WORD, ARG_HEX)

FIRMWARE_VERSION = VERSION
PROTOCOL_VERSION = const(4)
MAX_FRAME = const(128)        # bytes, newline included
_MAX_TOKENS = const(10)        # seq, verb and up to 8 arguments
MAX_SEQ = const(65535)
SESSION_SEQS = const(1024)    # the seqs HELLO hands one host session (seqs=<first>)
MAX_NAME = const(12)          # a player's name
MAX_BOARD_NAME = const(32)    # a board definition's name (its file name in board/)
MAX_TABLE = const(99)         # tables of a club evening, and its rounds
_EVENT_LIMIT = const(0x40000000)  # every packed core event is below 2**30
MAX_NOTES = const(4)          # problems found at boot, kept for NOTE until the next boot
MAX_PLAYERS = const(8)        # the most any game takes (sizes "totals", names, colours)
GAME_NAMES = tuple(row[0].encode() for row in GAMES)  # bytes, as on the wire
GAME_OPTIONS = tuple(row[5].encode() for row in GAMES)  # the option keys GAME lists

# --- argument types (tallycore.game: a game declares its verbs with them) ------
T_INT = ARG_INT      # decimal, lo..hi
T_GAME = ARG_GAME    # a game name (tallycore.games); value: index in GAMES
T_WHO = ARG_WHO      # a player index lo..hi, or "-" for nobody; value: NOBODY for "-"
T_BID = ARG_BID      # Skicket bid: level 1-7 and strain C S H D NT NK; value: level | strain << 3
T_TEXT = ARG_TEXT    # lo..hi characters from NAME_CHARS; value: start << 8 | end in the line
T_RGB = ARG_RGB      # colour RRGGBB in hex; value: 0xRRGGBB
T_WORD = ARG_WORD    # one of the words in the tuple `lo`; value: its index
T_HEX = ARG_HEX      # 4 hex digits (a CRC-16, as STATE writes it); value: 0..0xFFFF
T_ESC = const(8)     # lo..hi bytes, written %XX-escaped (NET SET's values); value: start << 8 | end in the line
TYPE_NAMES = ("int", "game", "who", "bid", "text", "rgb", "word", "hex4", "escaped")
NOBODY = const(4)
NAME_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-."
STRAINS = (b"C", b"S", b"H", b"D", b"NT", b"NK")  # skicket.STRAIN_NAMES, as bytes

# --- the message table -------------------------------------------------------
# The runtime's own verbs; a game's own verbs (Skicket's HAND, Roquet's PEG)
# are declared by its rules module (tallycore.game explains how) and taken
# only while that game is in play. A row:
# (verb, ((arg, type, lo, hi, index), ...), optional trailing args, reply
#  fields, what it changes); what it does is said for people by
#  tallyboard.wirefields.VERB_DOES (host only: the board never sends it)
# index: b"player", b"seat" or b"" (tallycore.game). What it changes: b"" (it
# only reads), or the change it journals and pushes an event for: b"apply"
# (an event: n + 1), b"undo" (n - 1), b"new" (n = 0), b"kept" (the archive
# mark; the game stays), b"cfg" (a setting, CFG SET only).
# Reply fields and event fields are named as docs/protocol.md's field table
# (tallyboard.wirefields) names them: "VERB.name" where a verb writes the field
# `name` its own way (HELLO's players is the most any game takes); the wire
# key is the part after the dot. tallyrun.replies.fields writes every row.
# Every state-changing verb replies "n top eseq": events applied, applied +
# redo stack, and the sequence number of the event it pushed. A change held
# for its confirmation by an opponent (docs/rules.md CF) replies "held" too,
# and n and top stay: it counts once the board accepts it.
CHANGED = ("n", "top", "eseq")
# NET (a board's link to a club evening over Wi-Fi and MQTT): its ops, its
# settings and its reply. A row of NET_KEYS: (key, form, lo, hi, secret,
# may be none, default); what each is: tallyboard.wirefields.NET_KEY_MEANINGS. Forms: b"bytes" lo..hi bytes (%XX-escaped
# on the line); b"name" a topic level: lo..hi letters, digits, _ . - starting
# with a letter or digit; b"host" a host name or IPv4 address (letters,
# digits, . -); b"int" decimal lo..hi; b"key" lo..hi bytes written as twice
# as many hex digits. A key that may be none is set to "-" for none. A secret
# is never read back: GET says "set" or "-".
NET_OPS = (b"GET", b"SET", b"LEAVE")
MAX_NET_VALUE = const(84)     # characters of a value on the line, escapes included (NET GET's reply fits too)
NET_KEYS = (
    (b"ssid", b"bytes", 1, 32, False, False, None),
    (b"wifi_password", b"bytes", 8, 63, True, True, None),
    (b"broker_host", b"host", 1, 64, False, False, None),
    (b"broker_port", b"int", 1, 65535, False, False, 1883),
    (b"broker_user", b"bytes", 1, 64, False, True, None),
    (b"broker_password", b"bytes", 1, 64, True, True, None),
    (b"event", b"name", 1, 64, False, False, None),
    (b"key", b"key", 16, 16, True, False, None),     # signs the board's messages and checks its tag of the director's
)
NET_KEY_NAMES = tuple(row[0] for row in NET_KEYS)
(NET_SSID, NET_WIFI_PASSWORD, NET_BROKER_HOST, NET_BROKER_PORT, NET_BROKER_USER, NET_BROKER_PASSWORD,
 NET_EVENT, NET_KEY) = range(len(NET_KEYS))
NET_FIELDS = ("wifi", "enrolled", "joined", "broker", "waiting", "error", "NET.key", "NET.value")   # key value: NET's own
APPLIED = ("n", "top", "eseq", "ev")   # ev: the event applied (a host updates its copy of the game)
CFG_OPS = (b"GET", b"SET")
_CFG_OP = (b"op", T_WORD, CFG_OPS, 0, b"")
_CFG_PLAYER = (b"player", T_INT, 0, MAX_PLAYERS - 1, b"player")
VERBS = (
    (b"HELLO", (), 0, ("fw", "proto", "board", "games", "frame", "log", "HELLO.players", "seqs"), b""),
    (b"GAME", ((b"index", T_INT, 0, len(GAMES) - 1, b""),), 0,
     ("index", "name", "min", "max", "GAME.options"), b""),
    (b"NEW", ((b"game", T_GAME, 0, 0, b""), (b"players", T_INT, 1, MAX_PLAYERS, b""),
              (b"options", T_INT, 0, 0xFFFF, b"")), 1, CHANGED, b"new"),
    (b"EV", ((b"event", T_INT, 0, _EVENT_LIMIT - 1, b""),), 0, APPLIED, b"apply"),
    (b"UNDO", (), 0, CHANGED, b"undo"),
    (b"REDO", (), 0, APPLIED, b"apply"),
    (b"OPEN", (), 0,
     ("proto", "seqs", "game", "players", "options", "n", "top", "lcrc", "OPEN.held", "ccrc", "notes"), b""),
    (b"STATE", (), 0, ("game", "players", "options", "n", "top", "lcrc", "held", "eseq", "notes"), b""),
    (b"SCORE", (), 0, ("hands", "complete", "winners", "totals"), b""),
    (b"LOG", ((b"at", T_INT, 0, LOG_CAPACITY, b""),), 0, ("at", "LOG.count", "top", "LOG.ev"), b""),
    (b"STATS", (), 0, ("free", "alloc", "block", "served", "journal", "errors"), b""),
    (b"NOTE", ((b"index", T_INT, 0, MAX_NOTES - 1, b""),), 0, ("NOTE.count", "NOTE.text"), b""),
    (b"CFG", (_CFG_OP, (b"key", T_WORD, 0, 0, b""), _CFG_PLAYER, (b"value", T_TEXT, 1, MAX_BOARD_NAME, b"")), 2,
     ("key", "player", "value"), b"cfg"),
    (b"KEPT", ((b"n", T_INT, 0, LOG_CAPACITY, b""), (b"lcrc", T_HEX, 0, 0xFFFF, b"")), 0, CHANGED, b"kept"),
    (b"NET", ((b"op", T_WORD, NET_OPS, 0, b""), (b"key", T_WORD, NET_KEY_NAMES, 0, b""),
              (b"value", T_ESC, 1, MAX_NET_VALUE, b"")), 3, NET_FIELDS, b"net"),
)
(V_HELLO, V_GAME, V_NEW, V_EV, V_UNDO, V_REDO,
 V_OPEN, V_STATE, V_SCORE, V_LOG, V_STATS, V_NOTE, V_CFG, V_KEPT, V_NET) = range(len(VERBS))
V_GAME_VERB = const(15)   # the first of the game in play's own verbs: V_GAME_VERB + its index

DEFAULT_BOARD = b"pico-reference"
# Config keys: (key, type, lo, hi, per player, default)
CONFIG_KEYS = (
    (b"brightness", T_INT, 0, 255, False, 64),
    (b"budget_ma", T_INT, 100, 3000, False, 500),
    (b"name", T_TEXT, 1, MAX_NAME, True, None),          # default "P1".."P4"
    (b"colour", T_RGB, 0, 0xFFFFFF, True, None),         # default: PLAYER_COLOURS
    (b"board", T_TEXT, 1, MAX_BOARD_NAME, False, DEFAULT_BOARD),
    (b"confirm", T_INT, 0, 1, False, 0),                 # 1: every hand waits for an opponent's accept
    (b"event", T_INT, 0, 65535, False, 0),               # the club evening's tag (0: none)
    (b"table", T_INT, 0, MAX_TABLE, False, 0),           # its table at that evening (0: none)
    (b"round", T_INT, 0, MAX_TABLE, False, 0),           # the round in play there
)
(CFG_BRIGHTNESS, CFG_BUDGET, CFG_NAME, CFG_COLOUR, CFG_BOARD, CFG_CONFIRM, CFG_EVENT, CFG_TABLE,
 CFG_ROUND) = range(len(CONFIG_KEYS))
PLAYER_COLOURS = (0xFF2000, 0x0040FF, 0x00C000, 0xC000C0,
                  0xFFC000, 0x00C0C0, 0xFF60A0, 0xC0C0C0)

# Error codes, as ERR writes them (what each means: tallyboard.wirefields.ERROR_MEANINGS)
ERRORS = (b"FRAME", b"CRC", b"SEQ", b"VERB", b"ARGS", b"RANGE", b"RULE", b"FULL", b"FLASH", b"BOARD")
E_OK = const(0)  # not an error: parse succeeded
E_FRAME, E_CRC, E_SEQ, E_VERB, E_ARGS, E_RANGE, E_RULE, E_FULL, E_FLASH, E_BOARD = range(1, len(ERRORS) + 1)

# Events pushed by the board: (kind, fields); when each is pushed: tallyboard.wirefields.EVENT_WHEN
EVENTS = (
    (b"BOOT", ("fw", "proto", "game", "n", "top")),
    (b"NEW", ("game", "players", "options", "n", "top")),
    (b"EV", ("n", "top", "ev", "src", "totals")),
    (b"UNDO", ("n", "top", "src", "totals")),
    (b"REDO", ("n", "top", "ev", "src", "totals")),
    (b"CFG", ("key", "player", "value")),
    (b"NOTE", ("text",)),
    (b"HELD", ("n", "top", "held", "by", "src")),
    (b"ACCEPT", ("held", "n", "top", "src", "totals")),
    (b"REJECT", ("held", "n", "top", "src")),
    (b"KEPT", ("n",)),
)
EV_BOOT, EV_NEW, EV_EVENT, EV_UNDO, EV_REDO, EV_CFG, EV_NOTE, EV_HELD, EV_ACCEPT, EV_REJECT, EV_KEPT = range(
    len(EVENTS))
EVENT_SEQ_LIMIT = const(65535)   # event seq runs 1..65535 then wraps to 1

# --- CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection) ----------
# the table of CRC-16/CCITT-FALSE (poly 0x1021) by byte, little-endian u16:
# written out rather than computed at import (2,048 loop steps at power-up);
# tests/mp/test_protocol_frames.py computes it and compares
_CRC_TABLE = array("H", bytes.fromhex(
    "00002110422063308440a550c660e770088129914aa16bb18cc1add1cee1eff13112100273325222b5529442f772d662"
    "399318837bb35aa3bdd39cc3fff3dee36224433420040114e664c774a44485546aa54bb528850995eee5cff5acc58dd5"
    "5336722611163006d776f6669556b4465bb77aa719973887dff7fee79dd7bcc7c448e5588668a7784008611802282338"
    "ccc9edd98ee9aff9488969990aa92bb9f55ad44ab77a966a711a500a333a122afddbdccbbffb9eeb799b588b3bbb1aab"
    "a66c877ce44cc55c222c033c600c411caeed8ffdeccdcddd2aad0bbd688d499d977eb66ed55ef44e133e322e511e700e"
    "9fffbeefdddffccf1bbf3aaf599f788f8891a981cab1eba10cd12dc14ef16fe18010a100c230e3200450254046706760"
    "b9839893fba3dab33dc31cd37fe35ef3b1029012f322d2323542145277625672eab5cba5a89589856ef54fe52cd50dc5"
    "e234c324a01481046674476424540544dba7fab79987b8975fe77ef71dc73cd7d326f2369106b0165766767615463456"
    "4cd96dc90ef92fe9c899e9898ab9aba94458654806782768c018e1088238a3287dcb5cdb3feb1efbf98bd89bbbab9abb"
    "754a545a376a167af10ad01ab32a923a2efd0fed6cdd4dcdaabd8bade89dc98d267c076c645c454ca23c832ce01cc10c"
    "1fef3eff5dcf7cdf9bafbabfd98ff89f176e367e554e745e932eb23ed10ef01e"
))


def _crc16_bytecode(data, start, end, crc):
    table = _CRC_TABLE
    for i in range(start, end):
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ data[i]) & 0xFF]
    return crc


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


_crc16_loop = _crc16_bytecode
_scan = _scan_bytecode
_decimal = _decimal_bytecode
try:
    # machine code (viper), compiled for the chip: every frame in and out and every journal record
    # is checksummed, and every request scanned, on the request's path. The emulator (the unix port)
    # cannot load the chip's machine code and keeps the loops above.
    from tallyrun.native import crc16_table as _crc16_native
    from tallyrun.native import decimal as _decimal
    from tallyrun.native import scan_line as _scan

    def _crc16_with_table(data, start, end, crc):
        return _crc16_native(data, _CRC_TABLE, start << 16 | end, crc)

    _crc16_loop = _crc16_with_table
except (ImportError, ValueError):   # CPython; an .mpy for another arch
    pass


def crc16(data, start=0, end=-1, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of data[start:end] (end -1: to the end). No allocation."""
    if end < 0:
        end = len(data)
    return _crc16_loop(data, start, end, crc)


_HEX = b"0123456789ABCDEF"


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


# --- board side: parsing one request -------------------------------------------
class Request:
    """One parsed request, in place: token positions and argument values."""

    def __init__(self):
        self.starts = array("H", bytearray(2 * _MAX_TOKENS))
        self.ends = array("H", bytearray(2 * _MAX_TOKENS))
        self.tokens = 0
        self.values = array("i", bytearray(4 * _MAX_TOKENS))  # parsed arguments
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
        self.game = None     # the game in play (its rules' VERBS are taken too); set by the app
        self.arg = None      # the argument an ARGS or RANGE error is about: its spec row

    def _fail(self, code, message):
        self.error = code
        self.message = message
        return code

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
        scanned = _scan(line, length, self.starts, self.ends, _MAX_TOKENS)
        if scanned < 0:
            return self._fail(E_FRAME, b"not printable ASCII; resend the frame")
        star = (scanned & 0xFF) - 1
        if star < 0 or length - star != 5:
            return self._fail(E_CRC, b"no checksum; end the frame with *XXXX (4 hex digits of CRC-16/CCITT-FALSE)")
        given = 0
        for i in range(star + 1, length):
            h = _hex_value(line[i])
            if h < 0:
                return self._fail(E_CRC, b"the checksum must be 4 uppercase hex digits")
            given = given << 4 | h
        if crc16(line, 0, star) != given:
            return self._fail(E_CRC, b"checksum mismatch; resend the frame")
        self.crc = given
        if scanned & 0x1000:
            return self._fail(E_ARGS, b"too many arguments")
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
        verb = -1
        start = self.starts[1]
        end = self.ends[1]
        length = end - start
        first = _upper(line[start])
        # the length and the first letter rule out all but one or two: only those are compared whole
        for v in range(len(VERBS)):
            word = VERBS[v][0]
            if len(word) == length and word[0] == first and _same_word(line, start, end, word, True):
                verb = v
                break
        optional = 0
        if verb >= 0:
            row = VERBS[verb]
            optional = row[2]
        else:
            # the game in play's own verbs (tallycore.game: VERBS)
            rules = None if self.game is None else self.game.rules
            own = () if rules is None else rules.VERBS
            for v in range(len(own)):
                word = own[v][0]
                if len(word) == length and word[0] == first and _same_word(line, start, end, word, True):
                    verb = V_GAME_VERB + v
                    row = own[v]
                    break
            if verb < 0:
                return self._fail(E_VERB, b"unknown verb, or not one of the game in play; docs/protocol.md "
                                          b"lists every game's verbs, and EV enters any game's event")
        self.verb = verb
        if verb == V_CFG:
            return self._parse_cfg()
        spec = row[1]
        given = n - 2
        if given > len(spec) or given < len(spec) - optional:
            return self._fail(E_ARGS, b"wrong number of arguments; docs/protocol.md gives each verb's")
        for a in range(given):
            arg = spec[a]
            code = self._value(a, 2 + a, arg[1], arg[2], arg[3])
            if code:
                self.arg = arg
                return code
        self.nargs = given
        return E_OK

    def _value(self, slot, token, kind, lo, hi):
        """Parse token into self.values[slot]; E_OK or an error code."""
        line = self.line
        start = self.starts[token]
        end = self.ends[token]
        if kind == T_INT:
            value = self.int_at(token, _EVENT_LIMIT - 1)
            if value < 0:
                return self._fail(E_ARGS, b"must be a decimal number")
            if value < lo or value > hi:
                return self._fail(E_RANGE, b"must be")
        elif kind == T_WHO:
            if end - start == 1 and line[start] == 45:  # "-"
                value = NOBODY
            else:
                value = self.int_at(token, _EVENT_LIMIT - 1)
                if value < 0:
                    return self._fail(E_ARGS, b"must be a player number or - for nobody")
                if value < lo or value > hi:
                    return self._fail(E_RANGE, b"must be - or")
        elif kind == T_GAME:
            value = -1
            for g in range(len(GAME_NAMES)):
                if _same_word(line, start, end, GAME_NAMES[g], True):
                    value = g
                    break
            if value < 0:
                return self._fail(E_RANGE, b"unknown game; GAME 0 to games-1 (HELLO) lists them")
        elif kind == T_BID:
            level = line[start] - 48
            if end - start < 2 or level < 1 or level > 7:
                return self._fail(E_RANGE, b"must be a level 1 to 7 then C, S, H, D, NT or NK")
            value = -1
            for s in range(len(STRAINS)):
                if _same_word(line, start + 1, end, STRAINS[s], True):
                    value = level | s << 3
                    break
            if value < 0:
                return self._fail(E_RANGE, b"must be a level 1 to 7 then C, S, H, D, NT or NK")
        elif kind == T_TEXT:
            if end - start < lo or end - start > hi:
                return self._fail(E_RANGE, b"must be")
            for i in range(start, end):
                if not _name_char(line[i]):
                    return self._fail(E_RANGE, b"must be letters, digits, _ - and . only")
            value = start << 8 | end
        elif kind == T_RGB:
            if end - start != 6:
                return self._fail(E_ARGS, b"must be RRGGBB in hex")
            value = 0
            for i in range(start, end):
                h = _hex_value(_upper(line[i]))
                if h < 0:
                    return self._fail(E_ARGS, b"must be RRGGBB in hex")
                value = value << 4 | h
        elif kind == T_HEX:
            if end - start != 4:
                return self._fail(E_ARGS, b"must be 4 hex digits, as STATE writes it")
            value = 0
            for i in range(start, end):
                h = _hex_value(_upper(line[i]))
                if h < 0:
                    return self._fail(E_ARGS, b"must be 4 hex digits, as STATE writes it")
                value = value << 4 | h
        elif kind == T_ESC:
            if end - start > hi:
                return self._fail(E_RANGE, b"too long for one line: at most 84 characters, escapes included")
            if unescape_into(line, start, end, None) < 0:
                return self._fail(E_ARGS, b"write each space, *, % and byte outside printable ASCII as %XX")
            value = start << 8 | end
        else:  # T_WORD: lo is the tuple of words
            value = -1
            for w in range(len(lo)):
                if _same_word(line, start, end, lo[w], True):
                    value = w
                    break
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
            self.arg = _CFG_OP
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
                self.arg = _CFG_PLAYER
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


def _name_char(c):
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c == 95 or c == 45 or c == 46


# --- board side: writing replies and events ------------------------------------
class Writer:
    """Builds one outgoing frame in a preallocated buffer.

    w.reply(seq) / w.error(seq, code, message) / w.event(eseq, kind), then
    key()/number()/text() pieces, then finish(); the frame is buf[0:length]."""

    def __init__(self):
        self.buf = bytearray(MAX_FRAME + 8)
        self.length = 0
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
        if value < 0:
            if at < MAX_FRAME - 6:
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
            if at < MAX_FRAME - 6:
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
        self.length = 0
        self.number(seq)
        self.text(b" ERR ")
        self.text(ERRORS[code - 1])
        self.byte(32)
        if isinstance(message, bytes):
            # the firmware's own words, kept as written ("end the frame with
            # *XXXX": a reader takes the last * of a line for the checksum's)
            self.copy(message, 0, len(message))
        else:
            self.text(message)   # words from an exception: printable, no *

    def error_arg(self, seq, code, message, arg):
        """ERR naming the argument: "ERR RANGE player: must be 0 to 1". arg: a
        verb's argument row (name, type, lo, hi, ...) or a CONFIG_KEYS row;
        message: what it must be; a RANGE message that ends "must be" or
        "must be - or" gets the range after it. Allocation-free."""
        self.length = 0
        self.number(seq)
        self.text(b" ERR ")
        self.text(ERRORS[code - 1])
        self.byte(32)
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
