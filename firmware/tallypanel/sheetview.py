# The OLED score sheet, drawn with framebuf on the 128x64 SSD1306
# (docs/display.md shows each screen): the screen of a game with a view of
# its own (Skicket's sheet, the Roquet summary: tallypanel.gameview), a
# sheet for any other game, the no-game screen, and the frame of the
# hand-entry screens.
#
# Font: a 3x5 pixel font in 4x6 cells (32 columns x 10 rows), from the const
# table below, and the same glyphs doubled (6x10 in 8x12 cells, 16 columns)
# for the big numbers. Each glyph is a small FrameBuffer made once and
# blitted, so a character is one C call.
#
# A screen is a layout of rows (tallypanel.screen: y, big or small,
# underlined or not). Each row's text is composed into a preallocated
# bytearray; only the characters of a row from the first that changed to
# the last are cleared and redrawn, and only the display pages they touch
# are sent (show(mask)), each from the column window lo[page]..hi[page]
# (the SSD1306 driver sends those columns only). Nothing is allocated per
# redraw of a game screen.
#
# Each game's screen shows the short form of its chain head (put_chain:
# tallyrun.chain, the head after the game's events applied), which a player
# compares with the head the results site prints (docs/display.md).
import framebuf

from tallypanel import gameview
from tallypanel.screen import (COLS, BIG_COLS, ROWS, BIG, LINE, SHEET, ENTRY, LIST, LAYOUTS,
                               blank, put, num, numl, copy)

from tallycore import const

_SMALL_H = const(6)
_BIG_H = const(12)
_NONE = const(0)      # _window: no column changed yet
_WHOLE = const(1)     # every column of every page

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
_ENTRY_HELP = b"TURN:CHOOSE PUSH:OK HOLD:BACK"
_STAR_ARMS = ((0, 3), (1, 4), (1, 5), (0, 6))   # the big '*': its left arms, mirrored right

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
    def __init__(self, fb, show=None, views=None, stop=None, chain=None):
        """fb: the framebuf to draw on (the SSD1306 driver); show(pages) sends
        the changed pages (bit p = pixel rows 8p..8p+7), None to skip; views:
        the game in play's view (tallypanel.gameview.Views: the View's, shared
        with the LED field and the controls), or None for one of the sheet's own;
        chain: what holds the game's hash chain as its .chain (the app, whose
        tallyrun.chain.Chain it tells of every undo, None until a game began),
        whose head the game's screen shows, or None: no head shown."""
        self.fb = fb
        self.chain = chain
        self.show = show
        self.views = gameview.Views() if views is None else views
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
        # Doubled, the small '*' (an x in three columns) reads as a times sign:
        # the big one is drawn as an asterisk, a bar and two crossing strokes
        star = self.big[_CHARS.find(b"*")]
        star.fill(0)
        star.fill_rect(2, 2, 2, 6, 1)
        for x, y in _STAR_ARMS:
            star.pixel(x, y, 1)
            star.pixel(5 - x, y, 1)
        self.lines = [bytearray(COLS) for _ in range(ROWS)]
        self.shown = [bytearray(COLS) for _ in range(ROWS)]
        self.layout = -1
        self.rows = 0
        self.pages = 0      # pages changed by the last draw
        self.lo = bytearray(8)   # and the columns changed in each: lo[p]..hi[p] (lo > hi: none)
        self.hi = bytearray(8)
        self._window(_NONE)
        # stop(): True when the board has something more urgent (a request
        # arriving): flush() leaves the rows it has not drawn for the next one
        self.stop = stop
        self.note = bytearray(COLS)  # a one-line message under the sheet
        self.note_len = 0
        self.message = bytearray(3 * COLS)  # a longer message (hand entry)
        self.message_len = 0
        self.names = [bytearray(b"A"), bytearray(b"B"), bytearray(b"C"), bytearray(b"D")]
        self._named = -1              # the game (its index) whose name is in _game_name
        # a club evening's table and round (config table, round): b"T3 R2" in a
        # sheet's heading, b"TABLE 3 - ROUND 2" where a row has room; b"": none
        self.table_tag = b""
        self.table_words = b""
        self._game_name = bytearray(16)   # made once: a game switch allocates nothing here
        self._game_name_len = 0
        self.link_mark = b""     # a board on the club's Wi-Fi: its link's state after the tag (tallynet.link)
        self._table = (0, 0)

    # --- configuration and messages (these may allocate) ------------------


    def set_stop(self, stop):
        """stop(): True when the board has something more urgent; None: never stop."""
        self.stop = stop

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

    def set_link(self, mark):
        """The club link's state, one character after the table's tag (b"": none)."""
        self.link_mark = mark
        self.set_table(self._table[0], self._table[1])

    def set_table(self, table, round_):
        """The club evening's table (0: none) and round (0: none) this board scores."""
        self._table = (table, round_)
        if not table:
            self.table_tag = b""
            self.table_words = b""
        elif not round_:
            self.table_tag = ("T%d" % table).encode()
            self.table_words = ("TABLE %d" % table).encode()
        else:
            self.table_tag = ("T%d R%d" % (table, round_)).encode()
            self.table_words = ("TABLE %d - ROUND %d" % (table, round_)).encode()
        if table and self.link_mark:
            self.table_tag += self.link_mark

    def set_note(self, text):
        """A message on the sheet's last row; None clears it."""
        self.note_len = copy(self.note, text)

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
        self.rows = len(LAYOUTS[layout]) // 2
        self.fb.fill(0)
        for i in range(ROWS):
            line = self.shown[i]
            for c in range(COLS):
                line[c] = 0  # never a character: every row is redrawn
        self.pages = 0xFF
        self._window(_WHOLE)

    def _window(self, whole):
        lo = self.lo
        hi = self.hi
        for p in range(8):
            lo[p] = 0 if whole else 255
            hi[p] = 127 if whole else 0

    def lines_pending(self):
        """True while a row differs from what the display shows (a flush cut short)."""
        for r in range(self.rows):
            if self.lines[r] != self.shown[r]:
                return True
        return False

    def flush(self):
        """Redraw the rows that changed and send their pages; returns the page mask."""
        spec = LAYOUTS[self.layout]
        pages = self.pages
        stop = self.stop
        lo = self.lo
        hi = self.hi
        for r in range(self.rows):
            line = self.lines[r]
            shown = self.shown[r]
            if line == shown:
                continue
            if stop is not None and pages and stop():
                break          # this row and those after it: next time
            first = 0
            while line[first] == shown[first]:
                first += 1
            last = COLS - 1
            while line[last] == shown[last]:
                last -= 1
            shown[:] = line
            y = spec[2 * r]
            flags = spec[2 * r + 1]
            big = flags & BIG
            if big:
                if first >= BIG_COLS:
                    continue   # past the sixteen big characters a row shows
                if last >= BIG_COLS:
                    last = BIG_COLS - 1
            cell = 8 if big else 4
            height = _BIG_H if big else _SMALL_H
            x0 = first * cell
            width = (last + 1 - first) * cell
            self.fb.fill_rect(x0, y, width, height, 0)
            self._draw(line, y, big, first, last + 1)
            if flags & LINE:
                self.fb.hline(x0, y + height - 1, width, 1)
            x1 = x0 + width - 1
            for p in range(y >> 3, ((y + height - 1) >> 3) + 1):
                pages |= 1 << p
                if x0 < lo[p]:
                    lo[p] = x0
                if x1 > hi[p]:
                    hi[p] = x1
        self.pages = 0
        if pages and self.show is not None:
            self.show(pages)
        self._window(_NONE)
        return pages

    def _draw(self, line, y, big, start, end):
        fb = self.fb
        glyph_of = self.glyph_of
        glyphs = self.big if big else self.small
        step = 8 if big else 4
        for i in range(start, end):
            c = line[i]
            if c != 32:
                fb.blit(glyphs[glyph_of[c & 127]], i * step, y, 0)

    def draw_game(self, game):
        """Compose and show the screen for game; allocation-free."""
        view = self.views.of(game)
        if game.rules is None:
            self.use(SHEET)
            for r in range(ROWS):
                blank(self.lines[r])
            put(self.lines[0], 0, b"TALLYBOARD")
            put(self.lines[1], 0, self.table_words)
            put(self.lines[3], 0, b"NO GAME IN PROGRESS.")
            put(self.lines[4], 0, b"START ONE FROM THE HOST:")
            put(self.lines[5], 0, b"TALLYBOARD NEW GAME")
            if self.note_len:
                self.lines[9][:] = self.note
        elif view is not None:
            view.draw_sheet(self, game)
        else:
            self.use(LIST)
            self._generic(game)
        return self.flush()

    def put_chain(self, line, game):
        """The short form of the game's chain head in line's last columns
        (tallyrun.chain.Chain.put_short: 3F9A 21C0, STATE's chain= digits);
        nothing before a game began. Allocation-free."""
        held = self.chain
        chain = held.chain if held is not None else None
        if chain is not None and game.rules is not None:
            chain.put_short(line, COLS, game)

    # --- any other game -------------------------------------------------------

    def _generic(self, game):
        lines = self.lines
        if game.index != self._named:  # a new game: its name, once
            self._named = game.index
            self._game_name_len = copy(self._game_name, game.name().replace("_", " ").upper())
        line = lines[0]
        blank(line)
        put(line, 0, self._game_name)   # the name, then spaces to 16 columns
        at = self._game_name_len
        at = put(line, at + 2, b"HAND ")
        numl(line, at, game.hands())
        put(line, COLS - len(self.table_tag), self.table_tag)
        winners = game.winners()
        players = game.players
        for r in range(1, 9):
            line = lines[r]
            blank(line)
            p = r - 1
            if p < players:
                line[0] = 49 + p
                if p < 4:
                    put(line, 2, self.names[p])
                start = num(line, 27, game.total(p))
                if winners >> p & 1:
                    line[start - 1] = 42
        line = lines[9]
        if self.note_len:
            line[:] = self.note
        else:
            blank(line)
            if game.complete():   # up to four names, then the chain's head: 22 + 1 + 9 columns
                at = put(line, 0, b"WON BY")
                for p in range(players if players < 4 else 4):
                    if winners >> p & 1:
                        at = put(line, at + 1, self.names[p])
            self.put_chain(line, game)

    # --- the board's own new game ------------------------------------------------

    def draw_question(self, question):
        """The new-game question (menu.NewGame), or its warning that the game,
        finished or not, would be dropped unarchived; allocation-free."""
        self.use(ENTRY)
        lines = self.lines
        for r in range(8):
            blank(lines[r])
        put(lines[0], 0, b"NEW GAME")
        if question.warning:
            put(lines[2], 0, b"NOT ARCHIVED!")
            put(lines[4], 0, b"THE HOST HAS NOT ARCHIVED")
            put(lines[5], 0, b"THIS GAME, FINISHED OR NOT:")
            put(lines[6], 0, b"A NEW GAME DROPS IT FOR GOOD.")
            put(lines[7], 0, b"PUSH:DROP IT  HOLD:KEEP IT")
        else:
            put(lines[2], 0, b"NEW GAME?")
            put(lines[4], 0, b"START THIS GAME AGAIN, THE")
            put(lines[5], 0, b"SAME PLAYERS AND OPTIONS.")
            put(lines[7], 0, b"PUSH:YES  HOLD:NO")
        return self.flush()

    # --- hand entry -------------------------------------------------------------

    def draw_entry(self, entry, game):
        """The hand-entry screens (menu.HandEntry): the hand, the step and its
        value, what was entered so far (drawn by the entry's view), the
        core's message and the knob's help; allocation-free."""
        self.use(ENTRY)
        lines = self.lines
        for r in range(7):
            blank(lines[r])
        line = lines[0]
        at = numl(line, put(line, 0, b"HAND "), entry.hand + 1) - 1
        line = lines[2]  # big: the value between arrows
        line[0] = 60  # '<'
        line[15] = 62  # '>'
        for r in range(3):  # the core's message (a view leaves these rows to it)
            line = lines[4 + r]
            start = r * COLS
            end = self.message_len if self.message_len < start + COLS else start + COLS
            for i in range(start, end):
                line[i - start] = self.message[i]
        entry.view.draw_entry(self, entry, game, at + 1)
        line = lines[7]
        blank(line)
        put(line, 0, _ENTRY_HELP)
        return self.flush()

    def draw_entry_rows(self, head, step, value, entered):
        """The hand-entry screen from its rows as the board's ENTRY gives them
        (the host's picture of a board: tallyboard.render): the heading, the
        step, the value between the arrows and what is entered so far."""
        self.use(ENTRY)
        lines = self.lines
        for r in range(7):
            blank(lines[r])
        put(lines[0], 0, head)
        put(lines[1], 0, step)
        line = lines[2]
        line[0] = 60  # '<'
        put(line, 1, value[:14])
        line[15] = 62  # '>'
        put(lines[3], 0, entered)
        blank(lines[7])
        put(lines[7], 0, _ENTRY_HELP)
        return self.flush()
