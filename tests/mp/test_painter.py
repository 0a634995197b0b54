# The painter (tallypanel/start.py) draws after the replies and lets a
# request that arrives mid-redraw go first; whatever it left then it draws
# once the request is answered: the display never stays stale. A request is
# made to arrive at a chosen point of the redraw (while the LED frame goes
# out, while the sheet's rows are drawn), and the OLED must end up as the
# firmware's own view draws the game when nothing interrupts it.
import sys

from mpfixtures import skip
from tallycore.game import Game
from tallypanel import boarddef
from tallypanel.view import View

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
BOARD_DIR = _HERE + "/../../board"
_MICROPYTHON = sys.implementation.name == "micropython"
_BOUND_MS = 2000     # the painter looks every 40 ms: it has drawn long before this


class Host:
    """The app as the painter sees it: a request arriving (receiving()) from
    arrive() until the serve loop has read it (_LINE_MS later), when the
    host's last request time moves on, as App.handle_line does."""
    _LINE_MS = 5

    def __init__(self, game, ticks_ms):
        self.game = game
        self.ticks_ms = ticks_ms
        self.arriving = False
        self.arrived = 0
        self.last_request_ms = ticks_ms() - 1000
        self.listener_errors = 0
        self.notes = []

    def receiving(self):
        return self.arriving

    def arrive(self):
        if not self.arrived:
            self.arrived = 1
            self.arriving = True

    def note(self, text):
        self.notes.append(text)

    async def serve(self, asyncio):
        while not self.arriving:
            await asyncio.sleep_ms(1)
        await asyncio.sleep_ms(self._LINE_MS)      # the line is still coming in
        self.arriving = False
        self.last_request_ms = self.ticks_ms()


class Pixels:
    def __init__(self, count, written=None):
        self.buf = bytearray(b"\x01" * (3 * count))   # the last game's frame: this one differs
        self.written = written

    def write(self):
        if self.written is not None:
            self.written()


def _oled(drawing=None):
    import framebuf

    class Oled(framebuf.FrameBuffer):
        def __init__(self):
            self.buffer = bytearray(1024)
            super().__init__(self.buffer, 128, 64, framebuf.MONO_VLSB)
            self.screen = bytearray(1024)     # what the display shows: the pages sent

        def fill_rect(self, x, y, w, h, c):
            if drawing is not None:
                drawing()
            super().fill_rect(x, y, w, h, c)

        def show(self, pages=0xFF, lo=None, hi=None):
            for page in range(8):
                if pages >> page & 1:
                    self.screen[128 * page:128 * page + 128] = self.buffer[128 * page:128 * page + 128]
    return Oled()


def _paint(arrive_during):
    """The painter over a fresh view of a game with a change due, a request
    arriving during arrive_during ("leds" or "sheet"); the display once the
    painter has drawn (or the bound passed), and what the same view draws
    when nothing interrupts it."""
    import asyncio
    from time import ticks_diff, ticks_ms
    from tallypanel import start

    board = boarddef.find("pico-reference", BOARD_DIR)
    game = Game()
    game.new("hoodoo", 4, 0)
    host = Host(game, ticks_ms)
    oled = _oled(host.arrive if arrive_during == "sheet" else None)
    pixels = Pixels(board.led_count, host.arrive if arrive_during == "leds" else None)
    view = View(board, pixels, oled)
    painter = start.Painter(view)          # a change due
    painter.use(host, None)

    async def run():
        painting = asyncio.create_task(painter.run())
        serving = asyncio.create_task(host.serve(asyncio))
        began = ticks_ms()
        while ticks_diff(ticks_ms(), began) < _BOUND_MS:
            await asyncio.sleep_ms(20)
            if host.arrived and not host.arriving and not painter.due and not view.pending() \
                    and ticks_diff(ticks_ms(), host.last_request_ms) > 200:
                break                      # answered, and the painter has had 5 looks since
        painting.cancel()
        serving.cancel()
        await asyncio.sleep_ms(0)

    asyncio.run(run())
    reference = _oled()
    View(board, Pixels(board.led_count), reference).refresh(game)
    return host, oled, reference


def _check(arrive_during):
    if not _MICROPYTHON:
        skip("needs asyncio.sleep_ms and framebuf: runs in the MicroPython pass")
    host, oled, reference = _paint(arrive_during)
    assert host.arrived, "the request never came: the painter did not draw at all"
    assert host.listener_errors == 0
    assert any(reference.screen), "the game's sheet draws something"
    assert oled.screen == reference.screen, \
        "a request arrived while the %s went out and the OLED was left stale" % arrive_during


def test_a_request_arriving_while_the_leds_go_out_leaves_the_sheet_drawn_after_it():
    _check("leds")


def test_a_request_arriving_while_the_sheet_is_drawn_leaves_the_rest_drawn_after_it():
    _check("sheet")


class _Sleepy:
    """A view that counts its draws, and what the painter asks of it while idle."""
    oled_down = False

    def __init__(self):
        self.drawn = 0

    def set_stop(self, stop):
        pass

    def retry_due(self):
        return False

    def refresh_leds(self, game):
        self.drawn += 1

    def refresh_sheet(self, game, board_input):
        pass

    def pending(self):
        return False

    def problem(self):
        return None


def test_an_idle_painter_sleeps_until_a_change_and_then_draws_it():
    # nothing due: the painter looks once and sleeps (it used to look every 40 ms: 25 turns of the
    # scheduler a second on an idle board, each allocating asyncio's wait frame on the heap);
    # a change wakes it, and it draws once the host has been quiet 25 ms
    if not _MICROPYTHON:
        skip("needs asyncio.sleep_ms: runs in the MicroPython pass")
    import asyncio
    from time import ticks_diff, ticks_ms
    from tallypanel import start

    class Counting(start.Painter):
        looks = 0

        def end_left_test(self, now):
            self.looks += 1
            return False

    view = _Sleepy()
    host = Host(Game(), ticks_ms)
    painter = Counting(view)
    painter.use(host, None)
    painter.due = False

    async def run():
        painting = asyncio.create_task(painter.run())
        await asyncio.sleep_ms(400)            # ten looks' time at 40 ms
        idle_looks = painter.looks
        painter.soon()                         # a change
        began = ticks_ms()
        while not view.drawn and ticks_diff(ticks_ms(), began) < _BOUND_MS:
            await asyncio.sleep_ms(10)
        painting.cancel()
        await asyncio.sleep_ms(0)
        return idle_looks

    idle_looks = asyncio.run(run())
    assert idle_looks == 1, "the idle painter looked %d times in 400 ms" % idle_looks
    assert view.drawn == 1
