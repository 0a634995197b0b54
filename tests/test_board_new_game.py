"""The board's own new game (issue 15), on the running emulator with
`tallyboard press`: the knob held asks on the OLED; a game with something
scored, not over and not archived gets a warning and a second push before it
is dropped; once `tallyboard archive save` has told the board (KEPT), one
push starts the game again. docs/display.md, docs/protocol.md "The archive mark"."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from emu_fixtures import end_with_ctrl_c
from tallyboard.cli import main


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
        assert proc.stdout.readline().strip().startswith("/dev/")
        yield run
    finally:
        end_with_ctrl_c(proc, "tallyboard emulator")


def status(run):
    return run("status", "--emulator").splitlines()[-1]


def settles_at(run, line):
    """The board's summary once the last press is handled (debounce, then the change)."""
    for _ in range(30):
        last = status(run)
        if last == line:
            return last
        time.sleep(0.1)
    return last


def hold(run):
    run("press", "push", "--hold", "0.9")     # a long press: 0.6 s or more
    time.sleep(0.3)


def push(run):
    run("press", "push")
    time.sleep(0.3)


def test_an_unarchived_game_is_dropped_only_after_the_warning(board):
    board("new", "roquet", "--emulator")
    board("peg", "0", "5", "--emulator")
    hold(board)                  # NEW GAME?
    push(board)                  # NOT ARCHIVED! (the game is kept so far)
    assert settles_at(board, "roquet: P1 5  P2 0  (0 hands)") == "roquet: P1 5  P2 0  (0 hands)"
    hold(board)                  # keep it
    assert status(board) == "roquet: P1 5  P2 0  (0 hands)"
    hold(board)
    push(board)
    push(board)                  # the warning's second push drops it: the same game again, empty
    assert settles_at(board, "roquet: P1 0  P2 0  (0 hands)") == "roquet: P1 0  P2 0  (0 hands)"


def test_an_archived_game_needs_one_push_until_it_changes(board):
    board("new", "roquet", "--emulator")
    board("peg", "0", "5", "--emulator")
    out = board("archive", "save", "--emulator")
    assert "archived as #1" in out and "not told" not in out
    board("peg", "1", "3", "--emulator")      # the archive holds the game before this peg
    hold(board)
    push(board)                               # the warning: not archived as it stands
    assert settles_at(board, "roquet: P1 5  P2 3  (0 hands)") == "roquet: P1 5  P2 3  (0 hands)"
    hold(board)                               # keep it
    board("undo", "--emulator")               # back to the game the archive holds
    hold(board)
    push(board)                               # one push: a new game at once
    assert settles_at(board, "roquet: P1 0  P2 0  (0 hands)") == "roquet: P1 0  P2 0  (0 hands)"
