"""The boards of a club evening (tallyboard.evening.tables, docs/host.md "A club
evening: the boards") on emulated boards running the real firmware: attach,
push a round, hands entered from the host and confirmed with `tallyboard
press` on that table's emulator, sync into the store; a host killed with
kill -9 mid-round and `event resume`; a board unplugged and plugged back;
boards swapped on the hub. The store is a stand-in with EveningDatabase's methods
(tests/event_fakes.py). Every wait is bounded and every emulator is stopped,
even when a test fails.

Scores, worked by hand (docs/rules.md SK2 A = 60 + 10 x level; SK7 made: the
purchaser and partner A each, each adversary 10 x their tricks; SK5: hands 1-2
partners seat 0 + seat 2 against seat 1 + seat 3):
  table 1 (Ann Bob Cy Dee), hand 1: Ann 4H, 10 tricks (6 + 4): made, A = 100
    -> Ann 100, Cy 100; Bob and Dee 10 x (13 - 10) = 30 each.
  table 1, hand 2: Bob 2S, 8 tricks: made, A = 80 -> Bob 80, Dee 80; Ann, Cy 10 x 5 = 50.
    totals Ann 150, Bob 110, Cy 150, Dee 110.
  table 2 (Eve Fay Gus Hal), hand 1: Fay 3C, 9 tricks: made, A = 90 -> Fay 90, Hal 90;
    Eve, Gus 10 x 4 = 40."""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from event_fakes import FakeStore

from tallycore import game as core_game
from waiting import NotInTime, until
from tallyboard import games
from tallyboard.boardlink import portshare
from tallyboard.scorebook import records
from tallyboard.cli import main
from tallyboard.boardlink.client import Board
from tallyboard.commands import evening_boards
from tallyboard.tooling.emulator import Emulator, running_on
from tallyboard.evening import table_emulators
from tallyboard.evening import tables as tables_mod
from tallyboard.evening.tables import Tables

PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
SEATING = [[0, 1, 2, 3], [4, 5, 6, 7]]
TESTS = Path(__file__).resolve().parent


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def _stop_all_emulators(folder: Path) -> None:
    """Every `tallyboard emulate` that recorded itself under folder: SIGTERM, then SIGKILL."""
    pids = []
    for record in folder.rglob("*.running.json"):
        try:
            pids.append(int(json.loads(record.read_text())["pid"]))
        except (OSError, ValueError, KeyError):
            continue
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    # _alive reaps one that is this process's child
    try:
        until(lambda: not [pid for pid in pids if table_emulators._alive(pid)], 60, "the emulators ending on SIGTERM")
    except NotInTime:
        for pid in [pid for pid in pids if table_emulators._alive(pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.fixture
def evening(tmp_path, monkeypatch):
    """A store holding an evening of eight players at two tables, the host's
    folders in tmp_path; every emulator started under it is stopped at the end."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("TALLYBOARD_EMULATOR_HOME", str(tmp_path / "emu"))
    store = FakeStore.create(tmp_path / "store.json", "Tuesday club", PLAYERS, SEATING)
    monkeypatch.setattr(evening_boards, "open_store", lambda: FakeStore(tmp_path / "store.json"))
    try:
        yield store
    finally:
        _stop_all_emulators(tmp_path / "state")


def _hands(store: FakeStore, table: int, round: int = 1) -> list:
    record = store.table_game(None, round, table)
    return record["hands"] if record else []


def _totals(record: dict) -> list[int]:
    loaded = records.from_document(record)
    return [loaded.game.total(p) for p in range(4)]


def _flash(store: FakeStore, table: int) -> str:
    return str(tables_mod.event_folder(store.event()) / f"table-{table}")


def _read_board(port: str) -> dict:
    """What a board holds, read beside the evening through the shared port."""
    link = portshare.open_link(port)
    try:
        board = Board(link, timeout=2.0)
        board.hello()
        state = board.state()
        return {"game": state["game"], "players": state["players"], "options": int(state["options"]),
                "names": board.player_names(4), "event": int(board.cfg_get("event")),
                "table": int(board.cfg_get("table")), "round": int(board.cfg_get("round")),
                "n": int(state["n"])}
    finally:
        link.close()


@pytest.mark.process
def test_two_boards_a_round_pushed_a_hand_confirmed_and_synced_once(evening):
    store = evening
    event = store.event()
    tables = Tables(store, event, timeout=2.0)
    try:
        tables.attach_emulators(2)
        pids = tables.emulator_pids()
        assert sorted(pids) == [1, 2] and len(set(pids.values())) == 2
        tables.push_round(1)
        club = games.club_game()
        tag = tables_mod.event_tag(event)
        for table, names in ((1, ["Ann", "Bob", "Cy", "Dee"]), (2, ["Eve", "Fay", "Gus", "Hal"])):
            port = store.boards(event)[table]["port"]
            held = _read_board(port)
            # two tables: the six-hand game (docs/rules.md SK19), options 0, plus CONFIRM (32768)
            assert held == {"game": club.name, "players": "4", "options": 0 | core_game.CONFIRM,
                            "names": names, "event": tag, "table": table, "round": 1, "n": 0}, held
            assert store.boards(event)[table]["board_id"] == f"pico-reference@{tag:04X}.{table}"
        assert tables.sync() is True          # the two empty games, stored once
        assert tables.sync() is False
        saves = store.saves()
        # a hand from the host (through the evening's shared port) waits for an opponent
        port1 = store.boards(event)[1]["port"]
        out = run("hand", "Ann", "4H", "10", "--port", port1)
        assert out.exit_code == 0, out.output
        assert "hand 1 pending: waiting for Bob (button B) or Dee (button D) to accept on the board" in out.output
        assert tables.sync() is True           # the held hand, for the views
        assert _hands(store, 1) == [] and store.saves() == saves    # held: not counted, nothing saved
        # Ann (seat 0) bought in hand 1: her adversaries Bob (seat 1, button B) and Dee (seat 3, button D)
        assert store.pending(event, 1, 1) == {"hand": 1, "waiting_for": ["Bob", "Dee"], "scores": [100, 30, 100, 30],
                                              "buttons": ["B", "D"]}
        # Dee accepts on table 1's board (seat 3)
        out = run("press", "seat3", "--flash", _flash(store, 1))
        assert out.exit_code == 0, out.output
        until(lambda: tables.sync() and _hands(store, 1), what="the accepted hand in the store")
        assert len(_hands(store, 1)) == 1 and _hands(store, 2) == []
        assert _totals(store.table_game(None, 1, 1)) == [100, 30, 100, 30]
        assert store.pending(event, 1, 1) is None
        assert store.table_game(None, 1, 1)["players"] == ["Ann", "Bob", "Cy", "Dee"]
        saves_after = store.saves()
        assert saves_after == saves + 1        # the accepted hand, once
        assert tables.sync() is False and store.saves() == saves_after
        # pushing round 1 again (after a crash, say) leaves the scored hand alone
        tables.push_round(1)
        assert _read_board(port1)["n"] == 1
        tables.sync()
        assert len(_hands(store, 1)) == 1
    finally:
        tables.close()
    # close() leaves the emulators running
    assert all(running_on(Path(_flash(store, t))) for t in (1, 2))
    tables.stop_emulators()
    until(lambda: not any(running_on(Path(_flash(store, t))) for t in (1, 2)), what="the emulators stopping")


def _first_line(proc: subprocess.Popen, seconds: float) -> str:
    """The process's first line on stdout, waiting at most seconds."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], seconds)
    return proc.stdout.readline().strip() if ready else ""


_HOST_LOOP = """
import sys, time
sys.path.insert(0, {tests!r})
from event_fakes import FakeStore
from tallyboard.evening.tables import Tables
store = FakeStore({store!r})
tables = Tables(store, store.event(), timeout=2.0)
while True:
    tables.sync()
    print("synced", flush=True)
    time.sleep(0.2)
"""


@pytest.mark.process
def test_a_host_killed_mid_round_and_resumed_loses_nothing_and_counts_nothing_twice(evening, tmp_path):
    store = evening
    event = store.event()
    tables = Tables(store, event, timeout=2.0)
    try:
        tables.attach_emulators(2)
        tables.push_round(1)
    finally:
        tables.close()
    port1 = store.boards(event)[1]["port"]
    host = subprocess.Popen([sys.executable, "-c", _HOST_LOOP.format(tests=str(TESTS), store=str(store.path))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        assert _first_line(host, 20) == "synced"
        # hand 1 at table 1, through the host's shared port, accepted by Bob (seat 1)
        assert run("hand", "Ann", "4H", "10", "--port", port1).exit_code == 0
        assert run("press", "seat1", "--flash", _flash(store, 1)).exit_code == 0
        until(lambda: len(_hands(store, 1)) == 1, what="hand 1 stored by the host")
        host.send_signal(signal.SIGKILL)
        host.wait(10)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(10)
    # meanwhile, with no host: hand 2 at table 1 (Ann accepts, seat 0), hand 1 at table 2 (Gus, seat 2)
    out = run("hand", "Bob", "2S", "8", "--port", port1)
    assert out.exit_code == 0, out.output
    assert run("press", "seat0", "--flash", _flash(store, 1)).exit_code == 0
    out = run("hand", "Fay", "3C", "9", "--port", store.boards(event)[2]["port"])
    assert out.exit_code == 0, out.output
    assert run("press", "seat2", "--flash", _flash(store, 2)).exit_code == 0
    until(lambda: _read_board(port1)["n"] == 2, what="hand 2 accepted on table 1's board")
    until(lambda: _read_board(store.boards(event)[2]["port"])["n"] == 1, what="the hand accepted at table 2")
    # table 2's emulator went away too (stopped): resume starts it again on its own flash
    pid2 = running_on(Path(_flash(store, 2)))["pid"]
    os.kill(pid2, signal.SIGTERM)
    until(lambda: running_on(Path(_flash(store, 2))) is None, what="table 2's emulator stopping")
    assert _hands(store, 2) == []
    out = run("event", "resume")
    assert out.exit_code == 0, out.output
    assert out.output == ("table 2: its emulated board was not running; started again on its flash\n"
                          "table 1: 1 hand since the host went away\n"
                          "table 2: 1 hand since the host went away\n"), out.output
    assert len(_hands(store, 1)) == 2 and len(_hands(store, 2)) == 1
    assert _totals(store.table_game(None, 1, 1)) == [150, 110, 150, 110]
    assert _totals(store.table_game(None, 1, 2)) == [40, 90, 40, 90]
    saves = store.saves()
    out = run("event", "resume")
    assert out.output == "table 1: 0 hands since the host went away\ntable 2: 0 hands since the host went away\n"
    assert store.saves() == saves


@pytest.mark.process
def test_a_board_unplugged_and_plugged_back_resynchronises(evening):
    store = evening
    event = store.event()
    tables = Tables(store, event, timeout=0.5)
    try:
        tables.attach_emulators(2)
        tables.push_round(1)
        tables.sync()
        flash1 = Path(_flash(store, 1))
        os.kill(running_on(flash1)["pid"], signal.SIGTERM)    # unplugged
        until(lambda: running_on(flash1) is None, what="table 1's emulator stopping")
        tables.sync()
        assert store.boards(event)[1]["status"] == "unreachable"
        assert store.boards(event)[2]["status"] == "ok"
        assert "table 1: the board on" in tables.messages[1] and "it is read again when it answers" in tables.messages[1]
        # plugged back: the same board (its flash), on a new port
        assert tables.restart_emulators() == [1]
        port1 = store.boards(event)[1]["port"]
        assert run("hand", "Ann", "4H", "10", "--port", port1).exit_code == 0
        assert run("press", "seat3", "--flash", str(flash1)).exit_code == 0
        until(lambda: tables.sync() and _hands(store, 1), what="the hand from the board plugged back")
        assert store.boards(event)[1]["status"] == "ok" and 1 not in tables.messages
        assert _totals(store.table_game(None, 1, 1)) == [100, 30, 100, 30]
    finally:
        tables.close()


@pytest.mark.emulator
@pytest.mark.process
def test_boards_swapped_on_the_hub_are_refused_and_nothing_is_stored(evening, tmp_path):
    store = evening
    event = store.event()
    with Emulator(flash=tmp_path / "a") as first, Emulator(flash=tmp_path / "b") as second:
        tables = Tables(store, event, timeout=2.0)
        try:
            tables.attach_ports([first.port, second.port])
            tables.push_round(1)
            tables.sync()
        finally:
            tables.close()
        assert run("hand", "Ann", "4H", "10", "--port", first.port).exit_code == 0
        saves = store.saves()
        # the two boards change places on the hub: table 1's port now has table 2's board
        store.set_board(event, 1, second.port, "x")
        store.set_board(event, 2, first.port, "y")
        tables = Tables(store, event, timeout=2.0)
        try:
            assert tables.sync() is False
            assert tables.messages[1] == (f"the board on {second.port} is table 2 of this evening, not table 1: "
                                          "boards swapped on the hub? plug each back where it was, or attach again")
            assert tables.messages[2] == (f"the board on {first.port} is table 1 of this evening, not table 2: "
                                          "boards swapped on the hub? plug each back where it was, or attach again")
            assert [store.boards(event)[t]["status"] for t in (1, 2)] == ["swapped", "swapped"]
            assert store.saves() == saves and store.pending(event, 1, 1) is None
            # a round pushed to swapped boards changes none of them, and says why
            with pytest.raises(tables_mod.TallyboardError, match="boards swapped on the hub"):
                tables.push_round(1)
            assert _read_board(first.port)["names"] == ["Ann", "Bob", "Cy", "Dee"]
            # plugged back where they were: read again
            store.set_board(event, 1, first.port, "x")
            store.set_board(event, 2, second.port, "y")
        finally:
            tables.close()
        tables = Tables(store, event, timeout=2.0)
        try:
            tables.sync()
            assert [store.boards(event)[t]["status"] for t in (1, 2)] == ["ok", "ok"]
            assert store.pending(event, 1, 1)["hand"] == 1
        finally:
            tables.close()


def test_a_player_name_is_made_one_the_board_takes():
    assert tables_mod.board_name("Ann Lee") == "Ann_Lee"
    # ë and the apostrophe are no board characters; twelve characters at most
    assert tables_mod.board_name("Zoë O'Hara-Smith") == "Zo_OHara-Smi"
    assert len(tables_mod.board_name("x" * 40)) == 12


@pytest.mark.emulator
@pytest.mark.process
def test_attaching_a_board_that_holds_another_game_stores_none_of_it(evening, tmp_path):
    store = evening
    event = store.event()
    club = games.club_game()
    with Emulator(flash=tmp_path / "a") as first, Emulator(flash=tmp_path / "b") as second:
        link = portshare.open_link(first.port)
        try:
            board = Board(link, timeout=3.0)
            board.hello()
            board.new(club.name, 4, 0)
            board.request("HAND", 0, "4H", None, None, 0, 10)    # a game from before the evening
        finally:
            link.close()
        tables = Tables(store, event, timeout=2.0)
        try:
            tables.attach_ports([first.port, second.port])
            assert _read_board(first.port)["round"] == 0
            assert tables.sync() is False and store.saves() == 0
            # round 1 replaces it with the table's game
            tables.push_round(1)
            assert _read_board(first.port)["n"] == 0
            assert run("hand", "Ann", "4H", "10", "--port", first.port).exit_code == 0
            # attached again where it already was: its round and its game stay
            tables.attach_ports([first.port, second.port])
            held = _read_board(first.port)
            assert held["round"] == 1 and held["names"] == ["Ann", "Bob", "Cy", "Dee"]
            tables.sync()
            assert store.pending(event, 1, 1)["hand"] == 1
        finally:
            tables.close()


def test_a_board_without_the_evening_settings_is_told_to_update():
    from tallyboard.common.errors import BoardError, TallyboardError

    class OldBoard:      # firmware from before the settings event, table and round
        link = type("Link", (), {"name": "/dev/ttyACM3"})()

        def cfg_get(self, key):
            raise BoardError("RANGE", "unknown config key: brightness budget_ma name colour board confirm")

    with pytest.raises(TallyboardError, match=r"^the board on /dev/ttyACM3 has no setting event: its firmware is "
                                              r"older than this tallyboard; run tallyboard deploy --port /dev/ttyACM3$"):
        tables_mod._setting(OldBoard(), "event")


def test_press_on_a_flash_folder_with_no_emulator_says_how_to_start_one(tmp_path):
    folder = tmp_path / "table-3"
    out = run("press", "seat0", "--flash", str(folder))
    assert out.exit_code == 1
    assert out.output == (f"tallyboard: no emulator is running on {folder}: start one with "
                          f"tallyboard emulate --flash {folder}\n")


def test_attach_wants_ports_or_emulators_and_changes_nothing_without(evening):
    out = run("event", "attach")
    assert out.exit_code == 2 and "give --port for each table's board, or --emulators N" in out.output
    out = run("event", "attach", "--port", "/dev/null", "--emulators", "2")
    assert out.exit_code == 2 and "not both" in out.output
    out = run("event", "attach", "--port", "/dev/ttyX9", "--port", "/dev/ttyX9")
    assert out.exit_code == 1
    assert out.output == "tallyboard: the same port is given twice: give each table's board once\n"
    assert evening.boards(evening.event()) == {}
