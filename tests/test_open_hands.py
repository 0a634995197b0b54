"""A hand in progress in a record (docs/records.md, "A hand in progress"):
the hand form with "open": true, read back by sheet, archive and enter, and
refused with the field named where it cannot be. Expected values worked out
by hand from docs/rules.md."""
import json

import pytest
from click.testing import CliRunner

from tallyboard.cli import main

P2 = ["Ann", "Bob"]
P4 = ["Ann", "Bob", "Cy", "Dee"]


def record(game, players, hands):
    return {"format": "tallyboard/1", "game": game, "players": players, "hands": hands}


def run(*args, env=None):
    return CliRunner().invoke(main, list(args), env=env)


def sheet(tmp_path, doc, *args):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    return run("sheet", str(path), *args)


def sheet_json(tmp_path, doc):
    result = sheet(tmp_path, doc, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_moosehead_hand_in_progress_reads_back(tmp_path):
    # The case: a Moosehead hand cut short. MH3: 8 + 7 = 15, Bob
    # scores 2; + 5 = 20, Cy 2; + 5 = 25, Dee 2. No fifteens before the end (MH5).
    plays = [[0, "8"], [1, "7"], [2, "5"], [3, "5"]]
    doc = sheet_json(tmp_path, record("moosehead", P4, [{"open": True, "plays": plays}]))
    assert doc["hands"] == [{"hand": 1, "dealer": 0, "open": True, "plays": plays, "scores": [0, 2, 2, 2],
                             "pegging": [0, 2, 2, 2], "fifteens": [0, 0, 0, 0]}]
    # no hand is finished yet, but its pegs count: the leaders are on the totals as they stand
    # (docs/rules.md G5; issue 32, item 10: they were [] until the hand closed)
    assert doc["totals"] == [0, 2, 2, 2] and doc["winners"] == [1, 2, 3] and doc["complete"] is False
    table = sheet(tmp_path, record("moosehead", P4, [{"open": True, "plays": plays}]))
    assert table.exit_code == 0
    assert "1…" in table.stdout and "hand 1… in progress" in table.stdout


def test_numero_hand_in_progress_after_a_finished_one(tmp_path):
    # Hand 1: 20, 12, 0, 20 cards: Ann and Dee tie on the most, a hand won
    # each (NU2, NU3). Hand 2, dealt by Bob (G2: the deal passes left), has
    # only Bob's count in: nothing scored yet.
    doc = sheet_json(tmp_path, record("numero", P4, [{"cards": [20, 12, 0, 20]},
                                                     {"open": True, "cards": [None, 5, None, None]}]))
    assert doc["hands"][1] == {"hand": 2, "dealer": 1, "open": True, "cards": [None, 5, None, None],
                               "scores": [0, 0, 0, 0]}
    assert doc["totals"] == [1, 0, 0, 1] and doc["next_dealer"] == 1


def test_roquet_hand_in_progress_is_the_now_row(tmp_path):
    # Hand 1 ended with Ann 6 (5 + 1), Bob 2; hand 2 so far Ann 3, Bob 4:
    # king 6 and 2, tally 3 and 4, totals 9 and 6.
    doc = record("roquet", P2, [[[0, 5], [1, 2], [0, 1]], {"open": True, "pegs": [[0, 3], [1, 4]]}])
    shown = sheet_json(tmp_path, doc)
    assert shown["hands"] == [{"hand": 1, "scores": [6, 2]},
                              {"hand": 2, "open": True, "pegs": [[0, 3], [1, 4]], "scores": [3, 4]}]
    assert shown["king"] == [6, 2] and shown["tally"] == [3, 4] and shown["totals"] == [9, 6]
    table = sheet(tmp_path, doc).stdout
    assert "+3" in table and "+4" in table and "hand 2 in progress" in table


@pytest.mark.parametrize("game,players,hands,error", [
    ("hoodoo", P2, [{"open": True, "winner": 1}],
     'hand 1: open: a hoodoo hand is entered whole, so it is never in progress; leave "open" out'),
    ("doolittle", P2, [{"open": True, "takers": [0]}, {"takers": [0, 0, 0, 0, 0, 0]}],
     "hand 1: open: only the last hand can be in progress"),
    ("doolittle", P2, [{"open": False, "takers": [0]}],
     'hand 1: open: must be true; a finished hand leaves "open" out'),
    ("doolittle", P2, [{"open": True, "takers": []}],
     "hand 1: open: a hand in progress has something entered; leave an empty one out"),
    ("roquet", P2, [{"open": True}], "hand 1: pegs: missing; the peggings so far, each [player, points]"),
    ("roquet", P2, [{"open": True, "pegs": [[0, 100]]}], "hand 1: pegs: peg 1: points: must be 1 to 99"),
    ("numero", P2, [{"open": True, "cards": [None]}],
     "hand 1: cards: one count per player, null for a player not counted yet"),
    ("numero", P2, [{"open": True, "cards": [53, None]}], "hand 1: cards: 53 is not a count 0 to 52 or null"),
    ("rummy", P2, [{"open": True, "out": 0, "cards": [[], ["K"]]}], "hand 1: out: unknown field"),
    # the core's own rules still hold in a hand in progress: a ninth card of two players' (RU1: 8 each)
    ("rummy", P2, [{"open": True, "cards": [["A", "2", "3", "4", "5", "6", "7", "8", "9"], []]}],
     "hand 1: cards: player 0 holds at most 8 cards"),
])
def test_impossible_hands_in_progress_are_refused(tmp_path, game, players, hands, error):
    result = sheet(tmp_path, record(game, players, hands))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == f"tallyboard: {tmp_path / 'game.json'}: {error}\n"


@pytest.mark.emulator
def test_moosehead_on_the_board_cut_short_exports_archives_and_shows(tmp_path):
    """The issue's report, on the emulator: a Moosehead hand in progress is
    exported and archived, and sheet, archive show and enter take it back."""
    env = {"TALLYBOARD_EMULATOR_HOME": str(tmp_path / "emu")}
    archive = str(tmp_path / "a.sqlite3")

    def cli(*args):
        result = run(*args, env=env)
        assert result.exit_code == 0, result.output
        return result

    cli("new", "moosehead", "--name", "Ann", "--name", "Bob", "--emulator")
    # enter takes a hand in progress: its two cards, the hand left open.
    # MH3: 8 + 7 = 15, Bob scores 2.
    cli("enter", '{"open": true, "plays": [[0, "8"], [1, "7"]]}', "--emulator")
    exported = cli("export", "--emulator")
    assert 'hand 1 is in progress (2 events)' in exported.stderr
    doc = json.loads(exported.stdout)
    assert doc["hands"] == [{"open": True, "plays": [[0, "8"], [1, "7"]]}]
    path = tmp_path / "game.json"
    path.write_text(exported.stdout)
    assert json.loads(cli("sheet", str(path), "--json").stdout)["totals"] == [0, 2]
    assert json.loads(cli("sheet", "--json", "--emulator").stdout)["totals"] == [0, 2]
    cli("archive", "save", "--emulator", "--archive", archive)
    shown = json.loads(cli("archive", "show", "1", "--json", "--archive", archive).stdout)
    assert shown["hands"][0]["open"] is True and shown["totals"] == [0, 2]
    assert "hand 1… in progress" in cli("archive", "show", "1", "--archive", archive).stdout
    out = cli("show", str(path), "--png", str(tmp_path / "game.png"))
    assert "wrote" in out.stdout and (tmp_path / "game.png").stat().st_size > 0
    # the picture's title says the hand is in progress: 2 events, none closing hand 1
    cli("show", str(path), "--svg", str(tmp_path / "game.svg"))
    assert "game.json: moosehead, 2 of 2 events, hand 1 in progress" in (tmp_path / "game.svg").read_text()
