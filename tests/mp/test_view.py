# tallypanel.view: the LED frame goes out only when its bytes change; the OLED
# follows the game, the hand entry and the board's messages.
from mpfixtures import Hands, skip
from tallypanel import boarddef, menu
from tallycore import roquet
from tallycore.game import Game
from tallypanel.view import View

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
BOARD_DIR = _HERE + "/../../board"


class Pixels:
    def __init__(self, count):
        self.buf = bytearray(3 * count)
        self.writes = 0

    def write(self):
        self.writes += 1


class Config:
    brightness = 128
    budget_ma = 500
    colours = [0x0000FF, 0x00FF00, 0xFF0000, 0xFFFFFF]
    names = ["Ann", "Bob", "Cy", "Dee"]
    table = 0
    round = 0


def _roquet():
    g = Game()
    g.new(roquet, 2, 0)
    return g


def test_led_frame_is_sent_only_when_it_changes():
    board = boarddef.find("pico2-serpentine-nooled", BOARD_DIR)
    pixels = Pixels(board.led_count)
    view = View(board, pixels, None, Config())
    g = _roquet()
    view.refresh(g)
    view.refresh(g)
    assert pixels.writes == 1
    g.apply(roquet.pack_peg(1, 2))
    view.refresh(g)
    assert pixels.writes == 2
    # B (colour 0x00FF00 at brightness 128): tally 2 -> hole 1 -> serpentine
    # LED 103 (p1 tally 0..29 -> 102..131); G = 255 * 128 * 256 >> 16 = 127.
    assert bytes(pixels.buf[3 * 103:3 * 104]) == bytes((127, 0, 0))


class Oled:
    def __init__(self):
        import framebuf
        self.buffer = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.buffer, 128, 64, framebuf.MONO_VLSB)
        self.shown = []

    def fill(self, c):
        self.fb.fill(c)

    def fill_rect(self, x, y, w, h, c):
        self.fb.fill_rect(x, y, w, h, c)

    def hline(self, x, y, w, c):
        self.fb.hline(x, y, w, c)

    def blit(self, src, x, y, key):
        self.fb.blit(src, x, y, key)

    def show(self, pages=0xFF, lo=None, hi=None):
        self.shown.append(pages)


def test_oled_follows_the_hand_entry_and_messages():
    try:
        import framebuf  # noqa: F401
    except ImportError:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    board = boarddef.find("pico-reference", BOARD_DIR)
    oled = Oled()
    view = View(board, Pixels(board.led_count), oled, Config())
    g = _roquet()
    sent = []
    board_input = menu.BoardInput(Hands(g, sent.append), views=view.views)
    view.refresh(g, board_input)
    assert view.sheet.layout == 1             # the Roquet summary
    board_input.handle(menu.UNDO)             # nothing to undo: refused
    view.refresh(g, board_input)
    assert bytes(view.sheet.note[:5]) == b"undo:"
    assert oled.shown[-1] & 0x80              # the last row (y 53..58) changed
    board_input.handle(menu.PUSH)             # the knob: "end the hand?"
    view.refresh(g, board_input)
    assert view.sheet.layout == 2             # the entry screen
    board_input.handle(menu.HOLD)             # back out
    view.refresh(g, board_input)
    assert view.sheet.layout == 1 and sent == []


class FlakyOled(Oled):
    """An OLED whose bus can stop answering: show() and init_display() raise
    OSError(ENODEV) as machine.I2C does on a NAK."""

    def __init__(self):
        super().__init__()
        self.answering = True
        self.inits = 0

    def show(self, pages=0xFF, lo=None, hi=None):
        if not self.answering:
            raise OSError(19)
        super().show(pages, lo, hi)

    def init_display(self):
        if not self.answering:
            raise OSError(19)
        self.inits += 1


def _needs_framebuf():
    try:
        import framebuf  # noqa: F401
    except ImportError:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")


def test_only_the_rows_and_leds_that_changed_are_sent():
    _needs_framebuf()
    board = boarddef.find("pico-reference", BOARD_DIR)
    oled = Oled()
    pixels = Pixels(board.led_count)
    view = View(board, pixels, oled, Config())
    g = _roquet()
    view.refresh(g)
    assert (view.frames_sent, view.pages_sent) == (1, 8)    # the first sheet: every page
    view.refresh(g)
    assert (view.frames_sent, view.pages_sent) == (1, 8)    # nothing changed: nothing sent
    g.apply(roquet.pack_peg(1, 2))
    view.refresh(g)
    # one LED frame; and only the pages of the rows that changed. Roquet's totals
    # screen (screen.LAYOUTS[1], y per row): the big totals row at y 8..19 (pages 1, 2),
    # TALLY at y 28..33 (pages 3, 4), LAST PEG at y 34..39 (page 4) change; the header,
    # KING PEG (y 22..27) and the rest do not: pages 1 to 4, 0b00011110
    assert oled.shown[-1] == 0x1E
    assert (view.frames_sent, view.pages_sent) == (2, 8 + 4)
    # the sheet sent is the sheet a fresh display draws for the game
    fresh = Oled()
    View(board, Pixels(board.led_count), fresh, Config()).refresh(g)
    assert oled.buffer == fresh.buffer


def test_a_silent_oled_is_let_be_and_taken_back_when_it_answers():
    _needs_framebuf()
    board = boarddef.find("pico-reference", BOARD_DIR)
    oled = FlakyOled()
    pixels = Pixels(board.led_count)
    view = View(board, pixels, oled, Config())
    g = _roquet()
    view.refresh(g)
    assert view.problem() is None
    oled.answering = False                      # the cable comes loose mid-game
    g.apply(roquet.pack_peg(0, 5))
    view.refresh(g)
    said = view.problem()
    assert said.startswith("display: the OLED stopped answering") and "keep scoring" in said, said
    assert view.problem() is None               # said once
    assert view.frames_sent == 2                # the LEDs went on
    g.apply(roquet.pack_peg(1, 3))
    shown = len(oled.shown)
    view.refresh(g)
    assert view.frames_sent == 3 and len(oled.shown) == shown and not view.retry_due()
    view.tried_at -= 3000                       # its retry is due (RETRY_MS later), still silent
    assert view.retry_due()
    view.refresh(g)
    assert view.oled_down and view.problem() is None and not view.retry_due()
    oled.answering = True                       # plugged back in
    view.tried_at -= 3000
    view.refresh(g)
    assert view.problem() == "display: the OLED answers again"
    assert oled.inits == 1 and oled.shown[-1] == 0xFF     # set up again, the whole sheet drawn
    fresh = Oled()
    View(board, Pixels(board.led_count), fresh, Config()).refresh(g)
    assert oled.buffer == fresh.buffer          # Ann 5, Bob 3: as if it had never gone
