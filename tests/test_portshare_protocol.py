"""The shared port speaks the board's protocol (issue 41; docs/protocol.md "Sharing the
port", "Errors", "Sequence numbers, retries, resynchronisation"): the sharer's own
answers are the board's words, it refuses what the board refuses, a client's seq never
makes a reply longer or shorter than on the port, a message cut to fit says so, a retry
is answered as the docs say, and the example client lives outside tests/. Every
expected line is written out by hand from docs/protocol.md."""
from __future__ import annotations

import os
import threading
import tty
from pathlib import Path

import pytest

from tallyboard.boardlink import portshare, wire
from tallyrun.app import App
from test_portshare import board, replies  # noqa: F401  (board: the fake board's fixture, shared)

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL_MD = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
SHARING = PROTOCOL_MD.split("## Sharing the port", 1)[1].split("\n## ", 1)[0]


class AppBoard:
    """The board's own app (tallyrun.app, in this process) at the far end of a pty:
    the sharer talks to the firmware itself. session_next: the first seq its next
    HELLO hands out."""

    def __init__(self, folder: Path, session_next: int = 1):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.app = App(self, str(folder) + "/", "test")
        self.app.boot()
        self.app.session_next = session_next
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def flush(self) -> None:
        pass

    def _serve(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 1024)
            except OSError:
                return
            if not chunk:
                return
            self.app.feed_bytes(chunk)

    def close(self) -> None:
        # the slave first: the reader's read on the master then fails and its thread ends, before the
        # master's number is given back (closed under a blocked read, the number went to the next test's
        # pty while the old thread still read it, and answered that test's requests with its own app)
        os.close(self.slave)
        self.thread.join(10)
        os.close(self.master)


@pytest.fixture
def shared_app(tmp_path, monkeypatch):
    """(a client's link, the board): the app served by a sharer whose own seqs, if it
    numbered requests from a session, would have 5 digits (seqs=40000, as the docs' example)."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    flash = tmp_path / "flash"
    flash.mkdir()
    board = AppBoard(flash, session_next=40000)
    owner = portshare.open_link(board.path, serve=True)
    client = portshare.open_link(board.path)
    yield client, board
    client.close()
    owner.close()
    board.close()


def ask(link, line: bytes) -> bytes:
    link.write(line)
    got = replies(link, 1, timeout=10.0)      # a loaded machine: the board app answers in this process
    assert len(got) == 1, f"no reply to {line!r}"
    return got[0]


# 1. the sharer's own errors are the board's words ---------------------------------------------

def test_the_sharers_own_errors_are_the_boards_words(board):
    owner = portshare.open_link(board.path, serve=True)
    try:
        c = portshare.open_link(board.path)
        # docs/protocol.md, Errors: a checksum that is not 4 digits is called that, not "no checksum"
        assert ask(c, b"1 HELLO*7DF\n") == b"0 ERR CRC the checksum must be 4 uppercase hex digits"
        assert ask(c, b"1 HELLO*7DF00\n") == b"0 ERR CRC the checksum must be 4 uppercase hex digits"
        assert ask(c, b"1 HELLO\n") == (b"0 ERR CRC no checksum; end the frame with *XXXX "
                                        b"(4 hex digits of CRC-16/CCITT-FALSE)")
        assert ask(c, b"1 HELLO\x01*7DF0\n") == b"0 ERR FRAME not printable ASCII; resend the frame"
        assert ask(c, b"X" * 200 + b"\n") == b"0 ERR FRAME line longer than 128 bytes; resend the frame"
        c.close()
    finally:
        owner.close()
    assert board.seen == []                     # none reached the board


# 2. it refuses what the board refuses ---------------------------------------------------------

def test_a_lowercase_checksum_is_refused_as_the_board_refuses_it(board):
    # docs/protocol.md, Frames: 4 uppercase hex digits; `1 HELLO*7DF0` is the docs' own example
    owner = portshare.open_link(board.path, serve=True)
    try:
        c = portshare.open_link(board.path)
        assert ask(c, b"1 HELLO*7df0\n") == b"0 ERR CRC the checksum must be 4 uppercase hex digits"
        assert ask(c, b"1 HELLO*7DF0\n") == b"1 OK verb=HELLO seqs=1"
        c.close()
    finally:
        owner.close()
    assert board.seen == [b"1 HELLO*7DF0"]


# 3. a client's seq never cuts its reply -------------------------------------------------------

# a note of 101 characters: "1234 OK count=1 text=" (21) and it, 122 bytes before *XXXX, the frame's 128
NOTE_TEXT = "x" * 101


def test_a_reply_that_fills_the_frame_comes_whole_with_a_4_digit_seq(shared_app):
    client, board = shared_app
    board.app.note(NOTE_TEXT)
    # on the port, seq 1234: 122 bytes before *XXXX, the frame's 128 exactly, the note's last x in it
    assert ask(client, wire.encode_request(1234, "NOTE 0")) == b"1234 OK count=1 text=" + NOTE_TEXT.encode()


def test_a_reply_is_as_long_as_on_the_port_whatever_the_seqs_digits(shared_app):
    client, board = shared_app
    board.app.note(NOTE_TEXT)
    # seq 7: the whole note; seq 12345: one byte more than the frame takes, so cut as the board cuts it
    assert ask(client, wire.encode_request(7, "NOTE 0")) == b"7 OK count=1 text=" + NOTE_TEXT.encode()
    # "12345 OK count=1 text=" is 22 bytes: 100 of the note's 101 fit the board's 122
    assert ask(client, wire.encode_request(12345, "NOTE 0")) == b"12345 OK count=1 text=" + b"x" * 100


# 4. a message cut to fit says so ----------------------------------------------------------------

def test_an_error_cut_to_fit_the_frame_ends_in_dots_on_the_port_itself(tmp_path):
    out = AppBoard(tmp_path)
    try:
        os.write(out.slave, wire.encode_request(65535, "NET GET director_key"))
        data = b""
        while data.count(b"\n") < 2:         # BOOT, then the reply
            data += os.read(out.slave, 1024)
    finally:
        out.close()
    reply = wire.check_frame(data.split(b"\n")[1])
    assert reply == (b"65535 ERR RANGE key: must be one of ssid, wifi_password, broker_host, broker_port, "
                     b"broker_user, broker_password, ...")
    assert "`...`" in PROTOCOL_MD.split("## Errors", 1)[1].split("\n## ", 1)[0]


# 5. a retry through the sharer is answered as the docs say --------------------------------------

def test_a_retry_through_the_sharer_gets_the_reply_it_got_ev_included_as_documented(shared_app):
    client, board = shared_app
    assert ask(client, wire.encode_request(1, "NEW roquet 2")) == b"1 OK n=0 top=0 eseq=2"
    change = wire.encode_request(2, "PEG 0 5")
    assert ask(client, change) == b"2 OK n=1 top=1 eseq=3 ev=40"            # 0 | 5 << 3 = 40
    assert ask(client, wire.encode_request(3, "STATE")).startswith(b"3 OK game=roquet")
    # the same bytes after a STATE: on the port the board answers from its journal without ev; the
    # sharer kept the reply itself, and sends it again as it was
    assert ask(client, change) == b"2 OK n=1 top=1 eseq=3 ev=40"
    assert "`ev` included" in SHARING and "16" in SHARING


# 6. the example client is outside tests/ and the docs point to it -------------------------------

def test_the_example_client_is_outside_tests_and_the_docs_point_to_it():
    assert (ROOT / "examples" / "tbclient.py").is_file()
    assert not (ROOT / "tests" / "conformance" / "tbclient.py").exists()     # one copy
    # the conformance tests import it from there
    assert 'parents[2] / "examples"' in (ROOT / "tests" / "conformance" / "conftest.py").read_text()
    assert "[`examples/tbclient.py`](../examples/tbclient.py)" in SHARING
