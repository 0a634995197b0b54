# Board definitions: the data that says how one build of the board is wired.
#
# A definition is a JSON file in board/ (see board/README.md). It names the
# pins, the LED chain order, the display, the inputs and the current budget.
# from_dict() validates it into the compact tables the firmware uses at run
# time (tallypanel.wiring: the peg slots, BoardDef); the same module runs on
# the host to render and check definitions. On the board it is loaded at
# power-up and for CFG SET board, and let go after (tallypanel.start).
#
# The chain is a list of runs in wire order, [player, row, first, last]: the
# next LEDs along the wire are that row's holes first..last (last < first
# runs backwards, as a serpentine needs).

from tallycore import const
from tallycore.game import SEAT_LETTERS

from tallypanel.wiring import (BoardDef, KING, NO_LIGHT, NO_PIN, SLOTS, SLOTS_PER_PLAYER, STATION, TALLY, path_of,
                               read, safe_mode_pin)

# Dana's board (docs/rules.md RQ2): the embossed tally holes, the 15th, 30th and
# 31st (0-based holes 14, 29, 44; the Roquet track passes them at 15, 30 and 31)
EMBOSSED_HOLES = b"\x0e\x1d\x2c"
_MAX_LEDS = const(255)   # LED indices live in a bytearray
GPIO_COUNT = const(30)  # GPIO 0..29 on the RP2040 and the RP2350A (Pico 2)
# A Pico W / Pico 2 W ("wifi": true): the CYW43439 wireless chip takes these
# GPIOs (their datasheets: GP23 WL_ON, GP24 WL_D, GP25 WL_CS, GP29 WL_CLK);
# the on-board LED is the chip's WL_GPIO0, Pin("LED"), not GP25.
WIFI_PINS = b"\x17\x18\x19\x1d"
_WIFI_SIGNALS = ("WL_ON, the chip's power", "WL_D, its data", "WL_CS, its chip select", "WL_CLK, its clock")

_TAKEN = const(1)       # a GPIO's owner while a definition is checked
_WIRELESS = const(2)

_ROWS = ("station", "tally", "king")
_ROW_BASE = b"\x00\x01\x2e"      # STATION, TALLY, KING
_ROW_HOLES = b"\x01\x2d\x14"     # 1, 45, 20



def _int(value, name, low, high):
    if not isinstance(value, int) or isinstance(value, bool) or value < low or value > high:
        raise ValueError("board: %s must be a whole number %d to %d" % (name, low, high))
    return value


def _pin(value, name, used, optional=False):
    """A GPIO for `name`; used[pin] says who has it: 0 nobody, _TAKEN a field
    before, _WIRELESS the wireless chip."""
    if value is None and optional:
        return NO_PIN
    pin = _int(value, name, 0, GPIO_COUNT - 1)
    if used[pin] == _WIRELESS:
        raise ValueError("board: %s uses GPIO %d, which the wireless chip of a Pico W or Pico 2 W takes (%s): "
                         "wire it to a free GPIO (0 to 22, 26 to 28)" % (
                             name, pin, _WIFI_SIGNALS[WIFI_PINS.find(bytes((pin,)))]))
    if used[pin]:
        raise ValueError("board: %s uses GPIO %d, which is already taken" % (name, pin))
    used[pin] = _TAKEN
    return pin


def _section(d, key, optional=False):
    value = d.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, dict):
        raise ValueError("board: missing section %s" % key)
    return value


def from_dict(d):
    """Validate a parsed definition; raises ValueError naming the field."""
    if not isinstance(d, dict):
        raise ValueError("board: a definition is a JSON object")
    b = BoardDef()
    used = bytearray(GPIO_COUNT)     # each GPIO's use so far: one use a pin
    _chip(b, d, used)
    _leds(b, _section(d, "leds"), used)
    _oled(b, _section(d, "oled", True), used)
    _buttons(b, _section(d, "buttons"), used)
    _encoder(b, _section(d, "encoder", True), used)
    b.test_pin = _test_pin(b, _section(d, "buttons").get("test"))
    _power(b, _section(d, "power"), used)
    for pin in WIFI_PINS:
        if used[pin] == _TAKEN and b.wireless_pin == NO_PIN:
            b.wireless_pin = pin
    return b


def _chip(b, d, used):
    name = d.get("name")
    if not isinstance(name, str) or not name or len(name) > 40:
        raise ValueError("board: name must be a text of 1 to 40 characters")
    b.name = name
    mcu = d.get("mcu", "rp2040")
    if mcu not in ("rp2040", "rp2350"):
        raise ValueError("board: mcu must be rp2040 or rp2350")
    b.mcu = mcu
    wifi = d.get("wifi", False)
    if wifi is not True and wifi is not False:
        raise ValueError("board: wifi must be true (a Pico W or Pico 2 W) or false")
    b.wifi = wifi
    if wifi:
        for pin in WIFI_PINS:
            used[pin] = _WIRELESS


def _leds(b, leds, used):
    b.led_pin = _pin(leds.get("pin"), "leds.pin", used)
    b.led_count = _int(leds.get("count"), "leds.count", SLOTS, _MAX_LEDS)
    if leds.get("order", "GRB") != "GRB":
        raise ValueError("board: leds.order: only GRB (WS2812B) chains are supported")
    _chain(b, leds.get("chain"))


def _oled(b, oled, used):
    if oled is None:
        return
    b.has_oled = True
    if oled.get("driver", "ssd1306") != "ssd1306":
        raise ValueError("board: oled.driver: only ssd1306 is supported")
    b.oled_width = _int(oled.get("width", 128), "oled.width", 128, 128)
    b.oled_height = _int(oled.get("height", 64), "oled.height", 64, 64)
    b.oled_bus = _int(oled.get("bus", 0), "oled.bus", 0, 1)
    b.oled_sda = _pin(oled.get("sda"), "oled.sda", used)
    b.oled_scl = _pin(oled.get("scl"), "oled.scl", used)
    b.oled_address = _int(oled.get("address", 0x3C), "oled.address", 8, 119)
    b.oled_freq = _int(oled.get("freq", 400000), "oled.freq", 10000, 1000000)


def _buttons(b, buttons, used):
    seats = buttons.get("seats")
    if not isinstance(seats, list) or len(seats) < 1 or len(seats) > 4:
        raise ValueError("board: buttons.seats must list 1 to 4 pins")
    b.seat_pins = bytearray(len(seats))
    for i in range(len(seats)):
        b.seat_pins[i] = _pin(seats[i], "buttons.seats[%d]" % i, used)
    b.seat_letters = _letters(buttons.get("letters"), len(seats))
    b.seat_lights = _lights(b, buttons.get("lights"), len(seats))
    b.undo_pin = _pin(buttons.get("undo"), "buttons.undo", used, True)
    b.shift_pin = _pin(buttons.get("shift"), "buttons.shift", used, True)


def _test_pin(b, pin):
    # The button held at power-up for the builder's self-test (tallypanel.boardtest):
    # one of the board's own buttons, not safe mode's (undo, else seat 0: wiring.safe_mode_pin)
    if pin is None:
        return NO_PIN
    safe = b.undo_pin if b.undo_pin != NO_PIN else b.seat_pins[0]
    if isinstance(pin, int) and 0 <= pin < GPIO_COUNT and pin != safe:
        if pin == b.shift_pin or pin == b.encoder_push or pin in list(b.seat_pins):
            return pin
    raise ValueError("board: buttons.test must be the GPIO of a seat button, shift or the knob's push, "
                     "not safe mode's (undo, or seat 0 on a board without undo: held at power-up, safe mode)")


def _encoder(b, encoder, used):
    if encoder is None:
        return
    b.encoder_a = _pin(encoder.get("a"), "encoder.a", used)
    b.encoder_b = _pin(encoder.get("b"), "encoder.b", used)
    b.encoder_push = _pin(encoder.get("push"), "encoder.push", used)
    b.steps_per_detent = _int(encoder.get("steps_per_detent", 4), "encoder.steps_per_detent", 1, 4)


def _power(b, power, used):
    b.budget_ma = _int(power.get("budget_ma", 500), "power.budget_ma", 100, 20000)
    b.ma_per_channel = _int(power.get("ma_per_channel", 20), "power.ma_per_channel", 1, 60)
    b.idle_ma_per_led = _int(power.get("idle_ma_per_led", 1), "power.idle_ma_per_led", 0, 5)
    if b.idle_ma_per_led * b.led_count >= b.budget_ma:
        raise ValueError("board: power.budget_ma is below the idle current of the chain")
    # the supply measured (a board's health, tallynet.health): the GPIO whose ADC reads VSYS
    # through the Pico's 3:1 divider (GPIO 29 on a Pico; on a W the wireless chip has it)
    b.vsys_adc = _pin(power.get("vsys_adc"), "power.vsys_adc", used, True)
    if b.vsys_adc != NO_PIN and b.vsys_adc < 26:
        raise ValueError("board: power.vsys_adc must be an ADC pin, GPIO 26 to 29 (29: the Pico's own 3:1 "
                         "divider; 26 to 28 through a 3:1 divider of your own)")


def _letters(value, seats):
    """The letters printed beside the seat buttons, seat 0 first: a text of one
    capital letter or digit a seat, each once (the OLED's font has no other)."""
    if value is None:
        return SEAT_LETTERS[:seats].encode()
    if not isinstance(value, str) or len(value) != seats:
        raise ValueError("board: buttons.letters must be a text of %d letters, one a seat button "
                         "in seat order (e.g. %s)" % (seats, SEAT_LETTERS[:seats]))
    for i in range(seats):
        c = value[i]
        if not ("A" <= c <= "Z" or "0" <= c <= "9"):
            raise ValueError("board: buttons.letters[%d] must be a capital letter or a digit" % i)
        if value.index(c) != i:
            raise ValueError("board: buttons.letters names %s twice: each seat button needs its own" % c)
    return value.encode()


def _lights(b, value, seats):
    """The LED beside each seat button (its index in the chain), or null for
    none; an LED no hole uses, each beside one button."""
    lights = bytearray(seats)
    for i in range(seats):
        lights[i] = NO_LIGHT
    if value is None:
        return lights
    if not isinstance(value, list) or len(value) != seats:
        raise ValueError("board: buttons.lights must list %d LEDs (or null), one a seat button in seat order"
                         % seats)
    for i in range(seats):
        if value[i] is None:
            continue
        led = _int(value[i], "buttons.lights[%d]" % i, 0, b.led_count - 1)
        if _has(b.led_of, SLOTS, led):
            raise ValueError("board: buttons.lights[%d]: LED %d is a hole's (leds.chain); a light beside "
                             "a button needs an LED of its own" % (i, led))
        if _has(lights, i, led):
            raise ValueError("board: buttons.lights[%d]: LED %d is beside another button already" % (i, led))
        lights[i] = led
    return lights


def _has(values, count, value):
    # `int in bytearray` is not implemented by MicroPython
    for i in range(count):
        if values[i] == value:
            return True
    return False


def _chain(b, chain):
    if not isinstance(chain, list) or not chain:
        raise ValueError("board: leds.chain must list runs [player, row, first, last]")
    seen = bytearray(SLOTS)
    led = 0
    for i in range(len(chain)):
        run = chain[i]
        if not isinstance(run, list) or len(run) != 4:
            raise ValueError("board: leds.chain[%d] must be [player, row, first, last]" % i)
        player = _int(run[0], "leds.chain[%d] player" % i, 0, 1)
        if run[1] not in _ROWS:
            raise ValueError("board: leds.chain[%d] row must be station, tally or king" % i)
        row = _ROWS.index(run[1])
        holes = _ROW_HOLES[row]
        first = _int(run[2], "leds.chain[%d] first hole" % i, 0, holes - 1)
        last = _int(run[3], "leds.chain[%d] last hole" % i, 0, holes - 1)
        step = 1 if last >= first else -1
        hole = first
        while True:
            slot = player * SLOTS_PER_PLAYER + _ROW_BASE[row] + hole
            if seen[slot]:
                raise ValueError("board: leds.chain[%d] maps %s hole %d of player %d twice" % (
                    i, run[1], hole, player))
            if led >= b.led_count:
                raise ValueError("board: leds.chain has more LEDs than leds.count")
            seen[slot] = 1
            b.led_of[slot] = led
            led += 1
            if hole == last:
                break
            hole += step
    for slot in range(SLOTS):
        if not seen[slot]:
            player = slot // SLOTS_PER_PLAYER
            rest = slot % SLOTS_PER_PLAYER
            row = 0 if rest < TALLY else 1 if rest < KING else 2
            raise ValueError("board: leds.chain leaves %s hole %d of player %d without an LED" % (
                _ROWS[row], rest - _ROW_BASE[row], player))


def load(path):
    """Read and validate a definition file."""
    return from_dict(read(path))


def checked(d, name, mcu=None, wifi=None):
    """from_dict(d); with mcu (the chip this runs on), a definition for
    another chip is refused: its pins would be wrong. With wifi (whether the
    board has the wireless chip), a definition for a W on a board without one
    is refused, and on a W one that wires the chip's GPIOs."""
    b = from_dict(d)
    if mcu is not None and b.mcu != mcu:
        raise ValueError("board: %s.json is for an %s, and this board is an %s" % (name, b.mcu, mcu))
    if wifi is False and b.wifi:
        raise ValueError("board: %s.json is for a Pico W or Pico 2 W (\"wifi\": true), and this board has "
                         "no wireless chip: choose a definition without wifi" % name)
    if wifi and not b.wifi:
        if b.wireless_pin != NO_PIN:
            raise ValueError("board: %s.json wires GPIO %d, which this board's wireless chip takes: choose "
                             "a definition made for a Pico W (\"wifi\": true)" % (name, b.wireless_pin))
        b.wifi = True
    return b


def find(name, folder="board", mcu=None, wifi=None):
    """The definition called name in folder (name.json), checked."""
    return checked(read(path_of(name, folder)), name, mcu, wifi)
