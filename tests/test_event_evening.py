"""A whole club evening through the CLI, as a user plays it (issue 13, README
"A club evening"): 16 players, 4 emulated boards (`event attach --emulators
4`), 3 rounds of four-hand games (more than two tables, rules.md SK19). Every
hand is confirmed at its table by an opponent's seat button; some are entered
on the board's own knob and seat buttons, the others from the host with
`tallyboard hand --port`. The four tables play at once, one thread a table.
`event next` and `event finish` are run with no view reading the boards (they
read them first). After each round the movement (SK19) and the standings
(continuous score, SK20) are checked against the values worked out below;
`event export` then `event replay --json` gives the same standings.

Every hand is "bid 4H, took 10": made (SK7), A = 60 + 10 x 4 = 100 (SK2) to the
purchaser and his partner, 10 x (13 - 10) = 30 to each adversary; one hand is
5H, 11 tricks: A = 60 + 10 x 5 = 110, adversaries 10 x 2 = 20. Partners (SK5,
one pivot after two hands in a four-hand game, as tests/test_club_table.py):
hands 1-2 seats {0, 2} against {1, 3}; hands 3-4 {0, 1} against {2, 3}
(positions 0 1 2 3 then hold the players of seats 0 2 1 3).

A table's game is one of four patterns, named by the seat that wins it:
  W0: hands 1-2 to {0,2}, 3-4 to {0,1}: seat 0 4x100 = 400; seat 1 2x30 + 2x100 = 260;
      seat 2 2x100 + 2x30 = 260; seat 3 4x30 = 120
  W1: 1-2 to {1,3}, 3-4 to {0,1}: 260, 400, 120, 260
  W2: 1-2 to {0,2}, 3-4 to {2,3}: 260, 120, 400, 260
  W3: 1-2 to {1,3}, 3-4 to {2,3}: 120, 260, 260, 400
The winner has 400 and the loser 120, alone: no tie decides a move.

Round 1 (W0 W1 W2 W3 at tables 1-4):
  T1 Ann Bob Cy Dee: 400 260 260 120    T2 Eve Fay Gus Hal: 260 400 120 260
  T3 Ivy Jon Kim Lou: 260 120 400 260   T4 Max Ned Oli Pat: 120 260 260 400
  Moves (SK19): T1's loser Dee (seat 3) to the foot, T4, into the seat Pat left (3);
  T2's winner Fay (seat 1) up to T1 seat 3 (Dee's); T3's Kim (seat 2) to T2 seat 1 (Fay's);
  T4's Pat (seat 3) to T3 seat 2 (Kim's).
Round 2 seating: T1 Ann Bob Cy Fay; T2 Eve Kim Gus Hal; T3 Ivy Jon Pat Lou; T4 Max Ned Oli Dee.
Round 2 (W1 W2 W3 W0):
  T1: Ann 260 Bob 400 Cy 120 Fay 260    T2: Eve 260 Kim 120 Gus 400 Hal 260
  T3: Ivy 120 Jon 260 Pat 260 Lou 400   T4: Max 400 Ned 260 Oli 260 Dee 120
  Moves: T1's loser Cy (seat 2) to T4 seat 0 (Max's); Gus (T2 seat 2) to T1 seat 2;
  Lou (T3 seat 3) to T2 seat 2 (Gus's); Max (T4 seat 0) to T3 seat 3 (Lou's).
Round 3 seating: T1 Ann Bob Gus Fay; T2 Eve Kim Lou Hal; T3 Ivy Jon Pat Max; T4 Cy Ned Oli Dee.
Round 3 (W2 W3 W0 W1; at T1 hand 1 is Ann's 5H, 11 tricks):
  T1: Ann 110+100+30+30 = 270, Bob 20+30+30+30 = 110, Gus 110+100+100+100 = 410,
      Fay 20+30+100+100 = 250
  T2: Eve 120 Kim 260 Lou 260 Hal 400   T3: Ivy 400 Jon 260 Pat 260 Max 120
  T4: Cy 260 Ned 400 Oli 120 Dee 260
  Moves after it: Bob (T1 seat 1) to T4 seat 1 (Ned's); Hal (T2 seat 3) to T1 seat 1;
  Ivy (T3 seat 0) to T2 seat 3; Ned (T4 seat 1) to T3 seat 0.
"""
from __future__ import annotations

import json
import sqlite3
import re
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from tallyboard.boardlink import portshare
from tallyboard.cli import main
from tallyboard.club import releases
from tallyboard.boardlink.client import Board
from tallyboard.tooling.emulator import Emulator, running_on
from waiting import until

pytestmark = [pytest.mark.process]

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal",
         "Ivy", "Jon", "Kim", "Lou", "Max", "Ned", "Oli", "Pat"]
SEAT_PINS = (10, 11, 12, 13)                 # board/pico-reference.json: seats 0..3
KNOB_A, KNOB_B, KNOB_PUSH = 16, 17, 18
HAND_WAIT_S = 60.0                           # one hand entered and accepted: a guard against a hang

# the side that takes each hand of a pattern (seats at the round's start), from the docstring
PATTERNS = {0: ((0, 2), (0, 2), (0, 1), (0, 1)), 1: ((1, 3), (1, 3), (0, 1), (0, 1)),
            2: ((0, 2), (0, 2), (2, 3), (2, 3)), 3: ((1, 3), (1, 3), (2, 3), (2, 3))}
ROUND_PATTERNS = {1: (0, 1, 2, 3), 2: (1, 2, 3, 0), 3: (2, 3, 0, 1)}
SEATINGS = {
    1: [["Ann", "Bob", "Cy", "Dee"], ["Eve", "Fay", "Gus", "Hal"], ["Ivy", "Jon", "Kim", "Lou"],
        ["Max", "Ned", "Oli", "Pat"]],
    2: [["Ann", "Bob", "Cy", "Fay"], ["Eve", "Kim", "Gus", "Hal"], ["Ivy", "Jon", "Pat", "Lou"],
        ["Max", "Ned", "Oli", "Dee"]],
    3: [["Ann", "Bob", "Gus", "Fay"], ["Eve", "Kim", "Lou", "Hal"], ["Ivy", "Jon", "Pat", "Max"],
        ["Cy", "Ned", "Oli", "Dee"]],
}
# who moves where after rounds 2 and 3 (name, from, to, seat), from the docstring
MOVES = {2: {("Cy", 1, 4, 0), ("Gus", 2, 1, 2), ("Lou", 3, 2, 2), ("Max", 4, 3, 3)},
         3: {("Bob", 1, 4, 1), ("Hal", 2, 1, 1), ("Ivy", 3, 2, 3), ("Ned", 4, 3, 0)}}
AFTER_3 = [["Ann", "Hal", "Gus", "Fay"], ["Eve", "Kim", "Lou", "Ivy"], ["Ned", "Jon", "Pat", "Max"],
           ["Cy", "Bob", "Oli", "Dee"]]
# continuous scores (SK20), added up from the docstring's rounds
AFTER_ROUND_1 = {"Ann": 400, "Bob": 260, "Cy": 260, "Dee": 120, "Eve": 260, "Fay": 400, "Gus": 120, "Hal": 260,
                 "Ivy": 260, "Jon": 120, "Kim": 400, "Lou": 260, "Max": 120, "Ned": 260, "Oli": 260, "Pat": 400}
AFTER_ROUND_2 = {"Ann": 400 + 260, "Bob": 260 + 400, "Cy": 260 + 120, "Dee": 120 + 120,
                 "Eve": 260 + 260, "Fay": 400 + 260, "Gus": 120 + 400, "Hal": 260 + 260,
                 "Ivy": 260 + 120, "Jon": 120 + 260, "Kim": 400 + 120, "Lou": 260 + 400,
                 "Max": 120 + 400, "Ned": 260 + 260, "Oli": 260 + 260, "Pat": 400 + 260}
AFTER_ROUND_3 = {"Ann": 660 + 270, "Bob": 660 + 110, "Gus": 520 + 410, "Fay": 660 + 250,
                 "Eve": 520 + 120, "Kim": 520 + 260, "Lou": 660 + 260, "Hal": 520 + 400,
                 "Ivy": 380 + 400, "Jon": 380 + 260, "Pat": 660 + 260, "Max": 520 + 120,
                 "Cy": 380 + 260, "Ned": 520 + 400, "Oli": 520 + 120, "Dee": 240 + 260}
# games won (G5): each table's 400 (410 at T1 in round 3)
GAMES_WON = {name: 0 for name in NAMES}
for _winner in ("Ann", "Fay", "Kim", "Pat", "Bob", "Gus", "Lou", "Max", "Gus", "Hal", "Ivy", "Ned"):
    GAMES_WON[_winner] += 1
# positions 0..3 of a hand: seats 0 1 2 3 in hands 1-2, seats 0 2 1 3 in hands 3-4 (one pivot, SK5)
POSITION_OF_SEAT = ({0: 0, 1: 1, 2: 2, 3: 3}, {0: 0, 1: 2, 2: 1, 3: 3})


def run(*args: str):
    out = CliRunner().invoke(main, list(args))
    assert out.exit_code == 0, (args, out.output)
    return out.output


def cli(*args: str, seconds: float = 60.0) -> str:
    """A tallyboard command in a process of its own (threads cannot share CliRunner's stdout); the
    seconds only a guard against a hang (a loaded machine took over 20 s for one `hand`)."""
    done = subprocess.run([sys.executable, "-m", "tallyboard.cli", *args], capture_output=True, text=True,
                          timeout=seconds, env=dict(os.environ))
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def board_hands(port: str) -> tuple[int, bool]:
    """(hands confirmed, a hand held) on a board, read beside the evening through its shared port."""
    link = portshare.open_link(port)
    try:
        board = Board(link, timeout=2.0)
        board.hello()
        state = board.rebuild()
        return state.game.hands(), state.held is not None
    finally:
        link.close()


def wait_board(port: str, hands: int, held: bool, what: str) -> None:
    now: list = []

    def there() -> bool:
        now[:] = [board_hands(port)]
        return now[0] == (hands, held)

    until(there, HAND_WAIT_S, f"{what}: {(hands, held)} on the board", every=0.1,
          explain=lambda: f"the board shows {now[0]}")


def knob_entry_4h_10(emulator: Emulator, position: int) -> None:
    """The player at this position bought 4H and took 10, on the board (tests/test_club_table.py:
    his seat button opens the entry; level 1 + 3; strain C + 2 = H; nobody doubled, not lone,
    the suggested 10 tricks, save)."""
    emulator.tap(SEAT_PINS[position])
    emulator.tap(KNOB_PUSH)
    emulator.turn(KNOB_A, KNOB_B, 3)
    emulator.tap(KNOB_PUSH)
    emulator.turn(KNOB_A, KNOB_B, 2)
    for _ in range(5):
        emulator.tap(KNOB_PUSH)


def play_table(flash: Path, port: str, round: int, table: int, by_knob: bool) -> None:
    """The table's game of this round: its pattern's four hands, each confirmed by an adversary."""
    names = SEATINGS[round][table - 1]
    sides = PATTERNS[ROUND_PATTERNS[round][table - 1]]
    running = running_on(flash)
    assert running, f"table {table}'s emulator is not running"
    emulator = Emulator(flash=flash, io_dir=Path(running["io"]), install=False)
    for hand, side in enumerate(sides, 1):
        purchaser = side[0]
        position = POSITION_OF_SEAT[hand > 2][purchaser]      # 0 or 1 in every pattern
        adversary = (position + 1) % 4                       # partners sit opposite (SK5)
        what = f"round {round} table {table} hand {hand}"
        if by_knob and position == 1:
            knob_entry_4h_10(emulator, position)
            wait_board(port, hand - 1, True, what + " held")
            emulator.tap(SEAT_PINS[adversary])
        else:
            bid = ("5H", "11") if (round, table, hand) == (3, 1, 1) else ("4H", "10")
            # the table's board by its number, as a director at the evening says it (issue 44, friction 4)
            out = cli("hand", names[purchaser], *bid, "--table", str(table))
            assert f"hand {hand} pending" in out, (what, out)
            cli("press", f"seat{adversary}", "--table", str(table))
        wait_board(port, hand, False, what + " accepted")


def play_round(event_dir: Path, ports: dict[int, str], round: int) -> None:
    failures: list[BaseException] = []

    def one(table: int) -> None:
        try:
            # tables 1 and 2 enter on the board's knob the hands bought from position 1
            play_table(event_dir / f"table-{table}", ports[table], round, table, by_knob=table <= 2)
        except BaseException as exc:   # reported by the main thread
            failures.append(exc)

    threads = [threading.Thread(target=one, args=(t,), daemon=True) for t in (1, 2, 3, 4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(4 * HAND_WAIT_S + 30)
        assert not thread.is_alive(), f"round {round}: a table's game did not end in time"
    if failures:
        raise failures[0]


def status() -> dict:
    return json.loads(run("event", "status", "--json"))


def seating_names(doc: dict) -> list[list[str]]:
    return [t["names"] for t in doc["tables"]]


def continuous(doc: dict) -> dict[str, int]:
    return {row["name"]: row["continuous"] for row in doc["standings"]}


def board_round(port: str) -> tuple[int, list[str], int]:
    link = portshare.open_link(port)
    try:
        board = Board(link, timeout=2.0)
        board.hello()
        return int(board.cfg_get("round")), board.player_names(4), int(board.state()["n"])
    finally:
        link.close()


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(tmp_path / "archive.sqlite3"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("TALLYBOARD_EMULATOR_HOME", str(tmp_path / "emu"))
    try:
        yield tmp_path
    finally:
        stop_evening_boards(tmp_path / "state")


def stop_evening_boards(state: Path) -> None:
    """`event stop-boards`, then any emulator still recorded under state killed."""
    CliRunner().invoke(main, ["event", "stop-boards"])
    for record in state.rglob("*.running.json"):
        try:
            pid = int(json.loads(record.read_text())["pid"])
            os.kill(pid, 9)
        except (OSError, ValueError, KeyError):
            pass


def test_an_evening_of_four_boards_sixteen_players_three_rounds(home):
    args = ["event", "create", "Tuesday club", "--rounds", "3"]
    for name in NAMES:
        args += ["--player", name]
    assert "16 players at 4 tables, 3 rounds of 4-hand games" in run(*args)
    attached = run("event", "attach", "--emulators", "4")
    ports = {}
    for line in attached.splitlines():
        if line.startswith("table "):
            table, rest = line[len("table "):].split(": ", 1)
            ports[int(table)] = rest.split(" ")[0]
    assert sorted(ports) == [1, 2, 3, 4]
    event_dir = Path(re.search(r"^table 1: .*, folder (\S+)$", attached, flags=re.M).group(1)).parent
    assert run("event", "start") == "round 1 is on every board (4 tables)\n"
    assert seating_names(status()) == SEATINGS[1]

    for round in (1, 2, 3):
        play_round(event_dir, ports, round)
        if round == 2:
            # the terminal view reads the boards: every game over, the moves are final (SK19)
            view = json.loads(run("event", "watch", "--once", "--json"))
            assert view["moves_final"] is True and view["last_round"] is False
            assert {(m["name"], m["from"], m["to"], m["seat"]) for m in view["moves"]} == MOVES[round]
        if round == 3:
            # the last round: there is no next round to move to, in any view
            view = json.loads(run("event", "watch", "--once", "--json"))
            assert view["last_round"] is True and view["moves"] == [] and view["next_seating"] == []
            assert "Next round" not in run("event", "watch", "--once")
            assert "Next seating" not in run("event", "status") and "oves" not in run("event", "status")
        if round < 3:
            # next reads the boards first: in round 1 no view has read them (a hand confirmed at a table counts)
            said = run("event", "next")
            assert f"Round {round + 1} of 3: " in said
            if round == 1:
                # each table's result, best first; the movement with its reason (SK19); the standings
                assert "  table 1: Ann 400, Bob 260, Cy 260, Dee 120\n" in said
                assert "  table 4: Pat 400, Ned 260, Oli 260, Max 120\n" in said
                assert "  Dee: table 1 → table 4, seat 3 (the head table's loser goes to the foot (table 4))\n" in said
                assert "  Fay: table 2 → table 1, seat 3 (won table 2: goes up one table)\n" in said
                assert "  Kim: table 3 → table 2, seat 1 (won table 3: goes up one table)\n" in said
                assert "  Pat: table 4 → table 3, seat 2 (won table 4: goes up one table)\n" in said
                assert "\n   1. Ann 400\n" in said
            doc = status()
            assert doc["round"] == round + 1
            assert seating_names(doc) == SEATINGS[round + 1]
            assert continuous(doc) == (AFTER_ROUND_1 if round == 1 else AFTER_ROUND_2)
            # every board shows the new round: its number, the table's names, an empty game
            for table, port in ports.items():
                assert board_round(port) == (round + 1, SEATINGS[round + 1][table - 1], 0), table
    finished = run("event", "finish")
    # Ann 930 and Gus 930 share the largest continuous score (SK20)
    assert finished.endswith("'Tuesday club' is finished. Winners: Ann (930), Gus (930)\n")
    assert "  table 1: Gus 410, Ann 270, Fay 250, Bob 110\n" in finished
    assert "Next" not in finished and "→" not in finished
    doc = status()     # the evening finished is still the one the commands show (the last one)
    assert doc["state"] == "finished"
    assert continuous(doc) == AFTER_ROUND_3
    assert {row["name"]: row["games_won"] for row in doc["standings"]} == GAMES_WON
    assert [row["continuous"] for row in doc["standings"]] == sorted(AFTER_ROUND_3.values(), reverse=True)

    exported = home / "evening.json"
    run("event", "export", str(exported))
    replayed = json.loads(run("event", "replay", str(exported), "--json"))
    assert {NAMES[row["player"]]: row["total"] for row in replayed["standings"]} == AFTER_ROUND_3
    assert {NAMES[row["player"]]: row["games_won"] for row in replayed["standings"]} == GAMES_WON
    assert [NAMES[p] for p in replayed["winners"]] == ["Ann", "Gus"]
    assert [[[NAMES[p] for p in t] for t in r["seating"]] for r in replayed["rounds"]] == \
        [SEATINGS[1], SEATINGS[2], SEATINGS[3]]
    # the record carries its name and says the evening is over: no next seating after it
    assert json.loads(exported.read_text())["event"] == "Tuesday club"
    assert replayed["event"] == "Tuesday club" and replayed["next_seating"] is None
    assert "Next seating" not in run("event", "replay", str(exported))
    # the same rounds as an evening still going: the movement after round 3 (worked out above)
    going = {k: v for k, v in json.loads(exported.read_text()).items() if k not in ("finished", "planned_rounds")}
    (home / "going.json").write_text(json.dumps(going))
    replayed = json.loads(run("event", "replay", str(home / "going.json"), "--json"))
    assert [[NAMES[p] for p in t] for t in replayed["next_seating"]] == AFTER_3
    assert [row["total"] for row in replayed["standings"]] == [row["continuous"] for row in doc["standings"]]
    # every table's game as its board kept it, signed by the board (issue 44): the record verifies, and
    # so does the season's results site built from it
    checked = CliRunner().invoke(main, ["verify", str(exported)])
    assert checked.exit_code == 0 and checked.output.endswith("12 of 12 games verified\n"), checked.output
    run("season", "create", "Autumn", "--rule", "total")
    run("season", "add", "Tuesday club")
    run("results", "build", str(home / "site"))
    checked = CliRunner().invoke(main, ["verify", str(home / "site")])
    assert checked.exit_code == 0 and checked.output.endswith("12 of 12 games verified\n"), checked.output
    page = (home / "site" / "evening-1.html").read_text()
    assert page.count("The board's chain: <code>") == 12
    # a correction after the evening (round 1 table 1 hand 2: 9 tricks, not 10) is a signed entry of its
    # own: the site shows the hand corrected, and the boards' games still verify under it
    run("event", "pin", "set", "--new-pin", "4711")
    key = home / "update-key"
    releases.load_key(key, create=True)
    corrected = CliRunner().invoke(main, ["event", "correct", "--round", "1", "--table", "1", "--hand", "2",
                                          "tricks=9", "--key", str(key)], env={"TALLYBOARD_DIRECTOR_PIN": "4711"})
    assert corrected.exit_code == 0, corrected.output
    run("results", "build", str(home / "site"))
    assert "Hand 2 corrected by the director" in (home / "site" / "evening-1.html").read_text()
    checked = CliRunner().invoke(main, ["verify", str(home / "site")])
    assert checked.exit_code == 0 and checked.output.endswith(
        "12 of 12 games verified; 1 of 1 correction signed\n"), checked.output
    # one hand's tricks changed in the archive file (round 1 table 2's hand 3, as its board sent it):
    # the site built from it does not verify, and says which hand
    db = sqlite3.connect(home / "archive.sqlite3")
    row = db.execute("SELECT record FROM event_games WHERE round = 1 AND tableno = 2").fetchone()
    edited = json.loads(row[0])
    edited["hands"][2]["tricks"] -= 1
    db.execute("UPDATE event_games SET record = ? WHERE round = 1 AND tableno = 2", (json.dumps(edited),))
    db.commit()
    db.close()
    run("results", "build", str(home / "site"))
    checked = CliRunner().invoke(main, ["verify", str(home / "site")])
    assert checked.exit_code == 1 and "round 1 table 2: " in checked.output and \
        "hand 3 is not what the board kept" in checked.output, checked.output
    assert checked.output.endswith("11 of 12 games verified; 1 of 1 correction signed\n"), checked.output
    assert run("event", "stop-boards") == "stopped 4 emulated boards\n"
    assert not any(running_on(event_dir / f"table-{t}") for t in (1, 2, 3, 4))
    # the boards stopped, the finished evening stands as it was (issue 32, item 6: every table showed red
    # "board unreachable · offline"), and there is nothing to resume
    watched = json.loads(run("event", "watch", "--once", "--json"))
    assert [t.get("status", "ok") for t in watched["tables"]] == ["ok"] * 4, watched["tables"]
    assert "board unreachable" not in run("event", "watch", "--once")
    resumed = CliRunner().invoke(main, ["event", "resume"])
    assert resumed.exit_code == 1 and resumed.output == (
        "tallyboard: evening 'Tuesday club' is finished: there is nothing to resume (its results: tallyboard event "
        "status; its emulated boards stop with tallyboard event stop-boards)\n"), resumed.output
