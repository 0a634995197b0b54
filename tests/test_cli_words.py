"""Issue 10, items 2 and 3: names a command can tell apart, the board's
refusals checked on the host before anything is sent (so nothing changes),
and every error in the user's words: the range and the command to run."""
from __future__ import annotations

import pytest
from click.testing import CliRunner
from emu_fixtures import emulated_board

from tallyboard.cli import main

pytestmark = [pytest.mark.emulator]


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def port(tmp_path_factory):
    with emulated_board(tmp_path_factory.mktemp("words") / "flash") as (emulator, board):
        board.link.close()
        yield emulator.port


def error_of(result) -> str:
    assert result.exit_code != 0, result.output
    return result.output


def names(port: str, count: int) -> list[str]:
    return [run("config", "get", "name", "--player", str(p), "-p", port).output.strip() for p in range(count)]


def test_with_no_game_the_board_says_which_command_starts_one(port):
    for command in ("undo", "redo"):
        out = error_of(run(command, "-p", port))
        assert "start one with tallyboard new GAME" in out and "with NEW" not in out, out
    for command in (("end",), ("misdeal",), ("peg", "0", "5")):
        out = error_of(run(*command, "-p", port))
        assert "no game on the board: start one with tallyboard new GAME" in out, out


def test_names_that_are_seat_numbers_or_twice_are_refused_and_nothing_changes(port):
    assert run("new", "roquet", "--name", "Ann", "--name", "Bob", "-p", port).exit_code == 0
    out = error_of(run("new", "roquet", "--name", "1", "--name", "0", "-p", port))
    assert "'1': a name cannot be only digits" in out and "add a letter" in out
    out = error_of(run("new", "roquet", "--name", "Ann", "--name", "ann", "-p", port))
    assert "'ann' is given twice" in out
    out = error_of(run("config", "set", "name", "--player", "1", "7", "-p", port))
    assert "only digits" in out
    out = error_of(run("config", "set", "name", "--player", "1", "ANN", "-p", port))
    assert "is player 0's already" in out
    assert names(port, 2) == ["Ann", "Bob"]


def test_a_game_the_board_would_refuse_changes_no_name(port):
    assert run("new", "roquet", "--name", "Ann", "--name", "Bob", "-p", port).exit_code == 0
    # Jaimy's partnerships need 4 or 6 players (docs/rules.md JA): three is refused
    out = error_of(run("new", "jaimy", "-n", "3", "--name", "Xi", "--name", "Yu", "--name", "Zed",
                       "-o", "partners=true", "-p", port))
    assert "partnerships need 4 or 6 players" in out, out
    assert names(port, 3)[:2] == ["Ann", "Bob"]
    assert run("status", "-p", port).output.splitlines()[-1].startswith("roquet: Ann 0  Bob 0")


def test_player_counts_are_checked_with_the_range_and_the_command(port):
    assert error_of(run("new", "roquet", "-n", "99999999999", "-p", port)).strip() == \
        "tallyboard: --players 99999999999: roquet takes 2 players"
    assert error_of(run("new", "roquet", "-n", "3", "-p", port)).strip() == \
        "tallyboard: --players 3: roquet takes 2 players"
    out = error_of(run("new", "moosehead", "-p", port)).strip()
    assert out == "tallyboard: moosehead takes 2 to 8 players: say how many with --players, " \
                  "e.g. tallyboard new moosehead --players 2"


def test_settings_are_checked_before_they_are_sent(port):
    for value in ("256", "99999999999999", "bright"):
        out = error_of(run("config", "set", "brightness", value, "-p", port)).strip()
        assert out == f"tallyboard: brightness {value}: must be a whole number 0 to 255; " \
                      "e.g. tallyboard config set brightness 64", out
    out = error_of(run("config", "set", "colour", "--player", "0", "red", "-p", port))
    assert "six hex digits RRGGBB" in out
    assert "RANGE" not in out and "docs/protocol.md" not in out


def test_peg_and_end_are_refused_on_another_game_with_what_to_do(port):
    assert run("new", "skicket", "-p", port).exit_code == 0
    out = error_of(run("peg", "0", "5", "-p", port)).strip()
    assert out == "tallyboard: peg is for roquet, and the board plays skicket: use tallyboard enter for " \
                  "skicket, or start roquet with tallyboard new roquet"
    assert "end is for roquet" in error_of(run("end", "-p", port))
    out = run("misdeal", "-p", port)
    assert out.exit_code == 0
    assert out.output.splitlines()[0] == "misdeal recorded: the same dealer deals again"
