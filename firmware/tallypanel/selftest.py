# The builder's self-test (issue 42, docs/protocol.md): LAMP, PINS, SCAN,
# POWER and PIXELS, each the handler of its row of tallyrun.protocol.VERBS, called
# (app, seq, req). Loaded by name on the first of them (tallyrun.app): a
# board never tested holds none of it on its heap. They read the board's
# parts, never the game: the journal and the game in play stay as they were.
#
# The first of them starts the test: the painter (tallypanel.start.Painter)
# is held (painter.hold(Test)): it draws nothing, and the controls' presses
# are counted here for PINS instead of being played; LAMP - ends the test,
# gives the controls back and redraws the game.
from tallycore import const
from tallyrun import protocol
from tallypanel.menu import SEAT, SEAT_LONG, UNDO, TURN, PUSH, HOLD
from tallypanel.wiring import SLOTS_PER_PLAYER, TALLY, KING

_LEVEL = const(24)        # the walk's white: each channel of the lit LED (of 255), a low level
_GPIOS = const(48)        # the RP2350B's GPIO 0..47: the most a board definition names
_FIRST_ADDRESS = const(0x08)   # the 7-bit I2C addresses a device may have (0x00-0x07, 0x78-0x7F reserved)
_LAST_ADDRESS = const(0x77)
_SSD1306 = const(0x3C)         # an SSD1306's address, or the next with its jumper the other way
_ROWS = (b"station", b"tally", b"king")
_NO_PANEL = (b"this board has no LED field or controls running (no board definition it can run, or a "
             b"firmware without tallypanel's display): fix the definition (board check), then test")


class Test:
    """What a self-test keeps while it runs: the buttons' pins, read directly
    (a button stuck since power-up makes no edge the controls could see), and
    the presses and the knob's detents the controls reported since the last
    PINS. Made once when the test starts: PINS, polled, allocates nothing."""

    from_host = True    # a host asks (and ends it); tallypanel.boardtest's is the board's own

    def __init__(self, board, pin_reader):
        gpios = []
        for gpio in (board.shift_pin, board.undo_pin, board.encoder_push):
            if gpio >= 0:
                gpios.append(gpio)
        for gpio in board.seat_pins:
            gpios.append(gpio)
        gpios.sort()
        self.board = board
        self.gpios = bytes(gpios)
        self.reads = [pin_reader(gpio) for gpio in gpios]
        self.pressed = bytearray(_GPIOS)   # 1: the GPIO's button was pressed since the last PINS
        self.turned = 0                    # the knob's net detents since the last PINS (+ clockwise)

    def press(self, kind, value):
        """A press the controls (tallypanel.inputs) reported: counted, not played."""
        board = self.board
        if kind == TURN:
            self.turned += value
            return
        if kind == SEAT or kind == SEAT_LONG:
            gpio = board.seat_pins[value] if value < len(board.seat_pins) else -1
        elif kind == UNDO:
            gpio = board.undo_pin
        elif kind == PUSH or kind == HOLD:
            gpio = board.encoder_push
        else:
            gpio = -1
        if 0 <= gpio < _GPIOS:
            self.pressed[gpio] = 1

    def take_turns(self):
        """The knob's net detents since the last call, and none from now."""
        turned = self.turned
        self.turned = 0
        return turned


def _test(app, seq):
    """The running self-test, started now if none runs; None when the board has
    no display and controls (the error answered)."""
    painter = app.panel
    if painter is None:
        app.error(seq, protocol.E_RULE, _NO_PANEL)
        return None
    test = painter.test
    if test is None or not test.from_host:   # the board's own (tallypanel.boardtest): the host takes over
        from tallypanel import hw
        test = Test(painter.view.board, hw.button)
        painter.hold(test)
    return test


def lamp(app, seq, req):
    """LAMP led: only that LED of the chain lit (white, low), and the hole the
    definition puts it in; LAMP -: the test ended, the game drawn again."""
    start = req.starts[2]
    w = app.writer
    if req.line[start] == 45 and req.ends[2] == start + 1:   # "-"
        painter = app.panel
        if painter is not None and painter.test is not None:
            painter.hold(None)
        w.reply(seq)
        _fields(w, b"-", 0 if painter is None else painter.view.board.led_count)
        app.send_reply()
        return
    test = _test(app, seq)
    if test is None:
        return
    view = app.panel.view
    board = view.board
    led = req.values[0]
    count = board.led_count
    if led >= count:
        w.error(seq, protocol.E_RANGE, b"led: must be - or 0 to ")
        w.number(count - 1)
        w.text(b" (the definition's chain has ")
        w.number(count)
        w.text(b" LEDs)")
        app.send_reply()
        return
    light(view, led)
    w.reply(seq)
    w.key(b"led")
    w.number(led)
    w.key(b"of")
    w.number(count)
    player, row, hole = lamp_hole(board, led)
    if player >= 0:
        w.key(b"player")
        w.number(player)
        w.key(b"row")
        w.text(_ROWS[row])
        w.key(b"hole")
        w.number(hole)
    else:   # an LED no hole has (beside a seat button)
        w.text(b" player=- row=- hole=-")
    app.send_reply()


def light(view, led):
    """Only that LED of the chain lit, white and dim (-1: none)."""
    pixels = view.pixels
    if pixels is None:
        return
    buf = pixels.buf
    for i in range(len(buf)):
        buf[i] = 0
    if led >= 0:
        at = 3 * led
        buf[at] = buf[at + 1] = buf[at + 2] = _LEVEL
    pixels.write()


def lamp_hole(board, led):
    """The hole the definition puts an LED in: (player, row, hole), row 0 the
    station, 1 tally, 2 king; (-1, -1, -1) for an LED of no hole."""
    led_of = board.led_of
    for slot in range(len(led_of)):
        if led_of[slot] == led:
            player = slot // SLOTS_PER_PLAYER
            place = slot - player * SLOTS_PER_PLAYER
            if place >= KING:
                return player, 2, place - KING
            if place >= TALLY:
                return player, 1, place - TALLY
            return player, 0, 0
    return -1, -1, -1


def _fields(w, led, count):
    w.key(b"led")
    w.text(led)
    w.key(b"of")
    w.number(count)
    w.text(b" player=- row=- hole=-")


def pins(app, seq, req):
    """PINS: the buttons' GPIOs held down now (read directly), those pressed and
    the knob's net detents (+ clockwise) since the last PINS."""
    test = _test(app, seq)
    if test is None:
        return
    w = app.writer
    w.reply(seq)
    w.key(b"down")
    gpios = test.gpios
    reads = test.reads
    first = True
    for i in range(len(gpios)):
        if reads[i]() == 0:
            first = _gpio(w, gpios[i], first)
    if first:
        w.byte(45)
    w.key(b"pressed")
    pressed = test.pressed
    first = True
    for gpio in range(_GPIOS):
        if pressed[gpio]:
            pressed[gpio] = 0
            first = _gpio(w, gpio, first)
    if first:
        w.byte(45)
    w.key(b"turned")
    w.number(test.take_turns())
    app.send_reply()


def _gpio(w, gpio, first):
    if not first:
        w.byte(44)   # ","
    w.number(gpio)
    return False


def scan(app, seq, req):
    """SCAN: the addresses that answer on the OLED's I2C bus, and the one the
    definition names (- for a board without an OLED)."""
    test = _test(app, seq)
    if test is None:
        return
    board = test.board
    w = app.writer
    if not board.has_oled:
        w.reply(seq)
        w.text(b" found=- want=-")
        app.send_reply()
        return
    from tallypanel import hw
    try:
        bus = hw.oled_i2c(board)
    except (OSError, ValueError) as exc:
        app.error(seq, protocol.E_BOARD, "the OLED's I2C bus cannot start (%s): check the definition's oled "
                  "bus, sda and scl" % exc)
        return
    w.reply(seq)
    w.key(b"found")
    first = True
    # the SSD1306's two addresses and the definition's, each sent the display's own command "show the
    # RAM" (0xA4: what it shows already), two bytes as the driver writes its commands: a write the I2C
    # peripheral makes (the port's scan() writes nothing, which the rp2 port bit-bangs instead), and
    # nothing a display at another address could mind
    probe = b"\x80\xa4"
    want = board.oled_address
    for address in range(_FIRST_ADDRESS, _LAST_ADDRESS + 1):
        if address != want and address != _SSD1306 and address != _SSD1306 + 1:
            continue
        if not _answers(bus, address, probe):
            continue
        if not first:
            w.byte(44)
        first = False
        w.hex(address, 2)
    if first:
        w.byte(45)
    w.key(b"want")
    w.hex(board.oled_address, 2)
    app.send_reply()


def _answers(bus, address, probe):
    """Whether a device acknowledges its address: asked twice, the second answer taken. The device
    twin's bus (rp2040js) reports an address's NAK to the transfer after it, one late; the chip's, at
    once: either way the second answer is this address's own."""
    for _ in range(2):
        try:
            bus.writeto(address, probe)
            answered = True
        except OSError:
            answered = False
    return answered


def power(app, seq, req):
    """POWER: the chain's current (mA) with every LED white at full brightness,
    the budget, the brightness (0..255) the budget allows for that, and the
    current the frame shown now draws; all by the LED field's estimate."""
    test = _test(app, seq)
    if test is None:
        return
    leds = app.panel.view.leds
    full, allows = current(test.board, leds.budget_ma)
    w = app.writer
    w.reply(seq)
    w.key(b"full")
    w.number(full)
    w.key(b"budget")
    w.number(leds.budget_ma)
    w.key(b"allows")
    w.number(allows)
    w.key(b"now")
    w.number(leds.estimate_ma())
    app.send_reply()


def current(board, budget_ma):
    """(mA with every LED white at full brightness, the brightness 0..255 the budget allows for
    that), by the definition's estimate (tallypanel.ledfield's)."""
    count = board.led_count
    idle = board.idle_ma_per_led * count
    full = 3 * count * board.ma_per_channel + idle
    spare = budget_ma - idle
    allows = spare * 255 // (3 * count * board.ma_per_channel) if spare > 0 else 0
    return full, allows if allows < 255 else 255


ON = const(0)         # the patterns of PIXELS, in protocol.PIXEL_PATTERNS' order
CHECKER = const(1)
EDGES = const(2)


def pattern(oled, which):
    """The whole OLED drawn with one of the test's patterns and sent: every pixel on (ON), a
    checkerboard of single pixels, so that two neighbouring rows or columns shorted together show
    as a stripe (CHECKER), or a frame on the display's outermost pixels (EDGES). Draws straight
    into the driver's buffer: allocates nothing."""
    buf = oled.buffer
    if which == CHECKER:
        for i in range(len(buf)):
            buf[i] = 0x55 if i & 1 else 0xAA   # MONO_VLSB: a byte is a column of 8 rows
    else:
        oled.fill(1 if which == ON else 0)
        if which == EDGES:
            from tallypanel.ssd1306 import WIDTH, HEIGHT
            oled.rect(0, 0, WIDTH, HEIGHT, 1)
    oled.show()


def pixels(app, seq, req):
    """PIXELS pattern: the OLED drawn with that pattern until the test ends or
    another is asked (the game's sheet drawn whole again after the test)."""
    test = _test(app, seq)
    if test is None:
        return
    view = app.panel.view
    oled = view.oled
    if oled is None or view.sheet is None:
        app.error(seq, protocol.E_BOARD, b"no OLED is drawing on this board: the definition names none, or "
                  b"it did not answer at power-up (SCAN says which addresses answer)")
        return
    which = req.values[0]
    try:
        pattern(oled, which)
    except OSError as exc:
        app.error(seq, protocol.E_BOARD, "the OLED did not take the pattern (%s): check its SDA, SCL and "
                  "power" % exc)
        return
    finally:
        view.sheet.layout = -1   # the sheet's rows drawn whole again after the test
    w = app.writer
    w.reply(seq)
    w.key(b"pattern")
    w.text(protocol.PIXEL_PATTERNS[which])
    app.send_reply()
