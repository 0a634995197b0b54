"""One process owns a port and shares it (portshare.py, docs/protocol.md "Sharing the
port"): every client's request goes out with its own seq, or one of as many digits when
the board would take it for a retry of another's, and its reply comes back to that client
with the client's seq; events go to everyone; bad lines,
floods, a client that does not read or leaves mid-request harm nobody else; a port
held by another program is named. The board here is a pty whose far end answers
frames like one."""
import os
import socket
import subprocess
import sys
import threading
import time
import tty

import pytest

from tallyboard.boardlink import hub, portshare, portsocket, wire
from tallyboard.common.errors import TransportError
from waiting import until


class FakeBoard:
    """The far end of a pty: answers "<seq> <VERB> ...*CRC" with
    "<seq> OK verb=<VERB> ...", HELLO with seqs=<first> (1024 a session, from 1), DESC as a board
    before it does (VERB), and pushes "! <eseq> NOTE" after every reply. A request for SLOW is answered
    only when `release` is set; one for MUTE never."""

    def __init__(self):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)   # no echo of the replies back to this end
        self.path = os.ttyname(self.slave)   # kept open: the master reads EIO when no slave is open
        self.seen = []
        self.sessions = 0
        self.eseq = 0
        self.release = threading.Event()
        self.hello_fields = b""     # more of HELLO's reply (proto=..., for a tallyboard command)
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
                body = wire.check_frame(line)   # the hub sends only good frames: this raises if not
                seq, verb = body.split(b" ")[:2]
                if verb == b"MUTE":
                    continue
                if verb == b"SLOW":
                    self.release.wait(10)
                if verb == b"BURST":                  # 4000 events of 100 bytes: 400 KB
                    for _ in range(4000):
                        self.eseq += 1
                        os.write(self.master, _event(self.eseq, b"y" * 80))
                reply = b"OK verb=" + verb
                if verb == b"HELLO":
                    reply += b" seqs=%d" % (1 + 1024 * self.sessions) + self.hello_fields
                    self.sessions += 1
                self.eseq += 1
                os.write(self.master, wire.encode_request(int(seq), reply if verb != b"DESC" else
                                                          b"ERR VERB unknown verb") + _event(self.eseq))

    def wire_seqs(self, verb):
        return [int(line.split(b" ")[0]) for line in self.seen if line.split(b" ")[1].startswith(verb)]

    def close(self):
        self.stop.set()
        self.release.set()
        os.close(self.slave)      # first: the reader's read fails, and it ends before the master's number is reused
        self.thread.join(10)
        os.close(self.master)


def _event(eseq, text=b"x"):
    body = b"! %d NOTE text=%s" % (eseq, text)
    return b"%s*%04X\n" % (body, wire.crc16(body))


def frame(seq, text):
    return wire.encode_request(seq, text)


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


def read_to_the_end(link, timeout=5.0):
    """Read every line (the board's last event, say) until the link ends; returns when it did not."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        link.read_line(0.1)


def replies(link, count, timeout=3.0):
    """The next count lines that are not events, bodies checked and without their checksum."""
    out = []
    deadline = time.monotonic() + timeout
    while len(out) < count and time.monotonic() < deadline:
        line = link.read_line(0.1)
        if line is not None and not line.startswith(b"!"):
            out.append(wire.check_frame(line))
    return out


def test_replies_go_to_the_process_that_asked_and_events_to_all(board):
    owner = portshare.open_link(board.path, serve=True)
    try:
        assert isinstance(owner, portshare.HubTransport)
        other = portshare.open_link(board.path)
        assert isinstance(other, portshare.SocketTransport)
        other.write(frame(500, b"HELLO"))
        got = lines(other, 2)
        assert [wire.check_frame(line) for line in got] == [b"500 OK verb=HELLO seqs=1", b"! 1 NOTE text=x"]
        assert lines(owner, 1) == got[1:]          # the event, not the other's reply
        owner.write(frame(7, b"STATE"))
        assert replies(owner, 1) == [b"7 OK verb=STATE"]
        assert other.read_line(1.0) == _event(2).rstrip(b"\n")
        assert other.read_line(0.3) is None              # nobody else's reply
        other.close()
    finally:
        owner.close()
    # on the wire: each request with its client's own seq
    assert board.wire_seqs(b"HELLO") == [500] and board.wire_seqs(b"STATE") == [7]


def test_two_clients_with_the_same_seq_and_request_each_get_their_own_reply(board):
    owner = portshare.open_link(board.path, serve=True)
    try:
        a = portshare.open_link(board.path)
        b = portshare.open_link(board.path)
        a.write(frame(1, b"HELLO"))
        b.write(frame(1, b"HELLO"))
        # the board handed out sessions 1 and 1025: one each
        assert {replies(a, 1)[0], replies(b, 1)[0]} == {b"1 OK verb=HELLO seqs=1", b"1 OK verb=HELLO seqs=1025"}
        # never the same bytes twice, no retry for the board: the second went with seq 2 (as many digits)
        assert board.wire_seqs(b"HELLO") == [1, 2]
        a.close()
        b.close()
    finally:
        owner.close()


def test_a_line_is_sent_whole_even_when_written_in_pieces(board):
    owner = portshare.open_link(board.path, serve=True)
    try:
        a = portshare.open_link(board.path)
        b = portshare.open_link(board.path)
        score = frame(11, b"SCORE")
        a.write(score[:4])
        b.write(frame(22, b"STATE"))
        assert replies(b, 1) == [b"22 OK verb=STATE"]       # b's line went out before a's ended
        a.write(score[4:])
        assert replies(a, 1) == [b"11 OK verb=SCORE"]
        a.close()
        b.close()
    finally:
        owner.close()
    assert [line.split(b" ")[1][:5] for line in board.seen] == [b"STATE", b"SCORE"]


def test_a_line_that_is_no_frame_is_answered_by_the_hub_and_never_reaches_the_board(board):
    owner = portshare.open_link(board.path, serve=True)
    try:
        raw = portshare.open_link(board.path)
        raw.write(b"9 HELLO\n")                               # no checksum
        raw.write(b"X" * 300 + b"\n")                        # too long: one answer, to its end
        bad = bytearray(frame(5, b"STATE"))
        bad[2] ^= 1
        raw.write(bytes(bad))                                # a checksum that does not match
        raw.write(frame(0, b"STATE"))                        # seq 0
        got = replies(raw, 4)
        assert [g.split(b" ")[:3] for g in got] == [[b"0", b"ERR", b"CRC"], [b"0", b"ERR", b"FRAME"],
                                                    [b"0", b"ERR", b"CRC"], [b"0", b"ERR", b"SEQ"]]
        assert b"*XXXX" in got[0] and b"longer than 128 bytes" in got[1]
        raw.write(frame(6, b"STATE"))                        # the next good line is heard
        assert replies(raw, 1) == [b"6 OK verb=STATE"]
        raw.close()
    finally:
        owner.close()
    assert [line.split(b" ")[1][:5] for line in board.seen] == [b"STATE"]


def test_a_retry_of_an_answered_request_is_answered_again_not_sent_again(board):
    owner = portshare.open_link(board.path, serve=True)
    try:
        c = portshare.open_link(board.path)
        c.write(frame(40, b"PEG 0 5"))
        assert replies(c, 1) == [b"40 OK verb=PEG"]
        c.write(frame(40, b"PEG 0 5"))                       # its reply was lost, say: the same bytes
        assert replies(c, 1) == [b"40 OK verb=PEG"]
        c.write(frame(41, b"STATE"))
        assert replies(c, 1) == [b"41 OK verb=STATE"]        # evidence the retry was handled first
        c.close()
    finally:
        owner.close()
    assert len(board.wire_seqs(b"PEG")) == 1


def test_a_flood_from_one_client_does_not_keep_another_waiting(board):
    owner = portshare.open_link(board.path, serve=True)
    try:
        flood = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        flood.connect(str(portshare.socket_path(board.path)))
        flood.setblocking(False)
        sent = 0
        try:
            for seq in range(1, 3001):                       # it never reads; the hub stops reading it
                flood.send(frame(seq, b"STATE"))
                sent += 1
        except BlockingIOError:
            pass
        polite = portshare.open_link(board.path)
        polite.write(frame(77, b"SCORE"))
        assert replies(polite, 1, timeout=5) == [b"77 OK verb=SCORE"]
        served = len(board.wire_seqs(b"STATE"))
        assert served < sent, (served, sent)                 # while the flood still waited
        # and it waited in its own socket, not in the hub: at most QUEUE_PER_CLIENT requests held for it
        assert max(len(c.queue) for c in list(owner.hub.clients)) <= hub.QUEUE_PER_CLIENT
        polite.close()
        flood.close()
    finally:
        owner.close()


def test_a_client_that_does_not_read_is_closed(board):
    owner = portshare.open_link(board.path, serve=True)
    try:
        deaf = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        deaf.connect(str(portshare.socket_path(board.path)))
        owner.write(frame(1, b"BURST"))                      # 400 KB of events to everyone
        got = 0
        deadline = time.monotonic() + 10
        while got < 4000 and time.monotonic() < deadline:    # the owner reads them all
            line = owner.read_line(0.5)
            got += line is not None and line.startswith(b"! ")
        assert got >= 4000
        owner.write(frame(2, b"STATE"))
        assert replies(owner, 2) == [b"1 OK verb=BURST", b"2 OK verb=STATE"]   # the burst's reply came last
        # the deaf one, read now: what fitted its buffers (at most the hub's limit and the
        # kernel's), then the end: the hub closed it
        deaf.settimeout(5)
        kept = b""
        while True:
            data = deaf.recv(65536)
            if not data:
                break
            kept += data
        assert 0 < len(kept) < 4000 * 100
        deaf.close()
    finally:
        owner.close()


def test_a_client_gone_mid_request_leaves_the_others_their_replies(board):
    owner = portshare.open_link(board.path, serve=True)
    try:
        leaving = portshare.open_link(board.path)
        staying = portshare.open_link(board.path)
        leaving.write(frame(3, b"SLOW"))
        staying.write(frame(3, b"STATE"))                    # the same seq as the one that leaves
        until(lambda: board.wire_seqs(b"SLOW"), 60, "the SLOW request on the wire", every=0.02)
        leaving.close()
        board.release.set()                                  # the board answers the gone client now
        assert replies(staying, 1) == [b"3 OK verb=STATE"]   # and not the SLOW reply with its seq
        staying.close()
    finally:
        owner.close()


def test_a_request_the_board_never_answers_gives_the_next_client_its_turn(board, monkeypatch):
    monkeypatch.setattr(hub, "REPLY_WAIT_S", 0.3)
    owner = portshare.open_link(board.path, serve=True)
    try:
        a = portshare.open_link(board.path)
        b = portshare.open_link(board.path)
        a.write(frame(8, b"MUTE"))
        b.write(frame(9, b"STATE"))
        assert replies(b, 1) == [b"9 OK verb=STATE"]
        a.write(frame(8, b"MUTE"))                           # a's retry: the same wire bytes again
        until(lambda: len(board.wire_seqs(b"MUTE")) >= 2, 60, "a's retry on the wire", every=0.02)
        first, again = [line for line in board.seen if b"MUTE" in line]
        assert first == again
        a.close()
        b.close()
    finally:
        owner.close()


def test_a_board_that_restarts_is_served_on(board):
    owner = portshare.open_link(board.path, serve=True)
    try:
        owner.write(frame(5, b"STATE"))
        assert replies(owner, 1) == [b"5 OK verb=STATE"]
        body = b"! 1 BOOT fw=0 proto=3 game=- n=0 top=0"
        os.write(board.master, b"%s*%04X\n" % (body, wire.crc16(body)))
        assert lines(owner, 2)[-1] == b"%s*%04X" % (body, wire.crc16(body))
        owner.write(frame(6, b"STATE"))
        assert replies(owner, 1) == [b"6 OK verb=STATE"]
    finally:
        owner.close()
    assert board.wire_seqs(b"HELLO") == []                   # the clients' own seqs: the hub needs no session
    assert board.wire_seqs(b"STATE") == [5, 6]


def test_without_a_hub_a_command_opens_the_port_itself(board):
    link = portshare.open_link(board.path)
    try:
        assert not isinstance(link, (portshare.HubTransport, portshare.SocketTransport))
        link.write(frame(3, b"HELLO"))
        assert replies(link, 1) == [b"3 OK verb=HELLO seqs=1"]
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


@pytest.mark.process
def test_a_port_held_by_another_program_names_it_and_the_socket(board, monkeypatch):
    monkeypatch.setattr(portsocket, "BUSY_WAIT_S", 0.5)
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
        assert str(portshare.socket_path(board.path)) in message and "Sharing the port" in message
        assert "cable" not in message
    finally:
        holder.kill()
        holder.wait(10)


def test_a_hub_whose_board_is_gone_stops_serving_its_name(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    gone = FakeBoard()
    owner = portshare.open_link(gone.path, serve=True)
    path = portshare.socket_path(gone.path)
    other = portshare.open_link(gone.path)
    assert path.exists() and portshare.wire_path(gone.path).exists()
    # the cable pulled, the emulator stopped: the far end closes and the port reads EIO (the fake's
    # reader is woken first, so that nothing holds its end open)
    gone.stop.set()
    os.write(gone.slave, frame(1, b"PING"))
    gone.thread.join(2)
    gone.close()
    # every client hears it (the connection ends), the owner with the port's own words
    with pytest.raises(TransportError, match="sharing it stopped"):
        read_to_the_end(other)
    with pytest.raises(TransportError, match="lost the board"):
        read_to_the_end(owner)
    # no command joins a hub that cannot reach its board, nor, when a pty's name is given to another
    # board next, the old board's hub instead of the new one
    assert not path.exists()
    assert not portshare.wire_path(gone.path).exists()       # nor its wire tap
    assert portshare.server_of(gone.path) is None
    other.close()
    owner.close()


def test_ports_says_which_port_is_shared_and_where(board, monkeypatch):
    from click.testing import CliRunner

    from tallyboard.cli import main
    from tallyboard.commands import connect as link_commands
    from tallyboard.boardlink.transport import PortInfo

    monkeypatch.setattr(link_commands, "list_serial_ports",
                        lambda: [PortInfo(board.path, "Board in FS mode", "E66", 0x2E8A, 0x0005)])
    monkeypatch.setattr(link_commands.emu_mod, "find_running", lambda: None)
    monkeypatch.setenv("COLUMNS", "300")
    out = CliRunner().invoke(main, ["ports"])
    assert out.exit_code == 0 and board.path in out.output and ".sock" not in out.output
    owner = portshare.open_link(board.path, serve=True)
    try:
        out = CliRunner().invoke(main, ["ports"])
        assert f"{portshare.socket_path(board.path)} (pid {os.getpid()})" in out.output, out.output
    finally:
        owner.close()


def wire_lines(tap, done, timeout=5.0):
    """The wire tap's (direction, line) until done(lines) holds."""
    seen = []
    deadline = time.monotonic() + timeout
    while not done(seen) and time.monotonic() < deadline:
        seen += [(d, data.rstrip(b"\n")) for d, data in tap.lines(0.1)]
    return seen


def test_the_wire_tap_carries_every_clients_lines_both_ways(board):
    owner = portshare.open_link(board.path, serve=True)
    try:
        tap = portshare.WireTap(board.path)
        a = portshare.open_link(board.path)
        b = portshare.open_link(board.path)
        a.write(frame(5, b"ALPHA"))
        b.write(frame(9, b"BETA"))
        assert replies(a, 1) == [b"5 OK verb=ALPHA"] and replies(b, 1) == [b"9 OK verb=BETA"]
        # ALPHA, BETA: two replies and two events came from the board
        seen = wire_lines(tap, lambda s: len([d for d, _ in s if d == "<"]) >= 4)
        sent = [line for d, line in seen if d == ">"]
        heard = [wire.check_frame(line) for d, line in seen if d == "<"]
        assert sent == board.seen                         # exactly what reached the board, in its order
        seqs = {line.split(b" ")[1].split(b"*")[0]: int(line.split(b" ")[0]) for line in sent}
        assert seqs == {b"ALPHA": 5, b"BETA": 9}
        # the replies as the board sent them, and every event
        assert sorted(body for body in heard if not body.startswith(b"!")) == [b"5 OK verb=ALPHA", b"9 OK verb=BETA"]
        assert [body for body in heard if body.startswith(b"!")] == [b"! 1 NOTE text=x", b"! 2 NOTE text=x"]
        a.close()
        b.close()
        tap.close()
    finally:
        owner.close()


def test_monitor_through_the_sharer_shows_another_programs_request_and_reply(board):
    from click.testing import CliRunner

    from tallyboard.cli import main

    from tallyrun import protocol

    board.hello_fields = b" proto=%d" % protocol.PROTOCOL_VERSION    # a board this tallyboard speaks to
    owner = portshare.open_link(board.path, serve=True)      # the sharer (tallyboard share, or a watch)
    other = portshare.open_link(board.path)

    def another_program():
        # once the monitor reads the wire tap, another program asks something
        until(lambda: owner.hub.watchers, 60, "the monitor reading the wire tap", every=0.02)
        other.write(frame(42, b"OTHER"))

    try:
        sender = threading.Thread(target=another_program)
        sender.start()
        out = CliRunner().invoke(main, ["monitor", "-p", board.path, "--duration", "2"])
        sender.join(10)
        assert out.exit_code == 0, out.output
        assert replies(other, 1) == [b"42 OK verb=OTHER"]
        wire_seq = board.wire_seqs(b"OTHER")[0]
        shown = [line[10:] for line in out.output.splitlines()]
        assert "> " + frame(wire_seq, b"OTHER").decode().rstrip("\n") in shown, out.output
        reply = wire.encode_request(wire_seq, b"OK verb=OTHER").decode().rstrip("\n")
        assert "< " + reply in shown, out.output
        other.close()
    finally:
        owner.close()
