"""A club's season of three evenings worked out by hand (docs/rules.md SK20,
G5; issue 33), shared by the season and results tests. The evenings are
made at the command line (`event create`, `next`, `finish`, `correct`) with
the tables' games stored as a board's sync stores them: no board runs.

The games are tests/event_evenings.py's two-table evening (six-hand games),
whose scores are worked out there by number: after both rounds the
players numbered 0..7 have 810, 790, 710, 770, 790, 790, 690, 770
(TWO_TOTALS) and games won 2, 1, 1, 1, 1, 1, 0, 1 (TWO_GAMES_WON); after
round 1 alone 410, 410, 310, 370, 410, 410, 310, 370 (TWO_ROUND1_SCORES),
games won there: table 1 seats 0 and 1 (410), table 2 seats 0 and 1.

E1 "Tuesday 1": Ann Bob Cy Dee Eve Fay Gus Hal, both rounds:
  Ann 810, Bob 790, Cy 710, Dee 770, Eve 790, Fay 790, Gus 690, Hal 770;
  won Ann 2, Bob 1, Cy 1, Dee 1, Eve 1, Fay 1, Gus 0, Hal 1.
E2 "Tuesday 2": the same people in the reverse order, Dee entered on
  purpose as a new player "Deirdre" (--new-player): numbers 0..7 are Hal
  Gus Fay Eve Deirdre Cy Bob Ann, both rounds:
  Hal 810, Gus 790, Fay 710, Eve 770, Deirdre 790, Cy 790, Bob 690, Ann 770;
  won Hal 2, Gus 1, Fay 1, Eve 1, Deirdre 1, Cy 1, Bob 0, Ann 1.
E3 "Tuesday 3": Ann Bob Cy "dee" (the register's Dee: case aside) Eve Fay
  Ivy (new) Hal, one round: Ann 410, Bob 410, Cy 310, Dee 370, Eve 410,
  Fay 410, Ivy 310, Hal 370; won Ann, Bob, Eve, Fay 1 each.
  Then, after the evening is finished, the director corrects table 1's
  hand 4 (G1's h4: Cy, seat 2, 1C with 6 tricks, failed) to 7 tricks: made.
  Hand 4's partners are seats 2+3 (SK5), so it scores seats 2, 3 70 each
  (A = 60 + 10 x 1) and seats 0, 1 10 x (13 - 7) = 60 each, where it gave
  [70, 70, 0, 60]: Ann 410 - 10 = 400, Bob 400, Cy 310 + 70 = 380, Dee
  370 + 10 = 380; table 1's winners are still Ann and Bob (400 each).
Then the director merges Deirdre into Dee (one person, entered twice)."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

import pytest

from tallyboard.cli import main
from tallyboard.club import releases
from tallyboard.evening import director
from tallyboard.evening.store import EveningDatabase

import event_evenings as ev

PIN = "4711"
STAMP = {"board_id": "B", "n": 0}
E1 = ("Tuesday 1", ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"], (), 2)
E2 = ("Tuesday 2", ["Hal", "Gus", "Fay", "Eve", "Deirdre", "Cy", "Bob", "Ann"], ("Deirdre",), 2)
E3 = ("Tuesday 3", ["Ann", "Bob", "Cy", "dee", "Eve", "Fay", "Ivy", "Hal"], ("Ivy",), 1)

# E3 corrected: the season's figures by person (E1, E2, E3 continuous; games won)
SCORES = {"Ann": (810, 770, 400), "Bob": (790, 690, 400), "Cy": (710, 790, 380), "Dee": (770, 790, 380),
          "Eve": (790, 770, 410), "Fay": (790, 710, 410), "Gus": (690, 790, None), "Hal": (770, 810, 370),
          "Ivy": (None, None, 310)}
WON = {"Ann": 2 + 1 + 1, "Bob": 1 + 0 + 1, "Cy": 1 + 1 + 0, "Dee": 1 + 1 + 0, "Eve": 1 + 1 + 1, "Fay": 1 + 1 + 1,
       "Gus": 0 + 1, "Hal": 1 + 2 + 0, "Ivy": 0}


def cli(*args, env=None):
    return CliRunner().invoke(main, list(args), env=env)


def ok(*args, env=None):
    result = cli(*args, env=env)
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


def evening(path, name, players, new, rounds, guests=()):
    """The evening made with `event create` (guests: --guest, seated after the players) and played."""
    args = ["event", "create", name, "--rounds", str(rounds)]
    args += [a for p in players for a in ("--player", p)]
    args += [a for p in new for a in ("--new-player", p)]
    args += [a for p in guests for a in ("--guest", p)]
    ok(*args)
    plays = [ev.TWO_ROUND1, ev.TWO_ROUND2][:rounds]
    for r, tables in enumerate(plays, 1):
        with EveningDatabase(path) as store:
            event = store.event(name)
            seating = store.seating(event, r)
            for t, hands in enumerate(tables, 1):
                store.save_table_game(event, r, t, ev.table_record(store.names(event), seating[t - 1], hands, False),
                                      STAMP)
        ok("event", "next" if r < rounds else "finish", "--event", name)


@pytest.fixture
def archive(tmp_path, monkeypatch):
    """A test's own archive (TALLYBOARD_ARCHIVE), no PIN in the environment, a wrong PIN not waited for."""
    path = tmp_path / "archive.sqlite3"
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(path))
    monkeypatch.delenv("TALLYBOARD_DIRECTOR_PIN", raising=False)
    monkeypatch.setattr(director, "_sleep", lambda seconds: None)     # a wrong PIN's delay, not slept here
    return path


def signing_key(path) -> list[str]:
    """`--key FILE`: the director's update key, beside the archive at path (made if missing), which
    signs his corrections."""
    key = Path(path).parent / "update-key"
    releases.load_key(key, create=True)
    return ["--key", str(key)]


def season_of_three(path, correct=True, merge=True):
    """The three evenings in the archive at path, E3 corrected and Deirdre merged
    into Dee (each when asked), the director's PIN set."""
    for e in (E1, E2, E3):
        evening(path, *e)
    ok("event", "pin", "set", "--new-pin", PIN)
    if correct:
        ok("event", "correct", "--event", "Tuesday 3", "--round", "1", "--table", "1", "--hand", "4", "tricks=7",
           *signing_key(path), env={"TALLYBOARD_DIRECTOR_PIN": PIN})
    if merge:
        ok("players", "merge", "Deirdre", "Dee", env={"TALLYBOARD_DIRECTOR_PIN": PIN})
