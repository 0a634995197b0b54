# The OLED score sheet: the Skicket sheet, the Roquet summary, a sheet for
# the other games, and the hand-entry screens, drawn with framebuf on the
# 128x64 SSD1306 (docs/display.md shows each screen).
#
# Font: a 3x5 pixel font in 4x6 cells (32 columns x 10 rows), from the const
# table below, and the same glyphs doubled (6x10 in 8x12 cells, 16 columns)
# for the big numbers. Each glyph is a small FrameBuffer made once and
# blitted, so a character is one C call.
#
# A screen is a layout of rows (y, big or small, underlined or not). Each
# row's text is composed into a preallocated bytearray; only rows whose text
# changed are cleared and redrawn, and only the display pages they touch are
# sent (show(mask)). Nothing is allocated per redraw of a game screen.
import framebuf

from tallycore import skicket, roquet


from tallypanel import menu
try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

COLS = const(32)
BIG_COLS = const(16)
ROWS = const(10)
_SMALL_H = const(6)
_BIG_H = const(12)
_BIG = const(1)
_LINE = const(2)  # underline the row

_CHARS = b" 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ.,:;-+*/()[]?!'\"=<>#_%|&^@"
# Three column bytes per glyph, bit 0 = top row (MONO_VLSB), 5 rows.
_GLYPHS = (
    b"\x00\x00\x00\x1f\x11\x1f\x12\x1f\x10\x19\x15\x12\x11\x15\x0a\x07\x04\x1f\x17\x15\x09\x1e\x15\x1d"
    b"\x01\x1d\x03\x1f\x15\x1f\x17\x15\x0f\x1e\x05\x1e\x1f\x15\x0a\x0e\x11\x11\x1f\x11\x0e\x1f\x15\x11"
    b"\x1f\x05\x01\x0e\x11\x1d\x1f\x04\x1f\x11\x1f\x11\x08\x10\x0f\x1f\x04\x1b\x1f\x10\x10\x1f\x06\x1f"
    b"\x1f\x01\x1e\x0e\x11\x0e\x1f\x05\x02\x0e\x19\x16\x1f\x05\x1a\x12\x15\x09\x01\x1f\x01\x1f\x10\x1f"
    b"\x0f\x10\x0f\x1f\x0c\x1f\x1b\x04\x1b\x03\x1c\x03\x19\x15\x13\x00\x10\x00\x10\x08\x00\x00\x0a\x00"
    b"\x10\x0a\x00\x04\x04\x04\x04\x0e\x04\x0a\x04\x0a\x18\x04\x03\x0e\x11\x00\x00\x11\x0e\x1f\x11\x00"
    b"\x00\x11\x1f\x01\x15\x02\x00\x17\x00\x00\x03\x00\x03\x00\x03\x0a\x0a\x0a\x04\x0a\x11\x11\x0a\x04"
    b"\x1f\x0a\x1f\x10\x10\x10\x19\x04\x13\x00\x1f\x00\x0a\x15\x1a\x02\x01\x02\x0f\x11\x17"
)
_QUESTION = const(48)  # glyph of '?', for characters the font lacks

# Layouts: (y, flags) per row.
SHEET = const(0)
ROQUET = const(1)
ENTRY = const(2)
LIST = const(3)
_LAYOUTS = (
    b"\x00\x02\x06\x00\x0c\x00\x12\x00\x18\x00\x1e\x00\x24\x02\x2a\x00\x30\x00\x36\x00",
    b"\x00\x02\x08\x01\x16\x00\x1c\x00\x22\x00\x28\x00\x2e\x00\x35\x00",
    b"\x00\x02\x08\x00\x10\x01\x1e\x00\x26\x00\x2c\x00\x32\x00\x3a\x00",
    b"\x00\x02\x06\x00\x0c\x00\x12\x00\x18\x00\x1e\x00\x24\x00\x2a\x00\x30\x00\x36\x00",
)

_STRAINS = (b"C", b"S", b"H", b"D", b"NT", b"NK")
_STRAIN_WORDS = (b"CLUBS", b"SPADES", b"HEARTS", b"DIAMONDS", b"NO TRUMP", b"NO TRICK")
_SPACES = b"                                "


def _glyph_table():
    table = bytearray(128)
    for c in range(128):
        table[c] = _QUESTION
    for i in range(len(_CHARS)):
        table[_CHARS[i]] = i
    for c in range(97, 123):  # lower case drawn as upper case
        table[c] = table[c - 32]
    return table


class SheetView:
    def __init__(self, fb, show=None):
        """fb: the framebuf to draw on (the SSD1306 driver); show(pages) sends
        the changed pages (bit p = pixel rows 8p..8p+7), None to skip."""
        self.fb = fb
        self.show = show
        self.glyph_of = _glyph_table()
        self.small = []
        self.big = []
        for i in range(len(_CHARS)):
            buf = bytearray(_GLYPHS[3 * i:3 * i + 3])
            self.small.append(framebuf.FrameBuffer(buf, 3, 5, framebuf.MONO_VLSB))
            big = framebuf.FrameBuffer(bytearray(12), 6, 10, framebuf.MONO_VLSB)
            for x in range(3):
                for y in range(5):
                    if buf[x] >> y & 1:
                        big.fill_rect(2 * x, 2 * y, 2, 2, 1)
            self.big.append(big)
        self.lines = [bytearray(COLS) for _ in range(ROWS)]
        self.shown = [bytearray(COLS) for _ in range(ROWS)]
        self.layout = -1
        self.rows = 0
        self.pages = 0      # pages changed by the last draw
        self.note = bytearray(COLS)  # a one-line message under the sheet
        self.note_len = 0
        self.message = bytearray(3 * COLS)  # a longer message (hand entry)
        self.message_len = 0
        self.names = [bytearray(b"A"), bytearray(b"B"), bytearray(b"C"), bytearray(b"D")]
        self._scores = [0, 0, 0, 0]
        self._named = None            # the rules whose name is in _game_name
        self._game_name = bytearray(0)

    # --- configuration and messages (these may allocate) ------------------

    def set_names(self, names):
        """Player names; the sheet shows the first three characters. Columns
        that have room for one character show the letters A-D (the players
        in starting seat order, left to right on the sheet)."""
        for p in range(len(names) if len(names) < 4 else 4):
            text = names[p]
            n = len(text) if len(text) < 3 else 3
            line = bytearray(n)
            for i in range(n):
                c = ord(text[i])
                line[i] = c if 32 < c < 127 else 63
            self.names[p] = line

    def set_note(self, text):
        """A message on the sheet's last row; None clears it."""
        self.note_len = _copy(self.note, text)

    def set_message(self, text):
        """A message of up to three rows (hand entry), wrapped at spaces; None clears it."""
        buf = self.message
        for i in range(len(buf)):
            buf[i] = 32
        self.message_len = 0
        if text is None:
            return
        row = 0
        col = 0
        for word in text.split(" "):
            n = len(word)
            if col and col + n > COLS:
                row += 1
                col = 0
            if row >= 3:
                break
            for i in range(n if n < COLS - col else COLS - col):
                c = ord(word[i])
                buf[row * COLS + col] = c if 32 <= c < 127 else 63
                col += 1
            col += 1
        self.message_len = len(buf)

    # --- drawing -----------------------------------------------------------

    def use(self, layout):
        if layout == self.layout:
            return
        self.layout = layout
        self.rows = len(_LAYOUTS[layout]) // 2
        self.fb.fill(0)
        for i in range(ROWS):
            line = self.shown[i]
            for c in range(COLS):
                line[c] = 0  # never a character: every row is redrawn
        self.pages = 0xFF

    def flush(self):
        """Redraw the rows that changed and send their pages; returns the page mask."""
        spec = _LAYOUTS[self.layout]
        pages = self.pages
        for r in range(self.rows):
            line = self.lines[r]
            if line == self.shown[r]:
                continue
            self.shown[r][:] = line
            y = spec[2 * r]
            flags = spec[2 * r + 1]
            height = _BIG_H if flags & _BIG else _SMALL_H
            self.fb.fill_rect(0, y, 128, height, 0)
            self._draw(line, y, flags & _BIG)
            if flags & _LINE:
                self.fb.hline(0, y + height - 1, 128, 1)
            pages |= (2 << ((y + height - 1) >> 3)) - (1 << (y >> 3))
        self.pages = 0
        if pages and self.show is not None:
            self.show(pages)
        return pages

    def _draw(self, line, y, big):
        fb = self.fb
        glyph_of = self.glyph_of
        glyphs = self.big if big else self.small
        step = 8 if big else 4
        count = BIG_COLS if big else COLS
        for i in range(count):
            c = line[i]
            if c != 32:
                fb.blit(glyphs[glyph_of[c & 127]], i * step, y, 0)

    def draw_game(self, game):
        """Compose and show the screen for game; allocation-free."""
        rules = game.rules
        if rules is None:
            self.use(SHEET)
            for r in range(ROWS):
                _blank(self.lines[r])
            _put(self.lines[0], 0, b"TALLYBOARD")
            _put(self.lines[3], 0, b"NO GAME IN PROGRESS.")
            _put(self.lines[4], 0, b"START ONE FROM THE HOST:")
            _put(self.lines[5], 0, b"TALLYBOARD NEW GAME")
            if self.note_len:
                self.lines[9][:] = self.note
        elif rules is skicket:
            self.use(SHEET)
            self._skicket(game)
        elif rules is roquet:
            self.use(ROQUET)
            self._roquet(game)
        else:
            self.use(LIST)
            self._generic(game)
        return self.flush()

    # --- the Skicket sheet --------------------------------------------------
    # cols: 0 hand, 1 dealer, scores right-aligned at 2-6, 7-11, 12-16,
    # 17-21, then the contract: purchaser, bid, X / XX, L, tricks (23-31).

    def _skicket(self, game):
        state = game.state
        lines = self.lines
        scores = self._scores
        hands = skicket.hands(state)
        line = lines[0]
        _blank(line)
        line[0] = 35  # '#'
        line[1] = 68  # 'D'
        for p in range(4):
            _right(line, 7 + 5 * p, self.names[p])
        _put(line, 23, b"CONTRACT")
        for h in range(skicket.HANDS_PER_GAME):
            line = lines[1 + h]
            _blank(line)
            line[0] = 49 + h
            line[1] = 65 + skicket.dealer(h)
            if h >= hands:
                continue
            event = skicket.hand_event(state, h)
            skicket.score_hand(event, h, scores)
            for p in range(4):
                _num(line, 7 + 5 * p, scores[p])
            line[23] = 65 + skicket.purchaser_of(event)
            _contract(line, 24, event)
            _num(line, 32, skicket.tricks_of(event))
        line = lines[7]
        _blank(line)
        line[0] = 84  # 'T'
        winners = game.winners()
        for p in range(4):
            start = _num(line, 7 + 5 * p, skicket.total(state, 4, p))
            if winners >> p & 1:
                line[start - 1] = 42  # '*'
        if game.complete():
            _put(line, 23, b"FINAL")
        else:
            at = _put(line, 23, b"HAND ")
            line[at] = 49 + hands
            _put(line, at + 1, b"/6")
        line = lines[8]
        _blank(line)
        if game.complete():
            at = _put(line, 0, b"GAME OVER. WON BY")
            for p in range(4):
                if winners >> p & 1:
                    at = _put(line, at + 1, self.names[p])
        else:
            at = _put(line, 0, b"HAND ")
            line[at] = 49 + hands
            at = _put(line, at + 2, self.names[skicket.dealer(hands)])
            at = _put(line, at + 1, b"DEALS.")
            mate = skicket.partner(hands, 0)
            at = _put(line, at + 2, self.names[0])
            line[at] = 43  # '+'
            at = _put(line, at + 1, self.names[mate])
            other = 1 if mate != 1 else 2
            at = _put(line, at + 1, self.names[other])
            line[at] = 43
            _put(line, at + 1, self.names[skicket.partner(hands, other)])
        line = lines[9]
        if self.note_len:
            line[:] = self.note
        else:
            _blank(line)
            if hands == 0:
                _put(line, 0, b"PUSH THE KNOB TO ENTER A HAND")
            else:
                self._last_hand(line, skicket.hand_event(state, hands - 1))

    def _last_hand(self, line, event):
        at = _put(line, 0, self.names[skicket.purchaser_of(event)])
        at = _put(line, at + 1, b"BID")
        at = _contract(line, at + 1, event)
        at = _numl(line, at + 1, skicket.tricks_of(event))
        at = _put(line, at, b" TRICKS ")
        _put(line, at, b"MADE" if skicket.made(event) else b"SET")

    # --- the Roquet summary --------------------------------------------------
    # cols: labels 0-11, player A right-aligned at 12-19, B at 24-31.

    def _roquet(self, game):
        state = game.state
        lines = self.lines
        over = game.complete()
        winners = game.winners()
        line = lines[0]
        _blank(line)
        at = _put(line, 0, b"ROQUET  HAND ")
        _numl(line, at, roquet.hands(state) + (0 if over else 1))
        _put(line, 22, b"GAME 100")
        line = lines[1]  # big: the two totals
        _blank(line)
        _put(line, 0, self.names[0])
        _num(line, 8, roquet.total(state, 2, 0))
        _put(line, 9, self.names[1])
        _num(line, 16, roquet.total(state, 2, 1))
        for p in range(2):
            if over and winners >> p & 1:
                line[8 * p + 7 - _digits(roquet.total(state, 2, p)) - 1] = 42
        self._pair(lines[2], b"KING PEG", roquet.king_total(state, 0), roquet.king_total(state, 1))
        self._pair(lines[3], b"TALLY", roquet.tally(state, 0), roquet.tally(state, 1))
        line = lines[4]
        _blank(line)
        _put(line, 0, b"LAST PEG")
        for p in range(2):
            t = roquet.tally(state, p)
            if t:
                end = 20 + 12 * p
                start = _num(line, end, t - roquet.back_peg(state, p))
                line[start - 1] = 43  # '+'
        line = lines[5]
        _blank(line)
        first = roquet.first_to_15(state)
        if first >= 0:
            at = _put(line, 0, b"15TH HOLE FIRST:")
            _put(line, at + 1, self.names[first])
        line = lines[6]
        _blank(line)
        options = state[1]
        at = _put(line, 0, b"ENDS AT HAND END" if options & roquet.OPT_END_AT_HAND_END else b"ENDS AT 100")
        if options & roquet.OPT_LANDMARK_BONUS:
            _put(line, at + 2, b"BONUSES ON")
        line = lines[7]
        if self.note_len:
            line[:] = self.note
        else:
            _blank(line)
            if over:
                at = 0
                for p in range(2):
                    if winners >> p & 1:
                        at = _put(line, at, self.names[p]) + 1
                _put(line, at, b"WINS" if winners != 3 else b"TIE")
            else:
                _put(line, 0, b"PUSH THE KNOB TO END THE HAND")

    def _pair(self, line, label, a, b):
        _blank(line)
        _put(line, 0, label)
        _num(line, 20, a)
        _num(line, 32, b)

    # --- any other game -------------------------------------------------------

    def _generic(self, game):
        lines = self.lines
        if game.rules is not self._named:  # a new game: its name, once
            self._named = game.rules
            name = game.rules.NAME
            self._game_name = bytearray(len(name) if len(name) < 16 else 16)
            _copy(self._game_name, name.replace("_", " ").upper())
        line = lines[0]
        _blank(line)
        at = _put(line, 0, self._game_name)
        at = _put(line, at + 2, b"HAND ")
        _numl(line, at, game.hands())
        winners = game.winners()
        players = game.players
        for r in range(1, 9):
            line = lines[r]
            _blank(line)
            p = r - 1
            if p < players:
                line[0] = 49 + p
                if p < 4:
                    _put(line, 2, self.names[p])
                start = _num(line, 27, game.total(p))
                if winners >> p & 1:
                    line[start - 1] = 42
        line = lines[9]
        if self.note_len:
            line[:] = self.note
        else:
            _blank(line)
            if game.complete():
                at = _put(line, 0, b"GAME OVER. WON BY")
                for p in range(players if players < 4 else 4):
                    if winners >> p & 1:
                        at = _put(line, at + 1, self.names[p])

    # --- hand entry -------------------------------------------------------------

    def draw_entry(self, entry, game):
        """The hand-entry screens (menu.HandEntry); allocation-free."""
        self.use(ENTRY)
        lines = self.lines
        v = entry.values
        step = entry.step
        line = lines[0]
        _blank(line)
        at = _put(line, 0, b"HAND ")
        line[at] = 49 + entry.hand if entry.hand < 9 else 63
        if game.rules is skicket and entry.hand < skicket.HANDS_PER_GAME:
            at = _put(line, at + 3, b"DEALER")
            _put(line, at + 1, self.names[skicket.dealer(entry.hand)])
        line = lines[1]
        _blank(line)
        _put(line, 0, menu.STEP_NAMES[step])
        line = lines[2]  # big
        _blank(line)
        line[0] = 60  # '<'
        line[15] = 62  # '>'
        value = v[step]
        if step == menu.PURCHASER:
            if value == menu.MISDEAL_CHOICE:
                _put(line, 4, b"MISDEAL")
            else:
                _put(line, 6, self.names[value])
        elif step == menu.LEVEL or step == menu.TRICKS:
            _num(line, 9, value)
        elif step == menu.STRAIN:
            _put(line, 2, _STRAIN_WORDS[value])
        elif step == menu.DOUBLED or step == menu.REDOUBLED:
            if value == menu.NOBODY:
                _put(line, 5, b"NOBODY")
            else:
                _put(line, 6, self.names[value])
        elif step == menu.LONE:
            _put(line, 6, b"YES" if value else b"NO")
        else:
            _put(line, 4, b"CANCEL" if value else b"YES")
        line = lines[3]
        _blank(line)
        if step != menu.END_HAND and step > menu.PURCHASER:
            if v[menu.PURCHASER] == menu.MISDEAL_CHOICE:
                _put(line, 0, b"MISDEAL: THE SAME DEALER DEALS AGAIN")
            else:
                at = _put(line, 0, self.names[v[menu.PURCHASER]])
                if step > menu.LEVEL:
                    line[at + 1] = 48 + v[menu.LEVEL]
                    at = at + 2
                    if step > menu.STRAIN:
                        at = _put(line, at, _STRAINS[v[menu.STRAIN]])
                    if step > menu.DOUBLED and v[menu.DOUBLED] != menu.NOBODY:
                        at = _put(line, at + 1, b"X:")
                        at = _put(line, at, self.names[v[menu.DOUBLED]])
                    if step > menu.REDOUBLED and v[menu.REDOUBLED] != menu.NOBODY:
                        at = _put(line, at + 1, b"XX:")
                        at = _put(line, at, self.names[v[menu.REDOUBLED]])
                    if step > menu.LONE and v[menu.LONE]:
                        at = _put(line, at + 1, b"LONE")
                    if step > menu.TRICKS:
                        at = _numl(line, at + 1, v[menu.TRICKS])
                        _put(line, at, b" TRICKS")
        for r in range(3):
            line = lines[4 + r]
            _blank(line)
            start = r * COLS
            end = self.message_len if self.message_len < start + COLS else start + COLS
            for i in range(start, end):
                line[i - start] = self.message[i]
        line = lines[7]
        _blank(line)
        _put(line, 0, b"TURN:CHOOSE PUSH:OK HOLD:BACK")
        return self.flush()


# --- composing a row (no allocation) ------------------------------------------

def _blank(line):
    line[:] = _SPACES


def _put(line, at, text):
    """Write bytes at column at (clipped); returns the column after."""
    for c in text:
        if at >= COLS:
            return at
        if at >= 0:
            line[at] = c
        at += 1
    return at


def _digits(value):
    n = 1
    if value < 0:
        n = 2
        value = -value
    while value >= 10:
        value //= 10
        n += 1
    return n


def _numl(line, at, value):
    """Write value from column at; returns the column after."""
    end = at + _digits(value)
    _num(line, end, value)
    return end


def _right(line, end, text):
    """Write text so that it ends before column end."""
    _put(line, end - len(text), text)


def _num(line, end, value):
    """Write value right-aligned before column end; returns its first column."""
    start = end - _digits(value)
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


def _contract(line, at, event):
    """bid, X (doubled) or XX (redoubled), L (lone). Returns the column after."""
    line[at] = 48 + skicket.level_of(event)
    at = _put(line, at + 1, _STRAINS[skicket.strain_of(event)])
    if skicket.redoubled_by_of(event) != skicket.NOBODY:
        at = _put(line, at, b"XX")
    elif skicket.doubled_by_of(event) != skicket.NOBODY:
        at = _put(line, at, b"X")
    if skicket.lone_of(event):
        at = _put(line, at, b"L")
    return at


def _copy(buf, text):
    if text is None:
        return 0
    n = len(text) if len(text) < len(buf) else len(buf)
    for i in range(n):
        c = ord(text[i])
        buf[i] = c if 32 <= c < 127 else 63
    for i in range(n, len(buf)):
        buf[i] = 32
    return n
