# The OLED score sheet (framebuf: MicroPython only; under CPython these
# return at once and tests/test_display_micropython.py runs them for real).
# Goldens in tests/golden/oled_*.bin were checked by eye once, rendered to
# PNG beside them (tests/golden/oled_png.py; regenerate with
# tests/golden/make_oled_goldens.py); the glyph and page checks are worked by hand.
try:
    import framebuf
except ImportError:
    framebuf = None

from mpfixtures import skip
from tallypanel import menu

from tallycore import roquet, skicket
from tallycore.game import Game
from tallyrun.chain import Held

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
GOLDEN = _HERE + "/../golden/"


def _pixel(buf, x, y):
    return buf[(y >> 3) * 128 + x] >> (y & 7) & 1


class Screen:
    def __init__(self):
        from tallypanel.sheetview import SheetView
        self.buf = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.buf, 128, 64, framebuf.MONO_VLSB)
        self.sent = []
        self.view = SheetView(self.fb, self.sent.append, chain=Held())
        self.view.set_names(["Ann", "Bob", "Cy", "Dee"])


def skicket_game():
    g = Game()
    g.new(skicket, 4, 0)
    g.apply(skicket.pack_hand(0, 4, skicket.HEARTS, None, None, False, 10))
    g.apply(skicket.pack_hand(1, 2, skicket.NO_TRUMP, 0, 1, False, 9))
    g.apply(skicket.pack_hand(3, 3, skicket.NO_TRICK, None, None, False, 2))
    return g


def roquet_game():
    g = Game()
    g.new(roquet, 2, 0)
    for e in (roquet.pack_peg(0, 10), roquet.pack_peg(0, 6), roquet.pack_peg(1, 3), roquet.HAND_END,
              roquet.pack_peg(1, 2)):
        g.apply(e)
    return g


def screens():
    """(name, OLED buffer) of the golden screens."""
    out = []
    s = Screen()
    s.view.draw_game(skicket_game())
    out.append(("skicket", bytes(s.buf)))
    s.view.draw_game(roquet_game())
    out.append(("roquet", bytes(s.buf)))
    g = skicket_game()
    entry = menu.HandEntry(g.apply)
    entry.open(g, 1)
    for _ in range(4):
        entry.push(g)     # purchaser B, level 1, clubs, doubled by nobody -> lone
    entry.turn(1)
    s.view.set_message("doubled_by: a player cannot double his own side's bid")
    s.view.draw_entry(entry, g)
    out.append(("entry", bytes(s.buf)))
    return out


def test_screens_match_their_goldens():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    for name, buf in screens():
        with open(GOLDEN + "oled_" + name + ".bin", "rb") as f:
            assert buf == f.read(), name


def test_hand_number_glyph_is_where_the_layout_puts_it():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    s = Screen()
    s.view.draw_game(skicket_game())
    # Row 1 (hand 1) starts at y = 6; its column 0 is the glyph '1':
    # columns 0x12, 0x1F, 0x10 (bit 0 = top) -> pixels (0,7) (0,10),
    # (1,6)..(1,10), (2,10); column 3 is the gap between characters.
    lit = ((0, 7), (0, 10), (1, 6), (1, 7), (1, 8), (1, 9), (1, 10), (2, 10))
    for x in range(4):
        for y in range(6, 12):
            assert _pixel(s.buf, x, y) == (1 if (x, y) in lit else 0), (x, y)
    # The header's underline: row 0 is underlined at y = 0 + 6 - 1 = 5.
    assert all(_pixel(s.buf, x, 5) for x in range(128))


def test_only_changed_rows_are_redrawn_and_sent():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    s = Screen()
    g = skicket_game()
    assert s.view.draw_game(g) == 0xFF            # first screen: every page
    assert s.view.draw_game(g) == 0               # nothing changed: nothing sent
    g.apply(skicket.pack_hand(2, 1, skicket.CLUBS, None, None, False, 7))
    # Changed: hand row 4 (y 24..29: page 3), totals (y 42..47: page 5), the
    # next-hand line (y 48..53: page 6) and the last contract (y 54..59:
    # pages 6, 7): mask 0x08 | 0x20 | 0x40 | 0x80 = 0xE8.
    assert s.view.draw_game(g) == 0xE8
    assert s.sent == [0xFF, 0xE8]


def test_a_redraw_cut_short_by_a_request_sends_the_rest_next_time():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    s = Screen()
    g = skicket_game()
    s.view.draw_game(g)
    g.apply(skicket.pack_hand(2, 1, skicket.CLUBS, None, None, False, 7))
    arriving = [False]

    def stop():
        return arriving[0]

    s.view.stop = stop
    arriving[0] = True
    # the first changed row (hand 4, page 3) is drawn before the board looks:
    # a request arriving then leaves the totals, next-hand and contract rows
    assert s.view.draw_game(g) == 0x08
    assert s.view.lines_pending()
    arriving[0] = False
    # the rest, as test_only_changed_rows_are_redrawn_and_sent counts it:
    # 0xE8 without page 3 = 0xE0
    assert s.view.flush() == 0xE0
    assert not s.view.lines_pending()
    assert s.sent == [0xFF, 0x08, 0xE0]


def test_redrawing_allocates_nothing():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    import micropython
    from tallycore import foozle
    s = Screen()
    short = Game()
    short.new(foozle, 5, 0)
    short.apply(foozle.pack_hand(2, 3, 4))
    short.apply(foozle.pack_hand(0, 2, 1))
    games = (skicket_game(), roquet_game(), short)
    entry = menu.HandEntry(games[0].apply)
    entry.open(games[0], 2)
    for g in games:
        s.view.draw_game(g)
        g.undo()
        micropython.heap_lock()
        try:
            s.view.draw_game(g)
        finally:
            micropython.heap_unlock()
    s.view.draw_entry(entry, games[0])
    entry.turn(1)
    micropython.heap_lock()
    try:
        s.view.draw_entry(entry, games[0])
    finally:
        micropython.heap_unlock()


def test_the_new_game_question_and_its_warning_allocate_nothing():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    import micropython
    s = Screen()
    question = menu.NewGame()
    question.active = True
    assert s.view.draw_question(question) == 0xFF          # a new layout: every page
    assert bytes(s.view.lines[2][:9]) == b"NEW GAME?"
    question.warning = True
    micropython.heap_lock()
    try:
        pages = s.view.draw_question(question)
    finally:
        micropython.heap_unlock()
    # changed (the ENTRY layout): the big row 2 (y 16..27: pages 2, 3), the
    # message rows 4, 5, 6 (y 38..43, 44..49, 50..55: pages 4, 5, 6) and the
    # help row 7 (y 58..63: page 7); the header and the blank row 3 stay:
    # 0x04 | 0x08 | 0x10 | 0x20 | 0x40 | 0x80 = 0xFC
    assert pages == 0xFC
    assert bytes(s.view.lines[2][:13]) == b"NOT ARCHIVED!"
    assert bytes(s.view.lines[7][:26]) == b"PUSH:DROP IT  HOLD:KEEP IT"


def test_quatro_sheet_shows_tricks_past_nine():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    from tallycore import most_count
    g = Game()
    g.new("quatro", 3, 0)
    # tricks 6, 5, 2 / 7, 0, 6 / 1, 12, 0 (docs/rules.md QU3): Ann 6 + 7 + 1 = 14,
    # Bob 5 + 0 + 12 = 17, Cy 2 + 6 + 0 = 8; Bob has most.
    for hand in ((6, 5, 2), (7, 0, 6), (1, 12, 0)):
        for p in range(3):
            g.apply(most_count.pack_count(p, hand[p], most_count.TRICKS))
        g.apply(most_count.END)
    s = Screen()
    s.view.draw_game(g)
    lines = [bytes(line) for line in s.view.lines]
    assert lines[0].startswith(b"QUATRO  HAND 3")
    # a total ends before column 27; the winner's has a star before it
    assert lines[1][:5] == b"1 Ann" and lines[1][24:27] == b" 14"
    assert lines[2][:5] == b"2 Bob" and lines[2][24:27] == b"*17"
    assert lines[3][:4] == b"3 Cy" and lines[3][24:27] == b"  8"
    assert lines[9].startswith(b"WON BY Bob ")


class FakeI2C:
    """An SSD1306 on the bus: follows column/page addressing into its RAM."""

    def __init__(self):
        self.ram = bytearray(1024)
        self.data_bytes = 0
        self.args = []
        self.col = self.page = 0

    def writeto(self, addr, buf):
        # a control byte, then commands: 0x80 (Co = 1) one command byte, 0x00 (Co = 0) all the rest
        assert buf[0] in (0x80, 0x00) and (buf[0] == 0x00 or len(buf) == 2)
        for command in buf[1:]:
            self.command(command)

    def command(self, byte):
        self.args.append(byte)
        if self.args[0] in (0x21, 0x22) and len(self.args) == 3:
            if self.args[0] == 0x21:
                self.col = self.col_start = self.args[1]
                self.col_end = self.args[2]
            else:
                self.page = self.args[1]
            self.args = []
        elif self.args[0] not in (0x21, 0x22):
            self.args = []

    def writevto(self, addr, parts):
        assert bytes(parts[0]) == b"\x40"
        for byte in parts[1]:
            self.ram[self.page * 128 + self.col] = byte
            # horizontal addressing within the column window (one page at a time here)
            self.col = self.col_start if self.col == self.col_end else self.col + 1
            self.data_bytes += 1


def test_ssd1306_sends_only_the_pages_asked_for():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    from tallypanel.ssd1306 import SSD1306_I2C
    bus = FakeI2C()
    oled = SSD1306_I2C(bus)
    assert bus.data_bytes == 1024          # init clears every page
    oled.fill_rect(0, 8, 5, 5, 1)          # page 1
    oled.fill_rect(0, 40, 5, 5, 1)         # page 5
    oled.show(0x02)
    assert bus.data_bytes == 1024 + 128
    assert bus.ram[128:256] == oled.buffer[128:256]
    assert bus.ram[640] == 0               # page 5 not sent yet
    oled.show(0x20)
    assert bytes(bus.ram) == bytes(oled.buffer)
    # a window: columns 20..40 of page 3 are the 16-column blocks 16..31 and 32..47
    oled.fill_rect(20, 24, 21, 3, 1)
    lo = bytearray(8)
    hi = bytearray(8)
    lo[3], hi[3] = 20, 40
    oled.show(0x08, lo, hi)
    assert bus.data_bytes == 1024 + 128 + 128 + 2 * 16
    assert bytes(bus.ram) == bytes(oled.buffer)


def test_skicket_series_sheet_shows_the_deal_and_half_and_royal():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    import micropython
    g = Game()
    g.new(skicket, 4, skicket.OPT_DUPLICATE | skicket.OPT_ROYAL)
    # six hands of 1H by A (player 0) with 7 tricks: made, A and his
    # partner 70 each, the adversaries 6 tricks = 60 each (docs/rules.md SK7).
    # Partners of A: C in hands 1-2, B in 3-4, D in 5-6 (SK5).
    made = skicket.pack_hand(0, 1, skicket.HEARTS, None, None, False, 7)
    for _ in range(6):
        g.apply(made)
    s = Screen()
    s.view.draw_game(g)
    lines = [bytes(line) for line in s.view.lines]
    assert lines[0][23:28] == b"ROYAL"                 # SK18 in the heading
    # hand 7 = deal 1 reversed: its row is deal 1 again, dealt by D (SK17:
    # one seat left of deal 1's first dealer C), not yet played
    assert lines[1][:2] == b"1D" and lines[1][2:].strip() == b""
    assert lines[6][:2] == b"6A"                       # deal 6 reversed: A deals
    # totals: A 6 * 70 = 420; B 60 + 60 + 70 + 70 + 60 + 60 = 380; likewise
    # C 70 + 70 + 60 * 4 = 380, D 60 * 4 + 70 + 70 = 380
    assert lines[7][:23] == b"T  *420  380  380  380 " and lines[7][23:].rstrip() == b"D1 REV"
    assert lines[8].startswith(b"DEAL 1R Dee DEALS.")
    g.apply(skicket.pack_hand(1, 1, skicket.HEARTS, None, None, False, 7))
    # hand 7: B (partner D) 1H 7 tricks: B, D 70; A, C 60 (SK7)
    g.undo()
    s.view.draw_game(g)
    g.redo()
    micropython.heap_lock()
    try:
        s.view.draw_game(g)
    finally:
        micropython.heap_unlock()
    lines = [bytes(line) for line in s.view.lines]
    assert lines[1][:23] == b"1D   60   70   60   70 "
    assert lines[7][23:].rstrip() == b"D2 REV"
    assert lines[8].startswith(b"DEAL 2R Ann DEALS.")


def test_skicket_four_hand_sheet_has_four_rows():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    g = Game()
    g.new(skicket, 4, skicket.OPT_FOUR_HANDS)
    s = Screen()
    s.view.draw_game(g)
    lines = [bytes(line) for line in s.view.lines]
    assert lines[0][23:31] == b"CONTRACT"
    # dealers C D A C (docs/rules.md SK16); rows 5 and 6 empty
    assert [lines[r][:2] for r in range(1, 5)] == [b"1C", b"2D", b"3A", b"4C"]
    assert lines[5].strip() == b"" and lines[6].strip() == b""
    assert lines[7][23:].rstrip() == b"HAND 1/4"


def test_a_club_table_shows_its_table_and_round_in_the_heading():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    import micropython
    from tallyrun.config import Config
    from tallyrun import protocol as P
    from tallypanel import boarddef
    from tallypanel.view import View
    g = Game()
    g.new(skicket, 4, skicket.OPT_FOUR_HANDS)
    s = Screen()
    config = Config("")
    for p, name in enumerate(("Ann", "Bob", "Cy", "Dee")):
        config.set(P.CFG_NAME, p, name)
    config.set(P.CFG_TABLE, 0, 3)
    config.set(P.CFG_ROUND, 0, 2)
    s.view.set_table(config.table, config.round)
    s.view.draw_game(g)
    lines = [bytes(line) for line in s.view.lines]
    # the contract column's title gives way to the table and round; the names stay
    assert lines[0] == b"#D  Ann  Bob   Cy  Dee T3 R2    ", lines[0]
    # table 12 of round 10: seven characters, still inside the 32 columns
    s.view.set_table(12, 10)
    s.view.layout = -1
    s.view.draw_game(g)
    assert bytes(s.view.lines[0])[23:] == b"T12 R10  "
    # the redraw allocates nothing, the heading included
    g.apply(skicket.pack_hand(0, 4, skicket.HEARTS, None, None, False, 10))
    micropython.heap_lock()
    try:
        s.view.draw_game(g)
    finally:
        micropython.heap_unlock()
    assert bytes(s.view.lines[0])[23:30] == b"T12 R10"
    # no game yet: the table in words under the title
    empty = Game()
    s.view.set_table(3, 2)
    s.view.draw_game(empty)
    assert bytes(s.view.lines[1]).rstrip() == b"TABLE 3 - ROUND 2"
    # table 0: no table, the heading as ever
    s.view.set_table(0, 0)
    s.view.draw_game(g)
    assert bytes(s.view.lines[0])[23:31] == b"CONTRACT"
    # a View takes them from the board's config
    from test_view import Oled
    view = View(boarddef.find("pico-reference", _HERE + "/../../board"), None, Oled(), config)
    view.refresh_sheet(g)
    assert bytes(view.sheet.lines[0])[23:28] == b"T3 R2"


def test_a_peg_redraws_and_sends_only_the_characters_that_changed():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    g = roquet_game()
    s = Screen()
    windows = []
    s.view.show = lambda pages: windows.append((pages, bytes(s.view.lo), bytes(s.view.hi)))
    s.view.draw_game(g)
    assert windows[-1][0] == 0xFF and windows[-1][1] == bytes(8) and windows[-1][2] == bytes([127] * 8)
    g.apply(roquet.pack_peg(1, 1))           # Bob's hand 2 + 1 = 3 and his total: a few digits change
    s.view.draw_game(g)
    pages, lo, hi = windows[-1]
    sent = [p for p in range(8) if pages >> p & 1]
    assert sent and all(hi[p] - lo[p] < 64 for p in sent), windows[-1]   # no page sent whole
    # and what the display holds is the whole screen drawn afresh
    fresh = Screen()
    fresh.view.draw_game(g)
    assert bytes(s.buf) == bytes(fresh.buf)
