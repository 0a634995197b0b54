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
# The board reads a request with tallyrun.incoming and writes its reply or event
# with tallyrun.outgoing; the host's side is tallyboard.wire. Here beside the
# table: the frames' checksum (crc16), which the journal and the config use too.
from tallycore import array

from tallycore import const

from tallycore import VERSION
from tallycore.games import GAMES
from tallycore.game import (LOG_CAPACITY, ARG_INT, ARG_GAME, ARG_WHO, ARG_BID, ARG_TEXT, ARG_RGB,
                            ARG_WORD, ARG_HEX)

FIRMWARE_VERSION = VERSION
PROTOCOL_VERSION = const(6)
MAX_FRAME = const(128)        # bytes, newline included
MAX_TOKENS = const(10)        # seq, verb and up to 8 arguments
MAX_SEQ = const(65535)
SESSION_SEQS = const(1024)    # the seqs HELLO hands one host session (seqs=<first>)
MAX_NAME = const(12)          # a player's name
MAX_BOARD_NAME = const(32)    # a board definition's name (its file name in board/)
MAX_TABLE = const(99)         # tables of a club evening, and its rounds
EVENT_LIMIT = const(0x40000000)  # every packed core event is below 2**30
MAX_NOTES = const(4)          # problems found at boot, kept for NOTE until the next boot
MAX_PLAYERS = const(8)        # the most any game takes (sizes "totals", names, colours)
GAME_NAMES = tuple(row[0].encode() for row in GAMES)  # bytes, as on the wire
GAME_OPTIONS = tuple(row[5].encode() for row in GAMES)  # the option keys GAME lists

# --- argument types (tallycore.game: a game declares its verbs with them) ------
T_INT = ARG_INT      # decimal, lo..hi
T_GAME = ARG_GAME    # a game name (tallycore.games); value: index in GAMES
T_WHO = ARG_WHO      # a player index lo..hi, or "-" for nobody; value: tallycore.game.NOBODY for "-"
T_BID = ARG_BID      # Skicket bid: level 1-7 and one of tallycore.game.STRAINS; value: level | strain << 3
T_TEXT = ARG_TEXT    # lo..hi characters from NAME_CHARS; value: start << 8 | end in the line
T_RGB = ARG_RGB      # colour RRGGBB in hex; value: 0xRRGGBB
T_WORD = ARG_WORD    # one of the words in the tuple `lo`; value: its index
T_HEX = ARG_HEX      # 4 hex digits (a CRC-16, as STATE writes it); value: 0..0xFFFF
T_ESC = const(8)     # lo..hi bytes, written %XX-escaped (NET SET's values); value: start << 8 | end in the line
TYPE_NAMES = ("int", "game", "who", "bid", "text", "rgb", "word", "hex4", "escaped")
NAME_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-."

# --- the message table -------------------------------------------------------
# The runtime's own verbs; a game's own verbs (Skicket's HAND, Roquet's PEG)
# are declared by its rules module (tallycore.game explains how) and taken
# only while that game is in play. A row:
# (verb, ((arg, type, lo, hi, index), ...), optional trailing args, reply
#  fields, what it changes, its handler); what it does is said for people by
#  tallyboard.boardlink.wirefields.VERB_DOES (host only: the board never sends it)
# index: b"player", b"seat" or b"" (tallycore.game). What it changes: b"" (it
# only reads), or the change it journals and pushes an event for: b"apply"
# (an event: n + 1), b"undo" (n - 1), b"new" (n = 0), b"kept" (the archive
# mark; the game stays), b"cfg" (a setting, CFG SET only). Its handler: the
# function that answers it, "package.module.function", called (app, seq, req)
# with the request parsed and checked against the row; loaded by name when the
# verb is first asked (tallyrun.app.App.handler), as the games are, so a verb's
# code is one hop from its row and a board without a module (tallynet) says so.
# Reply fields and event fields are named as docs/protocol.md's field table
# (tallyboard.boardlink.wirefields) names them: "VERB.name" where a verb writes the field
# `name` its own way (HELLO's players is the most any game takes); the wire
# key is the part after the dot. tallyrun.replies.fields writes every row.
# Every state-changing verb replies "n top eseq": events applied, applied +
# redo stack, and the sequence number of the event it pushed. A change held
# for its confirmation by an opponent (docs/rules.md CF) replies "held" too,
# and n and top stay: it counts once the board accepts it.
CHANGED = ("n", "top", "eseq")
# NET (a board's link to a club evening over Wi-Fi and MQTT): its ops, its
# settings and its reply. A row of NET_KEYS: (key, form, lo, hi, secret,
# may be none, default); what each is: tallyboard.boardlink.wirefields.NET_KEY_MEANINGS. Forms: b"bytes" lo..hi bytes (%XX-escaped
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
    (b"update_key", b"key", 32, 32, False, True, None),   # the club's update key's public half: checks a release (issue 43)
)
NET_KEY_NAMES = tuple(row[0] for row in NET_KEYS)
(NET_SSID, NET_WIFI_PASSWORD, NET_BROKER_HOST, NET_BROKER_PORT, NET_BROKER_USER, NET_BROKER_PASSWORD,
 NET_EVENT, NET_KEY, NET_UPDATE_KEY) = range(len(NET_KEYS))
NET_FIELDS = ("wifi", "enrolled", "joined", "broker", "waiting", "error", "NET.key", "NET.value")   # key value: NET's own
# ENTRY: the rows of the hand-entry screen as the OLED shows them, each to its
# last character (- for none, and all four when no entry is open): the
# heading, the step, the value between the arrows, what is entered so far
ENTRY_FIELDS = ("head", "step", "ENTRY.value", "entered")
# WHY: the parts an event of the log scored, each a player, his points and
# the code of its reason (an index into the game's reason table,
# tallycore/reasons/: protocol.json's games' reasons): tallycore.why. As
# many parts from at as fit in the frame (count of them), as LOG pages
WHY_FIELDS = ("WHY.n", "WHY.won", "parts", "WHY.at", "WHY.count", "WHY.who", "pts", "why")
APPLIED = ("n", "top", "eseq", "ev")   # ev: the event applied (a host updates its copy of the game)
CFG_OPS = (b"GET", b"SET")
_SIGN_PARTS = const(4)  # SIGN's parts: the chain's head, the board's public key, the tag's first and last 32 bytes
PIXEL_PATTERNS = (b"ON", b"CHECKER", b"EDGES")   # the self-test's OLED patterns (tallypanel.selftest.pattern)
CFG_OP = (b"op", T_WORD, CFG_OPS, 0, b"")
CFG_PLAYER = (b"player", T_INT, 0, MAX_PLAYERS - 1, b"player")
VERBS = (
    (b"HELLO", (), 0, ("fw", "proto", "board", "games", "frame", "log", "HELLO.players", "seqs"), b"",
     "tallyrun.replies.read_verb"),
    (b"GAME", ((b"index", T_INT, 0, len(GAMES) - 1, b""),), 0,
     ("index", "name", "min", "max", "GAME.options"), b"", "tallyrun.replies.game_info"),
    (b"NEW", ((b"game", T_GAME, 0, 0, b""), (b"players", T_INT, 1, MAX_PLAYERS, b""),
              (b"options", T_INT, 0, 0xFFFF, b"")), 1, CHANGED, b"new", "tallyrun.app.serve_new"),
    (b"EV", ((b"event", T_INT, 0, EVENT_LIMIT - 1, b""),), 0, APPLIED, b"apply", "tallyrun.app.serve_ev"),
    (b"UNDO", (), 0, CHANGED, b"undo", "tallyrun.app.serve_undo"),
    (b"REDO", (), 0, APPLIED, b"apply", "tallyrun.app.serve_redo"),
    (b"OPEN", (), 0,
     ("proto", "seqs", "game", "players", "options", "n", "top", "lcrc", "OPEN.held", "ccrc", "notes"), b"",
     "tallyrun.replies.read_verb"),
    (b"STATE", (), 0, ("game", "players", "options", "n", "top", "lcrc", "held", "eseq", "chain", "notes"), b"",
     "tallyrun.replies.read_verb"),
    (b"SCORE", (), 0, ("hands", "complete", "winners", "totals"), b"", "tallyrun.replies.score"),
    (b"LOG", ((b"at", T_INT, 0, LOG_CAPACITY, b""),), 0, ("at", "LOG.count", "top", "LOG.ev", "LOG.who"), b"",
     "tallyrun.replies.log"),
    (b"STATS", (), 0, ("free", "alloc", "block", "served", "journal", "errors"), b"", "tallyrun.replies.stats"),
    (b"NOTE", ((b"index", T_INT, 0, MAX_NOTES - 1, b""),), 0, ("NOTE.count", "NOTE.text"), b"",
     "tallyrun.replies.note"),
    (b"CFG", (CFG_OP, (b"key", T_WORD, 0, 0, b""), CFG_PLAYER, (b"value", T_TEXT, 1, MAX_BOARD_NAME, b"")), 2,
     ("key", "player", "value"), b"cfg", "tallyrun.configuring.serve"),
    (b"KEPT", ((b"n", T_INT, 0, LOG_CAPACITY, b""), (b"lcrc", T_HEX, 0, 0xFFFF, b"")), 0, CHANGED, b"kept",
     "tallyrun.app.serve_kept"),
    (b"NET", ((b"op", T_WORD, NET_OPS, 0, b""), (b"key", T_WORD, NET_KEY_NAMES, 0, b""),
              (b"value", T_ESC, 1, MAX_NET_VALUE, b"")), 3, NET_FIELDS, b"net", "tallynet.verb.serve"),
    (b"ENTRY", (), 0, ENTRY_FIELDS, b"", "tallyrun.replies.entry"),
    (b"WHY", ((b"n", T_INT, 1, LOG_CAPACITY + 1, b""), (b"at", T_INT, 0, 255, b"")), 2, WHY_FIELDS, b"",
     "tallyrun.whyreply.serve"),
    (b"DESC", ((b"at", T_INT, 0, 255, b""),), 1, ("DESC.at", "next", "of", "id", "items"), b"",
     "tallyrun.describe.serve"),
    # the game's hash chain (tallyrun.chain) after its first n events, signed with the board's own
    # key (tallynet.boardkey), a part a frame: its head, the key's public half, the tag's two halves
    (b"SIGN", ((b"n", T_INT, 0, LOG_CAPACITY, b""), (b"part", T_INT, 0, _SIGN_PARTS - 1, b"")), 0,
     ("SIGN.n", "SIGN.part", "SIGN.hex"), b"", "tallynet.boardkey.serve"),
    # the builder's self-test (issue 42; tallypanel.selftest): it reads the board's parts and never
    # the game; the first of them holds the board's own drawing and its controls' presses until LAMP -
    (b"LAMP", ((b"led", T_WHO, 0, 254, b""),), 0, ("LAMP.led", "LAMP.of", "LAMP.player", "LAMP.row",
                                                    "LAMP.hole"), b"", "tallypanel.selftest.lamp"),
    (b"PINS", (), 0, ("PINS.down", "PINS.pressed", "PINS.turned"), b"", "tallypanel.selftest.pins"),
    (b"SCAN", (), 0, ("SCAN.found", "SCAN.want"), b"", "tallypanel.selftest.scan"),
    (b"POWER", (), 0, ("POWER.full", "POWER.budget", "POWER.allows", "POWER.now"), b"",
     "tallypanel.selftest.power"),
    (b"PIXELS", ((b"pattern", T_WORD, PIXEL_PATTERNS, 0, b""),), 0, ("PIXELS.pattern",), b"",
     "tallypanel.selftest.pixels"),
)
(V_HELLO, V_GAME, V_NEW, V_EV, V_UNDO, V_REDO,
 V_OPEN, V_STATE, V_SCORE, V_LOG, V_STATS, V_NOTE, V_CFG, V_KEPT, V_NET) = range(len(VERBS) - 9)
V_ENTRY = const(15)       # the hand entry on the board's own screen (tallypanel.view.entry_rows)
V_WHY = const(16)         # why an event of the log scored what it did (tallycore.why)
V_DESC = const(17)        # the board's description of its protocol (tallyrun.describe)
V_LAMP = const(19)        # (18: SIGN, the game's chain head signed: tallynet.boardkey)        # the self-test's LED walk (tallypanel.selftest), and PINS, SCAN, POWER, PIXELS after it
V_GAME_VERB = const(24)   # the first of the game in play's own verbs: V_GAME_VERB + its index

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

# Error codes, as ERR writes them (what each means: tallyboard.boardlink.wirefields.ERROR_MEANINGS)
ERRORS = (b"FRAME", b"CRC", b"SEQ", b"VERB", b"ARGS", b"RANGE", b"RULE", b"FULL", b"FLASH", b"BOARD")
E_OK = const(0)  # not an error: parse succeeded
E_FRAME, E_CRC, E_SEQ, E_VERB, E_ARGS, E_RANGE, E_RULE, E_FULL, E_FLASH, E_BOARD = range(1, len(ERRORS) + 1)

# Events pushed by the board: (kind, fields); when each is pushed: tallyboard.boardlink.wirefields.EVENT_WHEN
EVENTS = (
    (b"BOOT", ("fw", "proto", "game", "n", "top")),
    (b"NEW", ("game", "players", "options", "n", "top")),
    (b"EV", ("n", "top", "ev", "src", "totals")),
    (b"UNDO", ("n", "top", "src", "totals")),
    (b"REDO", ("n", "top", "ev", "src", "totals")),
    (b"CFG", ("key", "player", "value")),
    (b"NOTE", ("text",)),
    (b"HELD", ("n", "top", "held", "by", "src")),
    (b"ACCEPT", ("held", "n", "top", "src", "who", "totals")),
    (b"REJECT", ("held", "n", "top", "src")),
    (b"KEPT", ("n",)),
)
EV_BOOT, EV_NEW, EV_EVENT, EV_UNDO, EV_REDO, EV_CFG, EV_NOTE, EV_HELD, EV_ACCEPT, EV_REJECT, EV_KEPT = range(
    len(EVENTS))
EVENT_SEQ_LIMIT = const(65535)   # event seq runs 1..65535 then wraps to 1


# --- CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection) ----------
# Two forms of one loop over one table: tallyrun.native's machine code on the
# chip, the bytecode below everywhere else (the emulator's unix port, CPython);
# the tests hold the two equal (tests/mp/test_protocol_frames.py). Here rather
# than in a module of its own: every module before BOOT needs it, and a module
# more costs the power-up its file's lookup on littlefs (the twin: 13 ms).
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



_crc16_loop = _crc16_bytecode
try:
    # machine code (viper), compiled for the chip: every frame in and out and every journal record
    # is checksummed. The emulator (the unix port) cannot load the chip's machine code and keeps
    # the loop above.
    from tallyrun.native import crc16_table as _crc16_native

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
