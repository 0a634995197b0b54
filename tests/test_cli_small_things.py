"""Small things everyone sees (issue 10, item 14): the Skicket sheet's total
row reads "Total" as Roquet's does, `new` takes a game name in any case as the
wire does, `press` says what it pressed, `watch` ends its last line, and a
full log says what to do."""
import pytest
import json
import re
import os
import subprocess
import sys

from click.testing import CliRunner
from emu_fixtures import emulated_board, end_with_ctrl_c

from tallyboard.cli import main


def run(*args, env=None):
    return CliRunner().invoke(main, list(args), env=env)


def test_the_skicket_sheet_totals_row_says_total(tmp_path):
    record = tmp_path / "s.json"
    record.write_text(json.dumps({"format": "tallyboard/1", "game": "skicket", "players": ["Ann", "Bob", "Cy", "Dee"],
                                  "hands": [{"purchaser": 0, "bid": "4H", "tricks": 10}]}))
    out = run("sheet", str(record))
    assert out.exit_code == 0, out.output
    # made 4H: 60 + 10 * 4 = 100 to Ann and Cy; Bob and Dee 10 * (13 - 10) = 30
    total = [line.split() for line in out.output.splitlines() if line.split()[:1] == ["Total"]]
    assert total == [["Total", "100", "30", "100", "30"]], out.output


@pytest.mark.emulator
def test_new_takes_the_game_name_in_any_case(tmp_path):
    with emulated_board(tmp_path / "flash") as (emulator, board):
        board.link.close()
        out = run("new", "SKICKET", "-p", emulator.port)
        assert out.exit_code == 0, out.output
        assert out.output == "skicket: P1 0  P2 0  P3 0  P4 0  (0 hands)\n"


@pytest.mark.process
def test_press_says_what_it_pressed(tmp_path):
    env = dict(os.environ, TALLYBOARD_EMULATOR_HOME=str(tmp_path / "emu"))
    proc = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "emulate", "--fresh"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip().startswith("/dev/")
        out = run("press", "seat0", env={"TALLYBOARD_EMULATOR_HOME": str(tmp_path / "emu")})
        assert out.exit_code == 0, out.output
        assert out.output.startswith("pressed seat0 (GPIO "), out.output
        assert "on the emulated board" in out.output
    finally:
        end_with_ctrl_c(proc, "tallyboard emulator")


def _snapshots(output):
    """watch's output on a pipe: one plain-text snapshot per change, each after a '--- HH:MM:SS' line."""
    parts = re.split(r"^--- \d\d:\d\d:\d\d\n", output, flags=re.M)
    assert parts[0] == "", repr(output[:80])
    return parts[1:]


@pytest.mark.emulator
def test_watch_ends_its_last_line(tmp_path):
    # Written to a pipe, watch prints the view when it starts and again on
    # every change, each ending with one newline whatever the view ends with.
    with emulated_board(tmp_path / "flash") as (emulator, board):
        board.link.close()
        port = emulator.port
        out = run("watch", "--plain", "--duration", "0.2", "-p", port)
        assert out.exit_code == 0, out.output
        assert _snapshots(out.output) == ["No game on the board: start one with tallyboard new GAME.\n"]
        assert run("new", "roquet", "-p", port).exit_code == 0
        for plain in (("--plain",), ()):   # the Roquet pegs as text, or the picture
            out = run("watch", *plain, "--duration", "0.2", "-p", port)
            assert out.exit_code == 0, out.output
            assert out.output.endswith("\n") and not out.output.endswith("\n\n"), repr(out.output[-80:])
        assert run("new", "foozle", "-n", "3", "-p", port).exit_code == 0
        assert run("enter", '{"bidder": 2, "bid": 3, "tricks": 4}', "-p", port).exit_code == 0
        assert run("undo", "-p", port).exit_code == 0
        out = run("watch", "--plain", "--duration", "0.2", "-p", port)
        assert _snapshots(out.output)[-1].endswith("No score yet.\n\n1 undone (redo brings back)\n"), \
            repr(out.output[-80:])


@pytest.mark.emulator
def test_a_full_log_says_what_to_do(tmp_path):
    # 600 misdeals fill the board's log (tallycore.game.LOG_CAPACITY, the
    # board's HELLO log=600); every way of adding a change then says what to do.
    advice = ("tallyboard: the game's log is full (600 changes); archive it (tallyboard archive save) "
              "and start a new game with tallyboard new\n")
    with emulated_board(tmp_path / "flash") as (emulator, board):
        board.new("skicket", 4)
        for _ in range(600):
            board.game_verb("MISDEAL")
        board.link.close()
        port = emulator.port
        out = run("misdeal", "-p", port)                       # refused by the board: ERR FULL
        assert (out.exit_code, out.stdout, out.stderr) == (2, "", advice)
        out = run("enter", '{"misdeal": true}', "-p", port)    # refused by enter's own check
        assert (out.exit_code, out.stdout, out.stderr) == (1, "", advice)
        archive = tmp_path / "archive.sqlite3"
        out = run("archive", "save", "--archive", str(archive), "-p", port)
        assert out.exit_code == 0 and out.stdout.startswith("archived as #1: skicket"), out.output


def test_new_names_what_was_given_and_suggests_the_game_meant():
    # both are refused before any board is looked for (the port named does not exist)
    out = run("new", "skiket", "-p", "/nonexistent/port")
    assert out.exit_code == 1
    assert out.stderr.startswith("tallyboard: unknown game 'skiket'; did you mean skicket? known games: skicket, ")
    # three names for Skicket (four players): the names are what was given, not a --players
    out = run("new", "skicket", "--name", "A", "--name", "B", "--name", "C", "-p", "/nonexistent/port")
    assert out.exit_code == 1 and out.stderr == "tallyboard: 3 names: skicket takes 4 players\n"
    out = run("new", "skicket", "--players", "3", "-p", "/nonexistent/port")
    assert out.exit_code == 1 and out.stderr == "tallyboard: --players 3: skicket takes 4 players\n"
    out = run("new", "zzz", "-p", "/nonexistent/port")        # nothing close: no guess
    assert "did you mean" not in out.stderr


def test_a_command_with_no_board_on_usb_during_an_evening_says_where_each_table_is(tmp_path, monkeypatch):
    # issue 32, item 5: the evening knows its tables' ports; no board on USB (none in CI) names them
    from tallyboard.evening import EveningDatabase

    archive = tmp_path / "archive.sqlite3"
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(archive))
    monkeypatch.setattr("tallyboard.boardlink.transport.list_serial_ports", lambda lister=None: [])
    with EveningDatabase(archive) as store:
        event = store.create("Tuesday", ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"],
                             [[0, 1, 2, 3], [4, 5, 6, 7]], rounds=1)
        store.set_state(event, "running")          # round 1 under way (create seats it)
        store.set_board(event, 1, "/dev/pts/7", "ref@1a2b.1")
    out = run("hand", "Cy", "2NT", "8")
    assert out.exit_code == 3                        # BoardNotFound (tallyboard.common.errors)
    assert out.stderr == ("tallyboard: no board found on USB: check the cable, or add --emulator; the evening's "
                          "tables: table 1 (Ann, Bob, Cy, Dee): --port /dev/pts/7; table 2 (Eve, Fay, Gus, Hal): "
                          "no board attached\n"), out.stderr


def test_table_n_chooses_a_board_of_the_evening_or_says_why_it_cannot(tmp_path, monkeypatch):
    # friction 4 of issue 44: hand, enter, press and the other board commands take --table N
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(tmp_path / "archive.sqlite3"))
    for command in (["hand", "Ann", "3H", "9"], ["enter", '{"misdeal": true}'], ["press", "seat0"], ["undo"]):
        result = CliRunner().invoke(main, [*command, "--table", "2"])
        assert result.exit_code != 0 and result.stdout == "", (command, result.output)
        assert "no event in progress: start one with tallyboard event create" in result.stderr, (command, result.stderr)
    both = CliRunner().invoke(main, ["hand", "Ann", "3H", "9", "--table", "2", "--port", "/dev/null"])
    assert both.exit_code == 2 and "--table, --port and --emulator each choose the board" in both.output
    beyond = CliRunner().invoke(main, ["undo", "--table", "1000"])
    assert beyond.exit_code == 2 and "1000 is not in the range 1<=x<=" in beyond.output


def _an_evening_with_boards(tmp_path, monkeypatch, state="running"):
    """Tuesday, two tables: table 1 an emulated board (its flash folder in the evening's folder) last stored
    on /dev/pts/70, table 2 a board on USB at /dev/ttyACM1. The evening's folder under tmp_path."""
    from tallyboard.evening import EveningDatabase
    from tallyboard.evening.tables import event_folder

    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(tmp_path / "archive.sqlite3"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    with EveningDatabase(tmp_path / "archive.sqlite3") as store:
        event = store.create("Tuesday", ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"],
                             [[0, 1, 2, 3], [4, 5, 6, 7]], rounds=1)
        store.set_state(event, state)
        store.set_board(event, 1, "/dev/pts/70", "emulator@1a2b.1")
        store.set_board(event, 2, "/dev/ttyACM1", "pico@1a2b.2")
    flash = event_folder(event) / "table-1"
    flash.mkdir(parents=True)
    return flash


def test_table_n_reaches_an_emulated_board_on_the_port_its_emulator_has_now(tmp_path, monkeypatch):
    # friction 4 of issue 44: an emulated board started again (its port a new one) is still table N's,
    # and the port last stored (a pty number another process may have by now) is never used for it
    from tallyboard.commands.connect import evening_table

    flash = _an_evening_with_boards(tmp_path, monkeypatch)
    now = tmp_path / "pts-now"            # the emulator's port now (a path that is there, as a pty is)
    now.write_text("")
    running = flash.parent / "table-1.running.json"   # what `tallyboard emulate --flash` writes beside its flash
    running.write_text(json.dumps({"pid": os.getpid(), "port": str(now), "flash": str(flash), "io": str(tmp_path)}))
    assert evening_table(1) == (str(now), flash)
    assert evening_table(2) == ("/dev/ttyACM1", None)     # a board on USB: the port stored, no flash
    running.unlink()                                      # the emulator has stopped: what to do, for each command
    for command in (["hand", "Ann", "3H", "9"], ["enter", '{"misdeal": true}'], ["press", "seat0"]):
        result = run(*command, "--table", "1")
        assert result.exit_code != 0 and result.stdout == "", (command, result.output)
        assert result.stderr == ("tallyboard: the emulated board of table 1 is not running: tallyboard event resume "
                                 "starts it again\n"), (command, result.stderr)
    result = run("press", "seat0", "--table", "2")
    assert result.stderr == "tallyboard: table 2's board is not an emulated one: press its own buttons\n", result.stderr


def test_table_n_after_the_evening_is_finished_says_none_is_in_progress(tmp_path, monkeypatch):
    # friction 4 of issue 44: --table is a table of the evening in progress, never one of an evening over
    _an_evening_with_boards(tmp_path, monkeypatch, state="finished")
    for command in (["hand", "Ann", "3H", "9"], ["enter", '{"misdeal": true}'], ["press", "seat0"]):
        result = run(*command, "--table", "2")
        assert result.exit_code != 0 and result.stdout == "", (command, result.output)
        assert result.stderr == ("tallyboard: table 2: no evening is in progress (the last one, 'Tuesday', is "
                                 "finished): start one with tallyboard event create NAME --player NAME ..., or "
                                 "choose the board with --port\n"), (command, result.stderr)
