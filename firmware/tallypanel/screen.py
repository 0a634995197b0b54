# The OLED's text screens, apart from the display: the layouts (which rows
# a screen has and where they sit) and the helpers that compose a row's
# text into a preallocated bytearray, without allocating.
# tallypanel.sheetview draws the rows; a game's own view
# (tallypanel.gameview) composes its screens with these.
from tallycore import const

COLS = const(32)      # small characters per row (3x5 glyphs in 4x6 cells)
BIG_COLS = const(16)  # big characters per row (6x10 glyphs in 8x12 cells)
ROWS = const(10)
SAVE = const(0)       # the values of a confirm step (tallypanel.menu's, here so that a
CANCEL = const(1)     # game's view lights the LEDs without loading the menu's code)
NOTE_MS = const(3000) # how long a refused press's reason stays on the OLED (tallypanel.menu's
#                       fade; here so that the menu need not load tallypanel.confirm)
BIG = const(1)        # a row of big characters
LINE = const(2)       # underline the row

# Layouts: (y, flags) per row.
SHEET = const(0)      # an underlined header, nine rows, the seventh underlined
TOTALS = const(1)     # a header, big totals, six rows
ENTRY = const(2)      # the hand entry: a header, a step, a big value, five rows
LIST = const(3)       # an underlined header, nine rows
LAYOUTS = (
    b"\x00\x02\x06\x00\x0c\x00\x12\x00\x18\x00\x1e\x00\x24\x02\x2a\x00\x30\x00\x36\x00",
    b"\x00\x02\x08\x01\x16\x00\x1c\x00\x22\x00\x28\x00\x2e\x00\x35\x00",
    b"\x00\x02\x08\x00\x10\x01\x1e\x00\x26\x00\x2c\x00\x32\x00\x3a\x00",
    b"\x00\x02\x06\x00\x0c\x00\x12\x00\x18\x00\x1e\x00\x24\x00\x2a\x00\x30\x00\x36\x00",
)

_SPACES = b"                                "


def blank(line):
    line[:] = _SPACES


def put(line, at, text):
    """Write bytes at column at (clipped); returns the column after."""
    for c in text:
        if at >= COLS:
            return at
        if at >= 0:
            line[at] = c
        at += 1
    return at


def digits(value):
    n = 1
    if value < 0:
        n = 2
        value = -value
    while value >= 10:
        value //= 10
        n += 1
    return n


def numl(line, at, value):
    """Write value from column at; returns the column after."""
    end = at + digits(value)
    num(line, end, value)
    return end


def right(line, end, text):
    """Write text so that it ends before column end."""
    put(line, end - len(text), text)


def num(line, end, value):
    """Write value right-aligned before column end; returns its first column."""
    start = end - digits(value)
    negative = value < 0
    if negative:
        value = -value
    at = end - 1
    while at >= start:
        if 0 <= at < COLS:
            line[at] = 48 + value % 10
        value //= 10
        at -= 1
    if negative and 0 <= start < COLS:
        line[start] = 45  # '-'
    return start


def copy(buf, text):
    """Copy a str into buf (printable ASCII, '?' for the rest), padded with
    spaces; returns the characters copied."""
    if text is None:
        return 0
    n = len(text) if len(text) < len(buf) else len(buf)
    for i in range(n):
        c = ord(text[i])
        buf[i] = c if 32 <= c < 127 else 63
    for i in range(n, len(buf)):
        buf[i] = 32
    return n
