"""The emulator: the firmware itself, run by the MicroPython unix port, with
its USB serial port on a pseudo-terminal.

    flash folder   the board's filesystem: the file set `deploy` writes
                   (fileset.py) plus whatever the firmware keeps there (the
                   journal, its config). It survives power cuts and restarts.
    io folder      TALLYBOARD_EMU_IO: the hardware stand-ins in firmware/emu/
                   write leds.bin (the last WS2812 frame, GRB) and oled.bin
                   (the SSD1306 buffer) there and read pins.bin (one byte per
                   GPIO 0..29; missing = all high = buttons released).
    port           the slave end of a pty; open it with pyserial like
                   /dev/ttyACM0. A relay thread copies bytes between the pty
                   master and the micropython process's stdin/stdout (relay.py).

Power cut = SIGKILL the process and keep the flash folder; `power_on` boots
again from it. The pty (and so the port's path) stays across power cuts, as
a Pico comes back on the same /dev/ttyACM0; bytes the host sends while the
power is off are lost; board output is held for a host that reads late (up
to relay.HOST_BUFFER bytes), then dropped, as USB CDC drops output with no host.

`tallyboard emulate` runs one in the foreground and records it in
<state>/running.json (pid, port, flash); `--emulator` on every other command
attaches to that one if it is running, else boots one from the default flash
folder for the length of the command (so a game carries on from one command
to the next, from the journal on its flash, as on a real board).
The state folder is $TALLYBOARD_EMULATOR_HOME, else
$XDG_STATE_HOME/tallyboard/emulator, else ~/.local/state/tallyboard/emulator.

A board on the club's Wi-Fi keeps its keys, its broker password and the
Wi-Fi passphrase in net.txt on its flash; no other user of the machine may
read a real board's flash, so neither may they the emulated one's: every
file the firmware writes is 0600 (it runs under umask 077), a flash folder
made here is 0700, and a net.txt left open to others by an older version is
tightened before the board powers on (issue 30's finding 6)."""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import threading
import time
import tty
from pathlib import Path
from typing import IO

import tallyboot

from . import fileset
from ..common.errors import TallyboardError, TransportError
from .mpunix import FIRMWARE_DIR, STANDINS_DIR, micropython_binary
from .relay import Relay

GPIO_COUNT = 30
# the unix port's heap; the objects there are bigger (64-bit words), so this
# is roughly the RP2040's ~190 KB of heap
HEAP_SIZE = "384K"
LOG_LIMIT = 1 << 20   # bytes of the firmware's stderr kept in emulator.log
OUTPUT_KEPT = 400     # bytes of its last output kept to explain a crash
FIRMWARE_UMASK = 0o077  # what the firmware writes on its flash is its user's alone
# how long a script of pin levels may take to be played, beyond its own ms: a guard against an app that is
# not running, not a measure (the firmware plays it in its own time; a loaded machine starves it for seconds)
PLAY_GUARD_S = 60.0
RESET_SIGNAL = signal.SIGUSR1   # how the firmware's machine.reset() ends its process (firmware/emu/machine.py)
ROMFS_FILE = "romfs.bin"  # the emulated ROMFS partition in the flash folder (firmware/emu/updating.py's; a test holds them equal)
SECRET_FLASH_FILES = ("net.txt", "net.txt.tmp")   # tallynet/settings.py NET_FILE: keys, passwords, passphrase


def state_home() -> Path:
    explicit = os.environ.get("TALLYBOARD_EMULATOR_HOME")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "tallyboard" / "emulator"


def _write_atomic(path: Path, data: bytes) -> None:
    partial = path.with_name(path.name + ".part")
    partial.write_bytes(data)
    os.replace(partial, path)


class Emulator:
    """One emulated board. Use as a context manager, or start()/stop()."""

    def __init__(self, flash: Path | None = None, io_dir: Path | None = None,
                 files: list[fileset.FirmwareFile] | None = None, install: bool = True,
                 heap_size: str = HEAP_SIZE, io_files: bool = True, romfs: int = 0) -> None:
        home = state_home()
        self.flash = Path(flash) if flash else home / "flash"
        self.io_dir = Path(io_dir) if io_dir else self.flash.parent / (self.flash.name + "-io")
        self.files = files
        self.install = install
        self.heap_size = heap_size
        # False: no TALLYBOARD_EMU_IO, so the stand-ins write no leds.bin/oled.bin
        # and read no pins.bin (benchmarks: the protocol and journal alone)
        self.io_files = io_files
        # a board on tallyboard's own image (image/README.md): a ROMFS partition of this many bytes
        # (romfs.bin in the flash folder: firmware/emu/updating.py), the packages in it, as deploy puts them
        self.romfs = romfs
        self.log_path = self.io_dir / "emulator.log"
        self._master = -1
        self._slave = -1
        self.port = ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._relay: threading.Thread | None = None
        self._wake_r = self._wake_w = -1
        self._lock_file: IO[bytes] | None = None
        self._pins = bytearray(b"\x01" * GPIO_COUNT)
        self._life = threading.RLock()   # power_on, cut_power and a reset's restart, one at a time
        self._powered = False            # on, as far as the host is concerned: a reset powers on again
        self.resets = 0                  # the firmware's machine.reset()s, each a power-up again
        self.last_output = b""   # the firmware's last bytes on stdout (a traceback, say)

    # --- life cycle --------------------------------------------------------
    def start(self, fresh: bool = False) -> str:
        """Install the file set on the flash folder, open the pty, power on.
        fresh: erase the flash folder first (the emulated board's game and
        config). Returns the port (the pty's slave path)."""
        if not self.flash.is_dir():
            self.flash.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.io_dir.mkdir(parents=True, exist_ok=True)
        self._lock()
        try:
            if fresh:
                shutil.rmtree(self.flash)
                self.flash.mkdir(mode=0o700)
            if self.install:
                files = self.files if self.files is not None else fileset.build()
                if self.romfs:
                    self._install_romfs(files)
                else:
                    fileset.install(files, self.flash)
            self._master, self._slave = os.openpty()
            # raw: no echo, no newline translation, no signals from 0x03; the
            # host's pyserial sets the same when it opens the port
            tty.setraw(self._slave)
            os.set_blocking(self._master, False)
            self.port = os.ttyname(self._slave)
            self.set_pins(self._pins)
            self.power_on()
        except BaseException:
            self.stop()
            raise
        return self.port

    def _lock(self) -> None:
        path = self.flash.parent / (self.flash.name + ".lock")
        self._lock_file = open(path, "wb")
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock_file.close()
            self._lock_file = None
            raise TallyboardError(f"another emulator is running on {self.flash}; use it "
                                  "(--emulator attaches to `tallyboard emulate`) or stop it first") from None

    def _install_romfs(self, files: list[fileset.FirmwareFile]) -> None:
        """As deploy onto a board whose image has a ROMFS partition: the packages as the
        partition's image, nothing of them on the flash folder, the other files there.
        A partition that holds an image already keeps it (an update over the air may have
        put another release there: firmware/tallyboot.py)."""
        image = fileset.romfs_image(files)
        if len(image) > self.romfs:
            raise TallyboardError(f"the packages' ROMFS image is {len(image):,} bytes; the emulated partition "
                                  f"holds {self.romfs:,}")
        partition = self.flash / ROMFS_FILE
        held = partition.read_bytes() if partition.exists() else b""
        if len(held) != self.romfs or held[:3] != tallyboot.HEADER:
            partition.write_bytes(image + b"\xff" * (self.romfs - len(image)))
        fileset.install([f for f in files if not fileset.is_package_file(f)], self.flash)
        for package in fileset.SUBPACKAGES + fileset.PACKAGES:
            if (self.flash / package).is_dir():
                shutil.rmtree(self.flash / package)

    def argv(self) -> list[str]:
        # a board with a ROMFS partition: the port's start (the partition mounted at /rom), then main.py
        start = ["-c", "import romboot"] if self.romfs else ["main.py"]
        return [micropython_binary(), "-X", f"heapsize={self.heap_bytes()}", *start]

    def heap_bytes(self) -> int:
        """The unix port's heap: heap_size, and the partition's bytes beside it (the stand-in keeps
        them in the heap; the chip maps its flash), so the firmware has heap_size as ever."""
        text = self.heap_size.strip().upper()
        scale = {"K": 1024, "M": 1024 * 1024}.get(text[-1:], 1)
        return int(text.rstrip("KM")) * scale + (self.romfs + 4096 if self.romfs else 0)

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        # the stand-ins for machine/neopixel/rp2 come after the flash folder
        # ("" = the working directory) on the module path
        env["MICROPYPATH"] = os.pathsep.join(["", str(STANDINS_DIR), ".frozen"])
        if self.io_files:
            env["TALLYBOARD_EMU_IO"] = str(self.io_dir)
        else:
            env.pop("TALLYBOARD_EMU_IO", None)
        return env

    def power_on(self) -> None:
        with self._life:
            self._power_on()

    def _power_on(self) -> None:
        self._powered = True
        if self.running:
            return
        if self._proc is not None:
            self._cut_power()   # the firmware died by itself (or reset): retire its relay first
        self._drop_pending_input()
        try:
            if self.log_path.stat().st_size > LOG_LIMIT:
                self.log_path.unlink()   # keep the firmware's stderr from growing without end
        except FileNotFoundError:
            pass
        self._tighten_secrets()
        log = open(self.log_path, "ab")
        try:
            self._proc = subprocess.Popen(
                self.argv(), cwd=self.flash, env=self.env(), stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=log, bufsize=0, start_new_session=True, umask=FIRMWARE_UMASK)
        finally:
            log.close()
        self._wake_r, self._wake_w = os.pipe()
        self._relay = threading.Thread(target=Relay(self._master, self._proc, self._wake_r, self._heard).run,
                                       name="emulator-relay", daemon=True)
        self._relay.start()
        threading.Thread(target=self._restart_on_reset, args=(self._proc,), name="emulator-reset",
                         daemon=True).start()

    def _restart_on_reset(self, proc: subprocess.Popen[bytes]) -> None:
        """machine.reset() (the stand-in ends the process with RESET_SIGNAL): the board starts again at
        once on its flash, as a chip does; any other end of the firmware leaves it off."""
        if proc.wait() != -RESET_SIGNAL:
            return
        with self._life:
            if proc is self._proc and self._powered:
                self.resets += 1
                self._power_on()

    def _tighten_secrets(self) -> None:
        """The flash's secret files 0600, should an older version have left them open to others
        (the firmware's own writes are 0600 from the start: FIRMWARE_UMASK)."""
        for name in SECRET_FLASH_FILES:
            path = self.flash / name
            try:
                if path.stat().st_mode & 0o077:
                    path.chmod(0o600)
            except FileNotFoundError:
                pass

    def cut_power(self) -> None:
        """SIGKILL the firmware at whatever it is doing; the flash folder stays."""
        with self._life:
            self._powered = False
            self._cut_power()

    def _cut_power(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.kill(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait()
        self._stop_relay()
        for stream in (proc.stdin, proc.stdout):
            if stream:
                try:
                    stream.close()
                except OSError:
                    pass
        self._proc = None

    def restart(self, off_seconds: float = 0.0) -> None:
        """Power cut, then power on again from the same flash."""
        self.cut_power()
        if off_seconds:
            time.sleep(off_seconds)
        self.power_on()

    def stop(self) -> None:
        self.cut_power()
        for fd in (self._master, self._slave):
            if fd >= 0:
                os.close(fd)
        self._master = self._slave = -1
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def log_tail(self, lines: int = 5) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.strip().splitlines()[-lines:])

    def __enter__(self) -> "Emulator":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- the relay -----------------------------------------------------------
    def _drop_pending_input(self) -> None:
        while self._master >= 0:
            try:
                if not os.read(self._master, 4096):
                    return
            except OSError:
                return

    def _stop_relay(self) -> None:
        if self._relay is not None:
            os.write(self._wake_w, b"x")
            self._relay.join(5)
            self._relay = None
            os.close(self._wake_r)
            os.close(self._wake_w)
            self._wake_r = self._wake_w = -1

    def _heard(self, data: bytes) -> None:
        self.last_output = (self.last_output + data)[-OUTPUT_KEPT:]

    # --- the hardware stand-ins' files ---------------------------------------
    def set_pins(self, levels: bytes | bytearray) -> None:
        self._pins[:] = bytes(levels[:GPIO_COUNT]).ljust(GPIO_COUNT, b"\x01")
        _write_atomic(self.io_dir / "pins.bin", bytes(self._pins))

    def set_pin(self, pin: int, high: bool) -> None:
        if not 0 <= pin < GPIO_COUNT:
            raise ValueError(f"pin: GPIO {pin} is out of range 0 to {GPIO_COUNT - 1}")
        self._pins[pin] = 1 if high else 0
        self.set_pins(self._pins)

    def press(self, pin: int) -> None:
        """Hold a pulled-up button down (its pin reads low)."""
        self.set_pin(pin, False)

    def release(self, pin: int) -> None:
        self.set_pin(pin, True)

    def play(self, steps: list[tuple[int, dict[int, int]]], timeout: float = PLAY_GUARD_S) -> None:
        """Play pin levels in the firmware's own time: each step (ms, {pin:
        level}) lasts at least ms of the firmware's clock and until the
        firmware has read its first pin twice, once after the ms (the
        stand-in in firmware/emu/machine.py plays it). Returns when the last
        step is done, so a press is seen however loaded the machine is and
        the next command finds it made. Raises TallyboardError when the
        firmware does not play it (the app is not running)."""
        for _ms, levels in steps:
            for pin in levels:
                if not 0 <= pin < GPIO_COUNT:
                    raise ValueError(f"pin: GPIO {pin} is out of range 0 to {GPIO_COUNT - 1}")
        # the levels after the script, for whoever reads pins.bin next
        for _ms, levels in steps:
            for pin, level in levels.items():
                self._pins[pin] = 1 if level else 0
        self.set_pins(self._pins)
        seq = f"{os.getpid()}-{time.monotonic_ns()}"
        lines = [seq] + [" ".join([str(ms)] + [f"{pin}={1 if level else 0}" for pin, level in levels.items()])
                         for ms, levels in steps]
        done = self.io_dir / "steps.done"
        _write_atomic(self.io_dir / "steps.txt", "\n".join(lines).encode())
        deadline = time.monotonic() + timeout + sum(ms for ms, _ in steps) / 1000
        while time.monotonic() < deadline:
            try:
                if done.read_text() == seq:
                    return
            except OSError:
                pass
            proc = self._proc            # (None: another process runs this board, `tallyboard emulate`)
            if proc is not None and proc.poll() is not None and proc.returncode != -RESET_SIGNAL:
                break                    # the firmware this one ran has ended (not a reset): nothing will play it
            time.sleep(0.01)
        raise TallyboardError("the emulated board did not take the input: its app is not running "
                              "(safe mode, or stopped); see tallyboard status")

    def tap(self, pin: int, hold: float = 0.15, times: int = 1, gap: float = 0.08) -> None:
        """Press a pulled-up button times, each held hold seconds (a long
        press is 0.6 s or more) and released gap seconds, of the firmware's
        own clock."""
        steps: list[tuple[int, dict[int, int]]] = []
        for _ in range(times):
            steps += [(int(hold * 1000), {pin: 0}), (int(gap * 1000), {pin: 1})]
        self.play(steps)

    def turn(self, pin_a: int, pin_b: int, detents: int, steps_per_detent: int = 4,
             dwell: float = 0.01) -> None:
        """Turn the encoder on pins a and b by detents (positive: clockwise),
        one quadrature state at a time, each held dwell seconds of the
        firmware's clock and seen by its poll."""
        order = (3, 2, 0, 1)       # AB: 11 -> 10 -> 00 -> 01 -> 11 is clockwise (tallypanel.inputs)
        state = self._pins[pin_a] << 1 | self._pins[pin_b]
        at = order.index(state) if state in order else 0
        step = 1 if detents > 0 else -1
        steps: list[tuple[int, dict[int, int]]] = []
        for _ in range(abs(detents) * steps_per_detent):
            at = (at + step) % 4
            steps.append((int(dwell * 1000), {pin_a: order[at] >> 1, pin_b: order[at] & 1}))
        self.play(steps)

    def leds(self) -> bytes:
        """The last WS2812 frame the firmware wrote (GRB bytes), b"" if none yet."""
        return self._read_io("leds.bin")

    def oled(self) -> bytes:
        """The SSD1306's 1024-byte buffer last shown, b"" if none yet."""
        return self._read_io("oled.bin")

    def _read_io(self, name: str) -> bytes:
        try:
            return (self.io_dir / name).read_bytes()
        except FileNotFoundError:
            return b""


# ---------------------------------------------------------------- the running one

def running_file() -> Path:
    return state_home() / "running.json"


def flash_running_file(flash: Path) -> Path:
    """Where a `tallyboard emulate` records itself beside its own flash folder
    (several run at once at a club evening: `press --flash` finds each one)."""
    return flash.parent / (flash.name + ".running.json")


def write_running(emulator: Emulator, boots: int = 0) -> None:
    """The running `tallyboard emulate`'s record; `boots`: its resets so far (SIGHUP), so a command
    that resets it knows when the board has started again (commands/deploy.py restart_emulator)."""
    state_home().mkdir(parents=True, exist_ok=True)
    data = json.dumps({"pid": os.getpid(), "port": emulator.port, "flash": str(emulator.flash),
                       "io": str(emulator.io_dir), "boots": boots}).encode()
    _write_atomic(running_file(), data)
    _write_atomic(flash_running_file(emulator.flash), data)


def clear_running(flash: Path | None = None) -> None:
    for path in (running_file(), *([flash_running_file(flash)] if flash is not None else [])):
        try:
            data = json.loads(path.read_text())
            if data.get("pid") == os.getpid():
                path.unlink()
        except (OSError, ValueError):
            pass


def find_running() -> dict | None:
    """The `tallyboard emulate` that is running now, if any: {pid, port, flash, io}."""
    return _alive(running_file())


def running_on(flash: Path) -> dict | None:
    """The `tallyboard emulate` running on this flash folder now, if any: {pid, port, flash, io}."""
    return _alive(flash_running_file(Path(flash)))


def _alive(record: Path) -> dict | None:
    try:
        data = json.loads(record.read_text())
        pid = int(data["pid"])
        port = str(data["port"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    if not os.path.exists(port):
        return None
    return data


def require_port_alive(emulator: Emulator) -> None:
    if not emulator.running:
        said = emulator.last_output.decode(errors="replace").strip().splitlines()[-3:]
        tail = emulator.log_tail() or " ".join(line.strip() for line in said)
        raise TransportError("the emulated board stopped" + (f": {tail}" if tail else "")
                             + f"; see {emulator.log_path}")
