"""The README's club evening, run as written (issue 23): the `sh` block under
"## A club evening" is read out of README.md, so this test breaks when the
README changes, and each of its `tallyboard` commands is run in order against
emulated boards. What is substituted is only what the commands print: PORT-N
and FOLDER-N from `event attach`'s lines, and the PIN `event pin set` asks
for at a terminal given with --new-pin. A comment line saying the tables
play their games to the end is done here as a director's tables would: each
table's remaining hands from the host, bought by seat 0's player at 4H with 10
tricks, accepted on the button beside him (position 1: seat 1 in hands 1-2,
seat 2 after the pivot, SK5, SK16). The venv line is checked, not run (the
test runs in the venv already). Every emulator is stopped at the end.

Hand-worked: 4H made with 10 tricks is 60 + 10 x 4 = 100 to the purchaser and
his partner, 10 x (13 - 10) = 30 to each adversary (SK2, SK7). Seat 0 buys
every hand; his partner is seat 2 in hands 1-2 and seat 1 in hands 3-4, so a
four-hand game ends seat 0 400, seat 1 30+30+100+100 = 260, seat 2 260,
seat 3 120 at both tables. Round 1: table 1 Ann 400 Bob 260 Cy 260 Dee 120,
table 2 Eve 400 Fay 260 Gus 260 Hal 120. SK19: the head's loser Dee (table 1,
seat 3) goes to the foot, table 2, into the seat its winner Eve left (seat 0);
Eve goes up to table 1, into Dee's seat 3.
Round 2: table 1 Ann Bob Cy Eve, table 2 Dee Fay Gus Hal; the same pattern:
Ann 400 Bob 260 Cy 260 Eve 120; Dee 400 Fay 260 Gus 260 Hal 120.
Continuous: Ann 800, Bob 520, Cy 520, Eve 520, Fay 520, Gus 520, Dee 520, Hal 240.
"""
from __future__ import annotations

import pytest
import json
import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from tallyboard.cli import main
from test_event_evening import board_hands, cli, home, wait_board  # noqa: F401  (home: the fixture)

pytestmark = [pytest.mark.process]

README = Path(__file__).resolve().parents[1] / "README.md"
PIN = "4711"


def club_block() -> list[str]:
    """The README's club-evening commands, continuation lines joined."""
    section = README.read_text(encoding="utf-8").split("## A club evening\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.replace("\\\n", " ").splitlines() if line.strip()]


def play_to_the_end(ports: dict[int, str], folders: dict[int, str]) -> None:
    for table, port in ports.items():
        done, held = board_hands(port)
        assert not held, f"table {table} has a hand held"
        doc = json.loads(run_ok(["event", "status", "--json"]))
        buyer = doc["tables"][table - 1]["names"][0]
        for hand in range(done + 1, 5):
            out = cli("hand", buyer, "4H", "10", "--port", port)
            assert f"hand {hand} pending" in out, out
            cli("press", "seat1", "--flash", folders[table])
            wait_board(port, hand, False, f"table {table} hand {hand} accepted")


def run_ok(args: list[str]) -> str:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.output


def test_the_readme_club_evening_runs_as_written(home, monkeypatch):
    monkeypatch.chdir(home)
    lines = club_block()
    assert lines[0].startswith("python3 -m venv .venv") and ". .venv/bin/activate" in lines[0]
    ports: dict[int, str] = {}
    folders: dict[int, str] = {}
    said: dict[str, str] = {}
    ran = 0
    for line in lines[1:]:
        if line.lstrip().startswith("#"):
            if "to the end" in line:
                play_to_the_end(ports, folders)
            continue
        words = shlex.split(line, comments=True)
        commands, current = [], []
        for word in words:
            if word == "&&":
                commands.append(current)
                current = []
            else:
                current.append(word)
        commands.append(current)
        for command in commands:
            assert command[0] == "tallyboard", line
            args = [re.sub(r"PORT-(\d)", lambda m: ports[int(m.group(1))], a) for a in command[1:]]
            args = [re.sub(r"FOLDER-(\d)", lambda m: folders[int(m.group(1))], a) for a in args]
            if args[:3] == ["event", "pin", "set"]:
                args += ["--new-pin", PIN]      # asked twice at a terminal; a script gives it
            out = run_ok(args)
            said[" ".join(command[1:3])] = out
            ran += 1
            if args[:2] == ["event", "attach"]:
                # each table's port and folder, as the README says attach prints them (issue 32, item 6)
                for match in re.finditer(r"^table (\d): (\S+) \(\S+\), folder (\S+)$", out, flags=re.M):
                    ports[int(match.group(1))] = match.group(2)
                    folders[int(match.group(1))] = match.group(3)
                assert sorted(folders) == [1, 2] and all(folders[t].endswith(f"/table-{t}") for t in folders), out
            if args[:1] == ["press"]:
                wait_board(ports[1], 1, False, "the README's hand accepted")
    assert ran == 13      # create, pin set, attach, start, hand, press, status, watch, next, finish, export,
    #                       replay, stop-boards
    # what the README says each command shows
    assert "hand 1 pending: waiting for Bob (button B) or Dee (button D) to accept on the board" in said["hand Ann"]
    assert "\naccepted: Bob (button B) accepted hand 1; it counts now\n" in said["press seat1"], said["press seat1"]
    assert "Ann 100, Bob 30, Cy 100, Dee 30" in said["event status"]
    assert "  table 1: Ann 400, Bob 260, Cy 260, Dee 120\n" in said["event next"]
    assert "  Dee: table 1 → table 2, seat 0 (the head table's loser goes to the foot (table 2))\n" in said["event next"]
    assert "  Eve: table 2 → table 1, seat 3 (won table 2: goes up one table)\n" in said["event next"]
    assert said["event next"].endswith("Round 2 of 2: table 1: Ann, Bob, Cy, Eve; table 2: Dee, Fay, Gus, Hal\n")
    assert "  table 2: Dee 400, Fay 260, Gus 260, Hal 120\n" in said["event finish"]
    assert said["event finish"].endswith("'Tuesday club' is finished. Winner: Ann (800)\n")
    assert json.loads((home / "evening.json").read_text())["event"] == "Tuesday club"
    assert said["event replay"].startswith("Tuesday club\n") and "Next seating" not in said["event replay"]
    assert said["event stop-boards"] == "stopped 2 emulated boards\n"
