"""The board commands of the CLI, run against the real firmware in the
emulator: scoring worked out by hand, the live sheet equal to a record's,
export, undo/redo, config, errors that say what to do, --emulator across
commands (the game carries on from the emulator's flash), `emulate` in the
foreground, play, monitor, watch, and deploy with a fake mpremote."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner
from emu_fixtures import emulated_board, end_with_ctrl_c, until
from fake_mpremote import RP2040, FakeMpremote, commands_of

from tallyboard.tooling import deploy as deploy_mod
from tallyboard.cli import main
from tallyboard.tooling.emulator import Emulator

pytestmark = [pytest.mark.emulator, pytest.mark.process]


def run(*args: str, env: dict | None = None):
    result = CliRunner().invoke(main, list(args), env=env)
    return result


def summary_of(output: str) -> str:
    """What a command printed before the reason of what it entered ("why (hand 3):" and its
    lines: tests/test_why_board.py holds those words)."""
    return output.split("why (", 1)[0]


@pytest.fixture(scope="module")
def port(tmp_path_factory):
    with emulated_board(tmp_path_factory.mktemp("cli") / "flash") as (emulator, board):
        board.link.close()        # the commands open the port themselves
        yield emulator.port


def test_a_skicket_game_from_the_command_line(port, tmp_path):
    out = run("new", "skicket", "--name", "Ann", "--name", "Bob", "--name", "Cy", "--name", "Dee", "--discard", "-p", port)
    assert out.exit_code == 0, out.output
    assert out.output == "skicket: Ann 0  Bob 0  Cy 0  Dee 0  (0 hands)\n"
    # Hand 1: Ann (0) bids 3H, takes 9 = 6 + 3: made. Ann and partner Cy get
    # 60 + 10*3 = 90; Bob and Dee get 10 * (13 - 9) = 40.
    out = run("hand", "Ann", "3H", "9", "-p", port)
    assert summary_of(out.output) == "skicket: Ann 90  Bob 40  Cy 90  Dee 40  (1 hand)\n", out.output
    # Hand 2 (same seats): Bob (1, partner Dee) bids 2S, needs 8, takes 7:
    # set, doubled by Cy (rule 3): the doubler Cy and his partner Ann get
    # 2A = 2 * (60 + 20) = 160; Bob 0; Dee 10 * 7 = 70.
    out = run("hand", "1", "2s", "7", "--doubled-by", "cy", "-p", port)
    assert summary_of(out.output) == "skicket: Ann 250  Bob 40  Cy 250  Dee 110  (2 hands)\n", out.output

    # the live sheet is the sheet of the same game as a record
    record = tmp_path / "game.json"
    record.write_text(json.dumps({"format": "tallyboard/1", "game": "skicket",
                                  "players": ["Ann", "Bob", "Cy", "Dee"],
                                  "hands": [{"purchaser": 0, "bid": "3H", "tricks": 9},
                                            {"purchaser": 1, "bid": "2S", "doubled_by": 2, "tricks": 7}]}))
    live = run("sheet", "--json", "-p", port)
    assert live.exit_code == 0, live.output
    assert json.loads(live.output) == json.loads(run("sheet", "--json", str(record)).output)
    assert run("sheet", "-p", port).output == run("sheet", str(record)).output

    exported = json.loads(run("export", "-p", port).stdout)
    assert exported["players"] == ["Ann", "Bob", "Cy", "Dee"]
    assert exported["hands"][1] == {"purchaser": 1, "bid": "2S", "doubled_by": 2, "redoubled_by": None,
                                    "lone": False, "tricks": 7}

    out = run("undo", "-p", port)
    assert out.output == "skicket: Ann 90  Bob 40  Cy 90  Dee 40  (1 hand, 1 to redo)\n"
    out = run("redo", "-p", port)
    assert out.output == "skicket: Ann 250  Bob 40  Cy 250  Dee 110  (2 hands)\n"
    out = run("misdeal", "-p", port)
    assert out.output == ("misdeal recorded: the same dealer deals again\n"
                          "skicket: Ann 250  Bob 40  Cy 250  Dee 110  (2 hands)\n")

    status = run("status", "-p", port)
    assert status.output.startswith(f"board pico-reference on {port}: firmware ")
    assert "; games: skicket, roquet, " in status.output


def test_a_misdeal_entered_as_a_record_hand_is_said_to_be_no_hand(port):
    # friction 8 of issue 44: its reason was headed "hand 2"; a misdeal is not a hand (docs/rules.md SK3)
    run("new", "skicket", "--name", "Ann", "--name", "Bob", "--name", "Cy", "--name", "Dee", "--discard", "-p", port)
    run("hand", "Ann", "3H", "9", "-p", port)            # hand 1: Ann and Cy 90, Bob and Dee 40 (SK7)
    out = run("enter", '{"misdeal": true}', "-p", port)
    assert out.output == ("skicket: Ann 90  Bob 40  Cy 90  Dee 40  (1 hand)\n"
                          "why (no hand: hand 2 is dealt again):\n"
                          "  everyone 0: a misdeal: dealt again by the same dealer, it scores nothing (SK3)\n"), out.output
    # the next hand is hand 2: Bob bids 2S and takes 8, made: Bob and Dee 60 + 10 x 2 = 80; Ann, Cy 5 x 10
    out = run("enter", '{"purchaser": 1, "bid": "2S", "tricks": 8}', "-p", port)
    assert out.output.startswith("skicket: Ann 140  Bob 120  Cy 140  Dee 120  (2 hands)\nwhy (hand 2):\n"), out.output


def test_board_errors_are_one_line_with_what_to_do(port):
    run("new", "skicket", "--discard", "-p", port)
    out = run("undo", "-p", port)
    assert out.exit_code == 2
    assert out.output == "tallyboard: the board says: nothing to undo (RULE)\n"
    out = run("hand", "Zoe", "3H", "9", "-p", port)
    assert out.exit_code == 1
    assert out.output == ("tallyboard: player 'Zoe': not a player of this game (Ann, Bob, Cy, Dee); "
                          "give a name or a number 0 to 3\n")
    out = run("hand", "0", "8H", "9", "-p", port)
    assert out.exit_code == 1 and "bid" in out.output
    out = run("new", "roquet", "--name", "Ann", "--name", "Bob Lee", "--discard", "-p", port)
    assert out.output == "tallyboard: --name 'Bob Lee': 1 to 12 letters, digits, _ - or .\n"
    assert run("config", "get", "name", "--player", "0", "-p", port).output == "Ann\n"  # unchanged
    out = run("new", "whist", "--discard", "-p", port)
    assert out.output.startswith("tallyboard: unknown game 'whist'; known games: skicket, roquet")


def test_roquet_options_and_pegs(port):
    out = run("new", "roquet", "-o", "end=hand_end", "--name", "Ann", "--name", "Bob", "--discard", "-p", port)
    assert out.exit_code == 0, out.output
    run("peg", "Ann", "20", "-p", port)
    out = run("peg", "bob", "7", "-p", port)
    assert out.output == "roquet: Ann 20  Bob 7  (0 hands)\n"
    out = run("end", "-p", port)
    assert out.output == "roquet: Ann 20  Bob 7  (1 hand)\n"
    doc = json.loads(run("export", "-p", port).stdout)
    assert doc["options"] == {"end": "hand_end"}
    assert doc["hands"] == [[[0, 20], [1, 7]]]
    out = run("new", "roquet", "-o", "end=sometime", "--discard", "-p", port)
    assert out.exit_code == 1 and out.output.startswith("tallyboard: --option: end: must be")


def test_the_same_peg_twice_is_scored_twice_whatever_the_seq(port, monkeypatch):
    # issue 10.1: each command used to number its requests from a random
    # start; two identical commands that drew the same start got the first's
    # stored OK and the second peg was lost. Pin the starts so that both
    # PEGs draw the same seq (the second command reads one LOG more before
    # its PEG, so it starts one lower): both still count.
    from tallyboard.boardlink import session
    assert run("new", "roquet", "--name", "Ann", "--name", "Bob", "--discard", "-p", port).exit_code == 0
    starts = iter([4242, 4241])
    monkeypatch.setattr(session.random, "randint", lambda lo, hi: next(starts))
    run("peg", "Ann", "5", "-p", port)
    out = run("peg", "Ann", "5", "-p", port)
    # Ann: 5 + 5 = 10
    assert out.exit_code == 0 and out.output == "roquet: Ann 10  Bob 0  (0 hands)\n", out.output


def test_config(port):
    assert run("config", "set", "name", "Zed", "--player", "3", "-p", port).output == "Zed\n"
    assert run("config", "get", "name", "--player", "3", "-p", port).output == "Zed\n"
    assert run("config", "set", "brightness", "40", "-p", port).output == "40\n"
    out = run("config", "set", "brightness", "999", "-p", port)
    assert out.exit_code == 1 and "must be a whole number 0 to 255" in out.output   # checked before sending
    assert run("config", "get", "brightness", "-p", port).output == "40\n"   # unchanged
    out = run("config", "get", "name", "-p", port)
    assert out.output == "tallyboard: name is set per player: add --player N\n"
    listing = run("config", "get", "-p", port).output.splitlines()
    assert "brightness 40" in listing and "name.3 Zed" in listing


def test_monitor_shows_both_directions(port):
    out = run("monitor", "--send", "STATE", "--send", "FORMAT", "-p", port)
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert any(" > " in line and " HELLO*" in line for line in lines)
    assert any(" > " in line and " STATE*" in line for line in lines)
    assert any(" < " in line and " OK game=" in line for line in lines)
    assert "not sent: FORMAT: not a verb of the board's protocol" in out.output


def test_watch_draws_sheet_and_pegs(port):
    run("new", "roquet", "--name", "Ann", "--name", "Bob", "--discard", "-p", port)
    run("peg", "0", "15", "-p", port)
    out = run("watch", "--plain", "--duration", "0.3", "-p", port)
    assert out.exit_code == 0, out.output
    assert "Roquet — Ann v Bob" in out.output
    # Ann's tally peg in the 15th hole: the last of the first 15 single holes
    assert "Ann tally ··············● " in out.output
    pictured = run("watch", "--duration", "0.3", "-p", port)
    assert pictured.exit_code == 0, pictured.output
    assert "Roquet — Ann v Bob" in pictured.output and "●" in pictured.output
    assert "no picture of the board" not in pictured.output


def test_no_board_and_conflicting_options(monkeypatch):
    from serial.tools import list_ports

    monkeypatch.setattr(list_ports, "comports", lambda: [])      # whatever is plugged in here
    out = run("status")
    assert out.exit_code == 3
    assert out.output == "tallyboard: no board found on USB: check the cable, or add --emulator\n"
    out = run("status", "--port", "/dev/ttyACM0", "--emulator")
    assert out.exit_code == 2 and "either --port or --emulator" in out.output


def test_emulator_option_keeps_the_game_on_its_flash(tmp_path):
    env = {"TALLYBOARD_EMULATOR_HOME": str(tmp_path / "emu")}
    assert run("new", "roquet", "--emulator", env=env).exit_code == 0
    run("peg", "0", "5", "--emulator", env=env)
    out = run("peg", "1", "3", "--emulator", env=env)      # a third boot from the same flash
    assert out.output == "roquet: P1 5  P2 3  (0 hands)\n", out.output
    assert (tmp_path / "emu" / "flash" / "main.py").exists()


def test_emulate_in_the_foreground_and_attach(tmp_path):
    env = dict(os.environ, TALLYBOARD_EMULATOR_HOME=str(tmp_path / "emu"))
    proc = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "emulate", "--fresh"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = proc.stdout.readline().strip()
        assert port.startswith("/dev/")
        out = run("status", "--emulator", env={"TALLYBOARD_EMULATOR_HOME": str(tmp_path / "emu")})
        assert out.exit_code == 0, out.output
        assert f"on {port}:" in out.output                  # attached to the running one
        home = {"TALLYBOARD_EMULATOR_HOME": str(tmp_path / "emu")}
        ports = run("ports", env=home)
        assert port in ports.output and "emulator" in ports.output
        # the board's own buttons: seat 0 pegs 1 for player 0, seat 1 for player 1
        run("new", "roquet", "--emulator", env=home)
        out = run("press", "seat0", env=home)
        assert out.exit_code == 0, out.output
        # press says what the board did with it: Roquet's seat 0 pegs 1 for player 0 (RQ3), event 1
        assert summary_of(out.output).splitlines()[1:] == ["changed the game: the board scored an event (n=1)",
                                               "roquet: P1 1  P2 0  (0 hands)"], out.output
        run("press", "seat1", env=home)
        run("press", "seat0", env=home)
        last = []                # the firmware debounces the last release, then pegs

        def pegged() -> bool:
            last[:] = [run("status", "--emulator", env=home).output.splitlines()[-1]]
            return last[0] == "roquet: P1 2  P2 1  (0 hands)"

        until(pegged, 60, "the two presses' pegs in the status", every=0.1, explain=lambda: last[0])
        assert run("press", "seat9", env=home).output.startswith("tallyboard: unknown button 'seat9'; this board has: seat0")
        # deploy to the running emulator: new files on its flash, a reset, the game kept
        out = run("deploy", "--emulator", env=home)
        assert out.exit_code == 0, out.output
        assert "and reset it; it runs firmware 0.1.0 (protocol 6)" in out.output
        assert run("status", "--emulator", env=home).output.splitlines()[-1] == "roquet: P1 2  P2 1  (0 hands)"
        # another board definition: it takes effect at the next start, so the running emulator is reset now
        # (issue 32, item 6: status went on with the old one and nothing said so)
        out = run("config", "set", "board", "picow-reference", "--emulator", env=home)
        assert out.output == ("picow-reference\n"
                              "the emulated board started again, with board definition picow-reference\n"), out.output
        assert run("status", "--emulator", env=home).output.startswith(f"board picow-reference on {port}:")
    finally:
        end_with_ctrl_c(proc, "tallyboard emulator")
    assert not (tmp_path / "emu" / "running.json").exists()


def test_play_runs_the_demo_through_the_board():
    out = run("play")
    assert out.exit_code == 0, out.output
    demo = run("demo").output
    # the sheets the board gives are the sheets of the bundled records
    for block in demo.strip().split("\n\n"):
        assert block.strip() in out.output
    lines = out.output.splitlines()
    # issue 32, item 7: the demo's Skicket hands numbered as its sheet numbers them: a misdeal is
    # not a hand (rules.md SK3), so Cy's 1NK after it is hand 3, dealt by Ann, in the sheet's row 3 too
    assert "  misdeal: hand 3 is dealt again by the same dealer" in lines
    assert "  hand 3: Cy 1NK, 5 tricks" in lines
    assert "  hand 6: Bob 5C, 13 tricks" in lines
    assert any(line.split()[:5] == ["3", "Ann", "Ann+Bob", "Cy", "1NK"] for line in lines)
    # piped, 80 columns: no line is cut, mid-path or mid-word
    assert re.fullmatch(r"tallyboard firmware \S+ \(protocol \d+, board pico-reference\) on the emulator on "
                        r"/dev/\S+", lines[0]), lines[0]
    assert "  hand 1: Ann +1, Bob +2, Ann +5, Ann +1, Bob +1, Ann +2, Bob +5, Ann +9, Bob +2, Ann +7" in lines
    # and what to try next
    assert lines[-7:] == [
        "Next, a board of your own, no hardware either:",
        "  tallyboard emulate              (another terminal) a board keeping its game",
        "  tallyboard new skicket --name Ann --name Bob --name Cy --name Dee --emulator",
        """  tallyboard enter '{"purchaser": 0, "bid": "3H", "tricks": 9}' --emulator""",
        "  tallyboard watch --emulator     the sheet, the pegs and the OLED, live",
        "  tallyboard press seat1          its buttons and knob (push, right, left)",
        "tallyboard --help lists every command, each game's own too; README.md walks through them.",
    ]


def test_deploy_copies_the_file_set_and_checks_the_board(tmp_path, monkeypatch):
    with Emulator(flash=tmp_path / "flash") as emulator:
        (emulator.flash / "main.py").write_text("old firmware")   # replaced by the deploy
        emulator.restart()
        board = FakeMpremote(emulator.flash, RP2040, on_reset=emulator.restart)
        monkeypatch.setattr(deploy_mod, "mpremote_runner", board)
        out = run("deploy", "--port", emulator.port)
        assert out.exit_code == 0, out.output
        # one session asks the board what it holds, one copies what differs (main.py) and resets it
        assert len(board.sessions) == 2
        assert [c[0] for c in commands_of(board.sessions[1])] == ["connect", "resume", "exec", "run", "reset"]
        assert board.scripts_run[0].startswith("tallyboard_write('main.py', ")
        assert (f"of them already there) to the rp2040 on {emulator.port}; the board runs firmware 0.1.0 "
                "(protocol 6) with board definition pico-reference\n") in out.output
        assert (emulator.flash / "main.py").read_text() != "old firmware"


def test_deploy_refuses_a_definition_for_another_chip_and_takes_one_with_board(tmp_path, monkeypatch):
    with Emulator(flash=tmp_path / "flash") as emulator:
        # the emulator plays any chip: it takes the Pico 2's definition
        out = run("config", "set", "board", "pico2-serpentine-nooled", "-p", emulator.port)
        assert out.output == ("pico2-serpentine-nooled\nthe board runs pico-reference until it starts again: unplug "
                              f"it and plug it in (or run tallyboard deploy --port {emulator.port}), then tallyboard "
                              "status shows pico2-serpentine-nooled\n"), out.output
        assert run("status", "-p", emulator.port).output.startswith(
            f"board pico-reference (pico2-serpentine-nooled from its next start) on {emulator.port}:")
        board = FakeMpremote(emulator.flash, RP2040, on_reset=emulator.restart)
        monkeypatch.setattr(deploy_mod, "mpremote_runner", board)
        before = {p: p.read_bytes() for p in emulator.flash.rglob("*") if p.is_file()}
        out = run("deploy", "--port", emulator.port)
        assert out.exit_code == 1
        assert out.output.splitlines()[-1] == (     # after the progress bars
            "tallyboard: board definition pico2-serpentine-nooled (the board's setting) is for an rp2350, and "
            f"the board on {emulator.port} is an rp2040 (Raspberry Pi Pico with RP2040); nothing was copied. "
            "Choose a definition for an rp2040: tallyboard deploy --board NAME, one of: pico-reference")
        assert len(board.sessions) == 1 and board.resets == 0
        assert {p: p.read_bytes() for p in emulator.flash.rglob("*") if p.is_file()} == before
        # as it says: --board sets the definition, with the firmware's own config
        out = run("deploy", "--port", emulator.port, "--board", "pico-reference")
        assert out.exit_code == 0, out.output
        assert out.output.endswith("with board definition pico-reference (set by this deploy)\n"), out.output
        assert run("config", "get", "board", "-p", emulator.port).output == "pico-reference\n"
    out = run("deploy", "--emulator", "--board", "pico-reference")
    assert out.exit_code == 2 and "tallyboard config set board NAME --emulator" in out.output


def test_live_sheet_keeps_a_roquet_hand_in_progress(port):
    assert run("new", "roquet", "--name", "Ann", "--name", "Bob", "--discard", "-p", port).exit_code == 0
    for who, points in (("Ann", "7"), ("Bob", "12"), ("Ann", "9")):
        assert run("peg", who, points, "-p", port).exit_code == 0
    doc = json.loads(run("sheet", "--json", "-p", port).stdout)
    # no hand has ended: the tally pegs hold 7 + 9 = 16 and 12, the king pegs 0;
    # hand 1 is the sheet's hand in progress, its scores so far the tallies
    assert doc["hands"] == [{"hand": 1, "open": True, "pegs": [[0, 7], [1, 12], [0, 9]], "scores": [16, 12]}]
    assert doc["tally"] == [16, 12] and doc["king"] == [0, 0]
    assert doc["totals"] == [16, 12] and doc["complete"] is False
    # export keeps the hand in progress open, and says so
    out = run("export", "-p", port)
    assert 'hand 1 is in progress (3 events): the record keeps it as a hand in progress ("open": true)' in out.stderr
    assert json.loads(out.stdout)["hands"] == [{"open": True, "pegs": [[0, 7], [1, 12], [0, 9]]}]
    assert run("end", "-p", port).exit_code == 0
    out = run("export", "-p", port)
    # no hand open: the one note left is that a game still going is not signed
    assert out.stderr == ("tallyboard: note: the game is not over, so its record is not signed: the board signs "
                          "its game's chain once it is over (docs/records.md, The chain)\n")
