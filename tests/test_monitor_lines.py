"""`tallyboard monitor` shows each line once, whole: the bytes a link hands
over in pieces (a Pico's USB full-speed CDC sends 64-byte packets) are put
back into lines per direction before a frame is checked and printed; a line
that never ends (a REPL prompt) is printed after a bound, marked incomplete.

The frames are docs/protocol.md's own HELLO example; the expected lines are
written out by hand (the stamp, the first 10 characters, is cut off where the
time is not the test's own)."""
from __future__ import annotations

import contextlib

from click.testing import CliRunner

from tallyboard.cli import main
from tallyboard.commands import live

HELLO = b"40000 HELLO*5115\n"
# 95 characters and the newline: 96 bytes, a 64-byte packet and a 32-byte one
REPLY = (b"40000 OK fw=0.1.0 proto=3 board=pico-reference games=16 frame=128 log=600 "
         b"players=8 seqs=1*BD01\n")
SHOWN = ["> 40000 HELLO*5115",
         "< 40000 OK fw=0.1.0 proto=3 board=pico-reference games=16 frame=128 log=600 players=8 seqs=1*BD01"]


def pieces(data: bytes, size: int) -> list[bytes]:
    return [data[at:at + size] for at in range(0, len(data), size)]


class QuietBoard:
    """What monitor needs of a connected board once HELLO is done: no events."""

    def poll_events(self, timeout: float) -> list:
        return []


def monitor_output(monkeypatch, reply_pieces: list[bytes]) -> list[str]:
    """The lines `tallyboard monitor` prints when, while it connects, the link
    hands its tap HELLO going out and the reply coming back in these pieces."""
    @contextlib.contextmanager
    def connected(port, use_emulator, timeout, tap=None, serve=False):
        tap(">", HELLO)
        for piece in reply_pieces:
            tap("<", piece)
        yield QuietBoard()

    monkeypatch.setattr(live, "connected", connected)
    result = CliRunner().invoke(main, ["monitor", "-p", "a-board", "--duration", "0.01"])
    assert result.exit_code == 0, result.output
    return [line[10:] for line in result.output.splitlines()]


def test_a_reply_in_64_byte_packets_is_one_good_frame(monkeypatch):
    assert [len(p) for p in pieces(REPLY, 64)] == [64, 32]
    assert monitor_output(monkeypatch, pieces(REPLY, 64)) == SHOWN


def test_a_reply_byte_by_byte_is_one_good_frame(monkeypatch):
    assert monitor_output(monkeypatch, pieces(REPLY, 1)) == SHOWN


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def tap_and_screen(wait_for_end: float = 0.5) -> tuple[live.TrafficLines, list[str], FakeClock]:
    clock = FakeClock()
    screen: list[str] = []
    return live.TrafficLines(screen.append, clock, wait_for_end), screen, clock


def test_lines_each_way_wait_for_their_own_end():
    tap, screen, clock = tap_and_screen()
    clock.now = 100.25
    tap("<", REPLY[:64])
    clock.now = 100.375
    tap(">", HELLO[:10])                   # the other way meanwhile: neither line is whole
    assert screen == []
    clock.now = 100.5
    tap(">", HELLO[10:])
    assert screen == ["    0.500 > 40000 HELLO*5115"]
    clock.now = 100.625                    # 0.375 s after the reply's first piece: its rest
    tap("<", REPLY[64:] + b"! 1 BOOT fw=0.1.0 proto=3 game=- n=0 top=0*1ACF\r\n! 2 NE")
    assert screen[1:] == [
        "    0.625 " + SHOWN[1],
        "    0.625 < ! 1 BOOT fw=0.1.0 proto=3 game=- n=0 top=0*1ACF",   # \r\n ends a line too
    ]
    clock.now = 100.75
    tap("<", b"W game=roquet players=2 options=0 n=0 top=0*EB70\n")
    assert screen[3:] == ["    0.750 < ! 2 NEW game=roquet players=2 options=0 n=0 top=0*EB70"]


def test_a_line_that_never_ends_is_shown_marked_after_the_wait():
    tap, screen, clock = tap_and_screen(wait_for_end=0.5)
    # MicroPython's REPL answering a frame: its error lines, then a prompt with no newline
    clock.now = 101.0
    tap("<", b"SyntaxError: invalid syntax\r\n>>> ")
    assert screen == ["    1.000 < SyntaxError: invalid syntax   <- frame: no *XXXX checksum"]
    clock.now = 101.4
    tap.show_stale()
    assert len(screen) == 1                # 0.4 s without its end: it may still come
    clock.now = 101.5
    tap.show_stale()                       # 0.5 s: shown, stamped when its last byte came
    assert screen[1:] == ["    1.000 < >>>    <- incomplete: no end of line within 0.5 s"]
    tap.show_stale()
    tap.finish()
    assert len(screen) == 2                # shown once


def test_a_stale_part_is_shown_before_the_next_line():
    tap, screen, clock = tap_and_screen(wait_for_end=0.5)
    tap("<", b">>> ")
    clock.now = 102.0
    tap(">", HELLO)
    assert screen == ["    0.000 < >>>    <- incomplete: no end of line within 0.5 s",
                      "    2.000 > 40000 HELLO*5115"]


def test_what_is_left_at_the_end_is_shown_marked_and_unprintable_bytes_are_escaped():
    tap, screen, clock = tap_and_screen()
    clock.now = 100.125
    tap("<", b"OK\x04\x04>")              # the raw REPL's answer ends in no newline
    tap(">", b"\x01")
    tap.finish()
    assert screen == [
        "    0.125 > \\x01   <- incomplete: no end of line before the monitor stopped",
        "    0.125 < OK\\x04\\x04>   <- incomplete: no end of line before the monitor stopped",
    ]


def test_a_line_too_long_to_be_anything_is_shown_without_waiting():
    tap, screen, clock = tap_and_screen()
    tap("<", b"x" * 4095)
    assert screen == []
    tap("<", b"xy")
    assert screen == ["    0.000 < " + "x" * 4096 + "y   <- incomplete: 4097 bytes and no end of line"]
