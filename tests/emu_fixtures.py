"""Shared helpers for the tests that run the real firmware in the emulator
(the file set deploy writes, booted by the MicroPython unix port on a pty),
and the hand of each of the sixteen games as the board's own controls enter
it (tests/test_board_entry.py presses them on the emulator,
tests/test_twin_frames.py on the emulator and the device twin at once)."""
from __future__ import annotations

import ast
import contextlib
from pathlib import Path
from typing import Iterator

import test_entry as hands   # tests/mp/test_entry.py: the hands and their arithmetic
from tallyboard.tooling import render
from tallyboard.boardlink.client import Board
from tallyboard.tooling.emulator import Emulator
from tallyboard.boardlink.transport import SerialTransport
from tallypanel import menu, screen
from waiting import until  # noqa: F401  (the one polling helper, tests/waiting.py; imported from here too)


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


CTRL_C_WAIT_S = 30.0    # a process given Ctrl-C ends within this, on a machine kept busy by others


def end_with_ctrl_c(process, what: str, wait: float = CTRL_C_WAIT_S) -> None:
    """SIGINT (a user's Ctrl-C) and wait for the process to end. One that has not ended by then
    is stopped with SIGABRT, which makes a Python child print every thread's stack (the suite
    sets PYTHONFAULTHANDLER for its children: tests/conftest.py), then killed, and the test fails
    with what it printed on stderr (when the test reads it through a pipe). Never leaves the
    process behind."""
    import signal
    import subprocess

    if process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(wait)
        return
    except subprocess.TimeoutExpired:
        pass
    process.send_signal(signal.SIGABRT)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)
    stacks = ""
    if process.stderr is not None and not process.stderr.closed:
        stacks = process.stderr.read()
        stacks = stacks.decode(errors="replace") if isinstance(stacks, bytes) else stacks
    raise AssertionError(f"{what} did not end within {wait:.0f} s of Ctrl-C; its threads when stopped:\n"
                         f"{stacks[-6000:]}")


def oled_text(oled: bytes, row: int, layout: int = screen.SHEET) -> str:
    """One row of the OLED's small text, read back from the pixels with the
    firmware's own glyphs (tallypanel.sheetview), the row as the screen layout
    places it (tallypanel.screen.LAYOUTS: the sheet's, or e.g. ENTRY's)."""
    font = {}
    source = Path(screen.__file__).with_name("sheetview.py").read_text()   # imports framebuf: read it
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") in ("_CHARS", "_GLYPHS"):
            font[node.targets[0].id] = ast.literal_eval(node.value)
    glyphs = {font["_GLYPHS"][3 * i:3 * i + 3]: chr(c) for i, c in enumerate(font["_CHARS"])}
    y = screen.LAYOUTS[layout][2 * row]
    text = ""
    for col in range(screen.COLS):
        cell = bytes(sum(render.oled_pixel(oled, 4 * col + x, y + j) << j for j in range(5)) for x in range(3))
        text += glyphs.get(cell, "?")
    return text


# --- the hand of each game, entered with the board's controls ------------------
# A row: the game, its players, the inputs of one hand (tallypanel.menu's
# kinds: hands.PUSH, hands.HOLD, (menu.TURN, detents), (menu.SEAT, seat),
# (menu.SEAT_LONG, seat), (menu.UNDO, 0)), the totals after it, worked out by
# hand from docs/rules.md, and its entry cost (presses, detents) as in
# docs/display.md. The arithmetic of the fourteen described games is beside
# their hands in tests/mp/test_entry.py's HANDS.

PUSH, turn, seat = hands.PUSH, hands.turn, hands.seat

# Skicket (docs/rules.md SK7, SK5): seat B opens the entry with B as
# purchaser (push); level 1 + 3 = 4, strain C + 2 = H, doubled by nobody,
# not lone, tricks 10 (6 + 4, suggested), save. B bid 4H and took 10: made; B and his
# partner D score A = 60 + 10 x 4 = 100 each (SK2's schedule), A and C 10 x
# (13 - 10) = 30 each.
SKICKET = ("skicket", 4, (seat(1), PUSH, turn(3), PUSH, turn(2), PUSH, PUSH, PUSH, PUSH, PUSH),
           [30, 100, 30, 100], (8, 5))
# Roquet (docs/rules.md RQ3, RQ6): A pegs 1 three times, B a long press (5),
# the knob ends the hand (push, YES): the tallies go to the king pegs, A 3, B 5.
ROQUET = ("roquet", 2, (seat(0), seat(0), seat(0), (menu.SEAT_LONG, 1), PUSH, PUSH), [3, 5], (6, 0))
EVERY_GAME = (SKICKET, ROQUET) + hands.HANDS + (("moosehead", 2, hands.MOOSEHEAD, [7, 6], hands.MOOSEHEAD_COST),)

SHORT_S = 0.08   # a press: the buttons are read every 50 ms (tallypanel/inputs.py)
GAP_S = 0.06     # released between two presses
LONG_S = 0.7     # a long press, and the knob held: 0.6 s or more


def describe_input(one) -> str:
    """One input in words, for a failure's message: 'seat B', 'turn -3', 'hold'."""
    if not isinstance(one, tuple):
        return "push" if one == menu.PUSH else "hold"
    kind, value = one
    if kind == menu.TURN:
        return f"turn {value:+d}"
    if kind == menu.UNDO:
        return "undo button"
    return f"seat {'ABCDEFGH'[value]}" + (" (long)" if kind == menu.SEAT_LONG else "")


def press_on_emulator(emulator: Emulator, board, one) -> None:
    """Play one input on the emulator's pins as the board definition wires
    them (board: a tallypanel.boarddef.BoardDef); returns once the firmware
    has read the control released (Emulator.play), so the input is handled."""
    if not isinstance(one, tuple):
        emulator.tap(board.encoder_push, SHORT_S if one == menu.PUSH else LONG_S, gap=GAP_S)
        return
    kind, value = one
    if kind == menu.TURN:
        emulator.turn(board.encoder_a, board.encoder_b, value, board.steps_per_detent)
    elif kind == menu.UNDO:
        emulator.tap(board.undo_pin, SHORT_S, gap=GAP_S)
    else:
        emulator.tap(board.seat_pins[value], LONG_S if kind == menu.SEAT_LONG else SHORT_S, gap=GAP_S)
