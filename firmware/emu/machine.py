# Stand-in for MicroPython's `machine` on the unix port (the emulator; never
# deployed to a board). I/O goes through files in $TALLYBOARD_EMU_IO:
#   pins.bin  read:  one byte per GPIO 0..29, 0 = low, 1 = high; a missing
#             file means every pin is high (pulled-up buttons released)
#   oled.bin  written: the SSD1306's 1024-byte page-ordered buffer, after
#             every data transfer (write then rename)
#   steps.txt read: a script of pin levels the stand-in plays in the
#             firmware's own time, so that a press is seen whatever the load
#             on the machine (docs/firmware.md, "The emulator's inputs"): a
#             first line with the script's number, then one step a line,
#             "ms pin=level pin=level ..."; a step lasts at least ms of the
#             firmware's ticks and until its first pin has been read twice,
#             once after the ms; steps.done is then written with the number
#   no-oled   read: when this file exists, nothing answers on the I2C bus
#             (a board whose OLED is missing or unplugged): writes raise
#             OSError(ENODEV), as on the chip
#   reset_cause.txt  read: the number reset_cause() answers (WDT_RESET, 3, say);
#             no file: PWRON_RESET, a board powered up
#   adc.txt   read: "pin value" lines, what ADC(pin).read_u16() reads; no line
#             for the pin: 32768 (half the reference: 4.95 V on VSYS's divider)
# The ROMFS partition (romfs.bin) and a one-shot Timer: emu/updating.py, loaded when asked for.
# The WS2812 chain is neopixel.py's (leds.bin).
import os
import time

EMULATOR = True
GPIO_COUNT = 30
PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
SOFT_RESET = 5

_IO = os.getenv("TALLYBOARD_EMU_IO") or ""
_pins = bytearray(b"\x01" * GPIO_COUNT)
_read_at = [0, False]   # ticks of the last pins.bin read, whether ever read
_PIN_REFRESH_MS = 5
_MIN_READS = 2
# the script being played: its number, its steps [(ms, ((pin, level), ...))],
# the step in play, when it began, reads of its first pin, reads after its ms
_script = {"seq": "", "steps": [], "at": -1, "began": 0, "reads": 0, "late": 0}


def io_path(name):
    return (_IO + "/" + name) if _IO else name


def write_atomic(name, data):
    if not _IO:
        return
    path = io_path(name)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.rename(tmp, path)


def _load_script():
    # looked at every refresh while no script plays: its first line (the seq) alone is read until it
    # is a new one, so that an idle board's polls take no large block of the heap
    try:
        with open(io_path("steps.txt")) as f:
            seq = f.readline().rstrip("\n")
            if not seq or seq == _script["seq"]:
                return
            lines = [seq] + f.read().split("\n")
    except OSError:
        return
    if _done_seq() == lines[0]:
        # played before this start (a reset or a deploy since): a press is
        # made once, never again by the next firmware that finds its script
        _script["seq"] = lines[0]
        return
    steps = []
    for line in lines[1:]:
        words = line.split()
        if words:
            steps.append((int(words[0]), tuple((int(w.split("=")[0]), int(w.split("=")[1])) for w in words[1:])))
    _script["seq"] = lines[0]
    _script["steps"] = steps
    _begin_step(0)


def _done_seq():
    try:
        with open(io_path("steps.done")) as f:
            return f.read()
    except OSError:
        return ""


def _begin_step(at):
    _script["at"] = at
    _script["began"] = time.ticks_ms()
    _script["reads"] = 0
    _script["late"] = 0
    if at >= len(_script["steps"]):
        _script["at"] = -1
        write_atomic("steps.done", _script["seq"].encode())


def _script_read(pin):
    # the step in play lays its levels over pins.bin's. Reads of its first pin
    # are counted: once it has been read twice, at least once after the step's
    # ms, the next step begins (with this read), so that every level is seen
    # by the firmware's polls for as long as its own clock says
    at = _script["at"]
    if at < 0:
        return
    ms, levels = _script["steps"][at]
    if levels and pin == levels[0][0]:
        if _script["late"] >= 1 and _script["reads"] >= _MIN_READS:
            _begin_step(at + 1)
            at = _script["at"]
            if at < 0:
                return
            ms, levels = _script["steps"][at]
        _script["reads"] += 1
        if time.ticks_diff(time.ticks_ms(), _script["began"]) >= ms:
            _script["late"] += 1
    for pin_, level in levels:
        _pins[pin_] = level


def _refresh_pins():
    now = time.ticks_ms()
    if _read_at[1] and time.ticks_diff(now, _read_at[0]) < _PIN_REFRESH_MS:
        return
    _read_at[0] = now
    _read_at[1] = True
    if _script["at"] < 0:
        _load_script()
    try:
        with open(io_path("pins.bin"), "rb") as f:
            got = f.readinto(_pins)
    except OSError:
        got = 0
    for i in range(got or 0, GPIO_COUNT):
        _pins[i] = 1
    for i in range(GPIO_COUNT):
        if _pins[i] > 1:
            _pins[i] = 1


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, value=None):
        if not isinstance(id, int) or id < 0 or id >= GPIO_COUNT:
            raise ValueError("invalid pin")
        self.id = id
        self.mode = mode
        self.pull = pull
        self._out = 0 if value is None else value
        self.handler = None

    def init(self, mode=-1, pull=-1, value=None):
        self.mode = mode
        self.pull = pull

    def value(self, v=None):
        if v is not None:
            self._out = 1 if v else 0
            return None
        if self.mode == Pin.OUT:
            return self._out
        _refresh_pins()
        _script_read(self.id)
        return _pins[self.id]

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self._out = 1

    def off(self):
        self._out = 0

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        # the emulator has no pin interrupts: inputs are polled
        self.handler = handler
        return None


class I2C:
    """An I2C bus with one SSD1306 on it, at 0x3C."""

    def __init__(self, id=0, scl=None, sda=None, freq=400000):
        self.id = id
        self.freq = freq
        self.ram = bytearray(1024)
        self._cmd = 0
        self._args = bytearray(2)
        self._want = 0
        self._got = 0
        self.col_lo, self.col_hi = 0, 127
        self.page_lo, self.page_hi = 0, 7
        self.col, self.page = 0, 0
        self.display_on = False
        self.contrast = 0xFF

    def scan(self):
        try:
            os.stat(io_path("no-oled"))
            return []
        except OSError:
            return [0x3C]

    def _answers(self, addr):
        # the one display, at 0x3C (as scan says): nothing else is on the bus
        try:
            os.stat(io_path("no-oled"))
        except OSError:
            if addr == 0x3C:
                return
        raise OSError(19)   # ENODEV: no device acknowledged its address

    def writeto(self, addr, buf, stop=True):
        self._answers(addr)
        self._transfer(buf)
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        self._answers(addr)
        joined = bytearray()
        for part in vector:
            joined.extend(part)
        self._transfer(joined)
        return len(joined)

    def readfrom_into(self, addr, buf, stop=True):
        self._answers(addr)
        for i in range(len(buf)):
            buf[i] = 0

    def _transfer(self, buf):
        if not len(buf):
            return
        control = buf[0]
        if control & 0x40:   # D/C# = 1: display data
            for i in range(1, len(buf)):
                self._data(buf[i])
            write_atomic("oled.bin", self.ram)
            return
        for i in range(1, len(buf)):
            self._command(buf[i])

    def _command(self, byte):
        if self._want:
            self._args[self._got] = byte
            self._got += 1
            if self._got < self._want:
                return
            self._want = 0
            cmd = self._cmd
            if cmd == 0x21:
                self.col_lo, self.col_hi = self._args[0] & 127, self._args[1] & 127
                self.col = self.col_lo
            elif cmd == 0x22:
                self.page_lo, self.page_hi = self._args[0] & 7, self._args[1] & 7
                self.page = self.page_lo
            elif cmd == 0x81:
                self.contrast = self._args[0]
            return
        self._cmd = byte
        self._got = 0
        if byte in (0x21, 0x22):
            self._want = 2
        elif byte in (0x20, 0x81, 0x8D, 0xA8, 0xD3, 0xD5, 0xD9, 0xDA, 0xDB):
            self._want = 1
        elif byte == 0xAE:
            self.display_on = False
        elif byte == 0xAF:
            self.display_on = True

    def _data(self, byte):
        self.ram[self.page * 128 + self.col] = byte
        if self.col < self.col_hi:
            self.col += 1
            return
        self.col = self.col_lo
        self.page = self.page + 1 if self.page < self.page_hi else self.page_lo


class WDT:
    """The watchdog. The emulator does not reset on a missed feed; it counts."""

    def __init__(self, id=0, timeout=5000):
        if timeout < 1 or timeout > 8388:
            raise ValueError("timeout")
        self.timeout = timeout
        self.feeds = 0
        self.last_feed = time.ticks_ms()
        self.running = True

    def feed(self):
        self.feeds += 1
        self.last_feed = time.ticks_ms()

    def stop(self):
        self.running = False


class _Mem:
    def __getitem__(self, address):
        return 0

    def __setitem__(self, address, value):
        pass


mem8 = _Mem()
mem16 = _Mem()
mem32 = _Mem()


def _io_int(name, default):
    try:
        with open(io_path(name)) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return default


def reset_cause():
    return _io_int("reset_cause.txt", PWRON_RESET)


class ADC:
    """An ADC input (GPIO 26..29): what adc.txt says for its pin."""

    def __init__(self, pin):
        pin = pin.id if isinstance(pin, Pin) else pin
        if not isinstance(pin, int) or pin < 26 or pin >= GPIO_COUNT:
            raise ValueError("not an ADC pin")
        self.pin = pin

    def read_u16(self):
        try:
            with open(io_path("adc.txt")) as f:
                for line in f.read().split("\n"):
                    parts = line.split()
                    if len(parts) == 2 and int(parts[0]) == self.pin:
                        return int(parts[1]) & 0xFFFF
        except (OSError, ValueError):
            pass
        return 32768


def reset():
    """At once, from wherever it is called (a timer's scheduled callback, whose exceptions the
    scheduler swallows, too), as the chip's reset: the process ends on SIGUSR1, which the emulator
    takes for a reset and powers the board up again (tooling/emulator.py RESET_SIGNAL)."""
    os.system("kill -USR1 $PPID")
    raise SystemExit(0)


def soft_reset():
    raise SystemExit(0)


def unique_id():
    return b"EMULATOR"


def freq(hz=None):
    return 125000000


def idle():
    pass


def disable_irq():
    return 0


def enable_irq(state=0):
    pass



def __getattr__(name):
    """The stand-ins an update over the air uses (rom_ioctl, Timer: emu/updating.py), loaded when first
    asked for: this module is compiled into the emulated board's heap, which every other board keeps."""
    if name in ("rom_ioctl", "Timer", "ROMFS_FILE"):
        import updating
        return getattr(updating, name)
    raise AttributeError(name)
