"""Where the device twin's power-on to BOOT goes: the emulated RP2040 running the stock
MicroPython v1.28.0 image, the firmware deployed with `tallyboard deploy`.

    python bench/bench_boot_twin.py [--image stock|pico|pico-w] [--json]

Prints, in emulated time at 125 MHz: power-on to the BOOT event and to first light (the first
data on the LED pin, GPIO 2) with a Skicket game of six hands restored, and the same with a
host asking STATE every 20 ms through the boot; the steps of the app's start up to BOOT and on
to first light, timed on the chip; and, for every
module BOOT needs, its import from littlefs as at power-up (through tallyrun.importfs) beside its import from RAM
through a user filesystem that answers every lookup from a dict (no littlefs at all). The
second column is the floor for loading that module as an .mpy on this image: what is left
is MicroPython reading the file, interning its names and copying its bytecode into RAM,
and running the module's top level. Needs node, socat, rp2040js (npm ci in twin/; docs/twin.md)
and mpremote."""
from __future__ import annotations

import ast
import contextlib
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_device_twin import HANDS, boot_ms, hand  # noqa: E402
from twin_harness import Twin, add_image_option, bench_main  # noqa: E402

# What main.py -> tallypanel/start.py imports before BOOT, in its order, and the rules of the game in play.
# (The app itself, the board definition's checks, the loop and the confirmation's code load after BOOT.)
BOOT_MODULES = ("tallypanel.hw", "tallypanel.wiring", "tallycore.game", "tallycore.games", "tallyrun.protocol",
                "tallyrun.ring", "tallyrun.journal", "tallyrun.config", "tallyrun.replies", "tallyrun.outgoing", "tallyrun.restore",
                "tallycore.layout", "tallycore.skicket")

_TIMER = """
import time, gc
def timed_import(name):
    gc.collect()
    began = time.ticks_us()
    __import__(name)
    return time.ticks_diff(time.ticks_us(), began)
"""

# as at power-up: through tallyrun.importfs (main.py mounts it first), the .mpy files on littlefs
FROM_FLASH = _TIMER + """
from tallyrun import importfs
importfs.mount()
print(repr([(name, timed_import(name)) for name in %r]))
"""

# A user filesystem (the VFS protocol: stat, open; files as io.IOBase streams) holding the
# modules' .mpy files in RAM, mounted first on the module path.
FROM_RAM = _TIMER + """
import io, os, sys, vfs
WANTED = %r
FILES = {}
DIRS = set()
def _open(path):       # littlefs on the stock image; the ROMFS on tallyboard's (bench --image)
    try:
        return open(path, 'rb')
    except OSError:
        return open('/rom/' + path, 'rb')
for name in WANTED:
    parts = name.split('.')
    for i in range(1, len(parts)):
        package = '/'.join(parts[:i])
        DIRS.add('/' + package)
        with _open(package + '/__init__.mpy') as f:
            FILES['/' + package + '/__init__.mpy'] = f.read()
    with _open('/'.join(parts) + '.mpy') as f:
        FILES['/' + '/'.join(parts) + '.mpy'] = f.read()

class InRam(io.IOBase):
    def __init__(self, data):
        self.data = memoryview(data)
        self.at = 0
    def readinto(self, buf):
        n = min(len(buf), len(self.data) - self.at)
        buf[:n] = self.data[self.at:self.at + n]
        self.at += n
        return n
    def ioctl(self, request, arg):
        if request == 11:       # MP_STREAM_GET_BUFFER_SIZE: read in 512-byte pieces
            return 512
        return 0 if request == 4 else -22

class RamFs:
    def mount(self, readonly, mkfs):
        pass
    def umount(self):
        pass
    def chdir(self, path):
        pass
    def stat(self, path):
        if path in DIRS:
            return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        if path in FILES:
            return (0x8000, 0, 0, 0, 0, 0, len(FILES[path]), 0, 0, 0)
        raise OSError(2)
    def open(self, path, mode):
        return InRam(FILES[path])

vfs.mount(RamFs(), '/ram')
sys.path[:] = ['.frozen', '/ram']
print(repr([(name, timed_import(name)) for name in WANTED]))
"""

STEPS = """
import time
marks = [time.ticks_us()]
from tallyrun import importfs
importfs.mount()
marks.append(time.ticks_us())
from tallypanel import hw, wiring
marks.append(time.ticks_us())
from tallyrun.restore import Restored, BOARD_DIR
marks.append(time.ticks_us())
import io
restored = Restored(out=io.BytesIO(), flash=hw.journal_flash())
restored.config.load()
marks.append(time.ticks_us())
definition = wiring.read(wiring.path_of(restored.config.board, BOARD_DIR))
hw.held_at_power_up(wiring.safe_mode_pin(definition))
marks.append(time.ticks_us())
restored.restore()
restored.send_boot()
marks.append(time.ticks_us())
from tallypanel import boarddef
board = boarddef.checked(definition, restored.config.board, hw.mcu())
marks.append(time.ticks_us())
pixels = hw.Pixels(board.led_pin, board.led_count)
marks.append(time.ticks_us())
import tallypanel.ledfield
marks.append(time.ticks_us())
from tallypanel.view import View
marks.append(time.ticks_us())
from tallypanel import gameview
gameview.of(restored.game)
marks.append(time.ticks_us())
view = View(board, pixels, None, restored.config)
view.refresh_leds(restored.game)
marks.append(time.ticks_us())
import gc
gc.collect()
from tallyrun.app import App
app = App(restored=restored)
app.boot(config_loaded=True, booted=True)
marks.append(time.ticks_us())
print(repr([time.ticks_diff(marks[i + 1], marks[i]) for i in range(len(marks) - 1)]))
"""
STEP_NAMES = ("import tallyrun.importfs, mounted", "import hw, wiring",
              "import restore (protocol, core, journal, ring, config, replies)", "Restored(), config.txt read",
              "board definition read, safe-mode pin", "journal restored (the rules imported), BOOT sent",
              "then, for the LEDs: the board definition checked (boarddef imported)", "hw.Pixels (neopixel, the pin)",
              "import ledfield (gameview)", "import view",
              "the game's panel view imported (skicketview, screen)", "View(), the frame composed and sent",
              "after the lights: a collection, import app, App(), its boot")


def on_chip(twin: Twin, script: str) -> object:
    """Run script on the chip with mpremote (it stops the app and soft-resets first: a
    fresh interpreter, nothing imported); the last line it prints, as a Python literal."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(script)
    mpremote = Path(sys.executable).with_name("mpremote")
    done = subprocess.run([str(mpremote), "connect", str(twin.link), "run", f.name], capture_output=True,
                          text=True, timeout=120)
    Path(f.name).unlink()
    lines = [line for line in done.stdout.splitlines() if line.startswith("[")]
    if done.returncode or not lines:
        raise RuntimeError(f"mpremote run failed: {done.stdout}{done.stderr}")
    return ast.literal_eval(lines[-1])


@contextlib.contextmanager
def talking_host(twin: Twin):
    """A host that sends STATE every 20 ms while the block runs, and reads every reply until
    the board has answered what was still queued (mpremote must find the line quiet)."""
    from tallyboard.boardlink import wire
    talking = threading.Event()
    talking.set()
    stop = threading.Event()

    def talk() -> None:
        while not stop.is_set() and not twin.link.exists():
            time.sleep(0.005)
        fd = os.open(twin.link, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(fd)
        try:
            seq = 1
            while not stop.is_set():
                if talking.is_set():
                    os.write(fd, wire.encode_request(seq, "STATE"))
                    seq = seq % 9999 + 1
                if select.select([fd], [], [], 0.02)[0]:
                    try:
                        os.read(fd, 4096)
                    except BlockingIOError:
                        pass
        finally:
            os.close(fd)

    thread = threading.Thread(target=talk, daemon=True)
    thread.start()
    try:
        yield
    finally:
        talking.clear()
        quiet_since = time.monotonic()       # the board answers what is still queued first
        while time.monotonic() - quiet_since < 1.5:
            if twin.lines():
                quiet_since = time.monotonic()
            time.sleep(0.2)
        stop.set()
        thread.join(10)


def run(args=None) -> dict:
    image = getattr(args, "image", "stock")
    figures: dict = {"image": image}
    with tempfile.TemporaryDirectory() as tmp, Twin.running(Path(tmp), image) as twin:
        twin.deploy()
        board = twin.board()
        board.new("skicket", 4)
        for one in HANDS:
            hand(board, *one)
        board.link.close()
        boots = []
        lights = []
        for _ in range(2):
            twin.power_cut()
            twin.mark()
            twin.start()
            boots.append(round(boot_ms(twin), 1))
            lights.append(round(twin.first_light_ms(), 1))
        figures["boot_with_game_ms"] = boots
        figures["first_light_ms"] = lights
        # the same with a host asking STATE every 20 ms from the moment the port is back
        twin.power_cut()
        twin.mark()
        twin.start()
        with talking_host(twin):
            figures["boot_host_talking_ms"] = round(boot_ms(twin), 1)
            figures["first_light_host_talking_ms"] = round(twin.first_light_ms(), 1)
        time.sleep(1)
        steps = on_chip(twin, STEPS)
        figures["steps_ms"] = {name: round(us / 1000, 1) for name, us in zip(STEP_NAMES, steps)}
        flash = dict(on_chip(twin, FROM_FLASH % (BOOT_MODULES,)))
        ram = dict(on_chip(twin, FROM_RAM % (BOOT_MODULES,)))
        figures["imports_ms"] = {name: {"littlefs": round(flash[name] / 1000, 1), "ram": round(ram[name] / 1000, 1)}
                                 for name in BOOT_MODULES}
        figures["imports_total_ms"] = {"littlefs": round(sum(flash.values()) / 1000, 1),
                                       "ram": round(sum(ram.values()) / 1000, 1)}
    return figures


def show(figures: dict) -> None:
    print(f"power-on to BOOT, Skicket game of six hands restored: {figures['boot_with_game_ms']} ms")
    print(f"power-on to first light (data on the LED pin), the same: {figures['first_light_ms']} ms")
    print(f"the same with a host asking STATE every 20 ms: BOOT {figures['boot_host_talking_ms']} ms, "
          f"first light {figures['first_light_host_talking_ms']} ms")
    print("the start up to BOOT and on to first light, on the chip:")
    for name, ms in figures["steps_ms"].items():
        print(f"  {name:62} {ms:7.1f} ms")
    where = "from littlefs" if figures.get("image", "stock") == "stock" else "from ROMFS"
    print(f"image: {figures.get('image', 'stock')}")
    print(f"  {'module':24} {where:>14} {'from RAM':>10}")
    for name, pair in figures["imports_ms"].items():
        print(f"  {name:24} {pair['littlefs']:11.1f} ms {pair['ram']:7.1f} ms")
    total = figures["imports_total_ms"]
    print(f"  {'all of them':24} {total['littlefs']:11.1f} ms {total['ram']:7.1f} ms")


def main() -> int:
    return bench_main(__doc__, "bench_boot_twin", run, show, add_image_option)


if __name__ == "__main__":
    sys.exit(main())
