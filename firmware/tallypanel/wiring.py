# How one build of the board is wired, as the firmware uses it while it runs:
# the peg slots and the BoardDef that tallypanel.boarddef makes from a board
# definition (board/<name>.json). The views keep this module; boarddef's
# checks are needed only at power-up and for CFG SET board, and are let go
# after (tallypanel.start).
#
# Peg slots: every hole of the peg field has a slot number
#   player * SLOTS_PER_PLAYER + STATION            the station hole
#   player * SLOTS_PER_PLAYER + TALLY + hole       tally holes 0..44
#   player * SLOTS_PER_PLAYER + KING + hole        king holes 0..19
# (hole numbers as in roquet.py). led_of[slot] is the LED's index in the chain.
#
# Seat buttons: seat_letters[seat] is the letter printed beside the button
# (the OLED and the host name the buttons by it); seat_lights[seat] is the
# LED beside it (an LED of the chain that is no hole's), or NO_LIGHT.

from tallycore import const

STATION = const(0)
TALLY = const(1)
KING = const(46)
SLOTS_PER_PLAYER = const(66)
SLOTS = const(132)
NO_PIN = const(-1)
NO_LIGHT = const(255)   # a seat button without an LED beside it (LED indices stop at 254)


class BoardDef:
    def __init__(self):
        self.name = ""
        self.mcu = ""
        self.wifi = False    # a wireless chip (Pico W, Pico 2 W): the club link (tallynet) runs
        self.wireless_pin = NO_PIN   # without wifi: the first of WIFI_PINS it wires (a W could not run it)
        self.led_pin = 0
        self.led_count = 0
        self.led_of = bytearray(SLOTS)
        self.has_oled = False
        self.oled_bus = 0
        self.oled_sda = NO_PIN
        self.oled_scl = NO_PIN
        self.oled_address = 0x3C
        self.oled_freq = 400000
        self.oled_width = 128
        self.oled_height = 64
        self.seat_pins = bytearray(0)
        self.seat_letters = b""          # one letter a seat button
        self.seat_lights = bytearray(0)  # the LED beside each seat button, or NO_LIGHT
        self.undo_pin = NO_PIN
        self.shift_pin = NO_PIN
        self.test_pin = NO_PIN           # the button held at power-up for the self-test (tallypanel.boardtest)
        self.encoder_a = NO_PIN
        self.encoder_b = NO_PIN
        self.encoder_push = NO_PIN
        self.steps_per_detent = 4
        self.budget_ma = 500
        self.ma_per_channel = 20
        self.idle_ma_per_led = 1
        self.vsys_adc = NO_PIN           # the GPIO (26..29) whose ADC reads a third of VSYS (29: the Pico's own divider)

    def led(self, player, row, hole):
        """LED index of a hole: row is STATION, TALLY or KING."""
        return self.led_of[player * SLOTS_PER_PLAYER + row + hole]


# The definition file, read at power-up before anything is checked (the safe-mode
# button is looked for first); tallypanel.boarddef checks it after BOOT.
def read(path):
    """A definition file's JSON, not yet checked (from_dict checks it)."""
    from tallycore import json
    try:
        with open(path, "rb") as f:
            # the whole file, then parsed: json.load(f) reads it a byte at a time through
            # littlefs, ~10 ms of the power-up on the chip for a definition of 1 KB
            return json.loads(f.read())
    except OSError:
        raise ValueError("board: no definition file %s" % path)
    except ValueError:
        raise ValueError("board: %s is not valid JSON" % path)


def path_of(name, folder="board"):
    for ch in name:
        if not (ch.isalpha() or ch.isdigit() or ch in "-_"):
            raise ValueError("board: a board name has letters, digits, - and _ only")
    return folder + "/" + name + ".json"


def safe_mode_pin(d):
    """The safe-mode button (undo, else seat 0) of a definition not yet
    checked, read before anything else at power-up; -1 if it names none."""
    try:
        buttons = d["buttons"]
        pin = buttons.get("undo")
        if pin is None:
            pin = buttons["seats"][0]
        if isinstance(pin, int) and 0 <= pin <= 29:
            return pin
    except (KeyError, IndexError, TypeError, AttributeError):
        pass
    return -1
