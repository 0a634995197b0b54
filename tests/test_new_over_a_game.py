"""`tallyboard new` over the board's game (issue 15, and issue 32 for a finished
one): a game that is not in the archive, finished or not, is never dropped
without a word. On the emulator: the refusal (nothing changed), --discard,
--archive-first, the question at a terminal, and the games it lets go without
asking (archived, empty)."""
import json

import pytest
from click.testing import CliRunner

from tallyboard.cli import main
from tallyboard.commands import archive as archive_commands

pytestmark = [pytest.mark.emulator]


@pytest.fixture
def cli(tmp_path):
    env = {"TALLYBOARD_EMULATOR_HOME": str(tmp_path / "emu"), "TALLYBOARD_ARCHIVE": str(tmp_path / "a.sqlite3")}

    def run(*args, ok=True, input=None):
        on_the_board = args[0] != "archive" or args[1] == "save"   # archive show/list read the archive only
        result = CliRunner().invoke(main, [*args, "--emulator"] if on_the_board else list(args),
                                    env=env, input=input)
        if ok:
            assert result.exit_code == 0, result.output
        return result
    run.archive = tmp_path / "a.sqlite3"
    return run


def totals(cli):
    return json.loads(cli("sheet", "--json").stdout)["totals"]


def roquet_with_a_peg(cli):
    cli("new", "roquet", "--name", "Ann", "--name", "Bob")
    cli("peg", "Ann", "7")


def test_new_over_an_unarchived_game_is_refused_and_changes_nothing(cli):
    roquet_with_a_peg(cli)
    out = cli("new", "foozle", "-n", "2", ok=False)
    assert out.exit_code == 1 and out.stdout == ""
    assert out.stderr == ("tallyboard: the board's roquet game (Ann · Bob; totals 7 0) is not finished and not in "
                          "the archive; nothing was changed: add --archive-first to archive it and then start the "
                          "new game, or --discard to drop it\n")
    # the board keeps its game: Ann's 7 still pegged
    assert totals(cli) == [7, 0]
    assert not cli.archive.exists()    # asking created no archive


def test_discard_drops_it(cli):
    roquet_with_a_peg(cli)
    cli("new", "roquet", "--discard")
    assert totals(cli) == [0, 0]
    assert not cli.archive.exists()


def test_archive_first_keeps_it_then_starts(cli):
    roquet_with_a_peg(cli)
    out = cli("new", "foozle", "-n", "2", "--archive-first")
    assert out.stdout.startswith("archived as #1: roquet, Ann · Bob (in progress)\n")
    shown = json.loads(cli("archive", "show", "1", "--json").stdout)
    # the archived game: Ann's 7 in the hand in progress
    assert shown["game"] == "roquet" and shown["totals"] == [7, 0] and shown["hands"][0]["open"] is True
    assert json.loads(cli("sheet", "--json").stdout)["game"] == "foozle"


def test_an_archived_game_goes_without_asking_until_it_changes(cli):
    roquet_with_a_peg(cli)
    cli("archive", "save")
    cli("peg", "Bob", "3")            # the archive holds the game before this peg
    assert cli("new", "roquet", ok=False).exit_code == 1
    cli("archive", "save")            # now it holds it as it stands
    cli("new", "roquet")
    assert totals(cli) == [0, 0]


def finished_hoodoo(cli):
    cli("new", "hoodoo", "--name", "Ann", "--name", "Bob")
    # G: one deal per player; two hands of two players finish the game
    cli("enter", '{"winner": 0}')
    cli("enter", '{"winner": 1}')
    assert json.loads(cli("sheet", "--json").stdout)["complete"] is True


def test_an_empty_game_goes_without_asking(cli):
    cli("new", "hoodoo", "-n", "2")
    cli("new", "hoodoo", "-n", "2")   # no event: nothing to lose
    assert not cli.archive.exists()


def test_a_finished_game_is_never_dropped_unarchived(cli):
    finished_hoodoo(cli)
    out = cli("new", "roquet", ok=False)
    assert out.exit_code == 1 and out.stdout == ""
    # Ann won the first deal, Bob the second: 1 each (docs/rules.md HO3: each hand won counts 1)
    assert out.stderr == ("tallyboard: the board's hoodoo game (Ann · Bob; totals 1 1) is finished and not in the "
                          "archive; nothing was changed: add --archive-first to archive it and then start the new "
                          "game, or --discard to drop it\n")
    assert json.loads(cli("sheet", "--json").stdout)["complete"] is True     # still on the board
    out = cli("new", "roquet", "--name", "Ann", "--name", "Bob", "--archive-first")
    assert out.stdout.startswith("archived as #1: hoodoo, Ann · Bob (finished)\n")
    listed = cli("archive", "list").stdout
    assert "hoodoo" in listed, listed
    # once archived, the same game would go without asking; a new finished one asks again
    finished_hoodoo(cli)
    cli("new", "roquet", "--discard")


@pytest.mark.parametrize("answer,archived,kept", [("a\n", True, False), ("d\n", False, False),
                                                  ("c\n", False, True), ("\n", False, True)])
def test_at_a_terminal_it_asks(cli, monkeypatch, answer, archived, kept):
    roquet_with_a_peg(cli)
    monkeypatch.setattr(archive_commands, "interactive", lambda: True)
    out = cli("new", "roquet", ok=False, input=answer)
    assert "Archive it first (a), discard it (d) or cancel (c)?" in out.stderr
    assert out.exit_code == (1 if kept else 0)
    if kept:     # cancel (the default): the board keeps its game
        assert "cancelled: the board keeps its game" in out.stderr
        assert totals(cli) == [7, 0]
    else:
        assert totals(cli) == [0, 0]
    assert cli.archive.exists() == archived


def test_discard_and_archive_first_together_is_a_usage_error(cli):
    roquet_with_a_peg(cli)
    out = cli("new", "roquet", "--discard", "--archive-first", ok=False)
    assert out.exit_code == 2 and "give --discard or --archive-first, not both" in out.output
    assert totals(cli) == [7, 0]
