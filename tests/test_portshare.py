"""One process owns a port and shares it (portshare.py): replies go to the process
that asked, events to everyone, and a port held by another program is named.
The board here is a pty whose far end answers like one."""
import os
import subprocess
import sys
import threading
import time
import tty

import pytest

from tallyboard import portshare
from tallyboard.errors import TransportError


class FakeBoard:
    """The far end of a pty: answers "<seq> <VERB>" with "<seq> OK verb=<VERB>" and
    sends "! 9 NOTE" after every reply."""

    def __init__(self):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)   # no echo of the replies back to this end
        self.path = os.ttyname(self.slave)   # kept open: the master reads EIO when no slave is open
        self.seen = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        buf = b""
        while not self.stop.is_set():
            try:
                chunk = os.read(self.master, 1024)
            except OSError:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self.seen.append(line)
                seq, verb = line.split(b" ")[:2]
                os.write(self.master, seq + b" OK verb=" + verb + b"\n! 9 NOTE\n")

    def close(self):
        self.stop.set()
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def board(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    fake = FakeBoard()
    yield fake
    fake.close()


def lines(link, count, timeout=3.0):
    out = []
    deadline = time.monotonic() + timeout
    while len(out) < count and time.monotonic() < deadline:
        line = link.read_line(0.1)
        if line is not None:
            out.append(line)
    return out


def test_replies_go_to_the_process_that_asked_and_events_to_all(board):
    owner = portshare.open_link(board.path, serve=True)
    try:
        assert isinstance(owner, portshare.HubTransport)
        other = portshare.open_link(board.path)
        assert isinstance(other, portshare.SocketTransport)
        other.write(b"500 HELLO\n")
        assert lines(other, 2) == [b"500 OK verb=HELLO", b"! 9 NOTE"]
        assert lines(owner, 1) == [b"! 9 NOTE"]          # the event, not the other's reply
        owner.write(b"7 STATE\n")
        assert lines(owner, 2) == [b"7 OK verb=STATE", b"! 9 NOTE"]
        assert lines(other, 1) == [b"! 9 NOTE"]
        assert other.read_line(0.3) is None              # nobody else's reply
        other.close()
    finally:
        owner.close()
    assert board.seen == [b"500 HELLO", b"7 STATE"]


def test_a_line_is_sent_whole_even_when_written_in_pieces(board):
    owner = portshare.open_link(board.path, serve=True)
    try:
        a = portshare.open_link(board.path)
        b = portshare.open_link(board.path)
        a.write(b"11 SC")
        b.write(b"22 STATE\n")
        time.sleep(0.2)
        a.write(b"ORE\n")
        assert b"11 OK verb=SCORE" in lines(a, 3)     # with the events of both requests
        assert b"22 OK verb=STATE" in lines(b, 1)
        a.close()
        b.close()
    finally:
        owner.close()
    assert sorted(board.seen) == [b"11 SCORE", b"22 STATE"]


def test_without_a_hub_a_command_opens_the_port_itself(board):
    link = portshare.open_link(board.path)
    try:
        assert not isinstance(link, (portshare.HubTransport, portshare.SocketTransport))
        link.write(b"3 HELLO\n")
        assert lines(link, 1) == [b"3 OK verb=HELLO"]
    finally:
        link.close()


def test_the_process_serving_a_port_is_named(board):
    assert portshare.server_of(board.path) is None
    owner = portshare.open_link(board.path, serve=True)
    try:
        assert portshare.server_of(board.path).startswith(f"pid {os.getpid()} (")
    finally:
        owner.close()
    assert portshare.server_of(board.path) is None


def test_clients_hear_when_the_owner_stops(board):
    owner = portshare.open_link(board.path, serve=True)
    other = portshare.open_link(board.path)
    owner.close()
    with pytest.raises(TransportError, match="sharing it stopped"):
        lines(other, 1)
    other.close()
    assert not portshare.socket_path(board.path).exists()
    # the port is free again for a plain command
    portshare.open_link(board.path).close()


def test_a_stale_socket_from_a_dead_owner_is_ignored(board):
    path = portshare.socket_path(board.path)
    path.write_bytes(b"")   # what a killed owner leaves: a name nobody listens on
    link = portshare.open_link(board.path)
    link.close()
    assert not path.exists()


def test_a_port_held_by_another_program_names_it(board, monkeypatch):
    monkeypatch.setattr(portshare, "BUSY_WAIT_S", 0.5)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import serial, sys, time\n"
         f"s = serial.Serial({board.path!r}, exclusive=True)\nprint('open', flush=True)\ntime.sleep(30)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(TransportError) as caught:
            portshare.open_link(board.path)
        message = str(caught.value)
        assert f"pid {holder.pid}" in message and "in use by" in message
        assert "cable" not in message
    finally:
        holder.kill()
        holder.wait(10)


def test_a_hub_whose_board_is_gone_stops_serving_its_name(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    gone = FakeBoard()
    owner = portshare.open_link(gone.path, serve=True)
    path = portshare.socket_path(gone.path)
    assert path.exists()
    # the cable pulled, the emulator stopped: the far end closes and the port reads EIO (the fake's
    # reader is woken first, so that nothing holds its end open)
    gone.stop.set()
    os.write(gone.slave, b"1 PING\n")
    gone.thread.join(2)
    gone.close()
    deadline = time.monotonic() + 3
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    # no command joins a hub that cannot reach its board, nor, when a pty's name is given to another
    # board next, the old board's hub instead of the new one
    assert not path.exists()
    assert portshare.server_of(gone.path) is None
    owner.close()
