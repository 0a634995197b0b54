# The controls cost nothing while nobody touches them: the polling loops
# allocate nothing (proved under micropython.heap_lock on the unix port), the
# poll sleep is asyncio's own (no generator per call), and where the hardware
# layer gives pin interrupts the encoder task sleeps until an edge.
import sys

try:
    import asyncio
except ImportError:  # older MicroPython
    import uasyncio as asyncio  # type: ignore

from tallypanel import boarddef, inputs, menu
from tallypanel.inputs import Encoder, Inputs

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
BOARD_DIR = _HERE + "/../../board"
_MICROPYTHON = sys.implementation.name == "micropython"


class Pins:
    def __init__(self):
        self.level = [1] * 30

    def reader(self, gpio):
        level = self.level

        def read():
            return level[gpio]
        return read


def _board():
    return boarddef.find("pico-reference", BOARD_DIR)


def test_polling_every_control_allocates_nothing():
    pins = Pins()
    counts = [0, 0, 0, 0, 0, 0]

    def handler(kind, value):
        counts[kind] += 1

    controls = Inputs(_board(), pins.reader, handler)
    board = _board()
    undo = board.undo_pin
    a, b = board.encoder_a, board.encoder_b
    quadrature = ((0, 1), (0, 0), (1, 0), (1, 1))
    if _MICROPYTHON:
        import micropython
        micropython.heap_lock()
    try:
        now = 0
        for turn in range(200):
            for level_a, level_b in quadrature:     # one detent clockwise
                pins.level[a] = level_a
                pins.level[b] = level_b
                controls.poll(now)
                now += 2
            pins.level[undo] = turn & 1              # undo pressed every other round
            controls.poll(now)
            now += 60
    finally:
        if _MICROPYTHON:
            micropython.heap_unlock()
    assert counts[menu.TURN] == 200
    assert counts[menu.UNDO] == 100


def test_the_poll_sleep_is_asyncio_s_own():
    if _MICROPYTHON:
        assert inputs._sleep_ms is asyncio.sleep_ms   # reuses one generator
    else:
        sleeper = inputs._sleep_ms(5)                 # CPython: asyncio.sleep(0.005)
        assert asyncio.iscoroutine(sleeper)
        sleeper.close()


def test_the_encoder_sleeps_until_an_edge_where_pins_have_interrupts():
    pins = Pins()
    attached = {}

    def pin_irq(gpio, isr):
        attached[gpio] = isr
        return True

    turns = []
    encoder = Encoder(pins.reader(20), pins.reader(21), lambda kind, value: turns.append(value))
    on_edges = encoder.wake_on_edges(pin_irq, 20, 21)
    if not hasattr(asyncio, "ThreadSafeFlag"):   # CPython's asyncio: the encoder polls
        assert on_edges is False and attached == {}
        from mpfixtures import skip
        skip("needs asyncio.ThreadSafeFlag for the pin interrupts: runs in the MicroPython pass")
    assert on_edges is True and sorted(attached) == [20, 21]
    assert attached[20] == attached[21]          # one bound method, made once

    async def until(condition):
        # the task's own progress, not a stretch of the clock: on a busy machine 5 ms can pass unscheduled
        for _ in range(5000):
            if condition():
                return
            await asyncio.sleep_ms(1)

    async def turn_once():
        task = asyncio.create_task(encoder.run_on_edges())
        await asyncio.sleep_ms(1)                # the task now waits for an edge
        for level_a, level_b in ((0, 1), (0, 0), (1, 0), (1, 1)):
            pins.level[20] = level_a
            pins.level[21] = level_b
            attached[20](None)                   # what the interrupt does
            await until(lambda: encoder.state == level_a << 1 | level_b)     # the edge followed
        await until(lambda: turns)               # and the detent handed out
        task.cancel()

    asyncio.run(turn_once())
    # A B from 1 1 through 0 1, 0 0, 1 0 back to 1 1: four steps of the
    # quadrature table's -1 direction, one detent counter-clockwise
    assert turns == [-1]


def test_the_buttons_sleep_until_a_contact_moves_where_pins_have_interrupts():
    board = _board()
    pins = Pins()
    attached = {}

    def pin_irq(gpio, isr):
        attached[gpio] = isr
        return True

    got = []
    controls = Inputs(board, pins.reader, lambda kind, value=0: got.append((kind, value)), pin_irq)
    if not hasattr(asyncio, "ThreadSafeFlag"):   # CPython's asyncio: the buttons are polled
        assert controls.buttons_on_edges is False
        from mpfixtures import skip
        skip("needs asyncio.ThreadSafeFlag for the pin interrupts: runs in the MicroPython pass")
    assert controls.buttons_on_edges is True
    buttons = [board.shift_pin] + list(board.seat_pins) + [board.undo_pin, board.encoder_push]
    assert sorted(gpio for gpio in attached if gpio in buttons) == sorted(buttons)
    assert len({id(attached[gpio]) for gpio in buttons}) == 1   # one bound method, made once
    seat1 = board.seat_pins[1]
    isr = attached[seat1]

    def contact(level):
        pins.level[seat1] = level
        isr(None)                               # what the interrupt does

    # The buttons' task on the test's clock: its ticks_ms reads it, and its sleeps last until the
    # test has moved it on (one ms at a time, the task given its turn at each), so the debounce
    # is timed as on the board without waiting for it
    clock = [0]
    slept = []

    async def sleep_ms(ms):
        slept.append(ms)
        end = clock[0] + ms
        while clock[0] < end:
            await asyncio.sleep(0)

    async def advance(ms):
        for _ in range(ms):
            clock[0] += 1
            await asyncio.sleep(0)

    async def bounce(levels):                   # the contact's levels, all within the same ms
        for level in levels:
            contact(level)
            await asyncio.sleep(0)

    async def press_with_bounce():
        task = asyncio.create_task(controls.run_buttons())
        await advance(30)
        assert slept == [] and got == []        # asleep until a contact moves: no read, no sleep
        await bounce((0, 1, 0, 1, 0))           # closing, with bounce
        await advance(80)                       # held 80 ms: short
        assert got == []                        # a short press counts when it is let go
        await bounce((1, 0, 1, 0, 1))           # let go, with bounce
        await advance(40)
        task.cancel()
        await asyncio.sleep(0)

    real = inputs.ticks_ms, inputs._sleep_ms
    inputs.ticks_ms, inputs._sleep_ms = lambda: clock[0], sleep_ms
    try:
        asyncio.run(press_with_bounce())
    finally:
        inputs.ticks_ms, inputs._sleep_ms = real
    # one short press of seat 1, counted once whatever the bounce, when it was let go
    assert got == [(menu.SEAT, 1)]


def test_a_board_without_interrupts_polls_the_encoder():
    controls = Inputs(_board(), Pins().reader, lambda kind, value: None, lambda gpio, isr: False)
    assert controls.encoder_on_edges is False
    controls = Inputs(_board(), Pins().reader, lambda kind, value: None)
    assert controls.encoder_on_edges is False


def test_the_painter_s_poll_allocates_nothing():
    # the display's painter looks every 40 ms whether a change waits to be drawn
    if not _MICROPYTHON:
        from mpfixtures import skip
        skip("needs micropython.heap_lock and time.ticks_ms: runs in the MicroPython pass")
    import micropython
    from time import ticks_ms
    from tallypanel import start

    class App:
        def __init__(self):
            self.arriving = False
            self.last_request_ms = ticks_ms() - 1000

        def receiving(self):
            return self.arriving

    app = App()
    painter = start.Painter(None)
    painter.use(app, None)
    painter.due = False
    answers = [None] * 102
    painter.ready()
    micropython.heap_lock()
    try:
        for i in range(100):
            answers[i] = painter.ready()       # nothing to draw
        painter.due = True
        answers[100] = painter.ready()         # a change, the host quiet: draw
        app.arriving = True
        answers[101] = painter.ready()         # a request arriving: not now
    finally:
        micropython.heap_unlock()
    assert answers == [False] * 100 + [True, False]


def test_a_stuck_button_is_said_and_ignored_until_let_go():
    board = _board()
    pins = Pins()
    got = []
    said = []
    controls = Inputs(board, pins.reader, lambda kind, value=0: got.append((kind, value)), None, said.append)
    seat1 = board.seat_pins[1]
    pins.level[board.shift_pin] = 0             # the shift button stuck down from t=0
    controls.poll(0)
    controls.poll(10000)                        # 10 s held: stuck
    assert said == ["inputs: the shift button has been held down for 10 s: it is ignored until it is "
                    "let go; USB and the other controls keep scoring"]
    pins.level[seat1] = 0                       # a short press of seat 1 meanwhile
    controls.poll(10100)
    pins.level[seat1] = 1
    controls.poll(10200)
    assert got == [(menu.SEAT, 1)]              # short: a stuck shift does not make it long
    pins.level[board.shift_pin] = 1             # let go
    controls.poll(10300)
    assert said[1] == "inputs: the shift button is let go and works again" and got == [(menu.SEAT, 1)]
    pins.level[board.shift_pin] = 0             # and it works again: shift + seat 1 is long
    controls.poll(10400)
    pins.level[seat1] = 0
    controls.poll(10500)
    assert got == [(menu.SEAT, 1), (menu.SEAT_LONG, 1)] and len(said) == 2


def test_a_bouncing_encoder_is_said_read_slowly_and_taken_back():
    pins = [1, 1]
    said = []
    turns = []
    encoder = Encoder(lambda: pins[0], lambda: pins[1], lambda kind, value: turns.append(value), 4, said.append)
    for i in range(500):                         # pin A bounces: 500 changes in a second
        pins[0] ^= 1
        encoder.poll(2 * i + 1)
    encoder.poll(1000)
    assert encoder.storm and len(said) == 1 and said[0].startswith("inputs: the knob's pins changed 500 times")
    assert turns == []                          # a bounce on one pin is no turn
    encoder.poll(2000)                          # a quiet second: settled
    assert not encoder.storm and said[1] == "inputs: the knob's pins have settled and it works again"
    for state in ((1, 0), (0, 0), (0, 1), (1, 1)):   # one detent clockwise: AB 11 -> 10 -> 00 -> 01 -> 11
        pins[0], pins[1] = state
        encoder.poll(2100)
    assert turns == [1]


def test_fading_sleeps_while_no_words_are_shown():
    # a refused press's words fade after NOTE_MS: watched every 100 ms while they are shown, and
    # not at all while none are (it used to look ten times a second on an idle board)
    if not _MICROPYTHON:
        from mpfixtures import skip
        skip("needs asyncio.sleep_ms: runs in the MicroPython pass")
    import asyncio
    from tallypanel.inputs import fade_notes

    class Words:
        note = None
        refused = 0
        fading = None
        looks = 0

        def wake_on_note(self, event):
            self.fading = event

        def fade(self, now):
            self.looks += 1
            return False

    words = Words()

    async def run():
        fading = asyncio.create_task(fade_notes(words, lambda: None))
        await asyncio.sleep_ms(350)              # three looks' time at 100 ms
        idle_looks = words.looks
        words.note = "NOTHING TO UNDO"           # a refusal's words, as BoardInput._noted says them
        words.fading.set()
        await asyncio.sleep_ms(350)
        fading.cancel()
        await asyncio.sleep_ms(0)
        return idle_looks, words.looks

    idle_looks, looks = asyncio.run(run())
    assert idle_looks == 0
    assert looks >= 2                            # watched again once words came: 100 and 200 ms after
