# The builder's self-test run by the board alone (issue 42; board/README.md,
# "The first power-up"): entered by holding the definition's test button
# (buttons.test) while the board powers up, worked with the board's own knob
# and buttons, its words on the OLED. Loaded only then: a board that is not
# being tested holds none of it on its heap.
#
#   1. LEDS     the chain lit one LED at a time in wire order, the OLED naming
#               the hole the definition puts it in; the knob steps (undo steps
#               on, for a board without a knob), a seat button marks the LED
#               wrong, the push (a long press) goes on.
#   2. BUTTONS  each seat button, undo and shift, then the knob clockwise,
#               anticlockwise and its push, asked for in turn, each for
#               _ASK_MS of the board's clock: seen, never seen, stuck down, or
#               (the knob) turned the other way.
#   3. DISPLAY  the OLED all on, a checkerboard, its edges (tallypanel.selftest
#               .pattern), each until a press or _PATTERN_MS.
#   4. RESULT   what was found, with what to do; the same said to a host
#               listening (a NOTE event). A push (a long press) ends the test and
#               the game is drawn again.
#
# It holds the painter (tallypanel.start.Painter.hold) as the host's self-test
# does, and is one (a selftest.Test): a host's LAMP, PINS, SCAN, POWER and
# PIXELS work on it too, and LAMP - ends it. The game and its journal are never
# touched: nothing here calls the app but say().
from tallycore import const, ticks_diff, ticks_ms
from tallypanel.menu import SEAT, SEAT_LONG, UNDO, TURN, PUSH, HOLD
from tallypanel.screen import LIST, blank, put, numl
from tallypanel.selftest import Test, current, lamp_hole, light, pattern, ON, EDGES
from tallypanel.wiring import NO_LIGHT, NO_PIN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_LEDS = const(0)
_BUTTONS = const(1)
_DISPLAY = const(2)
_RESULT = const(3)
_STAGE_NAMES = (b"1/4 LEDS", b"2/4 BUTTONS", b"3/4 DISPLAY", b"4/4 RESULT")

_ASK_MS = const(10000)      # how long each button is waited for
_PATTERN_MS = const(4000)   # how long each display pattern stays without a press
_TICK_MS = const(20)        # how often the test looks at its pins and its clock
_ARM_TICKS = const(10)      # the test button up this many ticks running (200 ms) before a press counts: its
#                             own release, which the controls report as a press once debounced, comes first
_SETTLE_MS = const(600)     # a press this soon after a pattern is drawn (the push just asked for) is not for it

# what each ask of BUTTONS found
_WAITING = const(0)
_SEEN = const(1)
_NONE = const(2)            # never seen within _ASK_MS
_STUCK = const(3)           # down when asked and never let go
_WRONG_WAY = const(4)       # the knob turned, but read the other way round

_KNOB_CW = const(0xFD)      # the asks of the knob, after the buttons' GPIOs
_KNOB_ACW = const(0xFE)
_WORDS = (b"", b"OK", b"NEVER SEEN", b"STUCK DOWN", b"REVERSED")
_ROWS = (b"STATION", b"TALLY", b"KING")


class OnBoard(Test):
    """The self-test worked from the board (the module's stages). press() takes
    the controls' presses; run() is its task on the app's loop, tick(now) its
    step by the board's clock."""

    from_host = False

    def __init__(self, board, view, painter, app, pin_reader):
        Test.__init__(self, board, pin_reader)
        self.view = view
        self.painter = painter
        self.app = app
        self.stage = _LEDS
        self.led = 0
        self.marked = bytearray(board.led_count)
        self.test_read = None            # type: Any  # the test button's pin, let go to arm the test
        if board.test_pin != NO_PIN:
            self.test_read = pin_reader(board.test_pin)
        self.armed = self.test_read is None     # presses count once the test button held at power-up is let go
        self.up_ticks = 0                       # the ticks it has been up, running
        asks = []                               # the BUTTONS asks: GPIOs, then the knob's
        for gpio in board.seat_pins:
            asks.append(gpio)
        for gpio in (board.undo_pin, board.shift_pin):
            if gpio != NO_PIN:
                asks.append(gpio)
        if board.encoder_a != NO_PIN:
            asks.append(_KNOB_CW)
            asks.append(_KNOB_ACW)
            asks.append(board.encoder_push)
        self.asks = bytes(asks)
        self.found = bytearray(len(asks))
        self.ask = 0
        self.was_up = True          # the button asked for was seen up since it was asked
        self.pattern = ON
        self.since = 0              # when the stage, the ask or the pattern began (begin)
        self.seconds = -1           # the seconds to go the OLED shows
        self.drawn = False          # the OLED shows the stage as it stands
        self.step_on = False        # a press asked for the next stage (or pattern)

    # --- the controls -------------------------------------------------------

    def press(self, kind, value):
        Test.press(self, kind, value)     # a host's PINS counts them too
        stage = self.stage
        if not self.armed or stage == _BUTTONS:
            return                        # the buttons' stage reads the pins itself
        if stage == _DISPLAY:
            self.step_on = True          # the next pattern (unless the push just asked for: tick)
            return
        if kind == PUSH or kind == HOLD or kind == SEAT_LONG:
            self.step_on = True
        elif stage == _LEDS:
            if kind == TURN or kind == UNDO:
                self._show_led(self.led + (value if kind == TURN else 1))
            elif kind == SEAT:
                self.marked[self.led] ^= 1
            self.drawn = False

    # --- the clock ----------------------------------------------------------

    def begin(self, now):
        """The walk's first LED lit: the test's clock starts."""
        self.since = now
        self._show_led(0)

    async def run(self):
        import asyncio
        self.begin(ticks_ms())
        while self.painter.test is self:     # a host's LAMP - ends it too
            try:
                self.tick(ticks_ms())
            except Exception as exc:  # a bug or a MemoryError in the test must not stop the board
                self.app.listener_errors += 1
                self.app.note("self-test: %s" % exc)
                self.painter.hold(None)      # the game back
            await asyncio.sleep_ms(_TICK_MS)

    def tick(self, now):
        """The test moved on by the board's clock: its pins read, its stage's time-outs
        taken, the OLED drawn when it changed."""
        if not self.armed:
            self.up_ticks = self.up_ticks + 1 if self.test_read() else 0
            if self.up_ticks >= _ARM_TICKS:
                self.armed = True
                self.drawn = False
        stage = self.stage
        if stage == _BUTTONS:
            self._listen(now)
        elif stage == _DISPLAY:
            shown_for = ticks_diff(now, self.since)
            if shown_for < _SETTLE_MS:
                self.step_on = False
            elif shown_for >= _PATTERN_MS:
                self.step_on = True
        if self.step_on:
            self.step_on = False
            self._next(now)
            if self.painter.test is not self:
                return                       # ended: the display is the game's
        if self.stage == _BUTTONS and (_ASK_MS - ticks_diff(now, self.since) + 999) // 1000 != self.seconds:
            self.drawn = False               # the seconds to go, counted down
        if not self.drawn:
            self._draw(now)

    def _next(self, now):
        self.since = now
        self.drawn = False
        stage = self.stage
        if stage == _LEDS:
            light(self.view, -1)
            self.stage = _BUTTONS
            self._asking(now)
        elif stage == _DISPLAY and self.pattern < EDGES:
            self.pattern += 1
            self._pattern()
        elif stage == _DISPLAY:
            self._result()
        elif stage == _RESULT:
            sheet = self.view.sheet
            if sheet is not None:
                sheet.layout = -1            # the game's sheet drawn whole
            self.painter.hold(None)          # the game drawn and played again

    # --- 1. the LEDs ----------------------------------------------------------

    def _show_led(self, led):
        count = self.board.led_count
        self.led = 0 if led < 0 else count - 1 if led >= count else led
        light(self.view, self.led)

    # --- 2. the buttons and the knob ------------------------------------------

    def _up(self, gpio):
        gpios = self.gpios
        for i in range(len(gpios)):
            if gpios[i] == gpio:
                return self.reads[i]() == 1
        return True

    def _asking(self, now):
        """The ask at self.ask begun (or, after the last, the display's stage)."""
        self.since = now
        self.drawn = False
        self.take_turns()
        if self.ask < len(self.asks):
            gpio = self.asks[self.ask]
            self.was_up = True if gpio >= _KNOB_CW else self._up(gpio)
            light(self.view, self._light_of(gpio))   # the LED beside the seat button asked for, if it has one
        elif self.view.sheet is not None:
            self.stage = _DISPLAY
            self.pattern = ON
            self._pattern()
        else:
            self._result()

    def _listen(self, now):
        ask = self.ask
        gpio = self.asks[ask]
        found = _WAITING
        if gpio >= _KNOB_CW:
            turned = self.take_turns()
            if turned:
                found = _SEEN if (turned > 0) == (gpio == _KNOB_CW) else _WRONG_WAY
        elif self._up(gpio):
            self.was_up = True
        elif self.was_up:
            found = _SEEN
        if found == _WAITING:
            if ticks_diff(now, self.since) < _ASK_MS:
                return
            found = _NONE if self.was_up else _STUCK
        self.found[ask] = found
        self.ask = ask + 1
        self._asking(now)

    def _light_of(self, gpio):
        """The LED beside the seat button on gpio (buttons.lights), or -1: a board without an OLED
        shows which button it asks for so."""
        board = self.board
        for seat in range(len(board.seat_pins)):
            if board.seat_pins[seat] == gpio and board.seat_lights[seat] != NO_LIGHT:
                return board.seat_lights[seat]
        return -1

    # --- 3. the display ---------------------------------------------------------

    def _pattern(self):
        self.view.sheet.layout = -1          # the rows drawn whole after the patterns
        try:
            pattern(self.view.oled, self.pattern)
        except OSError:
            pass                             # a display that stopped answering: no pattern to see

    # --- 4. the result ----------------------------------------------------------

    def _result(self):
        self.stage = _RESULT
        self.app.say(self._summary())

    def _marks(self):
        marks = 0
        for m in self.marked:
            marks += m
        return marks

    def _summary(self):
        """The result in words, for a host listening (allocates: once, at the end)."""
        words = []
        marked = [str(led + 1) for led in range(len(self.marked)) if self.marked[led]]
        if marked:
            words.append("LED %s marked wrong (tallyboard board test names the hole each lit and the fix)"
                         % ", ".join(marked))
        for i in range(len(self.asks)):
            if self.found[i] != _SEEN:
                words.append("%s: %s" % (self._name(self.asks[i]), _WORDS[self.found[i]].decode().lower()))
        if not words:
            words.append("every LED and control as the definition says")
        budget = self.view.leds.budget_ma
        full, allows = current(self.board, budget)
        words.append("every LED white would draw %d mA against the budget's %d mA, which allows brightness "
                     "%d of 255" % (full, budget, allows))
        return "self-test on the board: " + "; ".join(words)

    def _name(self, gpio):
        board = self.board
        if gpio == _KNOB_CW:
            return "knob clockwise"
        if gpio == _KNOB_ACW:
            return "knob anticlockwise"
        if gpio == board.undo_pin:
            return "undo"
        if gpio == board.shift_pin:
            return "shift"
        if gpio == board.encoder_push:
            return "knob push"
        for seat in range(len(board.seat_pins)):
            if board.seat_pins[seat] == gpio:
                return "seat " + chr(board.seat_letters[seat])
        return "GPIO %d" % gpio

    # --- the OLED -----------------------------------------------------------------

    def _label(self, gpio):
        return self._name(gpio).upper().encode()

    def _draw(self, now):
        sheet = self.view.sheet
        if sheet is None or self.stage == _DISPLAY:
            self.drawn = True
            return
        sheet.use(LIST)
        lines = sheet.lines
        for line in lines:
            blank(line)
        put(lines[0], put(lines[0], 0, b"SELF-TEST "), _STAGE_NAMES[self.stage])
        if self.stage == _LEDS:
            self._draw_leds(lines)
        elif self.stage == _BUTTONS:
            self._draw_buttons(lines, now)
        else:
            self._draw_result(lines)
        sheet.flush()
        self.drawn = not sheet.lines_pending()   # a request arriving cut it short: the rest next tick

    def _draw_leds(self, lines):
        led = self.led
        line = lines[1]
        numl(line, put(line, numl(line, put(line, 0, b"LED "), led + 1), b" OF "), self.board.led_count)
        player, row, hole = lamp_hole(self.board, led)
        line = lines[2]
        if player < 0:
            put(line, 0, b"NO HOLE (BESIDE A BUTTON)")
        else:
            at = put(line, put(line, numl(line, put(line, 0, b"PLAYER "), player + 1), b" "), _ROWS[row])
            if row:
                numl(line, put(line, at, b" HOLE "), hole + 1)
        if self.marked[led]:
            put(lines[4], 0, b"MARKED WRONG")
        numl(lines[5], put(lines[5], 0, b"MARKED SO FAR: "), self._marks())
        put(lines[7], 0, b"KNOB/UNDO: NEXT  SEAT: WRONG")
        put(lines[8], 0, b"PUSH OR HOLD A SEAT: ON")
        if not self.armed:
            put(lines[9], 0, b"LET GO OF THE TEST BUTTON")

    def _draw_buttons(self, lines, now):
        ask = self.ask
        gpio = self.asks[ask]
        name = self._label(gpio)
        put(lines[2], put(lines[2], 0, b"TURN THE " if gpio >= _KNOB_CW else b"PRESS "), name)
        if gpio < _KNOB_CW:
            numl(lines[3], put(lines[3], 0, b"GPIO "), gpio)
        self.seconds = (_ASK_MS - ticks_diff(now, self.since) + 999) // 1000
        put(lines[4], numl(lines[4], 0, self.seconds), b" S TO GO")
        first = ask - 4 if ask > 4 else 0     # the last four answers
        for i in range(first, ask):
            line = lines[6 + i - first]
            put(line, put(line, put(line, 0, self._label(self.asks[i])), b": "), _WORDS[self.found[i]])

    def _draw_result(self, lines):
        line = lines[1]
        numl(line, put(line, 0, b"LEDS MARKED WRONG: "), self._marks())
        row = 2
        for i in range(len(self.asks)):
            if self.found[i] != _SEEN and row < 7:
                line = lines[row]
                put(line, put(line, put(line, 0, self._label(self.asks[i])), b": "), _WORDS[self.found[i]])
                row += 1
        if row == 2:
            put(lines[row], 0, b"EVERY CONTROL ANSWERED")
        budget = self.view.leds.budget_ma
        full, allows = current(self.board, budget)
        line = lines[7]
        numl(line, put(line, numl(line, put(line, 0, b"ALL WHITE "), full), b" MA, BUDGET "), budget)
        line = lines[8]
        put(line, numl(line, put(line, 0, b"BUDGET ALLOWS BRIGHTNESS "), allows), b"/255")
        put(lines[9], 0, b"PUSH: BACK TO THE GAME")
