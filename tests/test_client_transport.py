"""Port discovery and the line transport, over a pty relayed to a tiny
MicroPython echo program (the emulator's plumbing without the firmware)."""
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from tallyboard.boardlink import transport
from tallyboard.tooling.emulator import Emulator
from tallyboard.common.errors import BoardNotFound, TransportError
from waiting import until


def port(device, vid, description="USB serial"):
    return SimpleNamespace(device=device, description=description, serial_number="E66", vid=vid, pid=5)


def test_one_pico_is_found():
    ports = [port("/dev/ttyUSB0", 0x0403), port("/dev/ttyACM0", 0x2E8A, "Board in FS mode")]
    assert transport.find_board_port(lambda: ports) == "/dev/ttyACM0"


def test_no_pico_says_what_to_do():
    with pytest.raises(BoardNotFound) as info:
        transport.find_board_port(lambda: [port("/dev/ttyUSB0", 0x0403), port("/dev/ttyS0", None)])
    assert str(info.value) == "no board found on USB: check the cable, or add --emulator"


def test_several_picos_ask_for_port():
    ports = [port("/dev/ttyACM1", 0x2E8A), port("/dev/ttyACM0", 0x2E8A)]
    with pytest.raises(BoardNotFound) as info:
        transport.find_board_port(lambda: ports)
    assert str(info.value) == "several boards found (/dev/ttyACM0, /dev/ttyACM1): choose one with --port"


ECHO = """import sys
while True:
    line = sys.stdin.readline()
    if not line:
        break
    sys.stdout.write("echo " + line)
"""


@pytest.fixture
def echo_board(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "main.py").write_text(ECHO)
    with Emulator(flash=flash, install=False) as emu:
        yield emu


@pytest.mark.emulator
def test_lines_round_trip_and_survive_a_power_cut(echo_board):
    link = transport.SerialTransport(echo_board.port)
    seen = []
    link.tap = lambda direction, data: seen.append((direction, data))
    link.write(b"one\r\n")
    assert link.read_line(2) == b"echo one"      # the \r before \n is dropped
    echo_board.cut_power()
    link.write(b"lost while off\n")
    assert link.read_line(0.2) is None
    echo_board.power_on()
    link.write(b"two\n")
    assert link.read_line(2) == b"echo two"       # what was sent while off never arrives
    link.close()
    link.reopen()                                  # drop and reopen the port: same path
    link.write(b"three\n")
    assert link.read_line(2) == b"echo three"
    assert (">", b"one\r\n") in seen
    link.close()


@pytest.mark.emulator
def test_a_line_arriving_in_pieces_is_joined(echo_board):
    link = transport.SerialTransport(echo_board.port)
    link.write(b"par")
    assert link.read_line(0.1) is None
    link.write(b"tial\n")
    assert link.read_line(2) == b"echo partial"
    link.close()


def test_a_missing_port_says_what_to_do(tmp_path):
    with pytest.raises(TransportError, match="cannot open .*check the cable"):
        transport.SerialTransport(str(tmp_path / "ttyACM9"))


@pytest.mark.emulator
def test_port_taken_by_another_program(echo_board):
    first = transport.SerialTransport(echo_board.port)
    with pytest.raises(TransportError, match="no other program"):
        transport.SerialTransport(echo_board.port)
    first.close()


@pytest.mark.emulator
def test_pins_and_io_files(echo_board):
    echo_board.press(3)
    pins = (echo_board.io_dir / "pins.bin").read_bytes()
    assert len(pins) == 30 and pins[3] == 0 and pins.count(1) == 29
    echo_board.release(3)
    assert (echo_board.io_dir / "pins.bin").read_bytes() == b"\x01" * 30
    with pytest.raises(ValueError, match="GPIO 30"):
        echo_board.press(30)
    assert echo_board.leds() == b""                 # the echo program drives no LEDs
    (echo_board.io_dir / "leds.bin").write_bytes(b"\x00\xff\x00")
    assert echo_board.leds() == b"\x00\xff\x00"
    env = echo_board.env()
    assert env["TALLYBOARD_EMU_IO"] == str(echo_board.io_dir)
    assert env["MICROPYPATH"].split(os.pathsep)[1].endswith("firmware/emu")


@pytest.mark.emulator
def test_two_emulators_cannot_share_a_flash_folder(echo_board):
    with pytest.raises(Exception, match="another emulator is running"):
        Emulator(flash=echo_board.flash, install=False).start()


@pytest.mark.emulator
def test_a_pulled_cable_is_a_clear_error(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "main.py").write_text(ECHO)
    emulator = Emulator(flash=flash, install=False)
    emulator.start()
    link = transport.SerialTransport(emulator.port)
    link.write(b"hi\n")
    assert link.read_line(2) == b"echo hi"
    emulator.stop()                                   # the port itself goes away
    with pytest.raises(TransportError, match="lost the board on .*check the cable"):
        link.write(b"anyone?\n")
        link.read_line(1)
    link.close()


@pytest.mark.emulator
def test_a_crashed_firmware_is_reported_with_its_error(tmp_path):
    from tallyboard.boardlink.client import Board
    from tallyboard.tooling.emulator import require_port_alive

    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "main.py").write_text("x = 1 // 0\n")
    with Emulator(flash=flash, install=False) as emulator:
        # the port open before the board powers up: pyserial's open drops what a port had received
        # before it, and the first power-up's traceback may be there already (a loaded CI run, 36b9f3c)
        emulator.cut_power()
        link = transport.SerialTransport(emulator.port)
        emulator.power_on()
        # the firmware has crashed, its traceback on the port, before the host asks (judged by what the
        # emulated board did, not by how soon a busy machine let it)
        until(lambda: not emulator.running, 60, "the emulated board's app to stop with its error")
        # however slowly its output is relayed: the session stops at the traceback's last line, and a
        # reply is waited for as long as a busy machine may take, not 0.1 s (a loaded CI run, 3ef1301)
        board = Board(link, timeout=60, retries=1)
        with pytest.raises(TransportError, match="app on .* stopped with an error .*ZeroDivisionError"):
            board.hello()
        assert board.retried == 0           # not asked again: nothing there answers
        with pytest.raises(TransportError, match="the emulated board stopped: .*ZeroDivisionError"):
            require_port_alive(emulator)
        link.close()


class ChunkedLink(transport.Transport):
    """Hands out a byte stream in the given chunk sizes, one chunk per read."""

    def __init__(self, data, sizes):
        super().__init__()
        self.chunks = []
        at = 0
        for size in sizes:
            self.chunks.append(data[at:at + size])
            at += size
        self.chunks.append(data[at:])

    def _read(self, timeout):
        return self.chunks.pop(0) if self.chunks else b""

    def _write(self, data):
        pass

    def close(self):
        pass

    def reopen(self):
        pass


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=12),
       sizes=st.lists(st.integers(1, 17), max_size=40), crlf=st.booleans())
def test_lines_come_out_whole_however_the_bytes_are_cut(lines, sizes, crlf):
    # a line of its own that ends in \r loses that \r, as the protocol says
    ending = b"\r\n" if crlf else b"\n"
    link = ChunkedLink(b"".join(line + ending for line in lines), sizes)
    got = [link.read_line(5.0) for _ in lines]
    assert link.pending() == b"" and not any(link.chunks)
    expected = [line[:-1] if (not crlf and line.endswith(b"\r")) else line for line in lines]
    assert got == expected


@pytest.mark.emulator
def test_power_on_after_the_firmware_died_by_itself(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "main.py").write_text("import sys\nfirst = sys.stdin.readline()\nif first == 'die\\n':\n"
                                   "    raise SystemExit\nsys.stdout.write('echo ' + first)\n" + ECHO)
    with Emulator(flash=flash, install=False) as emulator:
        link = transport.SerialTransport(emulator.port)
        link.write(b"die\n")
        until(lambda: not emulator.running, 60, "the firmware ending by itself", every=0.02)
        emulator.power_on()
        for n in range(20):                           # every line reaches the new firmware
            link.write(b"x%d\n" % n if n else b"first\n")
            assert link.read_line(2) == (b"echo x%d" % n if n else b"echo first")
        link.close()


@pytest.mark.emulator
def test_a_host_that_reads_late_loses_nothing(echo_board):
    link = transport.SerialTransport(echo_board.port)
    lines = [b"line %04d %s" % (n, b"x" * 40) for n in range(400)]   # ~22 KB of echoes
    link.write(b"".join(line + b"\n" for line in lines))
    # the host reads only once the firmware has echoed the last line: every echo is out of the
    # firmware by then, far more than the pty's own buffer holds, the rest held by the relay
    until(lambda: b"echo " + lines[-1] in echo_board.last_output, 30, "the firmware's last echo", every=0.02)
    assert [link.read_line(2) for _ in lines] == [b"echo " + line for line in lines]
    link.close()


def test_rebuild_settled_reads_again_when_the_game_changed_while_it_was_read(monkeypatch):
    """The board started a new game (a Wi-Fi board seating itself for a round) between the host's reads
    of its log and its score: rebuild() finds them disagreeing; rebuild_settled() reads again when an
    event said the board changed, and raises when none did."""
    from tallyboard.boardlink.client import Board
    from tallyboard.common.errors import ProtocolError

    board = Board.__new__(Board)
    board.events_heard = 0
    reads = []

    def rebuild():
        reads.append(board.events_heard)
        if len(reads) == 1:
            board.events_heard += 1          # the board's NEW heard while it was read
            raise ProtocolError("SCORE hands: the board says 0, the host core 4")
        return "the game as it stands"

    monkeypatch.setattr(board, "rebuild", rebuild)
    assert board.rebuild_settled() == "the game as it stands" and reads == [0, 1]

    def disagrees():
        raise ProtocolError("SCORE hands: the board says 0, the host core 4")

    monkeypatch.setattr(board, "rebuild", disagrees)
    with pytest.raises(ProtocolError, match="SCORE hands"):
        board.rebuild_settled()            # nothing heard: a real disagreement, said at once


def test_a_port_gone_while_its_write_drains_is_said_in_the_users_words(tmp_path):
    # pyserial's flush() is tcdrain(), which raises termios.error, not an OSError, when the board's
    # power or cable goes mid-write: it was a traceback (a loaded CI run's power cut, 36b9f3c)
    import os
    import termios

    master, slave = os.openpty()
    try:
        link = transport.SerialTransport(os.ttyname(slave))

        class Draining:
            def write(self, data):
                return len(data)

            def flush(self):
                raise termios.error(5, "Input/output error")

            def close(self):
                pass

        link._serial = Draining()
        with pytest.raises(TransportError, match=r"lost the board on .* \(Input/output error\): check the cable"):
            link.write(b"1 HELLO*5180\n")
        link.close()
    finally:
        os.close(slave)
        os.close(master)
