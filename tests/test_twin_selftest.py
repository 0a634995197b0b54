"""The self-test against planted faults (issue 42): the device twin built wrong on purpose (its control
port's `miswire`, docs/twin.md "The board as built"), one fault at a time, and an automated builder who
answers the guided self-test (tallyboard.tooling.guided) from the board as built: the hole each lit LED
sits in (control.holes(): the walk's dim white one), the presses and the knob through the control port.
For each fault, bringup.examine names it and, for the four that are the definition's, gives its fix; the
game in play (Roquet, PEG 0 5) and its journal are as they were.

By hand from board/pico-reference.json (leds.chain, in wire order): run 0 [0, station, 0, 0], run 1
[0, tally, 0, 44], run 2 [0, king, 0, 19], run 3 [1, station, 0, 0], run 4 [1, tally, 0, 44], run 5
[1, king, 0, 19]; seats on GPIO 10, 11, 12, 13; knob a 16, b 17; OLED at 0x3C (oled.address 60)."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from twin_support import TWIN_TESTS, deployed_twin, device_twin, roquet_peg  # noqa: E402
from tallyboard.tooling import bringup, fileset, guided
from tallyboard.tooling.twin_control import TwinError  # noqa: E402

pytestmark = [*TWIN_TESTS, pytest.mark.emulator, pytest.mark.process]

SETTLE_S = device_twin.SETTLE_S
WALK_WHITE = bytes((24, 24, 24))      # the walk's LED, GRB (tallypanel.selftest._LEVEL)
DEFINITION = json.loads((Path(fileset.board_dir()) / "pico-reference.json").read_text())


def _frame(ram: bytes) -> bool:
    """The OLED's outermost pixels lit and nothing inside: columns 0 and 127 whole (0xFF in each page),
    row 0 (bit 0 of page 0) and row 63 (bit 7 of page 7) across, the rest dark."""
    for page in range(8):
        for x in range(128):
            want = 0xFF if x in (0, 127) else (0x01 if page == 0 else 0) | (0x80 if page == 7 else 0)
            if ram[page * 128 + x] != want:
                return False
    return True


DISPLAY_QUESTIONS = (   # what a builder looking at the twin's OLED sees for each of the guide's patterns
    ("Is every pixel of the display lit", lambda ram: ram == b"\xff" * 1024),
    ("A fine even grey checkerboard",   # (x + y) odd lit: a byte is a column of 8 rows, so 0xAA, 0x55 by column
     lambda ram: all(ram[i] == (0x55 if i % 2 else 0xAA) for i in range(1024))),
    ("A frame along all four edges", _frame),
)


class TwinBuilder:
    """Answers the guide as a builder looking at the twin would, and works its controls when asked."""

    def __init__(self, control):
        self.control = control

    def ask(self, text: str) -> str:
        if text.startswith("Nothing lit"):
            return "y"
        for words, looks_right in DISPLAY_QUESTIONS:
            if text.startswith(words):
                self.control.settle(quiet_ms=20, most_s=SETTLE_S)
                return "y" if looks_right(self.control.oled().ram) else "n"
        self.control.settle(quiet_ms=20, most_s=SETTLE_S)
        lit = [hole for hole in self.control.holes() if hole.grb == WALK_WHITE and hole.place[0] is not None]
        if not lit:
            return "n"
        player, row, hole = lit[0].place
        return f"{player + 1} station" if row == "station" else f"{player + 1} {row} {hole + 1}"

    def say(self, text: str) -> None:
        if text.startswith("Press seat "):
            try:
                self.control.press(f"seat{int(text.split()[2][:-2]) - 1}")
            except TwinError:
                pass                                  # stuck down: it cannot be pressed
        elif text.startswith("Turn the knob one click clockwise"):
            self.control.turn(1)                      # as built: the twin's A and B say which way it reads
        elif text.startswith("Turn the knob one click anticlockwise"):
            self.control.turn(-1)
        elif text.startswith("Push the knob"):
            self.control.press("push")


@pytest.fixture(scope="module")
def twin(tmp_path_factory):
    chip = deployed_twin(tmp_path_factory, "twin-selftest")
    try:
        chip.start()
        chip.control.settle(quiet_ms=300, most_s=SETTLE_S, led_frames=1)
        roquet_peg(chip)
        yield chip
    finally:
        chip.stop()


def _kept(chip) -> tuple:
    board = chip.board()
    try:
        state = board.state()
    finally:
        board.link.close()
    return state["n"], state["top"], state["lcrc"]


def _tested(chip, miswire: str) -> bringup.Report:
    # the game's frame out on the chain after the last test's LAMP - (the painter draws once the host is
    # quiet) before the board is built wrong: a dead LED switched on while running keeps what it showed
    chip.control.settle(quiet_ms=200, most_s=SETTLE_S)
    assert chip.control.miswire(miswire) == ([miswire] if miswire else [])
    before = _kept(chip)
    board = chip.board()
    try:
        seen = guided.run(board, DEFINITION, TwinBuilder(chip.control), wait_s=5.0)
    finally:
        board.link.close()
    assert _kept(chip) == before, "the self-test left the game as it was"
    return bringup.examine(DEFINITION, seen)


def _chain(*runs) -> list:
    return [list(run) for run in runs]


STATIONS_AND_KINGS = ([0, "station", 0, 0], [0, "king", 0, 19], [1, "station", 0, 0], [1, "king", 0, 19])


@pytest.mark.parametrize("miswire, fault, fix", [
    ("reverse:0.tally", "player 1's tally row runs from hole 45 to 1",
     {"leds": {"chain": _chain([0, "station", 0, 0], [0, "tally", 44, 0], [0, "king", 0, 19],
                               [1, "station", 0, 0], [1, "tally", 0, 44], [1, "king", 0, 19])}}),
    ("swap:0.tally/1.tally", "player 2's tally holes 1 to 45 come 2nd along the wire",
     {"leds": {"chain": _chain([0, "station", 0, 0], [1, "tally", 0, 44], [0, "king", 0, 19],
                               [1, "station", 0, 0], [0, "tally", 0, 44], [1, "king", 0, 19])}}),
    ("encoder-ab", "the knob turned clockwise reads as anticlockwise", {"encoder": {"a": 17, "b": 16}}),
    ("oled:0x3d", "the display answers at 0x3D, not 0x3C", {"oled": {"address": 0x3D}}),
    ("seats:0/1", "seat 1 is on GPIO 11, seat 2 is on GPIO 10", {"buttons": {"seats": [11, 10, 12, 13]}}),
    ("dead:90", "the chain goes dark at LED 91 of 132 (after player 2's tally hole 23)", None),
])
def test_each_planted_fault_is_named_with_its_fix(twin, miswire, fault, fix):
    report = _tested(twin, miswire)
    assert any(fault in said for said in report.faults), report.faults
    assert len(report.faults) == 1, report.faults
    assert report.fix == fix


def test_a_button_stuck_down_is_named_and_the_definition_left_alone(twin):
    twin.control.fault("button", True, "seat3")
    time.sleep(1.5)     # its press, long, reaches the game (seat 3 has no player: refused) before the test
    try:
        report = _tested(twin, "")
    finally:
        twin.control.fault("button", False, "seat3")
    assert any("the button on GPIO 13 is down from the start" in said for said in report.faults), report.faults
    assert report.fix is None


def test_the_board_tests_itself_with_its_test_button_held_at_power_up(twin):
    """buttons.test (shift, GPIO 15) held as the chip powers up: the board's own self-test
    (tallypanel/boardtest.py), worked through the control port as a builder would: the walk named on the
    OLED, each button and the knob, the display's patterns, the result; then the game as it was."""
    from emu_fixtures import oled_text
    from tallypanel import screen

    control = twin.control
    before = _kept(twin)

    def rows(*numbers) -> tuple:
        control.settle(quiet_ms=60, most_s=SETTLE_S)
        ram = control.oled().ram
        return tuple(oled_text(ram, r, screen.LIST).rstrip() for r in numbers)

    twin.power_cut()
    twin.miswire = "stuck:shift"              # held from power-up until `fault button off` lets it go
    try:
        twin.start()
    finally:
        twin.miswire = None
    control = twin.control
    control.settle(quiet_ms=300, most_s=SETTLE_S, led_frames=1)
    assert rows(0, 1, 2) == ("SELF-TEST 1/4 LEDS", "LED 1 OF 132", "PLAYER 1 STATION")
    assert rows(9) == ("LET GO OF THE TEST BUTTON",)
    control.fault("button", False, "shift")
    control.settle(quiet_ms=300, most_s=SETTLE_S)      # 200 ms of its clock let go: the test armed
    assert rows(9) == ("",)
    control.turn(2)                           # LED 2: player 0's tally hole 1 (2 as people count)
    assert rows(1, 2) == ("LED 3 OF 132", "PLAYER 1 TALLY HOLE 2")
    lit = [h.place for h in control.holes() if h.grb == WALK_WHITE]
    assert lit == [(0, "tally", 1)], lit
    control.press("push")
    assert rows(0, 2) == ("SELF-TEST 2/4 BUTTONS", "PRESS SEAT A")
    for name, next_ask in (("seat0", "PRESS SEAT B"), ("seat1", "PRESS SEAT C"), ("seat2", "PRESS SEAT D"),
                           ("seat3", "PRESS UNDO"), ("undo", "PRESS SHIFT"), ("shift", "TURN THE KNOB CLOCKWISE")):
        control.press(name)
        assert rows(2) == (next_ask,), name
    control.turn(1)
    assert rows(2) == ("TURN THE KNOB ANTICLOCKWISE",)
    control.turn(-1)
    assert rows(2) == ("PRESS KNOB PUSH",)
    control.press("push")
    control.settle(quiet_ms=700, most_s=SETTLE_S)
    assert control.oled().ram == b"\xff" * 1024          # every pixel on
    control.press("seat0")
    control.settle(quiet_ms=700, most_s=SETTLE_S)
    ram = control.oled().ram
    assert ram[0] == 0xAA and ram[1] == 0x55             # the checkerboard: (x + y) odd lit
    control.press("seat0")
    control.settle(quiet_ms=700, most_s=SETTLE_S)
    ram = control.oled().ram
    assert ram[0] == 0xFF and ram[1] == 0x01 and ram[7 * 128 + 1] == 0x80   # the frame's left, top, bottom
    control.press("seat0")
    # the result: at once, or (a press the board took for the last pattern's) the pattern's 4 s later
    control.settle(quiet_ms=4500, most_s=SETTLE_S)
    assert rows(0, 1, 2) == ("SELF-TEST 4/4 RESULT", "LEDS MARKED WRONG: 0", "EVERY CONTROL ANSWERED")
    control.press("push")
    control.settle(quiet_ms=300, most_s=SETTLE_S)
    assert _kept(twin) == before, "the self-test left the game as it was"
    board = twin.board()
    try:
        assert board.request("STATS")["errors"] == "0", "the self-test ran without an error"
    finally:
        board.link.close()
    pegs = {h.place for h in control.holes() if h.grb != WALK_WHITE and h.place is not None}
    assert (0, "tally", 4) in pegs, pegs                 # PEG 0 5: player 0's peg in tally hole 4, lit again
