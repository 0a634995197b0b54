# The why screen on the OLED (tallypanel.whyview, menu.WhyScreen): the knob turned
# outside a hand entry shows why the last hand scored, turning goes back and on
# through the hands, any other control leaves it; a redraw of the hand shown
# allocates nothing. Runs in the MicroPython pass (tests/test_display_micropython.py).
from mpfixtures import Hands, skip
from tallypanel import boarddef, menu
from tallycore import skicket
from tallycore.game import Game
from tallypanel.view import View

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
BOARD_DIR = _HERE + "/../../board"


class Pixels:
    def __init__(self, count):
        self.buf = bytearray(3 * count)

    def write(self):
        pass


class Config:
    brightness = 128
    budget_ma = 500
    colours = [0x0000FF, 0x00FF00, 0xFF0000, 0xFFFFFF]
    names = ["Ann", "Bob", "Cy", "Hal"]
    table = 0
    round = 0


class Oled:
    def __init__(self):
        import framebuf
        self.buffer = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.buffer, 128, 64, framebuf.MONO_VLSB)

    def fill(self, c):
        self.fb.fill(c)

    def fill_rect(self, x, y, w, h, c):
        self.fb.fill_rect(x, y, w, h, c)

    def hline(self, x, y, w, c):
        self.fb.hline(x, y, w, c)

    def blit(self, src, x, y, key):
        self.fb.blit(src, x, y, key)

    def show(self, pages=0xFF, lo=None, hi=None):
        pass


def _needs_framebuf():
    try:
        import framebuf  # noqa: F401
    except ImportError:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")


def _game():
    # hand 1: Ann (0) bids 3H and her side takes 9 = 6 + 3: made (Ann and Cy partners, SK5).
    # a misdeal (SK3), then hand 2: Cy (2) bids 2NT, Bob (1) doubles, Cy's side takes 7 of the 8 it needs
    g = Game()
    g.new(skicket, 4, 0)
    g.apply(skicket.pack_hand(0, 3, skicket.HEARTS, None, None, False, 9))
    g.apply(skicket.MISDEAL)
    g.apply(skicket.pack_hand(2, 2, skicket.NO_TRUMP, 1, None, False, 7))
    return g


def _row(view, r):
    return bytes(view.sheet.lines[r]).decode().rstrip()


def _screen():
    board = boarddef.find("pico-reference", BOARD_DIR)
    view = View(board, Pixels(board.led_count), Oled(), Config())
    g = _game()
    board_input = menu.BoardInput(Hands(g, lambda e: None), views=view.views)
    view.refresh(g, board_input)
    return view, g, board_input


def _rows(view):
    return [_row(view, r) for r in range(1, 10)]


# Hand 1: Ann bid 3H and her side took 9 = 6 + 3: made; she and her partner Cy score
# 60 + 10 * 3 = 90 (SK7), Bob and Hal 10 for each of the 13 - 9 = 4 tricks they took: 40.
# Each line from a new row, wrapped at spaces to the 32 columns, a continued row indented by one.
HAND_1 = ["Ann and Cy +90: made: the", " purchaser and his partner score", " the bid's value, 60 + 10 a",
          " level (SK7)", "Bob and Hal +40: an adversary of", " a bid made: 10 for each trick",
          " the adversaries took (SK7)", "", ""]
# Hand 2: the misdeal before it scores nothing (SK3); Cy bid 2NT, Bob doubled, Cy's side took 7 of the
# 6 + 2 = 8 needed: Bob and his partner Hal score 2 * (60 + 10 * 2) = 160 (SK9), Cy nothing, his partner
# Ann 10 for each of the 7 tricks their side took: 70. Twelve rows: a page of nine, then three.
HAND_2 = ["everyone 0: a misdeal: dealt", " again by the same dealer, it", " scores nothing (SK3)",
          "Bob and Hal +160: doubled, the", " purchaser failed: the doubler's", " side gets twice the bid (SK9)",
          "Cy 0: doubled, the purchaser", " failed: he scores nothing (SK9)", "Ann +70: partner of the loser:"]
HAND_2_PAGE_2 = [" 10 for each trick the loser's", " side took (SK9)", "", "", "", "", "", "", ""]


def test_the_knob_turned_outside_an_entry_shows_why_the_last_hand_scored_and_goes_back_through_them():
    _needs_framebuf()
    view, g, board_input = _screen()
    sheet_layout = view.sheet.layout
    board_input.handle(menu.TURN, 1)          # outside an entry: the why screen, the last hand
    view.refresh(g, board_input)
    assert _row(view, 0) == "WHY HAND 2 OF 2 1/2"
    assert _rows(view) == HAND_2
    board_input.handle(menu.PUSH)             # the rest of a reason longer than the screen
    view.refresh(g, board_input)
    assert _row(view, 0) == "WHY HAND 2 OF 2 2/2"
    assert _rows(view) == HAND_2_PAGE_2
    board_input.handle(menu.TURN, -1)         # back one hand, from its first page
    view.refresh(g, board_input)
    assert _row(view, 0) == "WHY HAND 1 OF 2"
    assert _rows(view) == HAND_1
    board_input.handle(menu.TURN, -1)         # no hand before the first: it stays
    view.refresh(g, board_input)
    assert _row(view, 0) == "WHY HAND 1 OF 2"
    board_input.handle(menu.TURN, 5)          # nor after the last
    view.refresh(g, board_input)
    assert _row(view, 0) == "WHY HAND 2 OF 2 1/2"
    board_input.handle(menu.PUSH)
    board_input.handle(menu.PUSH)             # on the last page a push leaves, and does only that
    view.refresh(g, board_input)
    assert view.sheet.layout == sheet_layout and not board_input.why.active and not board_input.entry.active


def test_the_why_screen_is_refused_before_anything_is_scored():
    _needs_framebuf()
    board = boarddef.find("pico-reference", BOARD_DIR)
    view = View(board, Pixels(board.led_count), Oled(), Config())
    g = Game()
    g.new(skicket, 4, 0)
    board_input = menu.BoardInput(Hands(g, lambda e: None), views=view.views)
    board_input.handle(menu.TURN, 1)
    assert not board_input.why.active and board_input.note == "why: nothing is scored yet"


def test_a_redraw_of_the_hand_shown_allocates_nothing():
    _needs_framebuf()
    import micropython

    view, g, board_input = _screen()
    board_input.handle(menu.TURN, 1)
    view.refresh(g, board_input)              # composed once: that allocates
    view.sheet.layout = -1                    # every row drawn again
    micropython.heap_lock()
    try:
        view.refresh_sheet(g, board_input)
    finally:
        micropython.heap_unlock()
    assert _row(view, 0) == "WHY HAND 2 OF 2 1/2" and _rows(view) == HAND_2
