"""`tallyboard sheet RECORD [--json]` for Skicket and Roquet (RECORDS.md)."""
import json

import pytest
from click.testing import CliRunner

from tallyboard.cli import main

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]


def run_sheet(tmp_path, doc, *args):
    path = tmp_path / "game.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return CliRunner().invoke(main, ["sheet", str(path), *args])


def skicket_record(hands):
    return {"format": "tallyboard/1", "game": "skicket", "players": PLAYERS, "hands": hands}


def test_skicket_sheet_json_matches_records_md_example(tmp_path):
    # RECORDS.md's example row: dealer 2, seats 0 1 2 3, scores 90 90 30 30
    # is Cy's deal of hand 1 ... we work one out: Ann bids 3H, makes 9:
    # Ann and Cy 90 (60 + 10*3); Bob and Dee 10 * (13 - 9) = 40.
    result = run_sheet(tmp_path, skicket_record([{"purchaser": 0, "bid": "3H", "tricks": 9}]), "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["game"] == "skicket" and doc["players"] == PLAYERS
    assert doc["hands"][0]["dealer"] == 2
    assert doc["hands"][0]["seats"] == [0, 1, 2, 3]
    assert doc["hands"][0]["scores"] == [90, 40, 90, 40]
    assert doc["totals"] == [90, 40, 90, 40]
    assert doc["winners"] == [0, 2]
    assert doc["complete"] is False


def test_skicket_full_game_with_misdeal(tmp_path):
    hands = [
        {"purchaser": 0, "bid": "3H", "tricks": 9},                      # A 90 B 40 C 90 D 40
        {"misdeal": True},                                                # nothing, same dealer
        {"purchaser": 1, "bid": "2S", "doubled_by": 2, "tricks": 7},     # set: A 160 B 0 C 160 D 70
        {"purchaser": 2, "bid": "1NK", "tricks": 5},                     # (A+B v C+D) made: A 50 B 50 C 70 D 70
        {"purchaser": 3, "bid": "4D", "lone": True, "tricks": 11},       # D 100, others 10*2 = 20
        {"purchaser": 0, "bid": "2NT", "doubled_by": 1, "redoubled_by": 3, "tricks": 8},
        # (A+D v C+B) D takes over, made: A 320 D 320 B 0 C 10*5 = 50
        {"purchaser": 1, "bid": "5C", "tricks": 13},                     # B and C 130
    ]
    result = run_sheet(tmp_path, skicket_record(hands), "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert len(doc["hands"]) == 6  # the misdeal is left out
    assert [h["dealer"] for h in doc["hands"]] == [2, 3, 0, 2, 3, 1]
    assert [h["seats"] for h in doc["hands"]] == [[0, 1, 2, 3]] * 2 + [[0, 2, 1, 3]] * 2 + [[0, 2, 3, 1]] * 2
    assert [h["scores"] for h in doc["hands"]] == [
        [90, 40, 90, 40], [160, 0, 160, 70], [50, 50, 70, 70],
        [20, 20, 20, 100], [320, 0, 50, 320], [0, 130, 130, 0]]
    # Ann 90+160+50+20+320+0 = 640; Bob 40+0+50+20+0+130 = 240;
    # Cy 90+160+70+20+50+130 = 520; Dee 40+70+70+100+320+0 = 600
    assert doc["totals"] == [640, 240, 520, 600]
    assert doc["winners"] == [0]
    assert doc["complete"] is True


def test_skicket_sheet_counts_600_misdeals(tmp_path):
    # 600 misdeals (as many as the board's log holds), then no hand: the
    # sheet says 600, not a byte's 255.
    record = skicket_record([{"misdeal": True}] * 600)
    doc = json.loads(run_sheet(tmp_path, record, "--json").stdout)
    assert doc["misdeals"] == 600 and doc["hands"] == []
    table = run_sheet(tmp_path, record)
    assert table.exit_code == 0, table.stderr
    assert "600 misdeals" in " ".join(table.stdout.split())


def test_skicket_table_names_dealer_contract_and_winner(tmp_path):
    result = run_sheet(tmp_path, skicket_record([{"purchaser": 1, "bid": "2S", "doubled_by": 2, "tricks": 7}]))
    assert result.exit_code == 0
    out = result.stdout
    assert "Bob 2S ×2Cy" in out and "7 set" in out
    assert "Ann" in out and "Dee" in out
    assert "tie for the lead with 160" in out  # Ann and Cy 2 * 80


def test_roquet_sheet_json(tmp_path):
    doc = {"format": "tallyboard/1", "game": "roquet", "players": ["Ann", "Bob"],
           "hands": [[[0, 1], [1, 2], [0, 5]], [[1, 1]]]}
    result = run_sheet(tmp_path, doc, "--json")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    # Ann 1 + 5 = 6; Bob 2 + 1 = 3
    assert out["totals"] == [6, 3]
    assert out["winners"] == [0]
    assert out["complete"] is False
    assert [h["scores"] for h in out["hands"]] == [[6, 2], [0, 1]]


def test_roquet_game_to_100(tmp_path):
    doc = {"format": "tallyboard/1", "game": "roquet", "players": ["Ann", "Bob"],
           "hands": [[[0, 60], [1, 20]], [[1, 30], [0, 40]]]}
    out = json.loads(run_sheet(tmp_path, doc, "--json").stdout)
    # Ann 60 + 40 = 100 reaches the game; Bob 20 + 30 = 50
    assert out["totals"] == [100, 50] and out["winners"] == [0] and out["complete"] is True


BAD = [
    ("not json", "{", "bad JSON at line 1"),
    ("unknown game", {"format": "tallyboard/1", "game": "whist", "players": PLAYERS, "hands": []}, "game: unknown game"),
    ("old format", {"format": "tallyboard/9", "game": "skicket", "players": PLAYERS, "hands": []}, "format: unsupported"),
    ("three players", {"format": "tallyboard/1", "game": "skicket", "players": PLAYERS[:3], "hands": []}, "players:"),
    ("bid of 8", skicket_record([{"purchaser": 0, "bid": "8H", "tricks": 9}]), "hand 1: bid:"),
    ("14 tricks", skicket_record([{"purchaser": 0, "bid": "1H", "tricks": 9}, {"purchaser": 0, "bid": "1H", "tricks": 14}]), "hand 2: tricks:"),
    ("redouble without double", skicket_record([{"purchaser": 0, "bid": "1H", "redoubled_by": 0, "tricks": 7}]), "hand 1: redoubled_by:"),
    ("lone no trick", skicket_record([{"purchaser": 0, "bid": "1NK", "lone": True, "tricks": 5}]), "hand 1: lone:"),
    ("own side doubles", skicket_record([{"purchaser": 0, "bid": "1H", "doubled_by": 2, "tricks": 7}]), "hand 1: doubled_by:"),
    ("player out of range", skicket_record([{"purchaser": 4, "bid": "1H", "tricks": 7}]), "hand 1: purchaser:"),
    ("tricks as text", skicket_record([{"purchaser": 0, "bid": "1H", "tricks": "7"}]), "hand 1: tricks:"),
    ("seventh hand", skicket_record([{"purchaser": 0, "bid": "1H", "tricks": 7}] * 7), "hand 7: game: the six hands"),
    ("typo field", skicket_record([{"purchaser": 0, "bid": "1H", "trick": 7}]), "hand 1: trick: unknown field"),
    ("roquet peg of 0", {"format": "tallyboard/1", "game": "roquet", "players": ["A", "B"], "hands": [[[0, 0]]]}, "hand 1: peg 1: points:"),
    ("roquet player 2", {"format": "tallyboard/1", "game": "roquet", "players": ["A", "B"], "hands": [[[0, 1], [2, 1]]]}, "hand 1: peg 2: player 2"),
]


@pytest.mark.parametrize("name,doc,message", BAD, ids=[b[0] for b in BAD])
def test_invalid_records_get_one_line_and_no_output(tmp_path, name, doc, message):
    for args in ((), ("--json",)):
        result = run_sheet(tmp_path, doc, *args)
        assert result.exit_code != 0
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert message in lines[0], lines[0]


def test_missing_file(tmp_path):
    result = CliRunner().invoke(main, ["sheet", str(tmp_path / "nope.json")])
    assert result.exit_code != 0 and result.stdout == ""
    assert "cannot read the record" in result.stderr


def test_demo_prints_both_sheets():
    result = CliRunner().invoke(main, ["demo"])
    assert result.exit_code == 0, result.stderr
    assert "Skicket" in result.stdout and "Roquet" in result.stdout
    assert "Ann wins with 640." in result.stdout
