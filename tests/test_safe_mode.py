"""Safe mode seen from the host: a board powered up with its undo button held
runs no app and leaves MicroPython's REPL on the port (firmware/main.py); the
REPL reads HELLO as Python and answers with a SyntaxError. The host asks the
REPL (raw REPL, as mpremote would: host/tallyboard/boardlink/repl.py) for main.py's
safe-mode marker, and says what the board is and what to do instead of
"the app stopped with an error". Each emulator here is stopped by its `with`."""
from __future__ import annotations

import pytest
import time
from pathlib import Path

from click.testing import CliRunner

from tallyboard.boardlink import repl
from tallyboard.cli import main
from tallyboard.tooling.emulator import Emulator
from tallyboard.boardlink.transport import SerialTransport, Transport

UNDO_BUTTON = 14    # GPIO of the reference board's undo button (board/pico-reference.json)
SAFE_MODE_SAID = ("tallyboard: the board is in safe mode (a button was held at power-up): the app is not "
                  "running; power-cycle it without holding a button, or use mpremote to repair it\n")


def status(port: str):
    return CliRunner().invoke(main, ["status", "-p", port, "--timeout", "0.5"])


def booted_with_undo_held(flash: Path) -> Emulator:
    emulator = Emulator(flash=flash)
    emulator.io_dir.mkdir(parents=True)
    emulator.press(UNDO_BUTTON)           # held before the power comes on
    return emulator


def prompt_shows(link: Transport, seconds: float = 3.0) -> bool:
    """Whether the REPL's prompt comes within seconds (after the lines before it)."""
    deadline = time.monotonic() + seconds
    while not repl.at_prompt(link) and time.monotonic() < deadline:
        link.read_line(0.05)
    return repl.at_prompt(link)


@pytest.mark.emulator
def test_status_says_the_board_is_in_safe_mode_and_what_to_do(tmp_path, monkeypatch):
    sent = []
    real_write = SerialTransport.write

    def counting(self, data):
        sent.append(bytes(data))
        return real_write(self, data)

    with booted_with_undo_held(tmp_path / "flash") as emulator:
        monkeypatch.setattr(SerialTransport, "write", counting)
        out = status(emulator.port)
        monkeypatch.setattr(SerialTransport, "write", real_write)
        assert (out.exit_code, out.output) == (4, SAFE_MODE_SAID)
        # the REPL's prompt was taken for what it is: HELLO was not sent all four times (4-5 s); once,
        # or twice on a loaded machine where the first wait for a reply ran out before the prompt came
        assert 1 <= len([frame for frame in sent if b" HELLO*" in frame]) <= 2, sent
        # asking left the board at the REPL's prompt, as it was found: asked again, the same
        link = SerialTransport(emulator.port)
        try:
            link.write(b"\r")                    # an empty line: the prompt again
            assert prompt_shows(link)
            assert repl.safe_mode(link) == "button held at power-up"
            link.write(b"\r")
            assert prompt_shows(link)
        finally:
            link.close()
        out = status(emulator.port)
        assert (out.exit_code, out.output) == (4, SAFE_MODE_SAID)
        # what the advice says: power-cycle without holding the button
        emulator.release(UNDO_BUTTON)
        emulator.restart()
        out = status(emulator.port)
        assert out.exit_code == 0, out.output
        assert out.output.startswith(f"board pico-reference on {emulator.port}: firmware ")


@pytest.mark.emulator
def test_a_prompt_without_the_marker_is_not_called_safe_mode(tmp_path):
    # a board at the REPL whose main.py left no marker (its app stopped): the
    # message stays the one for a board whose app is not running
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "main.py").write_text("import os\nos.putenv('MICROPYINSPECT', '1')   # stay at the REPL\n")
    with Emulator(flash=flash, install=False) as emulator:
        out = status(emulator.port)
        assert out.exit_code == 4
        assert out.output.startswith(f"tallyboard: the tallyboard app on {emulator.port} stopped with an error")
        assert "safe mode" not in out.output
        link = SerialTransport(emulator.port)
        try:
            link.write(b"\r")
            assert prompt_shows(link)
            assert repl.safe_mode(link) is None
        finally:
            link.close()


class RecordingLink(Transport):
    """A link whose board has said `said` (no newline at its end) and says nothing more."""

    def __init__(self, said: bytes) -> None:
        super().__init__()
        self._buffer += said
        self.written: list[bytes] = []

    def _write(self, data: bytes) -> None:
        self.written.append(data)

    def _read(self, timeout: float) -> bytes:
        return b""

    def close(self) -> None:
        pass

    def reopen(self) -> None:
        pass


def test_nothing_is_sent_unless_the_prompt_is_showing():
    # an app mid-line, a stray line ending: a board that may be running the app
    for said in (b"12 OK n=", b"Traceback", b">>> 1 HELLO*0000", b""):
        link = RecordingLink(said)
        assert repl.safe_mode(link) is None
        assert link.written == []


@pytest.mark.emulator
def test_safe_mode_through_the_ports_sharer_reads_as_safe_mode(tmp_path, monkeypatch):
    # the board in safe mode while `tallyboard share` (a sharer in this process, as share runs one) has its
    # port: the sharer asks the REPL itself, once, and answers every program for it
    import socket

    from tallyboard.boardlink import portshare, wire

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    with booted_with_undo_held(tmp_path / "flash") as emulator:
        sharer = portshare.open_link(emulator.port, serve=True)
        tap = portshare.WireTap(emulator.port)
        try:
            out = status(emulator.port)
            assert (out.exit_code, out.output) == (4, SAFE_MODE_SAID)
            # a program of any language on the socket reads the sharer's answer with its own seq
            program = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            program.connect(str(portshare.socket_path(emulator.port)))
            program.sendall(wire.encode_request(7, b"HELLO"))
            answer = program.makefile("rb").readline().rstrip(b"\n")
            program.close()
            assert wire.check_frame(answer) == (b"7 ERR BOARD safe mode: button held at power-up: the board's app "
                                                b"is not running; power-cycle it without holding a button, or stop "
                                                b"the sharer and use mpremote to repair it")
            # on the wire: the sharer's own HELLO reached the REPL, then the raw REPL's question (Ctrl-A ...
            # Ctrl-D, Ctrl-B back); no frame after it: status's requests and the program's were answered for it
            sent = []
            deadline = time.monotonic() + 5
            while not any(b"\x02" in line for line in sent) and time.monotonic() < deadline:
                sent += [data for d, data in tap.lines(0.1) if d == ">"]
            frames = [line for line in sent if line.rstrip(b"\n").endswith(b"*" + line.rstrip(b"\n")[-4:])
                      and b" HELLO*" in line]
            assert len(frames) == 1, sent
            assert any(b"\x01" in line for line in sent) and any(b"tallyboard_safe_mode" in line for line in sent)
            assert not any(b"\x03" in line for line in sent)        # never Ctrl-C
            tap.close()
        finally:
            sharer.close()
