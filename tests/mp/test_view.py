# tallypanel.view: the LED frame goes out only when its bytes change; the OLED
# follows the game, the hand entry and the board's messages.
from mpfixtures import skip
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

    def show(self, pages=0xFF):
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
    board_input = menu.BoardInput(lambda: g, sent.append, g.undo)
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
