"""`tallyboard board test` (issue 42): the guided self-test on the emulator. The command runs to the end
with the builder's answers typed (every LED as expected; no button pressed: each is reported never seen);
and the guide, with an automated builder that answers as a board built wrong would (player 0's tally row
soldered backwards, seats 0 and 1 on each other's pins, the knob's A and B swapped) and presses the
emulator's pins when asked, finds those faults, writes the fix with --fix (the old file kept as .bak),
and the fixed definition passes `board check`.

By hand from board/pico-reference.json: its chain runs [0, station, 0, 0], [0, tally, 0, 44],
[0, king, 0, 19], then player 1's the same; seats on GPIO 10, 11, 12, 13; knob a 16, b 17."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from emu_fixtures import emulated_board
from tallyboard.cli import main
from tallyboard.commands import board as board_cmd
from tallyboard.tooling import fileset, guided

pytestmark = [pytest.mark.emulator]

SEAT_PINS = (10, 11, 12, 13)
KNOB_A, KNOB_B = 16, 17


def test_board_test_on_the_emulator_runs_to_the_end_with_the_builder_s_answers():
    answers = "\n" * 132          # every LED where the definition says
    result = CliRunner().invoke(main, ["board", "test", "--emulator", "--wait", "0.3", "--timeout", "3"],
                                input=answers)
    assert result.exit_code == 0, result.output
    assert "LED 1 of 132: player 1's station?" in result.output
    assert "LED 132 of 132: player 2's king hole 20?" in result.output
    assert "seat button 1 (GPIO 10) was never seen pressed" in result.output
    assert "the knob gave nothing when turned" in result.output
    assert "chain" not in result.output.split("Faults found:")[1]     # the chain as the definition says
    assert "Nothing to change in the definition" in result.output


class MiswiredBuilder:
    """A builder of a board built wrong: player 0's tally row backwards (LED 1 in tally hole 45), seats 0
    and 1 crossed, the knob's A and B crossed; presses the emulator's pins when asked."""

    def __init__(self, emulator):
        self.emulator = emulator
        self.said: list[str] = []
        self.led = 0

    def ask(self, text: str) -> str:
        led = int(text.split()[1]) - 1          # "LED 12 of 132: ..."
        if 1 <= led <= 45:
            return f"1 tally {45 - led + 1}"     # LED 1 lights tally hole 45 (people's numbers)
        return ""

    def say(self, text: str) -> None:
        self.said.append(text)
        if text.startswith("Press seat "):
            seat = int(text.split()[2][:-2]) - 1     # "Press seat 2's button"
            crossed = {0: 1, 1: 0}.get(seat, seat)
            self.emulator.tap(SEAT_PINS[crossed])
        elif text.startswith("Turn the knob"):
            self.emulator.turn(KNOB_B, KNOB_A, 1)   # A and B crossed: clockwise reads anticlockwise


def test_the_guide_finds_a_miswired_board_and_fix_writes_the_definition_that_passes_check(tmp_path):
    folder = tmp_path / "board"
    folder.mkdir()
    source = Path(fileset.board_dir()) / "pico-reference.json"
    path = folder / "pico-reference.json"
    shutil.copyfile(source, path)
    with emulated_board(tmp_path / "flash", timeout=3.0) as (emulator, board):
        board.new("roquet", 2)
        board.game_verb("PEG", 0, 5)
        before = board.state()
        builder = MiswiredBuilder(emulator)
        board.link.close()              # the port is the command's while it runs (opened exclusively)
        report = board_cmd.run_test(str(path), True, 8.0, emulator.port, False, 3.0, builder)
        board.link.reopen()
        after = board.state()
    assert [after[k] for k in ("n", "top", "lcrc")] == [before[k] for k in ("n", "top", "lcrc")]
    assert report.fix is not None
    assert report.fix["leds"]["chain"][1] == [0, "tally", 44, 0]
    assert report.fix["buttons"] == {"seats": [11, 10, 12, 13]}
    assert report.fix["encoder"] == {"a": 17, "b": 16}
    assert "oled" not in report.fix
    written = json.loads(path.read_text())
    assert written["buttons"]["seats"] == [11, 10, 12, 13] and written["encoder"]["a"] == 17
    assert json.loads((folder / "pico-reference.json.bak").read_text()) == json.loads(source.read_text())
    checked = CliRunner().invoke(main, ["board", "check", str(path)])
    assert checked.exit_code == 0, checked.output


def test_a_hole_is_typed_as_people_count_it():
    assert guided.parse_hole("2 tally 5") == (1, "tally", 4)
    assert guided.parse_hole("1 k 20") == (0, "king", 19)
    assert guided.parse_hole("2 s") == (1, "station", 0)
    with pytest.raises(ValueError, match="PLAYER ROW HOLE"):
        guided.parse_hole("tally 5")
