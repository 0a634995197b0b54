"""Shared helpers for the tests that run the real firmware in the emulator
(the file set deploy writes, booted by the MicroPython unix port on a pty)."""
from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Iterator

from tallyboard.client import Board
from tallyboard.emulator import Emulator
from tallyboard.transport import SerialTransport


@contextlib.contextmanager
def emulated_board(flash: Path, timeout: float = 2.0) -> Iterator[tuple[Emulator, Board]]:
    """A fresh emulator on flash and a connected client (HELLO done)."""
    with Emulator(flash=flash) as emulator:
        link = SerialTransport(emulator.port)
        board = Board(link, timeout=max(timeout, 3.0))
        try:
            board.connect()
            board.timeout = timeout
            yield emulator, board
        finally:
            link.close()


def until(check, seconds: float = 10.0, what: str = "the condition"):
    """check()'s first true value, asked every 0.1 s; AssertionError naming
    what did not come when seconds pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{what} did not come within {seconds} s")
