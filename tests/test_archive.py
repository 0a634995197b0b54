"""The host's SQLite archive: games checked before they are stored, stored
once, listed, shown and exported exactly as they went in."""
import pytest
import json
import sqlite3

from click.testing import CliRunner

from tallyboard.cli import main
from tallyboard.scorebook.archive import Archive

SKICKET = {"format": "tallyboard/1", "game": "skicket", "players": ["Ann", "Bob", "Cy", "Dee"],
           "hands": [{"purchaser": 0, "bid": "3H", "tricks": 9}]}
ROQUET = {"format": "tallyboard/1", "game": "roquet", "players": ["Ann", "Bob"],
          "options": {"end": "hand_end"}, "hands": [[[0, 60], [1, 20]], [[0, 45]]]}


def run(tmp_path, *args):
    return CliRunner().invoke(main, ["archive", *args, "--archive", str(tmp_path / "a.sqlite3")])


def write(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def test_add_list_show_export(tmp_path):
    result = run(tmp_path, "add", write(tmp_path, "s.json", SKICKET), write(tmp_path, "r.json", ROQUET))
    assert result.exit_code == 0, result.output
    assert "s.json: archived as #1" in result.stdout and "r.json: archived as #2" in result.stdout
    # the same game again is not stored twice
    again = run(tmp_path, "add", write(tmp_path, "s2.json", SKICKET))
    assert "already archived as #1" in again.stdout
    listing = [json.loads(line) for line in run(tmp_path, "list", "--json").stdout.splitlines()]
    assert [(e["id"], e["game"], e["source"]) for e in listing] == [(1, "skicket", "s.json"), (2, "roquet", "r.json")]
    # Skicket: Ann 3H made 9: Ann and Cy 90, Bob and Dee 10 * 4 = 40
    assert listing[0]["totals"] == [90, 40, 90, 40] and listing[0]["complete"] is False
    assert listing[0]["result"] == "Ann and Cy: tie for the lead with 90."
    # Roquet, end at hand end: Ann 60 + 45 = 105 >= 100 at the end of hand 2; Bob 20
    assert listing[1]["totals"] == [105, 20] and listing[1]["result"] == "Ann wins with 105."
    only = run(tmp_path, "list", "--game", "roquet", "--json").stdout.splitlines()
    assert [json.loads(line)["id"] for line in only] == [2]
    table = run(tmp_path, "list").stdout
    assert "skicket" in table and "roquet" in table
    sheet = json.loads(run(tmp_path, "show", "2", "--json").stdout)
    assert sheet["totals"] == [105, 20] and sheet["winners"] == [0] and sheet["complete"] is True
    exported = json.loads(run(tmp_path, "export", "2").stdout)
    assert exported == ROQUET


def test_a_bad_record_stores_nothing(tmp_path):
    good = write(tmp_path, "good.json", SKICKET)
    bad = write(tmp_path, "bad.json", dict(SKICKET, hands=[{"purchaser": 0, "bid": "8H", "tricks": 9}]))
    result = run(tmp_path, "add", good, bad)
    assert result.exit_code != 0
    assert "bad.json: hand 1: bid:" in result.stderr
    # every file is checked before any is stored: the good one is not in either
    assert "The archive is empty" in run(tmp_path, "list").stdout


def test_missing_game_and_removal(tmp_path):
    run(tmp_path, "add", write(tmp_path, "s.json", SKICKET))
    missing = run(tmp_path, "show", "7")
    assert missing.exit_code != 0 and "no game #7 in the archive" in missing.stderr
    assert run(tmp_path, "remove", "1").exit_code == 0
    assert "The archive is empty" in run(tmp_path, "list").stdout


def test_not_an_archive_is_a_clear_error(tmp_path):
    (tmp_path / "a.sqlite3").write_text("this is not a database, just text" * 100)
    result = run(tmp_path, "list")
    assert result.exit_code != 0 and "cannot open the archive" in result.stderr


def test_a_newer_archive_is_refused(tmp_path):
    Archive(tmp_path / "a.sqlite3").close()
    db = sqlite3.connect(tmp_path / "a.sqlite3")
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    result = run(tmp_path, "list")
    assert result.exit_code != 0 and "written by a newer tallyboard" in result.stderr


@pytest.mark.emulator
def test_save_copies_the_boards_game(tmp_path):
    env = {"TALLYBOARD_EMULATOR_HOME": str(tmp_path / "emu")}
    runner = CliRunner()

    def cli(*args):
        result = runner.invoke(main, list(args), env=env)
        assert result.exit_code == 0, result.output
        return result

    cli("new", "roquet", "--name", "Ann", "--name", "Bob", "--emulator")
    cli("peg", "Ann", "7", "--emulator")
    cli("peg", "Bob", "3", "--emulator")
    saved = cli("archive", "save", "--emulator", "--archive", str(tmp_path / "a.sqlite3"))
    assert "archived as #1: roquet, Ann · Bob (in progress)" in saved.stdout
    # a game still going is no result yet: the board does not sign it (docs/records.md, The chain)
    assert "the game is not over, so its record is not signed" in saved.stderr
    record = json.loads(cli("archive", "export", "1", "--archive", str(tmp_path / "a.sqlite3")).stdout)
    # the hand in progress is the record's last hand, kept open: Ann 7, Bob 3
    assert record["players"] == ["Ann", "Bob"]
    assert record["hands"] == [{"open": True, "pegs": [[0, 7], [1, 3]]}] and "chain" not in record
    # and the archive shows it as in progress: no hand ended, tallies 7 and 3
    shown = json.loads(cli("archive", "show", "1", "--json", "--archive", str(tmp_path / "a.sqlite3")).stdout)
    assert shown["hands"] == [{"hand": 1, "open": True, "pegs": [[0, 7], [1, 3]], "scores": [7, 3]}]
    assert shown["totals"] == [7, 3] and shown["king"] == [0, 0] and shown["tally"] == [7, 3]
