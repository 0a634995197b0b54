"""Moving lines of bytes to and from a board (after mpremote's transport.py).

`Transport` is the base: write bytes, read one line with a timeout, close,
reopen. `SerialTransport` is pyserial, for a real board on /dev/ttyACM0 and
for the emulator's pseudo-terminal alike. What the lines mean is the
protocol client's business (client.py); this layer only frames by newline,
and turns every OS-level failure into a TransportError that says what to do.

`find_board_port` is port discovery: a Raspberry Pi Pico enumerates with USB
vendor id 0x2E8A."""
from __future__ import annotations

import os
import select
import time
from dataclasses import dataclass
from typing import Callable

import serial
from serial.tools import list_ports

from ..common.errors import BoardNotFound, TransportError

try:
    from termios import error as _TermiosError   # pyserial's flush (tcdrain) on a port gone: not an OSError
except ImportError:                               # Windows: no termios
    class _TermiosError(Exception):               # type: ignore[no-redef]
        pass

# what a port gone from under a read or a write raises: pyserial's own, the system's, termios's, and
# TypeError from a read on a port pyserial closed underneath it
_PORT_GONE = (OSError, serial.SerialException, _TermiosError, TypeError)

PICO_USB_VID = 0x2E8A
# A line longer than this is noise (the protocol's own frame limit is much
# smaller); it is handed up whole so the client can count it as garbage.
MAX_LINE = 4096

Tap = Callable[[str, bytes], None]  # ("<" read | ">" written, the bytes)


class Transport:
    """One open connection to a board that carries lines of bytes."""

    name = "board"

    def __init__(self) -> None:
        self._buffer = bytearray()
        # called with every chunk read or written; `monitor` prints them
        self.tap: Tap | None = None

    # --- the byte level, for subclasses ----------------------------------
    def _write(self, data: bytes) -> None:
        raise NotImplementedError

    def _read(self, timeout: float) -> bytes:
        """Whatever bytes arrive within timeout seconds (b"" if none)."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def reopen(self) -> None:
        raise NotImplementedError

    # --- the line level ----------------------------------------------------
    def write(self, data: bytes) -> None:
        if self.tap:
            self.tap(">", data)
        self._write(data)

    def read_line(self, timeout: float) -> bytes | None:
        """The next line without its b"\\n" (and without a b"\\r" before it), or
        None when no whole line arrived within timeout seconds."""
        deadline = time.monotonic() + timeout
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0 or len(self._buffer) >= MAX_LINE:
                if end < 0:
                    end = len(self._buffer)
                line = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                if line.endswith(b"\r"):
                    line = line[:-1]
                return line
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            chunk = self._read(min(left, 0.05))
            if chunk:
                if self.tap:
                    self.tap("<", chunk)
                self._buffer += chunk

    def pending(self) -> bytes:
        """Bytes received that do not make a whole line yet."""
        return bytes(self._buffer)

    def drain(self, quiet: float = 0.05) -> bytes:
        """Read and drop everything until the line is quiet; returns what was dropped."""
        dropped = bytes(self._buffer)
        self._buffer.clear()
        while True:
            chunk = self._read(quiet)
            if not chunk:
                return dropped
            if self.tap:
                self.tap("<", chunk)
            dropped += chunk

    def __enter__(self) -> "Transport":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SerialTransport(Transport):
    """A serial port through pyserial: a Pico's USB CDC or the emulator's pty."""

    def __init__(self, port: str, baudrate: int = 115200) -> None:
        super().__init__()
        self.port = port
        self.name = port
        self.baudrate = baudrate
        self._serial: serial.Serial | None = None
        self._fd: int | None = None
        self._hold = PtyHold()
        self.reopen()

    def reopen(self) -> None:
        self._close_serial()          # the pty stays held: its number is not given away meanwhile
        self._buffer.clear()
        if self.port.startswith("/") and not os.path.exists(self.port):
            # said before pyserial tries: a Serial that fails to open runs its close() in a finalizer,
            # where a Ctrl-C that lands is dropped without a word (live.CtrlC), twice a second while
            # watch waits for an unplugged board
            raise TransportError(f"cannot open {self.port}: there is no such port now; check the cable "
                                 "(a board unplugged, or an emulator stopped, takes its port away)")
        try:
            # exclusive: two programs on one board would steal each other's replies
            self._serial = serial.Serial(self.port, self.baudrate, timeout=0, write_timeout=2,
                                         exclusive=True)
            try:
                self._fd = self._serial.fileno()
            except (AttributeError, OSError, serial.SerialException):
                self._fd = None   # no pollable descriptor (Windows): pyserial's timeouts
        except serial.SerialException as exc:
            raise TransportError(
                f"cannot open {self.port}: {_reason(exc)}; check the cable and that no other "
                "program (another tallyboard, mpremote, a terminal) has the port open") from None
        self._hold.take(self.port)

    def close(self) -> None:
        self._close_serial()
        self._hold.release()

    def _close_serial(self) -> None:
        if self._serial is not None:
            try:
                self._serial.close()
            except (OSError, serial.SerialException):
                pass
            self._serial = None

    def fileno(self) -> int | None:
        """The port's descriptor, for a selector (portshare.py); None where there is none."""
        return self._fd

    def read_now(self) -> bytes:
        """What has arrived (b"" if nothing), without waiting: for a selector's loop."""
        return self._read(0)

    def _port(self) -> serial.Serial:
        if self._serial is None:
            raise TransportError(f"{self.port} is closed")
        return self._serial

    def _write(self, data: bytes) -> None:
        try:
            self._port().write(data)
            self._port().flush()
        except _PORT_GONE as exc:
            # the power cut or the cable pulled mid-write: termios.error (EIO) from tcdrain was a
            # traceback (a loaded CI run, 36b9f3c: the twin's power cut during `tallyboard hand`)
            raise TransportError(f"lost the board on {self.port} ({_reason(exc)}): "
                                 "check the cable, then run the command again") from None

    def _read(self, timeout: float) -> bytes:
        port = self._port()
        try:
            if self._fd is not None:
                # wait with select: setting pyserial's timeout reconfigures the tty each time
                if not select.select([self._fd], [], [], timeout)[0]:
                    return b""
                return port.read(max(1, port.in_waiting))
            port.timeout = timeout
            first = port.read(1)
            if not first:
                return b""
            port.timeout = 0
            return first + port.read(port.in_waiting or 0)
        except _PORT_GONE as exc:
            raise TransportError(f"lost the board on {self.port} ({_reason(exc)}): "
                                 "check the cable, then run the command again") from None


def take_lines(part: bytearray) -> list[bytes]:
    """The whole lines in part (bytes as they came), each without its newline and a "\\r"
    before it, taken out of part; what is left is a line not ended yet."""
    lines: list[bytes] = []
    while True:
        end = part.find(b"\n")
        if end < 0:
            return lines
        line = bytes(part[:end])
        del part[:end + 1]
        lines.append(line[:-1] if line.endswith(b"\r") else line)


class PtyHold:
    """An emulated board's pseudo-terminal (/dev/pts/N) kept open, never read nor written, while a
    link may open it again: when its emulator stops the system removes the name but cannot give the
    number to another program while it is held, so a reopen finds this board or nothing, never
    another program's terminal or another emulated board (watch waiting for the board to come
    back). Nothing for any other port: a USB board plugged in again is the board come back."""

    def __init__(self) -> None:
        self.fd: int | None = None

    def take(self, port: str) -> None:
        if self.fd is None and os.path.realpath(port).startswith("/dev/pts/"):
            try:
                self.fd = os.open(port, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
            except OSError:
                self.fd = None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, _TermiosError) and len(exc.args) == 2:
        return str(exc.args[1])              # termios.error(5, 'Input/output error')
    text = str(exc)
    if isinstance(exc, OSError) and exc.strerror:
        text = exc.strerror
    return text.split(": ", 1)[-1] if text.startswith("[Errno") else text


# ---------------------------------------------------------------- discovery

@dataclass(frozen=True)
class PortInfo:
    device: str
    description: str
    serial_number: str | None
    vid: int | None
    pid: int | None

    @property
    def is_pico(self) -> bool:
        return self.vid == PICO_USB_VID


def list_serial_ports(lister: Callable[[], list] | None = None) -> list[PortInfo]:
    found = (lister or list_ports.comports)()
    return sorted((PortInfo(p.device, p.description or "", p.serial_number, p.vid, p.pid)
                   for p in found), key=lambda p: p.device)


def board_ports(lister: Callable[[], list] | None = None) -> list[PortInfo]:
    """The connected boards (USB VID 0x2E8A, Raspberry Pi)."""
    return [p for p in list_serial_ports(lister) if p.is_pico]


def find_board_port(lister: Callable[[], list] | None = None) -> str:
    """The one board's port; a BoardNotFound telling the user what to do otherwise."""
    boards = board_ports(lister)
    if not boards:
        raise BoardNotFound("no board found on USB: check the cable, or add --emulator")
    if len(boards) > 1:
        names = ", ".join(p.device for p in boards)
        raise BoardNotFound(f"several boards found ({names}): choose one with --port")
    return boards[0].device
