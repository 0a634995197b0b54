"""The device twin (an emulated RP2040 running real MicroPython v1.28.0 with the board's parts modelled:
the project's twin/run.mjs) driven from Python: start it, bridge its USB CDC to a pty, press its buttons
and read its OLED and LEDs through its control port (tallyboard.tooling.twin_control.TwinControl), read
its counters, cut its power. The MicroPython images are the project's own (image/: stock-pico.uf2, the
stock RPI_PICO build, by default), and so is the boot ROM (twin/bootrom/); a builder's own image and boot
ROM: the folder $TALLYBOARD_RP2EMU (firmware.uf2, bootrom.mjs), or a UF2 named with Twin(uf2=...).

    with Twin(folder) as twin:          # a blank chip; flash image kept in folder
        twin.deploy()                   # tallyboard deploy --port <its pty>; what it printed
        board = twin.board()            # a tallyboard.boardlink.client.Board on it
        board.new("roquet", 2)
        board.game_verb("PEG", 0, 5)
        twin.replies()[-1]              # the reply's emulated latency (µs) and text
        twin.stats()                    # emulated time, busy time, flash erases/programs
        twin.power_cut()                # SIGKILL: the flash image keeps what the chip held
        twin.control.press("seat0")     # the board's own buttons, knob, faults (docs/twin.md)
        twin.control.oled().ram         # what the SSD1306 holds now

Figures are emulated time on a 125 MHz RP2040 with the I²C bus time in; rp2040js models no flash busy
time and no XIP cache misses, so a real Pico is that or slower. Used by the twin's benches and tests."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "twin"               # the project's twin: run.mjs, its parts, serial-pty.sh
# a builder's own image and boot ROM (firmware.uf2, bootrom.mjs), in place of the project's
RP2EMU = Path(os.environ["TALLYBOARD_RP2EMU"]) if os.environ.get("TALLYBOARD_RP2EMU") else None
STOCK_UF2 = ROOT / "image" / "stock-pico.uf2"
BOOTROM = RUNNER / "bootrom" / "bootrom-b1.mjs"
sys.path.insert(0, str(ROOT / "host"))
from tallyboard.tooling.twin_control import TwinControl, TwinError  # noqa: E402  (the control port's client)

_STATS = re.compile(r"\[rp2emu (?P<tag>[^\]]+)\] (?P<fields>.*)")
LED_GPIO = 2           # the reference board's WS2812 data pin (board/pico-reference.json)
_FIRST_LIGHT = re.compile(r"\[rp2emu gpio\] %d first data since_reset_ms=([\d.]+)" % LED_GPIO)
_LINE = re.compile(r"\[rp2emu line\] since_reset_ms=(?P<reset>[\d.]+)"
                   r"(?: since_request_us=(?P<request>[\d.]+) cycles=(?P<cycles>\d+))? (?P<text>.*)")
# the ports the runner bound (it is given port 0 for both: the system chooses, so no other process can
# take one between its choice and the bind, as it could a port found free beforehand)
BOOT_EVENT = re.compile(r"! \d+ BOOT .*\bgame=(?P<game>\S+) n=(?P<n>\d+) top=(?P<top>\d+)")   # the app's BOOT push
_SERIAL_AT = re.compile(r"\[rp2emu\] .*serial on tcp 127\.0\.0\.1:(\d+)")
_CONTROL_AT = re.compile(r"\[rp2emu\] control on tcp 127\.0\.0\.1:(\d+)")

# How many times slower than on a quiet machine a busy one may run the twin (its emulated clock just
# advances more slowly per wall second). Every wall-clock bound below is a step's quiet time times
# this: only a guard against a hang, as each wait returns the moment its condition holds; the tests
# judge the device by its own clock, events and lines, never by how long it took.
PATIENCE = 10
SLOWDOWN = 4           # wall ms an emulated ms of busy code may take quietly (1.4: bench_twin_host.py)


def patient(quiet_s: float) -> float:
    """The wall-clock guard on a wait for a step that takes quiet_s seconds on a quiet machine."""
    return quiet_s * PATIENCE


def patient_chip(chip_ms: float) -> float:
    """The guard on a wait for chip_ms of the chip's own (emulated) time to pass, busy or idle."""
    return patient(SLOWDOWN * chip_ms / 1000 + 1)


START_S = patient(6)       # the runner's ports, then the pty (about a second quietly)
STOP_S = patient(2)        # the runner gone after SIGTERM (it writes its flash image first)
REPLY_S = patient(1)       # a board's reply to one request (--timeout, TALLYBOARD_TIMEOUT): 0.1-2 s quietly
REPL_S = patient(6)        # a raw REPL step or a short script (under a second quietly)
CONTROL_S = patient(6)     # one control port request (a press: its own ms added by TwinControl)
BOOT_S = patient(5)        # power-up to the app's BOOT event and answers (about 2 s quietly)
COMMAND_S = patient(10)    # a tallyboard command (1-2 s quietly); past a silent board's 4 tries of REPLY_S
DEPLOY_S = patient(60)     # tallyboard deploy to a blank chip (10-30 s quietly)
SETTLE_S = min(patient(30), 600)  # the parts quiet after an input (a long why page: seconds); control.mjs's most


def missing(uf2: Path | None = None) -> str | None:
    """Why the twin cannot run here, or None when it can."""
    image = Path(uf2) if uf2 else (RP2EMU / "firmware.uf2" if RP2EMU else STOCK_UF2)
    if not image.exists():
        return (f"the MicroPython image is not at {image} (image/build.sh builds the project's; "
                f"TALLYBOARD_RP2EMU names a folder with your own firmware.uf2)")
    if not BOOTROM.exists():
        return f"the RP2040 boot ROM is not at {BOOTROM}: the checkout is incomplete"
    if shutil.which("node") is None:
        return "node is not installed (Debian: apt-get install nodejs)"
    if shutil.which("socat") is None:
        return "socat is not installed (Debian: apt-get install socat)"
    if not (RUNNER / "node_modules" / "rp2040js").exists():
        return "rp2040js is not installed (run npm ci in twin/)"
    return None


@dataclass
class Line:
    since_reset_ms: float
    since_request_us: float | None   # replies (and events after a request) only
    text: str


# the MicroPython images a twin may run: the twin's own stock RPI_PICO (None), or tallyboard's
# (image/README.md), whose ROMFS partition of ROM_BYTES the twin keeps with the flash image
IMAGES = {"stock": None, "pico": ROOT / "image" / "tallyboard-pico.uf2",
          "pico-w": ROOT / "image" / "tallyboard-pico-w.uf2"}
ROM_BYTES = 256 * 1024      # image/boards/*/mpconfigboard.h: MICROPY_HW_ROMFS_BYTES


def add_flash_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--flash", type=Path, metavar="IMAGE",
                        help="start from a copy of this flash image of the firmware deployed on the stock image "
                             "(a twin's pico.img) instead of deploying onto a blank chip: the figures are the same, "
                             "the deploy's minute saved (the tests pass the run's one deploy)")


@contextlib.contextmanager
def deployed(twin: "Twin", flash: Path | None) -> Iterator["Twin"]:
    """`twin` (not started) started with the firmware on it, a copy of `flash` or else deployed onto a blank
    chip; stopped on leaving, whatever happened."""
    try:
        if flash is not None:
            shutil.copyfile(flash, twin.image)
            twin.start()
        else:
            twin.start()
            twin.deploy()
        yield twin
    finally:
        twin.stop()


def add_image_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--image", choices=sorted(IMAGES), default="stock",
                        help="the MicroPython image the twin runs: stock (the twin's RPI_PICO, the default), "
                             "or tallyboard's pico or pico-w (image/README.md)")


class Twin:
    def __init__(self, folder: Path, *, oled: bool = True, hold: int | None = None, uf2: Path | None = None,
                 board: Path | None = None, seed: int = 1, watch_gpio: int | None = LED_GPIO,
                 rom_bytes: int = 0, miswire: str | None = None, slow_core: bool = False) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.image = self.folder / "pico.img"
        self.log = self.folder / "pico.log"
        self.link = self.folder / "tty"
        self.oled = oled
        self.hold = hold
        self.uf2 = uf2
        self.rom_bytes = rom_bytes     # the image's ROMFS partition (tallyboard's images): kept with the storage
        self.board_file = board
        self.seed = seed
        self.watch_gpio = watch_gpio
        self.miswire = miswire         # the board as built: twin/run.mjs --miswire (docs/twin.md), e.g. "dead:40"
        self.slow_core = slow_core     # rp2040js' own decoder for every instruction (twin/fastcore.mjs: not)
        # the running chip's TCP ports on 127.0.0.1, its USB serial and its control interface: the
        # runner's own choice, read from its log by start() (None before); a new pair after a power cut
        self.port: int | None = None
        self.control_port: int | None = None
        self._control: TwinControl | None = None
        self.node: subprocess.Popen | None = None
        self.bridge: subprocess.Popen | None = None
        self._log_at = 0
        self._light_at = 0

    # ------------------------------------------------------------ life
    def start(self) -> "Twin":
        """Power the chip up (from its flash image when there is one), then bridge its serial to the pty."""
        if self.node is not None and self.node.poll() is None:
            raise RuntimeError("the device twin is running already: power_cut() or stop() it first")
        args = ["node", str(RUNNER / "run.mjs"), "--port", "0", "--save", str(self.image),
                "--control", "0", "--seed", str(self.seed), "--stats", "--trace"]
        if self.uf2:
            args += ["--uf2", str(self.uf2)]
        if self.rom_bytes:
            args += ["--rom-bytes", str(self.rom_bytes)]
        if self.board_file:
            args += ["--board", str(self.board_file)]
        if self.watch_gpio is not None:
            args += ["--watch-gpio", str(self.watch_gpio)]
        if self.image.exists():
            args += ["--fs", str(self.image)]
        if not self.oled:
            args.append("--no-oled")
        if self.hold is not None:
            args += ["--hold", str(self.hold)]
        if self.miswire:
            args += ["--miswire", self.miswire]
        args += ["--slow-core"] if self.slow_core else []
        self.port = self.control_port = None
        self._end(self.bridge)          # (none: power_cut() and stop() end it)
        self.bridge = None
        with open(self.log, "ab") as log:
            since = log.tell()          # this run's lines: the log keeps every run's
            self.node = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
        deadline = time.monotonic() + START_S
        self.port, self.control_port = self._bound_ports(since, deadline)
        self.link.unlink(missing_ok=True)      # a link left from before would read as this run's pty
        # the bridge once the serial port is known; it connects again when the runner restarts on the same
        # port, but a runner powered up again binds another, so each start() has its own (power_cut())
        self.bridge = subprocess.Popen(["bash", str(RUNNER / "serial-pty.sh"), str(self.port), str(self.link)],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        while not self.link.exists():
            if time.monotonic() > deadline or self.node.poll() is not None:
                raise RuntimeError(f"the device twin did not start; see {self.log}")
            time.sleep(0.1)
        return self

    def _bound_ports(self, since: int, deadline: float) -> tuple[int, int]:
        """The serial and control ports the runner says it bound, in its log from byte `since`."""
        assert self.node is not None
        while True:
            with open(self.log, "rb") as log:
                log.seek(since)
                text = log.read().decode("latin1")
            serial, control = _SERIAL_AT.search(text), _CONTROL_AT.search(text)
            if serial and control:
                return int(serial.group(1)), int(control.group(1))
            if self.node.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the device twin did not start (it said no {'serial' if not serial else 'control'}"
                                   f" port); see {self.log}")
            time.sleep(0.05)

    @classmethod
    def running(cls, folder: Path, image: str = "stock", **kwargs) -> "Twin":
        """A twin running one of IMAGES by name."""
        uf2 = IMAGES[image]
        return cls(folder, uf2=uf2, rom_bytes=ROM_BYTES if uf2 else 0, **kwargs)

    @property
    def control(self) -> TwinControl:
        """The control port's client (connected on first use, again after a power cut)."""
        if self._control is None:
            if self.control_port is None:
                raise TwinError("the device twin is not running: start() it first")
            deadline = time.monotonic() + START_S
            while True:
                try:
                    self._control = TwinControl(self.control_port, timeout=CONTROL_S)
                    break
                except TwinError:
                    if time.monotonic() > deadline or self.node is None or self.node.poll() is not None:
                        raise
                    time.sleep(0.1)
        return self._control

    def _drop_control(self) -> None:
        if self._control is not None:
            self._control.close()
            self._control = None

    @staticmethod
    def _end(proc: subprocess.Popen | None) -> None:
        """SIGTERM to the process's group (the bridge's socat and pty holder with it), SIGKILL if it stays."""
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(STOP_S)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(STOP_S)

    def stop(self) -> None:
        self._drop_control()
        for proc in (self.bridge, self.node):
            self._end(proc)
        self.bridge = self.node = None

    def power_cut(self) -> None:
        """SIGKILL the chip: the image holds what its flash held at that instant.
        Its pty goes with it, as a Pico's USB does; start() powers it up again.

        The pty bridge is ended too, and start() makes a new one: the chip comes
        back on ports the system chooses then, not on the old serial port. Until
        then nothing holds the old one (the bridge only tries to connect to it),
        so another process may have bound it, and a bridge kept on it would join
        that process's serial to this twin's pty."""
        assert self.node is not None
        self._drop_control()
        os.killpg(self.node.pid, signal.SIGKILL)
        self.node.wait(STOP_S)
        self.node = None
        self._end(self.bridge)
        self.bridge = None
        self.link.unlink(missing_ok=True)      # (the bridge's socat may have taken it with it)

    def __enter__(self) -> "Twin":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------ host side
    def tallyboard_command(self, *args: str) -> tuple[list[str], dict[str, str]]:
        """`tallyboard ARGS --port <the pty>` and its environment: each reply waited for REPLY_S
        (TALLYBOARD_TIMEOUT, unless set already), as the emulated board may be slow to answer."""
        exe = Path(sys.executable).with_name("tallyboard")
        env = dict(os.environ)
        env.setdefault("TALLYBOARD_TIMEOUT", f"{REPLY_S:g}")
        return [str(exe), *args, "--port", str(self.link)], env

    def tallyboard(self, *args: str, timeout: float = COMMAND_S) -> subprocess.CompletedProcess:
        argv, env = self.tallyboard_command(*args)
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)

    def deploy(self) -> str:
        done = self.tallyboard("deploy", timeout=DEPLOY_S)
        if done.returncode:
            raise RuntimeError(f"deploy failed: {done.stdout}{done.stderr}{self.log_tail()}")
        return done.stdout

    def board(self, timeout: float = REPLY_S):
        from tallyboard.boardlink.client import Board
        from tallyboard.boardlink.transport import SerialTransport

        board = Board(SerialTransport(str(self.link)), timeout=timeout)
        board.connect()
        return board

    # ------------------------------------------------------------ counters
    def _new_log(self) -> list[str]:
        data = self.log.read_bytes()
        text = data[self._log_at:].decode("latin1")
        self._log_at = len(data)
        return text.splitlines()

    def log_tail(self, lines: int = 15) -> str:
        """The twin's log's last lines, to explain a failure ("" when there is none)."""
        try:
            text = self.log.read_bytes().decode("latin1").splitlines()[-lines:]
        except OSError:
            return ""
        return "\nthe twin's log ends:\n" + "\n".join(text)

    def first_light_ms(self, wait: float = BOOT_S) -> float:
        """Emulated ms from the last reset to the first data on the LED pin (the
        log's first such line after mark())."""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            for raw in self.log.read_bytes()[self._light_at:].decode("latin1").splitlines():
                found = _FIRST_LIGHT.search(raw)
                if found:
                    return float(found.group(1))
            time.sleep(0.2)
        raise RuntimeError("no data on the LED pin from the twin")

    def mark(self) -> None:
        """Forget what the chip said so far: replies() and lines() start here."""
        self._new_log()
        self._light_at = self._log_at

    def booted(self, wait: float = BOOT_S) -> dict[str, str]:
        """The app's BOOT event (its game, n and top) among the lines since mark(), once it comes."""
        deadline = time.monotonic() + wait
        while True:
            found = next((m.groupdict() for line in self.lines() if (m := BOOT_EVENT.search(line.text))), None)
            if found is not None:
                return found
            if time.monotonic() > deadline or self.node is None or self.node.poll() is not None:
                raise RuntimeError(f"no BOOT event from the twin within {wait:.0f} s; see {self.log}")
            time.sleep(0.1)

    def chip_time_passes(self, chip_ms: float) -> None:
        """Return once chip_ms of the chip's own (emulated) time has passed, however slowly a busy
        machine runs it: a wait for the firmware's own schedule (a keepalive, a resend), not the clock's."""
        by_chip = self.control.stats()["emu_ms"] + chip_ms
        deadline = time.monotonic() + patient_chip(chip_ms)
        while self.control.stats()["emu_ms"] < by_chip:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the twin's clock did not pass {chip_ms:.0f} ms; see {self.log}")
            time.sleep(0.05)

    def lines(self) -> list[Line]:
        out = []
        for raw in self._new_log():
            m = _LINE.match(raw)
            if m:
                request = m.group("request")
                out.append(Line(float(m.group("reset")), float(request) if request else None, m.group("text")))
        return out

    def stats(self) -> dict[str, float]:
        """The chip's counters now (SIGUSR1 to the runner)."""
        assert self.node is not None
        before = self.log.stat().st_size
        os.kill(self.node.pid, signal.SIGUSR1)
        deadline = time.monotonic() + patient(2)
        while time.monotonic() < deadline:
            data = self.log.read_bytes()[before:].decode("latin1")
            for raw in data.splitlines():
                m = _STATS.match(raw)
                if m and m.group("tag") == "stats":
                    fields = dict(part.split("=", 1) for part in m.group("fields").split() if "=" in part)
                    return {k: float(v) for k, v in fields.items()
                            if re.fullmatch(r"-?[\d.]+", v)}
            time.sleep(0.05)
        raise RuntimeError(f"the device twin printed no stats; see {self.log}")


class RawRepl:
    """MicroPython's raw REPL on the twin's serial port (the app interrupted with
    Ctrl-C, as mpremote does): run a script and read what it prints while it runs,
    so a test can work the board's controls while the chip's own code watches."""

    BANNER = b"raw REPL; CTRL-B to exit\r\n>"

    def __init__(self, link: Path, timeout: float = REPL_S) -> None:
        import serial

        self.port = serial.Serial(str(link), 115200, timeout=0.05)
        self.timeout = timeout
        self.seen = b""
        # Ctrl-C again until the prompt shows, as mpremote does: one sent while the chip is still powering up
        # (its BOOT line on the way) was lost, and the prompt never came (a loaded CI run, 589dc63)
        deadline = time.monotonic() + timeout
        while True:
            self.port.write(b"\r\x03\x03")
            try:
                self._until(b">>> ", "the REPL's prompt after Ctrl-C", min(patient(0.2), deadline - time.monotonic()))
                break
            except RuntimeError:
                if time.monotonic() >= deadline:
                    raise
        self.port.write(b"\x01")
        self._until(self.BANNER, "the raw REPL")

    def _until(self, marker: bytes, what: str, timeout: float | None = None) -> bytes:
        deadline = time.monotonic() + (timeout or self.timeout)
        while marker not in self.seen:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the twin did not show {what} within {timeout or self.timeout:.0f} s: "
                                   f"{self.seen[-300:]!r}")
            self.seen += self.port.read(4096)
        before, _, self.seen = self.seen.partition(marker)
        return before

    def start(self, code: str) -> None:
        """Send a script and start it (its output is read with wait_for/finish)."""
        self.seen = b""
        data = code.encode()
        for at in range(0, len(data), 256):
            self.port.write(data[at:at + 256])
            time.sleep(0.01)
        self.port.write(b"\x04")
        self._until(b"OK", "the raw REPL taking the script")

    def wait_for(self, text: str, timeout: float | None = None) -> str:
        """What the script printed up to (and without) text."""
        return self._until(text.encode(), repr(text), timeout).decode("utf-8", "replace")

    def send(self, data: bytes) -> None:
        """Bytes to the running script, as its sys.stdin reads them."""
        self.port.write(data)

    def finish(self, timeout: float | None = None) -> str:
        """The rest of the script's output once it ended; RuntimeError with its traceback if it failed."""
        out = self._until(b"\x04", "the script's end", timeout)
        err = self._until(b"\x04>", "the script's error output", timeout)
        if err.strip():
            raise RuntimeError(f"the script on the twin failed: {err.decode('utf-8', 'replace')}")
        return out.decode("utf-8", "replace")

    def run(self, code: str, timeout: float | None = None) -> str:
        self.start(code)
        return self.finish(timeout)

    def close(self) -> None:
        self.port.write(b"\x02")
        self.port.close()


def bench_main(doc: str, script: str, run: Callable[..., dict], show: Callable[[dict], None],
               options: Callable[[argparse.ArgumentParser], None] | None = None) -> int:
    """A twin benchmark's command line: --json prints the figures as JSON,
    else show(figures) prints them for people; exit 2, saying why, where the
    twin cannot run. options(parser) adds the benchmark's own; run then
    takes the parsed arguments."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    if options is not None:
        options(parser)
    args = parser.parse_args()
    why = missing()
    if why:
        print(f"{script}: {why}", file=sys.stderr)
        return 2
    figures = run(args) if options is not None else run()
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        show(figures)
    return 0
