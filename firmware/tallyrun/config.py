# The board's settings (protocol.CONFIG_KEYS), kept in config.txt on flash.
# The file is "key value" lines (per-player keys as "name.2 Ann"), written as
# config.txt.tmp then renamed (atomic on littlefs). Every value is
# range-checked again when loaded; a bad line keeps the default.
from tallycore import os

from tallyrun.protocol import (CONFIG_KEYS, PLAYER_COLOURS, MAX_PLAYERS, T_INT, T_TEXT,
                                T_RGB, CFG_BRIGHTNESS, CFG_BUDGET, CFG_NAME, CFG_COLOUR, CFG_CONFIRM, CFG_EVENT,
                                CFG_TABLE, CFG_ROUND, DEFAULT_BOARD)
from tallyrun.protocol import crc16

CONFIG_FILE = "config.txt"


def read_small(path, most):
    """Up to `most` bytes of a small settings file; None if there is none
    (a read that fails gives b"": the file's lines keep their defaults)."""
    try:
        f = open(path, "rb")
    except OSError:
        return None
    try:
        return f.read(most)
    except OSError:
        return b""
    finally:
        f.close()


def _valid_text(text, lo, hi):
    # A name as the board keeps and shows it: lo..hi of protocol.NAME_CHARS
    # (A-Z a-z 0-9 _ - .), so no control, bidi override or other character
    # reaches the OLED or a host's terminal (docs/host.md, "Names"). One encode,
    # then ints: nothing allocated per character.
    data = text.encode()
    n = len(data)
    if n < lo or n > hi:
        return False
    for b in data:
        if not (97 <= b <= 122 or 65 <= b <= 90 or 48 <= b <= 57 or b == 95 or b == 45 or b == 46):
            return False
    return True


def _default_int(key):
    value = CONFIG_KEYS[key][5]
    return value if isinstance(value, int) else 0


class Config:
    def __init__(self, root=""):
        self.path = root + CONFIG_FILE
        self.brightness = _default_int(CFG_BRIGHTNESS)
        self.budget_ma = _default_int(CFG_BUDGET)
        self.names = ["P%d" % (p + 1) for p in range(MAX_PLAYERS)]
        self.colours = list(PLAYER_COLOURS)
        self.board = DEFAULT_BOARD.decode()
        self.confirm = _default_int(CFG_CONFIRM)   # 1: every hand waits for an opponent's accept
        # a club evening's table (docs/protocol.md): the evening's tag, the table, the round; 0: none
        self.event = 0
        self.table = 0
        self.round = 0
        self.problems = 0  # lines of the file that were not understood
        self.bad_lines = []  # their line numbers (the first four)
        self.crc = 0xFFFF    # CRC-16 of the settings as saved: OPEN's ccrc (has a name changed?)

    def get(self, key, player=0):
        """The value of a key as stored (int or str)."""
        if key == CFG_BRIGHTNESS:
            return self.brightness
        if key == CFG_BUDGET:
            return self.budget_ma
        if key == CFG_NAME:
            return self.names[player]
        if key == CFG_COLOUR:
            return self.colours[player]
        if key == CFG_CONFIRM:
            return self.confirm
        if key == CFG_EVENT:
            return self.event
        if key == CFG_TABLE:
            return self.table
        if key == CFG_ROUND:
            return self.round
        return self.board

    def set(self, key, player, value):
        """Set a key in RAM after checking it; ValueError says what is wrong."""
        spec = CONFIG_KEYS[key]
        kind = spec[1]
        if spec[4] and (player < 0 or player >= MAX_PLAYERS):
            raise ValueError("player: must be 0 to %d" % (MAX_PLAYERS - 1))
        if kind == T_INT or kind == T_RGB:
            if not isinstance(value, int) or value < spec[2] or value > spec[3]:
                raise ValueError("%s: must be %s to %s" % (spec[0].decode(), spec[2], spec[3]))
        elif kind == T_TEXT:
            if not isinstance(value, str) or not _valid_text(value, spec[2], spec[3]):
                raise ValueError("%s: 1 to %s letters, digits, _ - ." % (spec[0].decode(), spec[3]))
        if key == CFG_BRIGHTNESS:
            self.brightness = value
        elif key == CFG_BUDGET:
            self.budget_ma = value
        elif key == CFG_NAME:
            self.names[player] = value
        elif key == CFG_COLOUR:
            self.colours[player] = value
        elif key == CFG_CONFIRM:
            self.confirm = value
        elif key == CFG_EVENT:
            self.event = value
        elif key == CFG_TABLE:
            self.table = value
        elif key == CFG_ROUND:
            self.round = value
        else:
            self.board = value

    def text(self):
        lines = ["brightness %d" % self.brightness, "budget_ma %d" % self.budget_ma,
                 "board %s" % self.board, "confirm %d" % self.confirm,
                 "event %d" % self.event, "table %d" % self.table, "round %d" % self.round]
        for p in range(MAX_PLAYERS):
            lines.append("name.%d %s" % (p, self.names[p]))
            lines.append("colour.%d %06X" % (p, self.colours[p]))
        return "\n".join(lines) + "\n"

    def save(self):
        """Write-then-rename. Raises OSError if the flash write fails."""
        tmp = self.path + ".tmp"
        text = self.text().encode()
        f = open(tmp, "wb")
        try:
            f.write(text)
            f.flush()
        finally:
            f.close()
        os.rename(tmp, self.path)
        self.crc = crc16(text, 0, len(text))

    def load(self):
        """Read the file if there is one; returns True if it was there. A line
        that cannot be read (bad bytes, a value out of range) keeps its
        default; problems counts them and bad_lines names the first few."""
        data = read_small(self.path, 4096)
        if data is None:
            return False
        self.problems = 0
        self.bad_lines = []
        self.crc = crc16(data, 0, len(data))
        number = 0
        for raw in data.split(b"\n"):
            number += 1
            if not raw:
                continue
            try:
                self._load_line(raw.decode())
            except (ValueError, IndexError, UnicodeError):
                self.problems += 1
                if len(self.bad_lines) < 4:
                    self.bad_lines.append(number)
        return True

    def _load_line(self, line):
        space = line.find(" ")
        if space < 1:
            raise ValueError("line")
        name = line[:space]
        raw = line[space + 1:]
        player = 0
        dot = name.find(".")
        if dot > 0:
            player = int(name[dot + 1:])
            name = name[:dot]
        for key in range(len(CONFIG_KEYS)):
            spec = CONFIG_KEYS[key]
            if spec[0].decode() != name or spec[4] != (dot > 0):
                continue
            if spec[1] == T_INT:
                value = int(raw)   # int() of text, never eval
            elif spec[1] == T_RGB:
                if len(raw) != 6:
                    raise ValueError("colour")
                value = int(raw, 16)
            else:
                value = raw
            self.set(key, player, value)
            return
        raise ValueError("key")
