# The board's controls, after Peter Hinch's micropython-async primitives:
# buttons and the rotary encoder are polled in asyncio tasks; a pin is an
# injected callable returning 0 or 1 (machine.Pin.value on the board, the
# emulator's pins.bin, a list in a test). Buttons are wired to ground with
# pull-ups: 0 = pressed. Every input goes to one handler(kind, value) with
# the kinds of tallypanel.menu (SEAT, SEAT_LONG, UNDO, TURN, PUSH, HOLD).
#
# poll(now_ms) does the work and is what the tests drive with made-up
# times; run() is the task that calls it. Where the hardware layer offers
# pin-change interrupts (pin_irq), the interrupts only set a ThreadSafeFlag:
# the buttons' task sleeps until a contact moves, then reads every
# debounce_ms while one is down (a short press counts when it is let go,
# so that is how late it can be seen); the encoder is followed in its
# interrupt and its task sleeps until an edge to hand the detents out.
# Without interrupts (the emulator) the buttons are read every idle_poll_ms
# while none is down, and the encoder every 2 ms, fast enough for a detent
# by hand.
#
# A control that fails is let be and said (say(text): a NOTE for the host): a
# button held down stuck_ms is stuck and ignored until let go (a stuck shift
# no longer makes every press long); an encoder whose pins change more than
# Encoder.storm_edges times in a second (a bouncing contact, no hand turns
# that fast) is read every STORM_POLL_MS only, until a second passes quiet.
import asyncio

from tallypanel.menu import SEAT, SEAT_LONG, UNDO, TURN, PUSH, HOLD

from tallycore import const, ticks_diff, ticks_ms

_ENCODER_POLL_MS = const(2)
_STORM_POLL_MS = const(100)   # an encoder in a storm of bounces is read this often


# MicroPython's sleep_ms reuses one generator; an `async def` wrapper around it
# would allocate a new one on every poll (500 a second for the encoder).
if hasattr(asyncio, "sleep_ms"):
    _sleep_ms = asyncio.sleep_ms
else:  # CPython's asyncio
    def _sleep_ms(ms):  # type: ignore[misc]
        return asyncio.sleep(ms / 1000)


class Button:
    """A debounced push button. A press shorter than long_press_ms sends
    (short_kind, value) when released; held that long it sends
    (long_kind, value) at once and nothing on release. A button without a
    long kind sends short_kind as soon as it is pressed. Read no more often
    than debounce_ms (longer than a contact's bounce: one read can fall in
    a bounce, never two), so a bounce is never a second press."""
    debounce_ms = 10
    idle_poll_ms = 50      # reads while none is down, where pins have no interrupts
    long_press_ms = 600
    stuck_ms = 10000

    def __init__(self, pin, handler, short_kind, long_kind=-1, value=0, shift=None, name="a button",
                 say=None):
        self.pin = pin
        self.handler = handler
        self.short_kind = short_kind
        self.long_kind = long_kind
        self.value = value
        self.shift = shift        # another Button: held, a short press counts as long
        self.pressed = False
        self.down_at = 0
        self.long_sent = False
        self.name = name
        self.say = say
        self.stuck = False

    def poll(self, now):
        down = self.pin() == 0
        if self.stuck:
            if not down:                 # let go: a working button again, no press sent
                self.stuck = False
                self.pressed = False
                if self.say is not None:
                    self.say("inputs: %s is let go and works again" % self.name)
            return
        if down and self.pressed and ticks_diff(now, self.down_at) >= self.stuck_ms:
            self.stuck = True
            if self.say is not None:
                self.say("inputs: %s has been held down for %d s: it is ignored until it is let go; "
                         "USB and the other controls keep scoring" % (self.name, self.stuck_ms // 1000))
            return
        if down and not self.pressed:
            self.pressed = True
            self.down_at = now
            self.long_sent = False
            if self.long_kind < 0:
                self.handler(self.short_kind, self.value)
            elif self.shift is not None and self.shift.pressed and not self.shift.stuck:
                self.long_sent = True
                self.handler(self.long_kind, self.value)
        elif down:
            if (self.long_kind >= 0 and not self.long_sent
                    and ticks_diff(now, self.down_at) >= self.long_press_ms):
                self.long_sent = True
                self.handler(self.long_kind, self.value)
        elif self.pressed:
            self.pressed = False
            if self.long_kind >= 0 and not self.long_sent:
                self.handler(self.short_kind, self.value)

    async def run(self):
        while True:
            self.poll(ticks_ms())
            await _sleep_ms(self.debounce_ms)


# Quadrature: index (previous AB << 2 | AB) -> step (+1 clockwise, -1
# counter-clockwise, 0 for no change or a bounce that skipped a state).
_STEPS = b"\x00\x01\xff\x00\xff\x00\x00\x01\x01\x00\x00\xff\x00\xff\x01\x00"


class Encoder:
    """A rotary encoder on pins a and b: one (TURN, +1 / -1) per detent.

    The quadrature is followed where the pins are read: in poll(), or, with
    pin interrupts, in the interrupt itself (a hard one: it runs even while
    the loop is busy in a long bus write, such as an OLED redraw, during
    which a fast turn passes several states; read later, two changes at once
    are no step, and a detent was lost). The detents are counted in cw and
    ccw, only ever incremented there, and handed out by the task."""

    storm_edges = 400     # changes in a second: far past a fast hand's 20 detents of 4

    def __init__(self, pin_a, pin_b, handler, steps_per_detent=4, say=None):
        self.pin_a = pin_a
        self.pin_b = pin_b
        self.handler = handler
        self.steps_per_detent = steps_per_detent
        self.state = pin_a() << 1 | pin_b()
        self.count = 0
        self.say = say
        self.storm = False       # the pins bounce without end: read slowly
        self.edges = 0           # changes since window_at (counted where the pins are followed)
        self.window_at = 0
        self.cw = 0          # detents turned, written only by _follow
        self.ccw = 0
        self.cw_sent = 0     # and handed to the handler, written only by _hand_out
        self.ccw_sent = 0

    def _follow(self):
        # allocation-free: the pin interrupt calls it
        new = self.pin_a() << 1 | self.pin_b()
        if new == self.state:
            return
        self.edges += 1
        step = _STEPS[self.state << 2 | new]
        self.state = new
        if step == 0:
            return
        self.count += 1 if step == 1 else -1
        if self.count >= self.steps_per_detent:
            self.count = 0
            self.cw += 1
        elif self.count <= -self.steps_per_detent:
            self.count = 0
            self.ccw += 1

    def _hand_out(self):
        while self.cw_sent != self.cw:
            self.cw_sent += 1
            self.handler(TURN, 1)
        while self.ccw_sent != self.ccw:
            self.ccw_sent += 1
            self.handler(TURN, -1)

    def _judge(self, now):
        # once a second: a storm of changes, or quiet again after one
        if not self.storm and self.edges > self.storm_edges:
            self.storm = True
            if self.say is not None:
                self.say("inputs: the knob's pins changed %d times in a second (a bouncing contact?): it is "
                         "read slowly until they settle; USB and the buttons keep scoring" % self.edges)
        elif self.storm and self.edges * _STORM_POLL_MS < 1000:
            # fewer changes than slow reads: settled
            self.storm = False
            if self.say is not None:
                self.say("inputs: the knob's pins have settled and it works again")
        self.edges = 0
        self.window_at = now

    def poll(self, now=0):
        if ticks_diff(now, self.window_at) >= 1000:
            self._judge(now)
        self._follow()
        self._hand_out()

    async def run(self):
        while True:
            self.poll(ticks_ms())
            await _sleep_ms(_STORM_POLL_MS if self.storm else _ENCODER_POLL_MS)

    def wake_on_edges(self, pin_irq, gpio_a, gpio_b):
        """Follow the pins in their interrupt and sleep until one changes
        instead of polling, if pin_irq(gpio, isr) can attach a hard interrupt
        to both pins (it returns False where it cannot)."""
        if not hasattr(asyncio, "ThreadSafeFlag"):
            return False
        self.flag = asyncio.ThreadSafeFlag()
        self.isr = self._edge   # bound once: the interrupt must not allocate
        return pin_irq(gpio_a, self.isr) and pin_irq(gpio_b, self.isr)

    def _edge(self, pin):
        if self.storm:
            return          # bouncing without end: the task reads the pins slowly instead
        self._follow()
        self.flag.set()

    async def run_on_edges(self):
        while True:
            if self.storm:
                await _sleep_ms(_STORM_POLL_MS)   # read slowly, and see the pins settle
            else:
                await self.flag.wait()
            self.poll(ticks_ms())


class Inputs:
    """Every control of a board definition. pin_reader(gpio) returns the
    pin callable for a GPIO (the hardware layer makes it: pull-up input)."""

    def __init__(self, board, pin_reader, handler, pin_irq=None, say=None):
        """say(text): a control found stuck or bouncing, or working again (a NOTE)."""
        self.handler = handler
        self.buttons = []
        gpios = []                # the buttons' pins, for their interrupts

        def add(gpio, *args, **kwargs):
            button = Button(pin_reader(gpio), *args, **kwargs)
            self.buttons.append(button)
            gpios.append(gpio)
            return button

        self.shift = None
        if board.shift_pin >= 0:
            self.shift = add(board.shift_pin, _ignore, -1, name="the shift button", say=say)
        for seat in range(len(board.seat_pins)):
            add(board.seat_pins[seat], handler, SEAT, SEAT_LONG, seat, self.shift, "seat %d's button" % seat, say)
        if board.undo_pin >= 0:
            add(board.undo_pin, handler, UNDO, name="the undo button", say=say)
        self.flag = None          # set by a button's pin interrupt (_wake_on_edges)
        self.encoder = None
        if board.encoder_a >= 0:
            self.encoder = Encoder(pin_reader(board.encoder_a), pin_reader(board.encoder_b),
                                   handler, board.steps_per_detent, say)
            self.encoder_on_edges = (pin_irq is not None
                                     and self.encoder.wake_on_edges(pin_irq, board.encoder_a, board.encoder_b))
            add(board.encoder_push, handler, PUSH, HOLD, name="the knob's push", say=say)
        self.buttons_on_edges = pin_irq is not None and self._wake_on_edges(pin_irq, gpios)

    def poll(self, now):
        for button in self.buttons:
            button.poll(now)
        if self.encoder is not None:
            self.encoder.poll(now)

    def _wake_on_edges(self, pin_irq, gpios):
        if not hasattr(asyncio, "ThreadSafeFlag"):
            return False
        flag = asyncio.ThreadSafeFlag()
        self.isr = self._edge     # bound once: the interrupt must not allocate
        for gpio in gpios:
            if not pin_irq(gpio, self.isr):
                return False
        self.flag = flag
        return True

    def _edge(self, pin):
        flag = self.flag
        if flag is not None:
            flag.set()

    def _held(self):
        for button in self.buttons:
            if button.pressed and not button.stuck:
                return True
        return False

    async def run_buttons(self):
        last = ticks_ms()
        while True:
            if self._held():
                await _sleep_ms(Button.debounce_ms)      # its release, a long press, stuck
            elif self.flag is None:
                await _sleep_ms(Button.idle_poll_ms)
            else:
                await self.flag.wait()                   # until a contact moves
                wait = Button.debounce_ms - ticks_diff(ticks_ms(), last)
                if wait > 0:
                    await _sleep_ms(wait)                # the last release may still be bouncing
            last = ticks_ms()
            for button in self.buttons:
                button.poll(last)

    def tasks(self):
        """Start the polling tasks (call inside the app's event loop)."""
        started = [asyncio.create_task(self.run_buttons())]
        if self.encoder is not None:
            run = self.encoder.run_on_edges if self.encoder_on_edges else self.encoder.run
            started.append(asyncio.create_task(run()))
        return started


_FADE_POLL_MS = const(100)    # how often a refused press's words are looked at (menu.BoardInput.fade)


async def fade_notes(board_input, redraw):
    """The words of a refused press leave the OLED by themselves: redraw()
    once BoardInput.fade has cleared them. With no words shown it sleeps until
    a press brings some (BoardInput.fading)."""
    fading = asyncio.Event()
    board_input.wake_on_note(fading)
    while True:
        if board_input.note is None and not board_input.refused:
            fading.clear()
            await fading.wait()
        await _sleep_ms(_FADE_POLL_MS)
        if board_input.fade(ticks_ms()):
            redraw()


def _ignore(kind, value):
    pass

