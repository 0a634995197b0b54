# The ONE hardware layer: every use of machine, neopixel and rp2 is here.
# On the Pico these are MicroPython's own modules; under the emulator they are
# the stand-ins in firmware/emu/ (never deployed), found first on sys.path.
# The rest of the firmware gets small objects: a pixel strip with `buf` and
# `write()`, the OLED's I2C bus, button pins as callables (0 = pressed), a
# watchdog with feed() and stop(), and the reset cause.
import sys

if sys.platform == "rp2":
    import umachine as machine   # the builtin by its own name: "machine" is looked for on littlefs first (6 ms)
else:
    import machine   # the emulator's stand-in (firmware/emu/), first on its module path

from tallycore import const

_WATCHDOG_MS = const(8000)   # the RP2040's WDT tops out at ~8.3 s

# WATCHDOG_CTRL register and its ENABLE bit, to stop the hardware watchdog
# when the app hands the board back to the REPL (Ctrl-C from mpremote): the
# WDT cannot be stopped through machine.WDT. (RP2040 datasheet 4.7.6,
# RP2350 datasheet 12.9.)
_WATCHDOG_CTRL_RP2040 = const(0x40058000)
_WATCHDOG_CTRL_RP2350 = const(0x400D8000)
_WATCHDOG_ENABLE = const(0x40000000)

RESET_CAUSES = ((getattr(machine, "PWRON_RESET", 1), "power-on"),
                (getattr(machine, "WDT_RESET", 3), "watchdog"),
                (getattr(machine, "HARD_RESET", 2), "reset"),
                (getattr(machine, "SOFT_RESET", 5), "soft-reset"))


def is_emulator():
    return getattr(machine, "EMULATOR", False)


def journal_flash():
    """The block device the journal's ring lives in: the chip's flash storage
    (littlefs's own device, rp2.Flash()); None under the emulator, whose ring
    is a plain file."""
    if is_emulator():
        return None
    import rp2
    return rp2.Flash()


def mcu():
    """The chip this runs on ("rp2040" or "rp2350"); None under the emulator,
    which plays any board definition."""
    machine_name = getattr(sys.implementation, "_machine", "")
    if "RP2350" in machine_name:
        return "rp2350"
    if "RP2040" in machine_name:
        return "rp2040"
    return None


class Pixels:
    """The WS2812 chain: fill `buf` (GRB bytes, chain order) then write()."""

    def __init__(self, pin, count):
        import neopixel
        self.strip = neopixel.NeoPixel(machine.Pin(pin, machine.Pin.OUT), count)
        self.buf = self.strip.buf
        self.count = count

    def write(self):
        self.strip.write()


def oled_i2c(board):
    """The OLED's I2C bus, or None when the board has no OLED."""
    if not board.has_oled:
        return None
    return machine.I2C(board.oled_bus, sda=machine.Pin(board.oled_sda),
                       scl=machine.Pin(board.oled_scl), freq=board.oled_freq)


def button(pin):
    """A pulled-up input as a callable: 0 while pressed, 1 when released."""
    return machine.Pin(pin, machine.Pin.IN, machine.Pin.PULL_UP).value


def pin_irq(pin, isr):
    """Call isr(pin) from a hard interrupt on every edge of a pulled-up input
    (it runs at once, even during a long bus write; it must not allocate);
    False where pins have no interrupts (the emulator), so the caller polls."""
    if is_emulator():
        return False
    gpio = machine.Pin(pin, machine.Pin.IN, machine.Pin.PULL_UP)
    gpio.irq(isr, machine.Pin.IRQ_RISING | machine.Pin.IRQ_FALLING, hard=True)
    return True


def link_led():
    """The Pico W's on-board LED (the wireless chip's, named "LED") as a
    callable taking 0 or 1, for the club link's state; None where there is
    none (the emulator, a board without Wi-Fi)."""
    if is_emulator():
        return None
    try:
        return machine.Pin("LED", machine.Pin.OUT)
    except (ValueError, TypeError, OSError):
        return None


def held_at_power_up(pin):
    """Whether the button on this pin (safe mode's, the self-test's) is held now (-1: no button)."""
    if pin < 0:
        return False
    read = button(pin)
    # held for the whole of ~50 ms: a bounce or a glitch does not count
    for _ in range(5):
        if read():
            return False
        sleep_ms(10)
    return True


def stay_at_repl():
    """Leave the board at MicroPython's REPL when main.py returns (safe mode).
    A Pico does that by itself; the emulator, the unix port, exits after its
    script unless MICROPYINSPECT asks it to stay, as a Pico would."""
    if is_emulator():
        from tallycore import os
        os.putenv("MICROPYINSPECT", "1")


def sleep_ms(ms):
    import time
    time.sleep_ms(ms)


class Watchdog:
    """The hardware watchdog; feed() at least every _WATCHDOG_MS."""

    def __init__(self, timeout_ms=_WATCHDOG_MS):
        self.wdt = machine.WDT(timeout=timeout_ms)

    def feed(self):
        self.wdt.feed()

    def stop(self):
        """Stop the watchdog (the app is handing the board to the REPL)."""
        if is_emulator():
            getattr(self.wdt, "stop")()   # only the emulator's WDT can stop
            return
        address = _WATCHDOG_CTRL_RP2350 if "RP2350" in sys.implementation._machine else _WATCHDOG_CTRL_RP2040
        try:
            machine.mem32[address] &= ~_WATCHDOG_ENABLE
        except (AttributeError, OSError):
            pass


def reset_cause():
    cause = machine.reset_cause()
    for code, name in RESET_CAUSES:
        if code == cause:
            return name
    return "unknown"


# machine.reset_cause() as a board's health names it (tallynet.health.CAUSES)
_HEALTH_CAUSES = ((getattr(machine, "PWRON_RESET", 1), "power"),
                  (getattr(machine, "WDT_RESET", 3), "watchdog"),
                  (getattr(machine, "SOFT_RESET", 5), "soft"))


def health_cause():
    """The last reset's cause as tallynet.health.CAUSES names it: power, watchdog, soft or unknown."""
    try:
        cause = machine.reset_cause()
    except (AttributeError, OSError):
        return "unknown"
    for code, name in _HEALTH_CAUSES:
        if code == cause:
            return name
    return "unknown"


def supply_reader(pin):
    """A reader of the supply (VSYS) in mV, on the ADC of GPIO `pin` (26..29) through
    the Pico's 3:1 divider, ADC reference 3.3 V (None when a read fails); None where
    pin is -1 (the definition wires none). Whole numbers: 65535 * 9900 < 2**30."""
    if pin < 0:
        return None

    def read():
        try:
            return machine.ADC(pin).read_u16() * 3 * 3300 // 65535
        except (AttributeError, ValueError, OSError):
            return None
    return read


def reset():
    machine.reset()
