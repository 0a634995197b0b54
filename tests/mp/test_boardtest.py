# The self-test the board runs by itself (tallypanel/boardtest.py, issue 42):
# entered with the definition's test button held at power-up, worked with the
# board's own knob and buttons, its words on the OLED. Driven here by its own
# clock (tick(now): no sleeps) and pins read from a table, on the reference
# board's definition (board/pico-reference.json, by hand: LED 0 player 0's
# station, LEDs 1..45 his tally holes 0..44, 46..65 his king holes 0..19, then
# player 1's the same from LED 66; seats on GPIO 10, 11, 12, 13, undo 14,
# shift 15, the knob's push 18; the test button is shift, 15).
import sys

from mpfixtures import skip
from tallypanel import boarddef
from tallypanel.menu import SEAT, UNDO, TURN, PUSH
from tallypanel.start import Painter
from tallypanel.view import View
from test_view import Pixels

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
BOARD_DIR = _HERE + "/../../board"
_MICROPYTHON = sys.implementation.name == "micropython"
DIM = 24     # the walk's white (tallypanel.selftest._LEVEL)


def _oled():
    import framebuf

    class Oled(framebuf.FrameBuffer):
        def __init__(self):
            self.buffer = bytearray(1024)
            super().__init__(self.buffer, 128, 64, framebuf.MONO_VLSB)
            self.shows = 0

        def show(self, pages=0xFF, lo=None, hi=None):
            self.shows += 1

    return Oled()


class App:
    def __init__(self):
        self.said = []
        self.listener_errors = 0

    def say(self, text):
        self.said.append(text)


class Rig:
    def __init__(self, name="pico-reference", mcu=None):
        try:
            import framebuf  # noqa: F401
        except ImportError:
            skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
        self.board = boarddef.find(name, BOARD_DIR, mcu) if mcu else boarddef.find(name, BOARD_DIR)
        self.levels = bytearray(b"\x01" * 48)
        self.test_pin = self.board.test_pin
        self.levels[self.test_pin] = 0           # the test button, held as the board powers up
        self.pixels = Pixels(self.board.led_count)
        self.oled = _oled() if self.board.has_oled else None
        self.view = View(self.board, self.pixels, self.oled)
        self.painter = Painter(self.view)
        self.app = App()
        from tallypanel.boardtest import OnBoard
        self.test = OnBoard(self.board, self.view, self.painter, self.app, self.reader)
        self.painter.hold(self.test)
        self.now = 0
        self.test.begin(0)
        self.tick()

    def reader(self, gpio):
        levels = self.levels
        return lambda: levels[gpio]

    def tick(self, ms=20):
        self.now += ms
        self.test.tick(self.now)

    def row(self, r):
        sheet = self.view.sheet
        assert sheet.lines[r] == sheet.shown[r], "row %d composed but not drawn" % r
        return bytes(sheet.lines[r]).rstrip().decode()

    def lit(self):
        buf = self.pixels.buf
        return [led for led in range(len(buf) // 3) if buf[3 * led] or buf[3 * led + 1] or buf[3 * led + 2]]

    def let_go(self):
        """The test button let go, and 10 ticks (200 ms) of the board's clock for its own release to pass."""
        self.levels[self.test_pin] = 1
        for _ in range(10):
            self.tick()

    def tap(self, gpio):
        self.levels[gpio] = 0
        self.tick()
        self.levels[gpio] = 1
        self.tick()


def test_the_led_walk_names_each_hole_and_marks_a_wrong_one():
    rig = Rig()
    test = rig.test
    assert rig.row(0) == "SELF-TEST 1/4 LEDS"
    assert rig.row(1) == "LED 1 OF 132"
    assert rig.row(2) == "PLAYER 1 STATION"
    assert rig.lit() == [0] and rig.pixels.buf[0:3] == bytes((DIM, DIM, DIM))
    # the test button still held from power-up: its release, not a press, comes first, and the controls'
    # report of that release (a press, once debounced) within 200 ms of it counts for nothing
    assert rig.row(9) == "LET GO OF THE TEST BUTTON"
    test.press(TURN, 1)
    rig.tick()
    assert rig.row(1) == "LED 1 OF 132"
    rig.levels[15] = 1
    for _ in range(9):
        rig.tick()
    test.press(PUSH, 0)                          # 180 ms after: not for the test
    rig.tick()
    assert (rig.row(0), rig.row(1), rig.row(9)) == ("SELF-TEST 1/4 LEDS", "LED 1 OF 132", "")
    test.press(TURN, 2)                          # LED 2: player 0's tally hole 1, hole 2 as people count
    rig.tick()
    assert (rig.row(1), rig.row(2)) == ("LED 3 OF 132", "PLAYER 1 TALLY HOLE 2")
    assert rig.lit() == [2]
    test.press(SEAT, 0)
    rig.tick()
    assert (rig.row(4), rig.row(5)) == ("MARKED WRONG", "MARKED SO FAR: 1")
    test.press(UNDO, 0)                          # undo steps on too (a board without a knob)
    rig.tick()
    assert (rig.row(1), rig.row(2), rig.row(4)) == ("LED 4 OF 132", "PLAYER 1 TALLY HOLE 3", "")
    test.press(TURN, -10)                        # not before the first
    rig.tick()
    assert rig.row(1) == "LED 1 OF 132"
    test.press(TURN, 200)                        # nor past the last: LED 131, player 1's king hole 19
    rig.tick()
    assert (rig.row(1), rig.row(2)) == ("LED 132 OF 132", "PLAYER 2 KING HOLE 20")
    assert rig.lit() == [131]
    if _MICROPYTHON:                             # a look with nothing changed allocates nothing
        import micropython
        micropython.heap_lock()
        try:
            for _ in range(10):
                rig.tick()
        finally:
            micropython.heap_unlock()
    test.press(PUSH, 0)                          # on to the buttons: the chain dark
    rig.tick()
    assert rig.row(0) == "SELF-TEST 2/4 BUTTONS" and rig.lit() == []


def test_each_button_and_the_knob_asked_in_turn_with_time_outs_then_the_patterns_and_the_result():
    rig = Rig()
    test = rig.test
    rig.let_go()
    test.press(TURN, 2)
    test.press(SEAT, 0)                          # LED 2 (LED 3 as people count) marked wrong
    test.press(PUSH, 0)
    rig.tick()
    assert (rig.row(2), rig.row(3), rig.row(4)) == ("PRESS SEAT A", "GPIO 10", "10 S TO GO")
    rig.tap(10)                                  # seat A seen
    assert (rig.row(2), rig.row(6)) == ("PRESS SEAT B", "SEAT A: OK")
    asked = rig.now - 20          # seat B was asked at the tick that saw A down; A's release came 20 ms after
    rig.tick(9979 - 20)           # asked + 9979 ms: (10000 - 9979 + 999) // 1000 = 1 s to go
    assert rig.row(2) == "PRESS SEAT B" and rig.row(4) == "1 S TO GO"
    rig.levels[12] = 0            # seat C's button stuck down before it is asked
    rig.tick(20)
    assert rig.now - asked == 9999
    assert rig.row(2) == "PRESS SEAT B"
    rig.tick(1)                                  # 10 000 ms: never seen
    assert (rig.row(2), rig.row(7)) == ("PRESS SEAT C", "SEAT B: NEVER SEEN")
    rig.tick(10000)                              # down all along, never let go: stuck
    assert (rig.row(2), rig.row(8)) == ("PRESS SEAT D", "SEAT C: STUCK DOWN")
    rig.tap(13)
    rig.tap(14)
    assert rig.row(2) == "PRESS SHIFT"
    rig.tap(15)
    assert rig.row(2) == "TURN THE KNOB CLOCKWISE"
    assert [rig.row(r) for r in (6, 7, 8, 9)] == ["SEAT C: STUCK DOWN", "SEAT D: OK", "UNDO: OK", "SHIFT: OK"]   # the last four
    test.press(TURN, -1)                         # the knob's A and B crossed: clockwise reads back
    rig.tick()
    assert rig.row(2) == "TURN THE KNOB ANTICLOCKWISE"
    test.press(TURN, 1)
    rig.tick()
    assert rig.row(2) == "PRESS KNOB PUSH" and rig.row(3) == "GPIO 18"
    rig.levels[18] = 0
    rig.tick()
    rig.levels[18] = 1
    test.press(PUSH, 0)                          # the controls' report of that push: not for the patterns
    rig.tick(100)
    buf = rig.oled.buffer
    assert buf == b"\xff" * 1024                 # every pixel on
    rig.tick(4000)                               # each pattern for 4 s of the board's clock
    assert buf[0] == 0xAA and buf[1] == 0x55 and buf[1023] == 0x55   # (x + y) odd lit: x 0 rows 1,3..; x 1 rows 0,2..
    rig.tick(700)
    test.press(SEAT, 1)                          # or until a press
    rig.tick()
    # the frame: column 0 and 127 whole (0xFF in every page), rows 0 and 63 (bit 0 of page 0, bit 7 of page 7)
    assert buf[0] == 0xFF and buf[127] == 0xFF and buf[7 * 128] == 0xFF
    assert buf[1] == 0x01 and buf[7 * 128 + 1] == 0x80 and buf[3 * 128 + 64] == 0
    assert rig.app.said == []
    rig.tick(4000)
    assert rig.row(0) == "SELF-TEST 4/4 RESULT"
    assert [rig.row(r) for r in range(1, 6)] == [
        "LEDS MARKED WRONG: 1", "SEAT B: NEVER SEEN", "SEAT C: STUCK DOWN", "KNOB CLOCKWISE: REVERSED",
        "KNOB ANTICLOCKWISE: REVERSED"]
    # the current by hand: 132 LEDs x 3 channels x 20 mA + 132 x 1 mA idle = 7920 + 132 = 8052 mA; the
    # budget's 500 mA less the idle 132 leaves 368: 368 * 255 // 7920 = 93840 // 7920 = 11
    assert (rig.row(7), rig.row(8)) == ("ALL WHITE 8052 MA, BUDGET 500", "BUDGET ALLOWS BRIGHTNESS 11/255")
    assert rig.row(9) == "PUSH: BACK TO THE GAME"
    assert rig.app.said == ["self-test on the board: LED 3 marked wrong (tallyboard board test names the hole "
                            "each lit and the fix); seat B: never seen; seat C: stuck down; knob clockwise: "
                            "reversed; knob anticlockwise: reversed; every LED white would draw 8052 mA "
                            "against the budget's 500 mA, which allows brightness 11 of 255"]
    test.press(PUSH, 0)
    rig.tick()
    assert rig.painter.test is None and rig.painter.due     # the game drawn and played again
    assert rig.view.sheet.layout == -1                       # its sheet whole, over the test's rows


def test_a_board_whose_every_control_answers_says_so():
    rig = Rig()
    rig.let_go()
    rig.test.press(PUSH, 0)
    rig.tick()
    for gpio in (10, 11, 12, 13, 14, 15):
        rig.tap(gpio)
    rig.test.press(TURN, 1)
    rig.tick()
    rig.test.press(TURN, -1)
    rig.tick()
    rig.tap(18)
    for _ in range(3):
        rig.tick(4000)
    assert rig.row(0) == "SELF-TEST 4/4 RESULT"
    assert (rig.row(1), rig.row(2)) == ("LEDS MARKED WRONG: 0", "EVERY CONTROL ANSWERED")
    assert rig.app.said == ["self-test on the board: every LED and control as the definition says; every LED "
                            "white would draw 8052 mA against the budget's 500 mA, which allows brightness 11 of 255"]


def test_a_board_without_an_oled_lights_the_led_beside_the_seat_button_it_asks_for():
    # board/pico2-serpentine-nooled.json: no OLED, seats A and B on GPIO 6 and 7 with LEDs 132 and 133
    # beside them (buttons.lights), undo 8, the knob a 9, b 10, push 11 (its test button)
    rig = Rig("pico2-serpentine-nooled", "rp2350")
    rig.let_go()
    assert rig.lit() == [0]                      # the walk: LED 0 (its own order: player 0's station)
    rig.test.press(PUSH, 0)
    rig.tick()
    assert rig.lit() == [132]                    # seat A asked for: the LED beside it
    rig.tap(6)
    assert rig.lit() == [133]                    # seat B
    rig.tap(7)
    assert rig.lit() == []                       # undo: no LED beside it

