"""Issue 11.7: a command that changes the game costs two requests when this
host's copy of the game is current (OPEN's stamp says so): OPEN and the change.
When another host (or the board's buttons, or a name change) has moved the
board on, the stamp differs and the command reads the game again: never a
stale summary."""
from __future__ import annotations

import pytest
from click.testing import CliRunner
from emu_fixtures import emulated_board

from tallyboard.boardlink import client
from tallyboard.cli import main

pytestmark = [pytest.mark.emulator, pytest.mark.process]


@pytest.fixture
def port(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with emulated_board(tmp_path / "flash") as (emulator, board):
        board.link.close()
        yield emulator.port


@pytest.fixture
def verbs(monkeypatch):
    sent: list[str] = []
    real = client.Board.send_frame

    def counting(self, seq, frame, timeout=None, renumber=None):
        sent.append(frame.decode().split(" ")[1].split("*")[0])
        return real(self, seq, frame, timeout, renumber)

    monkeypatch.setattr(client.Board, "send_frame", counting)
    return sent


def run(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_a_change_costs_two_requests_when_the_copy_is_current(port, verbs):
    run("new", "roquet", "--name", "Ann", "--name", "Bob", "-p", port)
    run("peg", "Ann", "5", "-p", port)           # reads the game once, keeps a copy
    verbs.clear()
    # 5 + 7 = 12 for Ann
    assert run("peg", "Ann", "7", "-p", port) == "roquet: Ann 12  Bob 0  (0 hands)\n"
    assert verbs == ["OPEN", "PEG"]
    verbs.clear()
    assert run("undo", "-p", port) == "roquet: Ann 5  Bob 0  (0 hands, 1 to redo)\n"
    assert verbs == ["OPEN", "UNDO"]
    verbs.clear()
    assert run("redo", "-p", port) == "roquet: Ann 12  Bob 0  (0 hands)\n"
    assert verbs == ["OPEN", "REDO"]
    verbs.clear()
    assert run("end", "-p", port) == "roquet: Ann 12  Bob 0  (1 hand)\n"
    assert verbs == ["OPEN", "END"]


def test_a_board_moved_on_elsewhere_is_read_again(port, verbs):
    run("new", "roquet", "--name", "Ann", "--name", "Bob", "-p", port)
    run("peg", "Bob", "4", "-p", port)
    # another host (a plain client here) pegs and renames: the copy is stale
    from tallyboard.boardlink.client import Board
    from tallyboard.boardlink.transport import SerialTransport
    other = Board(SerialTransport(port), timeout=2.0)
    try:
        other.connect()
        other.game_verb("PEG", 1, 6)
        other.cfg_set("name", "Bea", 1)
    finally:
        other.link.close()
    verbs.clear()
    # Bob (now Bea): 4 + 6 + 2 = 12
    assert run("peg", "1", "2", "-p", port) == "roquet: Ann 0  Bea 12  (0 hands)\n"
    assert verbs[0] == "OPEN" and "STATE" in verbs and verbs[-1] == "PEG"
    verbs.clear()
    assert run("peg", "1", "1", "-p", port) == "roquet: Ann 0  Bea 13  (0 hands)\n"
    assert verbs == ["OPEN", "PEG"]
