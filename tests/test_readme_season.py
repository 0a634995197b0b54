"""The README's club's season, run as written (issue 33): the `sh` block under
"## A club's season" is read out of README.md and each of its commands run in
order, after the README's club evening ("Tuesday club", made by the `event
create` line of the block under "## A club evening"). The games of both
evenings are entered here as a board's sync stores them (no board runs):
at every table seat 0 buys every hand at 4H and takes 10 tricks.

Hand-worked (as tests/test_readme_evening.py): 4H made with 10 tricks is
60 + 10 x 4 = 100 to the purchaser and his partner, 10 x (13 - 10) = 30 to
each adversary (SK7); seat 0's partner is seat 2 in hands 1-2, seat 1 in
hands 3-4 (SK5, SK16), so a four-hand game ends seat 0 400, seat 1 260,
seat 2 260, seat 3 120.
"Tuesday club", two rounds: round 1 Ann 400 Bob 260 Cy 260 Dee 120, Eve 400
Fay 260 Gus 260 Hal 120; Dee goes to the foot, Eve up (SK19); round 2 Ann
400 Bob 260 Cy 260 Eve 120, Dee 400 Fay 260 Gus 260 Hal 120. Continuous: Ann
800, Bob 520, Cy 520, Dee 520, Eve 520, Fay 520, Gus 520, Hal 240.
"Tuesday 2", one round: Ann 400 Bob 260 Cy 260 Deirdre 120, Eve 400 Fay 260
Gus 260 Hal 120; Deirdre is merged into Dee.
Best 2 of 2 evenings each: Ann 800 + 400 = 1200; Eve 520 + 400 = 920; Bob,
Cy, Fay, Gus 520 + 260 = 780, equal on the total too: one rank, 3; Dee 520 +
120 = 640; Hal 240 + 120 = 360.
The correction (Tuesday club, round 1, table 1, hand 1: 4H with 8 tricks,
failed, SK8): the purchaser Ann nothing, his partner Cy 10 x 8 = 80, the
adversaries Bob and Dee 10 x (13 - 8) = 50 each, where the hand gave 100,
30, 100, 30: Ann 800 - 100 = 700, Bob 520 + 20 = 540, Cy 520 - 20 = 500,
Dee 520 + 20 = 540. Best 2: Ann 1100, Eve 920, Bob 800, Fay and Gus 780
(one rank, 4), Cy 760, Dee 660, Hal 360."""
from __future__ import annotations

import json
import shlex
from pathlib import Path

from click.testing import CliRunner

from tallyboard.cli import main
from tallyboard.evening.store import EveningDatabase

README = Path(__file__).resolve().parents[1] / "README.md"
PIN = "4711"
GAME = [{"purchaser": 0, "bid": "4H", "tricks": 10}] * 4


def block(heading: str) -> list[str]:
    section = README.read_text(encoding="utf-8").split(f"## {heading}\n", 1)[1]
    text = section.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = []
    for line in text.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            commands.append(words[:cut])
            words = words[cut + 1:]
    return commands


def run(args: list[str]) -> str:
    assert args[0] == "tallyboard", args
    result = CliRunner().invoke(main, args[1:])
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


def play(archive: Path, name: str) -> None:
    with EveningDatabase(archive) as store:
        event = store.event(name)
    for r in range(1, event.rounds + 1):
        with EveningDatabase(archive) as store:
            event = store.event(name)
            seating = store.seating(event, r)
            names = store.names(event)
            for t, seats in enumerate(seating, 1):
                record = {"format": "tallyboard/1", "game": "skicket", "players": [names[p] for p in seats],
                          "options": {"hands": 4}, "hands": GAME}
                store.save_table_game(event, r, t, record, {"board_id": "B", "n": 0})
        run(["tallyboard", "event", "next" if r < event.rounds else "finish", "--event", name])


def places() -> list[tuple[int, str, int]]:
    doc = json.loads(run(["tallyboard", "season", "standings", "--json"]))
    return [(row["rank"], row["name"], row["value"]) for row in doc["standings"]]


def test_the_readme_season_runs_as_written(tmp_path, monkeypatch):
    archive = tmp_path / "archive.sqlite3"
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(archive))
    monkeypatch.setenv("TALLYBOARD_DIRECTOR_PIN", PIN)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))    # `release key`: the director's key here
    monkeypatch.chdir(tmp_path)
    (create,) = [c for c in block("A club evening") if c[:3] == ["tallyboard", "event", "create"]]
    run(create)
    run(["tallyboard", "event", "pin", "set", "--new-pin", PIN])
    play(archive, "Tuesday club")
    written = []
    for command in block("A club's season"):
        out = run(command)
        if command[1:3] == ["event", "create"]:
            play(archive, command[3])
        if command[1:3] == ["results", "build"]:
            written.append({line.strip() for line in out.splitlines()[1:]})
        if command[1:3] == ["season", "standings"]:
            assert places() == [(1, "Ann", 1200), (2, "Eve", 920), (3, "Bob", 780), (3, "Cy", 780),
                                (3, "Fay", 780), (3, "Gus", 780), (7, "Dee", 640), (8, "Hal", 360)]
        if command[1:3] == ["season", "replay"]:
            assert "Ann" in out and "1200" in out
    assert places() == [(1, "Ann", 1100), (2, "Eve", 920), (3, "Bob", 800), (4, "Fay", 780), (4, "Gus", 780),
                        (6, "Cy", 760), (7, "Dee", 660), (8, "Hal", 360)]
    assert (tmp_path / "autumn.json").is_file()
    # the first build: style.css, index.html, the two evenings' pages and records, each evening's 8 cards
    assert len(written) == 2 and len(written[0]) == 4 + 2 + 8 + 8
    # E1's places were Ann 1, Bob Cy Dee Eve Fay Gus 2 (520), Hal 8, and are Ann 1 (700), Bob Dee 2 (540),
    # Eve Fay Gus 4 (520), Cy 7 (500), Hal 8: every E1 card but Hal's (register #8) changes; E2 does not
    assert written[1] == {"index.html", "evening-1.html", "evening-1.json"} | {
        f"evening-1-player-{n}.html" for n in range(1, 8)}
