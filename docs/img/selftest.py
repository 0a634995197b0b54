"""Draws the pictures of board/README.md's "The first power-up": the board's own self-test
(firmware/tallypanel/boardtest.py) as the emulated reference board shows it, entered with its test
button (shift) held at power-up and worked with its knob and buttons, each picture the board's LEDs and
OLED as `tallyboard show` draws them (tooling/render.py). Run from the checkout, with the test extras
installed:

    .venv/bin/python docs/img/selftest.py

It writes selftest_walk.png (the walk at LED 3: player 1's tally hole 2 lit, dim white, and named),
selftest_buttons.png (seat A answered, seat B asked for) and selftest_result.png (the result, with a
seat button never pressed)."""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from tallyboard.boardlink.client import Board
from tallyboard.boardlink.transport import SerialTransport
from tallyboard.tooling import render
from tallyboard.tooling.emulator import Emulator

OUT = Path(__file__).resolve().parent
TEST_BUTTON, SEAT_A, UNDO, SHIFT, KNOB_A, KNOB_B, KNOB_PUSH = 15, 10, 14, 15, 16, 17, 18


def _until(check, what: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            sys.exit(f"selftest.py: {what} did not come within {seconds:g} s")
        time.sleep(0.05)


def main() -> None:
    board_def = render.find_board("pico-reference")
    with tempfile.TemporaryDirectory() as tmp, Emulator(flash=Path(tmp) / "flash") as emulator:
        link = SerialTransport(emulator.port)
        board = Board(link, timeout=5.0)
        board.connect()
        board.new("roquet", 2)
        board.game_verb("PEG", 0, 5)
        emulator.cut_power()
        emulator.press(TEST_BUTTON)
        emulator.power_on()
        board.connect()
        link.close()

        def shows(words: str) -> bool:
            return words in render_text(emulator.oled())

        def save(name: str, title: str) -> None:
            render.png(render.frame_from_files(board_def, emulator.io_dir, title), OUT / name)
            print(f"wrote {OUT / name}")

        _until(lambda: shows("SELF-TEST 1/4 LEDS"), "the self-test")
        emulator.release(TEST_BUTTON)
        _until(lambda: not shows("LET GO OF THE TEST BUTTON"), "the test armed")
        emulator.turn(KNOB_A, KNOB_B, 2)
        _until(lambda: shows("LED 3 OF 132"), "LED 3")
        save("selftest_walk.png", "The LED walk: LED 3 of the chain lit, and the hole the definition puts it in")
        emulator.tap(KNOB_PUSH)
        _until(lambda: shows("PRESS SEAT A"), "the buttons")
        emulator.tap(SEAT_A)
        _until(lambda: shows("PRESS SEAT B"), "seat B asked")
        save("selftest_buttons.png", "The buttons: each asked for in turn, 10 s each")
        _until(lambda: shows("PRESS SEAT C"), "seat B's time-out", seconds=60)
        for pin, asked in ((12, "PRESS SEAT C"), (13, "PRESS SEAT D"), (UNDO, "PRESS UNDO"), (SHIFT, "PRESS SHIFT")):
            _until(lambda: shows(asked), asked)
            emulator.tap(pin)
        _until(lambda: shows("TURN THE KNOB CLOCKWISE"), "the knob asked for")
        emulator.turn(KNOB_A, KNOB_B, 1)
        _until(lambda: shows("TURN THE KNOB ANTICLOCKWISE"), "the knob back asked for")
        emulator.turn(KNOB_A, KNOB_B, -1)
        _until(lambda: shows("PRESS KNOB PUSH"), "the push asked for")
        emulator.tap(KNOB_PUSH)
        _until(lambda: shows("SELF-TEST 4/4 RESULT"), "the result (after the display's three patterns)", 60)
        save("selftest_result.png", "The result: seat B never pressed; push to go back to the game")


def render_text(oled: bytes) -> str:
    """The OLED's rows of small text (the self-test's LIST layout), read back from its pixels."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "mp"))
    from emu_fixtures import oled_text
    from tallypanel import screen
    return "\n".join(oled_text(oled, row, screen.LIST) for row in range(10))


if __name__ == "__main__":
    main()
