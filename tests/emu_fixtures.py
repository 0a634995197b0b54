"""Shared helpers for the tests that run the real firmware in the emulator
(the file set deploy writes, booted by the MicroPython unix port on a pty)."""
from __future__ import annotations

import ast
import contextlib
import time
from pathlib import Path
from typing import Iterator

from tallyboard import render
from tallyboard.client import Board
from tallyboard.emulator import Emulator
from tallyboard.transport import SerialTransport
from tallypanel import screen


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


def oled_text(oled: bytes, row: int) -> str:
    """One row of the OLED's small text, read back from the pixels with the
    firmware's own glyphs (tallypanel.sheetview)."""
    font = {}
    source = Path(screen.__file__).with_name("sheetview.py").read_text()   # imports framebuf: read it
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") in ("_CHARS", "_GLYPHS"):
            font[node.targets[0].id] = ast.literal_eval(node.value)
    glyphs = {font["_GLYPHS"][3 * i:3 * i + 3]: chr(c) for i, c in enumerate(font["_CHARS"])}
    y = screen.LAYOUTS[screen.SHEET][2 * row]
    text = ""
    for col in range(screen.COLS):
        cell = bytes(sum(render.oled_pixel(oled, 4 * col + x, y + j) << j for j in range(5)) for x in range(3))
        text += glyphs.get(cell, "?")
    return text
