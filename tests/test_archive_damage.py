"""A damaged row in the archive (a column that is not JSON, as a disk fault or
another program may leave it) is reported on its own: `archive list` lists
every readable game and marks the bad one, `archive show/export` of it is one
line and a non-zero exit, and every other game keeps working. An --archive
in a folder that does not exist is refused, not started anew."""
from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from tallyboard.cli import main

SKICKET = {"format": "tallyboard/1", "game": "skicket", "players": ["Ann", "Bob", "Cy", "Dee"],
           "hands": [{"purchaser": 0, "bid": "3H", "tricks": 9}]}
ROQUET = {"format": "tallyboard/1", "game": "roquet", "players": ["Ann", "Bob"],
          "hands": [[[0, 60], [1, 20]]]}
FOOZLE = {"format": "tallyboard/1", "game": "foozle", "players": ["Ann", "Bob", "Cy"],
          "hands": [{"bidder": 2, "bid": 3, "tricks": 4}]}


def run(archive, *args):
    return CliRunner().invoke(main, ["archive", *args, "--archive", str(archive)])


@pytest.fixture
def archive(tmp_path):
    """An archive of three games, #1 to #3."""
    path = tmp_path / "a.sqlite3"
    names = []
    for name, doc in (("s.json", SKICKET), ("r.json", ROQUET), ("f.json", FOOZLE)):
        (tmp_path / name).write_text(json.dumps(doc))
        names.append(str(tmp_path / name))
    result = run(path, "add", *names)
    assert result.exit_code == 0, result.output
    return path


def damage(path, column: str, value: str, game_id: int = 2) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (value, game_id))
    db.close()


def one_line(result) -> str:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize("column", ["record", "players", "totals", "winners"])
def test_list_marks_the_bad_row_and_lists_the_rest(archive, column):
    damage(archive, column, "{not json")
    listed = run(archive, "list")
    assert listed.exit_code == 0, listed.output
    assert "skicket" in listed.stdout and "foozle" in listed.stdout
    marks = [line for line in listed.stdout.splitlines() if "unreadable" in line]
    assert len(marks) == 1 and marks[0].startswith(f"#2: unreadable: the {column} column is not JSON"), marks
    as_json = run(archive, "list", "--json")
    assert as_json.exit_code == 0
    assert [json.loads(line)["id"] for line in as_json.stdout.splitlines()] == [1, 3]
    assert one_line(as_json).startswith(f"tallyboard: #2: unreadable: the {column} column is not JSON")


def test_a_column_of_the_wrong_shape_is_unreadable_too(archive):
    damage(archive, "players", "7")
    marks = [line for line in run(archive, "list").stdout.splitlines() if "unreadable" in line]
    assert marks == ["#2: unreadable: the players column is not a list of names; "
                     "tallyboard archive remove 2 deletes it"]


def test_show_and_export_of_the_bad_row_fail_and_the_others_work(archive):
    damage(archive, "record", "{not json")
    for command in ("show", "export"):
        bad = run(archive, command, "2")
        assert bad.exit_code == 1 and bad.stdout == ""
        assert one_line(bad).startswith(f"tallyboard: game #2 in the archive {archive} is unreadable: "
                                        "the record column is not JSON")
    for game_id, doc in ((1, SKICKET), (3, FOOZLE)):
        exported = json.loads(run(archive, "export", str(game_id)).stdout)
        assert (exported["game"], exported["players"]) == (doc["game"], doc["players"])
    assert json.loads(run(archive, "show", "3", "--json").stdout)["totals"] is not None
    # the bad row can be removed, and the archive is whole again
    assert run(archive, "remove", "2").exit_code == 0
    assert "unreadable" not in run(archive, "list").stdout


def test_a_record_that_is_json_but_no_record(archive):
    damage(archive, "record", "[1, 2]")
    bad = run(archive, "show", "2")
    assert bad.exit_code == 1 and one_line(bad).startswith("tallyboard: #2: record: must be a JSON object")
    assert json.loads(run(archive, "export", "2").stdout) == [1, 2]   # export hands back what is stored


def test_an_archive_in_a_missing_folder_is_refused(tmp_path):
    path = tmp_path / "no" / "such" / "a.sqlite3"
    record = tmp_path / "s.json"
    record.write_text(json.dumps(SKICKET))
    for args in (["list"], ["show", "1"], ["add", str(record)]):
        result = run(path, *args)
        assert result.exit_code == 1
        assert one_line(result) == (f"tallyboard: cannot open the archive {path}: the folder {path.parent} "
                                    "does not exist; create it or choose another --archive")
    assert not (tmp_path / "no").exists()
