"""Why a hand scored, on the emulated board (the real firmware; issue 34, items 2
and 3): `tallyboard hand` prints the reason of the hand it entered, `tallyboard why`
asks the board (WHY) and says the same words as `why --record` of the same game,
`sheet --why` says each hand's under the sheet, `press` the reason of a hand saved
on the board, and the board's own why screen (the knob turned outside an entry)
shows those words on the OLED. Every expected word is worked out by hand from
docs/rules.md's clauses (the reason tables' words: tallycore/reasons/skicket.py)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from emu_fixtures import emulated_board, oled_text, press_on_emulator, until
from tallyboard.cli import main
from tallyboard.tooling import emulator as emu_mod, render
from tallypanel import menu, screen

pytestmark = [pytest.mark.emulator, pytest.mark.process]

# Ann 0, Bob 1, Cy 2, Dee 3; hands 1 and 2 at the first seats: Ann and Cy partners, Bob and Dee (SK5).
# Hand 1: Ann bids 3H, her side takes 9 = 6 + 3: made. Ann and Cy 60 + 10 * 3 = 90 (SK7);
# Bob and Dee 10 for each of the 13 - 9 = 4 tricks they took: 40 (SK7).
HAND_1 = ["Ann and Cy +90: made: the purchaser and his partner score the bid's value, 60 + 10 a level (SK7)",
          "Bob and Dee +40: an adversary of a bid made: 10 for each trick the adversaries took (SK7)"]
# Hand 2: Cy bids 2NT, Bob doubles, Cy's side takes 7 of the 6 + 2 = 8 it needs: failed. Bob and his
# partner Dee 2 * (60 + 10 * 2) = 160 (SK9); Cy nothing; his partner Ann 10 for each of the 7 tricks: 70.
HAND_2 = ["Bob and Dee +160: doubled, the purchaser failed: the doubler's side gets twice the bid (SK9)",
          "Cy 0: doubled, the purchaser failed: he scores nothing (SK9)",
          "Ann +70: partner of the loser: 10 for each trick the loser's side took (SK9)"]
RECORD = {"format": "tallyboard/1", "game": "skicket", "players": ["Ann", "Bob", "Cy", "Dee"],
          "hands": [{"purchaser": 0, "bid": "3H", "tricks": 9},
                    {"purchaser": 2, "bid": "2NT", "doubled_by": 1, "tricks": 7}]}


def run(*args: str) -> str:
    out = CliRunner().invoke(main, list(args))
    assert out.exit_code == 0, out.output
    return out.output


@pytest.fixture(scope="module")
def port(tmp_path_factory):
    with emulated_board(tmp_path_factory.mktemp("why") / "flash") as (emulator, board):
        board.link.close()        # the commands open the port themselves
        yield emulator.port


def test_hand_why_and_sheet_say_why_in_the_rules_words(port, tmp_path):
    run("new", "skicket", "--name", "Ann", "--name", "Bob", "--name", "Cy", "--name", "Dee", "--discard", "-p", port)
    assert run("hand", "Ann", "3H", "9", "-p", port) == (
        "skicket: Ann 90  Bob 40  Cy 90  Dee 40  (1 hand)\nwhy (hand 1):\n" + "".join(f"  {w}\n" for w in HAND_1))
    assert run("hand", "Cy", "2NT", "7", "--doubled-by", "Bob", "-p", port) == (
        "skicket: Ann 160  Bob 200  Cy 90  Dee 200  (2 hands)\nwhy (hand 2):\n" + "".join(f"  {w}\n" for w in HAND_2))
    # the board's WHY, and the record of the same game: the same words
    assert run("why", "-p", port) == "hand 2:\n" + "".join(f"  {w}\n" for w in HAND_2)
    assert run("why", "1", "-p", port) == "hand 1:\n" + "".join(f"  {w}\n" for w in HAND_1)
    record = tmp_path / "game.json"
    record.write_text(json.dumps(RECORD))
    assert run("why", "--record", str(record)) == run("why", "-p", port)
    assert run("why", "1", "--record", str(record)) == run("why", "1", "-p", port)
    # sheet --why: the sheet, then each hand's reason under its number; --json beside the sheet's hands
    sheet = run("sheet", "--why", "-p", port)
    assert sheet.startswith(run("sheet", "-p", port))
    assert sheet.endswith("hand 1:\n" + "".join(f"  {w}\n" for w in HAND_1)
                          + "hand 2:\n" + "".join(f"  {w}\n" for w in HAND_2))
    assert json.loads(run("sheet", "--why", "--json", str(record)))["why"] == [
        {"hand": 1, "lines": HAND_1}, {"hand": 2, "lines": HAND_2}]
    out = CliRunner().invoke(main, ["why", "3", "-p", port])
    assert out.exit_code != 0 and "hand: must be 1 to 2 (the hands entered so far)" in out.output


def test_the_knob_turned_shows_the_why_screen_on_the_oled(tmp_path):
    definition = render.find_board("pico-reference")
    with emulated_board(tmp_path / "flash") as (emulator, board):
        board.new("skicket", 4)
        for p, name in enumerate(("Ann", "Bob", "Cy", "Dee")):
            board.cfg_set("name", name, p)
        board.game_verb("HAND", 0, "3H", None, None, 0, 9)
        board.game_verb("HAND", 2, "2NT", 1, None, 0, 7)

        def rows() -> list[str]:
            oled = emulator.oled()
            return [oled_text(oled, r, screen.LIST).rstrip() for r in range(10)]

        press_on_emulator(emulator, definition, (menu.TURN, 1))
        # drawn upper case (the OLED's font has no lower case), wrapped at spaces to its 32 columns
        expected = ["WHY HAND 2 OF 2", "BOB AND DEE +160: DOUBLED, THE", " PURCHASER FAILED: THE DOUBLER'S",
                    " SIDE GETS TWICE THE BID (SK9)", "CY 0: DOUBLED, THE PURCHASER",
                    " FAILED: HE SCORES NOTHING (SK9)", "ANN +70: PARTNER OF THE LOSER:",
                    " 10 FOR EACH TRICK THE LOSER'S", " SIDE TOOK (SK9)", ""]
        until(lambda: rows() == expected, 30, "the why screen of hand 2", explain=rows)
        press_on_emulator(emulator, definition, (menu.TURN, -1))
        expected = ["WHY HAND 1 OF 2", "ANN AND CY +90: MADE: THE", " PURCHASER AND HIS PARTNER SCORE",
                    " THE BID'S VALUE, 60 + 10 A", " LEVEL (SK7)", "BOB AND DEE +40: AN ADVERSARY OF",
                    " A BID MADE: 10 FOR EACH TRICK", " THE ADVERSARIES TOOK (SK7)", "", ""]
        until(lambda: rows() == expected, 30, "the why screen of hand 1", explain=rows)


def test_press_says_why_the_hand_it_saved_scored(tmp_path, monkeypatch):
    from emu_fixtures import SKICKET
    from tallyboard.boardlink.client import Board
    from tallyboard.boardlink.transport import SerialTransport
    from tallyboard.tooling.emulator import Emulator

    monkeypatch.setenv("TALLYBOARD_EMULATOR_HOME", str(tmp_path / "home"))
    definition = render.find_board("pico-reference")
    with Emulator(flash=tmp_path / "flash") as emulator:
        emu_mod.write_running(emulator)
        link = SerialTransport(emulator.port)
        try:
            board = Board(link, timeout=3.0)
            board.connect()
            board.new("skicket", 4)       # players P1 to P4
            inputs = SKICKET[2]
            for one in inputs[:-1]:       # the hand entered on the board's own controls, all but its save
                press_on_emulator(emulator, definition, one)
            link.close()                  # press opens the port itself
            out = run("press", "push")
            # P2 (seat B) bid 4H and took 10 = 6 + 4: made; P2 and his partner P4 score 60 + 10 * 4 = 100
            # each (SK7), P1 and P3 10 for each of the 13 - 10 = 3 tricks they took: 30 (SK7),
                # named in the order the rules score them (the purchaser's left, then right: P3, P1)
            assert out.endswith(
                "why (hand 1):\n"
                "  P2 and P4 +100: made: the purchaser and his partner score the bid's value, 60 + 10 a level (SK7)\n"
                "  P3 and P1 +30: an adversary of a bid made: 10 for each trick the adversaries took (SK7)\n"), out
        finally:
            link.close()
            emu_mod.clear_running()


def test_hand_says_why_a_hand_held_for_its_confirmation_will_score(port):
    run("new", "skicket", "--name", "Ann", "--name", "Bob", "--name", "Cy", "--name", "Dee", "--confirm",
        "--discard", "-p", port)
    out = run("hand", "Ann", "3H", "9", "-p", port)
    # held (rules.md CF1): nothing counts yet, and the reason is the one it will have (HAND_1, worked above)
    assert out.endswith("why (hand 1, once accepted):\n" + "".join(f"  {w}\n" for w in HAND_1)), out
    assert run("why", "-p", port) == ("hand 1 (held: it counts once accepted):\n"
                                      + "".join(f"  {w}\n" for w in HAND_1))
