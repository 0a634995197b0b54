"""The short games on the real firmware in the emulator: `tallyboard new`
with their options, `tallyboard enter` with RECORDS.md hands (sent as core
events over the protocol), impossible hands refused with nothing sent, the
live sheet equal to the record's, export with options."""
from __future__ import annotations

import json
from importlib import resources

import pytest
from click.testing import CliRunner
from emu_fixtures import emulated_board

from tallyboard.cli import main

pytestmark = [pytest.mark.emulator]

NAMES = ["--name", "Ann", "--name", "Bob", "--name", "Cy", "--name", "Dee"]
THREE = NAMES[:6]     # each test names its players: the tests share one board, in any order


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def summary_of(output: str) -> str:
    """What enter printed before the reason of the hand it entered ("why (hand 3):" and its
    lines: tests/test_why_board.py and the Bishops Whist test below hold such words)."""
    return output.split("why (", 1)[0]


@pytest.fixture(scope="module")
def port(tmp_path_factory):
    with emulated_board(tmp_path_factory.mktemp("short") / "flash") as (emulator, board):
        board.link.close()
        yield emulator.port


def test_foozle_hands_entered_and_an_impossible_one_refused(port):
    assert run("new", "foozle", *NAMES, "--discard", "-p", port).stdout == "foozle: Ann 0  Bob 0  Cy 0  Dee 0  (0 hands)\n"
    # Cy (2) bids 3 and takes 4: 3 * 3 opponents = 9, no more for the overtrick.
    out = run("enter", '{"bidder": 2, "bid": 3, "tricks": 4}', "-p", port)
    assert summary_of(out.stdout) == "foozle: Ann 0  Bob 0  Cy 9  Dee 0  (1 hand)\n", out.stderr
    assert out.stdout.endswith("why (hand 1):\n  Cy +9: made his bid: the bid once for each opponent, nothing for "
                               "tricks over it (FO3)\n")   # 3 a bid, three opponents: 9
    # A bid of 6: refused naming the hand and the field; nothing reaches the board.
    out = run("enter", '{"bidder": 2, "bid": 6, "tricks": 4}', "-p", port)
    assert out.exit_code == 1 and out.stdout == ""
    assert out.stderr == "tallyboard: hand 2: bid: must be 1 to 5 tricks, not 6\n"
    out = run("enter", '{"bidder": 2, "bid": ', "-p", port)
    assert out.exit_code == 1 and out.stderr.startswith("tallyboard: hand: bad JSON")
    # Bob (1) bids 4 and takes 3: each other player scores 4.
    out = run("enter", '{"bidder": 1, "bid": 4, "tricks": 3}', "-p", port)
    assert summary_of(out.stdout) == "foozle: Ann 4  Bob 0  Cy 13  Dee 4  (2 hands)\n"
    out = run("undo", "-p", port)
    assert out.stdout == "foozle: Ann 0  Bob 0  Cy 9  Dee 0  (1 hand, 1 to redo)\n"


def test_moosehead_hand_of_plays_and_the_live_sheet(port, tmp_path):
    record = json.loads((resources.files("tallyboard") / "data" / "sample_moosehead.json").read_text())
    assert record["options"] == {"first_dealer": 3}     # Dee deals, Ann leads
    assert run("new", "moosehead", *NAMES, "-o", "first_dealer=3", "--discard", "-p", port).exit_code == 0
    out = run("enter", json.dumps(record["hands"][0]), "-p", port)
    # pegging 1 5 7 3 and fifteens 0 2 4 0: 1, 5 + 2, 7 + 4, 3 (tests/mp/test_games_moosehead.py)
    assert out.stdout.split("why (", 1)[0] == "moosehead: Ann 1  Bob 7  Cy 11  Dee 3  (1 hand)\n", out.stderr
    # then why, event by event (the board's WHY): Cy's 5 made the count 15 after Bob's 10 (MH3); the
    # fifteens of the hand: Cy 2 * 2 = 4 (MH5)
    assert "  Cy +2: brought the running count to 15: 2 (MH3)\n" in out.stdout
    assert out.stdout.endswith("  Cy +4: 2 for each combination of his five cards that adds up to 15 (MH5)\n")
    path = tmp_path / "moosehead.json"
    record["players"] = ["Ann", "Bob", "Cy", "Dee"]
    path.write_text(json.dumps(record))
    live = run("sheet", "--json", "-p", port)
    assert json.loads(live.stdout) == json.loads(run("sheet", "--json", str(path)).stdout)
    # A play past 30 in the next hand (Ann deals, Bob leads): refused, the board
    # keeps only the first hand.
    out = run("enter", '{"plays": [[1, "10"], [2, "10"], [3, "5"], [0, "6"]]}', "-p", port)
    assert out.stderr == "tallyboard: hand 2: plays: 6 would take the count to 31, past 30\n"
    assert run("status", "-p", port).stdout.endswith("moosehead: Ann 1  Bob 7  Cy 11  Dee 3  (1 hand)\n")


def test_options_and_export(port):
    assert run("new", "rummy", *THREE, "-o", "faces=ten", "--discard", "-p", port).exit_code == 0
    # faces count 10: 10 + 3 + 4 = 17 against Bob, K = 10 against Cy.
    out = run("enter", '{"out": 0, "cards": [[], ["10", "3", "4"], ["K"]]}', "-p", port)
    assert summary_of(out.stdout) == "rummy: Ann 0  Bob 17  Cy 10  (1 hand)\n", out.stderr
    exported = json.loads(run("export", "-p", port).stdout)
    assert exported["options"] == {"faces": "ten"}
    assert exported["hands"] == [{"out": 0, "cards": [[], ["10", "3", "4"], ["K"]]}]
    out = run("new", "jaimy", "-n", "3", "-o", "partners=true", "--discard", "-p", port)
    assert out.exit_code != 0 and "partners: partnerships need 4 or 6 players" in out.stderr


def test_quatro_totals_tricks_and_hands_won_over_the_wire(port):
    # docs/rules.md QU3: the totals add up the tricks: 6, 5, 2 then 7, 0, 6:
    # 6 + 7 = 13, 5 + 0 = 5, 2 + 6 = 8.
    assert run("new", "quatro", *THREE, "--discard", "-p", port).exit_code == 0
    assert summary_of(run("enter", '{"tricks": [6, 5, 2]}', "-p", port).stdout) == "quatro: Ann 6  Bob 5  Cy 2  (1 hand)\n"
    out = run("enter", '{"tricks": [7, 0, 6]}', "-p", port)
    assert summary_of(out.stdout) == "quatro: Ann 13  Bob 5  Cy 8  (2 hands)\n", out.stderr
    doc = json.loads(run("sheet", "--json", "-p", port).stdout)
    assert doc["wins"] == "most tricks" and doc["totals"] == [13, 5, 8]
    assert "options" not in json.loads(run("export", "-p", port).stdout)
    # hands_won: the same hands are a hand won each by Ann (6) and Ann (7): 2, 0, 0.
    assert run("new", "quatro", *THREE, "-o", "hands_won=true", "--discard", "-p", port).exit_code == 0
    run("enter", '{"tricks": [6, 5, 2]}', "-p", port)
    out = run("enter", '{"tricks": [7, 0, 6]}', "-p", port)
    assert summary_of(out.stdout) == "quatro: Ann 2  Bob 0  Cy 0  (2 hands)\n", out.stderr
    exported = json.loads(run("export", "-p", port).stdout)
    assert exported["options"] == {"hands_won": True}
    assert exported["hands"] == [{"tricks": [6, 5, 2]}, {"tricks": [7, 0, 6]}]
    assert json.loads(run("sheet", "--json", "-p", port).stdout)["wins"] == "most hands"
    out = run("new", "numero", "-n", "3", "-o", "hands_won=true", "--discard", "-p", port)
    assert out.exit_code != 0 and "hands_won: unknown field" in out.stderr


def test_bad_json_hints_at_the_games_own_hand(port):
    # The hint after bad JSON is the hand form of the game on the board
    # (each profile's example_hand), not one game's for all.
    hints = {"quatro": '{"tricks": [3, 5, 5]}', "foozle": '{"bidder": 2, "bid": 3, "tricks": 4}'}
    for name, example in hints.items():
        assert run("new", name, "-n", "3", "--discard", "-p", port).exit_code == 0
        out = run("enter", '{"tricks": [3, 5', "-p", port)
        assert out.exit_code == 1 and out.stdout == ""
        assert out.stderr == ("tallyboard: hand: bad JSON at line 1 column 17: Expecting \',\' delimiter; "
                              f"write the hand as in docs/records.md, e.g. '{example}'\n"), out.stderr
        other = hints["foozle" if name == "quatro" else "quatro"]
        assert other not in out.stderr and '{"winner": 1}' not in out.stderr


def test_bishops_whist_sides_and_a_negative_total_over_the_wire(port):
    assert run("new", "bishops_whist", *NAMES, "--discard", "-p", port).exit_code == 0
    # Side A-C: 6 tricks, no bishops, 2 revokes: 0 - 2 * 4 = -8.
    # Side B-D: 7 tricks, 4 bishops: 1 + 8 = 9.
    out = run("enter", '{"tricks": [6, 7], "bishops": [0, 4], "revokes": [2, 0]}', "-p", port)
    assert out.stdout == ("bishops_whist: Ann -8  Bob 9  Cy -8  Dee 9  (1 hand)\n"
                          # and why, part by part (the same arithmetic; the board's WHY)
                          "why (hand 1):\n"
                          "  Ann and Cy 0: the side scores 1 for each trick over six (BW4)\n"
                          "  Ann and Cy -8: a revoke costs the side 4, each time (BW5)\n"
                          "  Bob and Dee +1: the side scores 1 for each trick over six (BW4)\n"
                          "  Bob and Dee +8: 2 for each bishop among the side's tricks (BW4)\n"), out.stderr
    out = run("enter", '{"tricks": [7, 7], "bishops": [0, 4]}', "-p", port)
    assert out.stderr == "tallyboard: hand 2: tricks: must add up to 13, not 14\n"
    doc = json.loads(run("sheet", "--json", "-p", port).stdout)
    assert doc["totals"] == [-8, 9] and doc["sides"] == [[0, 2], [1, 3]]
