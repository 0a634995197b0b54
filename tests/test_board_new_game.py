"""The board's own new game (issue 15), on the running emulator with
`tallyboard press`: the knob held asks on the OLED; a game with something
scored, not over and not archived gets a warning and a second push before it
is dropped; once `tallyboard archive save` has told the board (KEPT), one
push starts the game again. docs/display.md, docs/protocol.md "The archive mark"."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from emu_fixtures import end_with_ctrl_c, oled_text
from tallyboard.cli import main
from tallypanel import screen
from waiting import until

pytestmark = [pytest.mark.process]

# the last line of the OLED's new-game question (tallypanel.sheetview draw_question), and of its warning
ASKS = "PUSH:YES  HOLD:NO"
WARNS = "PUSH:DROP IT  HOLD:KEEP IT"
SHEET = ""      # no question on the OLED: the game's sheet again


@pytest.fixture
def board(tmp_path):
    """`tallyboard emulate` in the background; run(*args) a command against it."""
    env = dict(os.environ, TALLYBOARD_EMULATOR_HOME=str(tmp_path / "emu"),
               TALLYBOARD_ARCHIVE=str(tmp_path / "a.sqlite3"))
    proc = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "emulate", "--fresh"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    home = {"TALLYBOARD_EMULATOR_HOME": env["TALLYBOARD_EMULATOR_HOME"],
            "TALLYBOARD_ARCHIVE": env["TALLYBOARD_ARCHIVE"]}

    def run(*args):
        result = CliRunner().invoke(main, list(args), env=home)
        assert result.exit_code == 0, result.output
        return result.output
    try:
        port = proc.stdout.readline().strip()
        if not port.startswith("/dev/"):      # it ended, or said something else: what it said on stderr
            end_with_ctrl_c(proc, "tallyboard emulator")
            raise AssertionError(f"tallyboard emulate gave no port ({port!r}): {proc.stderr.read()[-3000:]}")
        running = json.loads((tmp_path / "emu" / "running.json").read_text())   # written before the port
        run.oled = Path(running["io"]) / "oled.bin"
        yield run
    finally:
        end_with_ctrl_c(proc, "tallyboard emulator")


def status(run):
    return run("status", "--emulator").splitlines()[-1]


def settles_at(run, line):
    """The board's summary once the last press is handled: line, or AssertionError saying what it was."""
    seen = []

    def there():
        seen[:] = [status(run)]
        return seen[0] == line

    until(there, 10, f"the summary {line!r}", explain=lambda: f"the board says {seen[0]!r}", every=0.1)
    return line


def question(run) -> str:
    """The last line of the new-game question on the OLED (ASKS or WARNS), SHEET when none is shown."""
    try:
        oled = run.oled.read_bytes()          # written whole (firmware/emu/machine.py write_atomic)
    except FileNotFoundError:
        return "?"
    if len(oled) < 1024 or oled_text(oled, 0, screen.ENTRY).rstrip() != "NEW GAME":
        return SHEET
    return oled_text(oled, 7, screen.ENTRY).rstrip()


def press(run, shows, *hold):
    """The knob pushed; then the OLED showing what the press brings (shows). `tallyboard press`
    returns once the firmware has played it (Emulator.play: the release read, once after its gap)."""
    out = run("press", "push", *hold)
    assert "pressed push" in out, out
    until(lambda: question(run) == shows, 10, f"the OLED showing {shows or 'the sheet'!r}",
          explain=lambda: f"its question line: {question(run)!r}; the press: {out}")


def hold(run, shows):
    press(run, shows, "--hold", "0.9")     # a long press: 0.6 s or more


def push(run, shows):
    press(run, shows)


def test_an_unarchived_game_is_dropped_only_after_the_warning(board):
    board("new", "roquet", "--emulator")
    board("peg", "0", "5", "--emulator")
    hold(board, ASKS)            # NEW GAME?
    push(board, WARNS)           # NOT ARCHIVED! (the game is kept so far)
    assert settles_at(board, "roquet: P1 5  P2 0  (0 hands)") == "roquet: P1 5  P2 0  (0 hands)"
    hold(board, SHEET)           # keep it
    assert status(board) == "roquet: P1 5  P2 0  (0 hands)"
    hold(board, ASKS)
    push(board, WARNS)
    push(board, SHEET)           # the warning's second push drops it: the same game again, empty
    assert settles_at(board, "roquet: P1 0  P2 0  (0 hands)") == "roquet: P1 0  P2 0  (0 hands)"


def test_an_archived_game_needs_one_push_until_it_changes(board):
    board("new", "roquet", "--emulator")
    board("peg", "0", "5", "--emulator")
    out = board("archive", "save", "--emulator")
    assert "archived as #1" in out and "not told" not in out
    board("peg", "1", "3", "--emulator")      # the archive holds the game before this peg
    hold(board, ASKS)
    push(board, WARNS)                        # the warning: not archived as it stands
    assert settles_at(board, "roquet: P1 5  P2 3  (0 hands)") == "roquet: P1 5  P2 3  (0 hands)"
    hold(board, SHEET)                        # keep it
    board("undo", "--emulator")               # back to the game the archive holds
    hold(board, ASKS)
    push(board, SHEET)                        # one push: a new game at once
    assert settles_at(board, "roquet: P1 0  P2 0  (0 hands)") == "roquet: P1 0  P2 0  (0 hands)"
