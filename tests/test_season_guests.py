"""Guests (issue 44): a visitor seated with `event create --guest` plays and
scores on the evening, is in the club's register as a guest, and is not
ranked in seasons (shown, marked, under the standings, in the terminal and
on the results site); `players member` makes him a member later, ranked with
the evenings he played as a guest. An archive whose register was made before
guests opens with every entry a member.

The evenings are tests/season_evenings.py's (the scores worked out by hand in
tests/event_evenings.py):
E1 "Tuesday 1" = season_evenings.E1, both rounds: Ann 810, Bob 790, Cy 710,
  Dee 770, Eve 790, Fay 790, Gus 690, Hal 770; won 2, 1, 1, 1, 1, 1, 0, 1.
E2 "Tuesday 2": Ann Bob Cy Dee Eve Fay Hal and the guest Ivy (--guest: seated
  after the players, number 7), one round, TWO_ROUND1_SCORES by number:
  Ann 410, Bob 410, Cy 310, Dee 370, Eve 410, Fay 410, Hal 310, Ivy 370;
  won Ann, Bob, Eve, Fay 1 each (table 1 seats 0 and 1, table 2 seats 0 and 1).
The season by total (ties by games won):
  Ann 810 + 410 = 1220 (won 2 + 1 = 3); Bob 790 + 410 = 1200 (1 + 1 = 2);
  Eve 790 + 410 = 1200 (2); Fay 790 + 410 = 1200 (2); Dee 770 + 370 = 1140 (1);
  Hal 770 + 310 = 1080 (1); Cy 710 + 310 = 1020 (1); Gus 690 (0);
  Ivy, a guest: 370 (0), not ranked."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tallyboard.common import database

import season_evenings as se
from season_evenings import PIN, archive, cli, ok  # noqa: F401 - archive: the fixture

PIN_ENV = {"TALLYBOARD_DIRECTOR_PIN": PIN}
E2 = ("Tuesday 2", ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Hal"], (), 1)

# (rank, name, value, games won): Bob, Eve and Fay equal on the total and on games won share rank 2
RANKED = [(1, "Ann", 1220, 3), (2, "Bob", 1200, 2), (2, "Eve", 1200, 2), (2, "Fay", 1200, 2),
          (5, "Dee", 1140, 1), (6, "Hal", 1080, 1), (7, "Cy", 1020, 1), (8, "Gus", 690, 0)]


@pytest.fixture
def season(archive):
    """E1, then E2 with the guest Ivy; the director's PIN set; the season "Autumn" by total."""
    se.evening(archive, *se.E1)
    se.evening(archive, *E2, guests=("Ivy",))
    ok("event", "pin", "set", "--new-pin", PIN)
    ok("season", "create", "Autumn", "--rule", "total")
    ok("season", "add", "Tuesday 1", "Tuesday 2")
    return archive


def standings():
    return json.loads(ok("season", "standings", "--json"))


def places(doc):
    return [(r["rank"], r["name"], r["value"], r["games_won"]) for r in doc["standings"]]


def test_a_guest_plays_an_evening_and_is_not_ranked(season):
    everyone = json.loads(ok("players", "list", "--json"))
    assert everyone[-1] == {"player": 9, "name": "Ivy", "evenings": 1, "guest": True}
    assert not any("guest" in p for p in everyone[:-1])
    doc = standings()
    assert places(doc) == RANKED
    assert doc["unranked"] == []
    (ivy,) = doc["guests"]
    assert (ivy["rank"], ivy["name"], ivy["value"], ivy["scores"], ivy["evenings"], ivy["games_won"]) == (
        None, "Ivy", 370, [None, 370], 1, 0)
    # the terminal: Ivy under the standings, marked
    text = ok("season", "standings")
    assert "Ivy (guest)" in text and text.index("Gus") < text.index("Ivy (guest)")
    assert "(guest): plays and scores at evenings, not ranked in seasons" in text
    # the season record says who is a guest, and replays to the same standings
    record = json.loads(ok("season", "export"))
    assert {"player": 9, "name": "Ivy", "guest": True} in record["players"]
    path = season.parent / "season.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert json.loads(ok("season", "replay", str(path), "--json")) == doc


def test_the_results_site_shows_the_guest_under_the_standings_and_his_evening_whole(season, tmp_path):
    site = tmp_path / "site"
    ok("results", "build", str(site))
    index = (site / "index.html").read_text(encoding="utf-8")
    standings_part, guests_part = index.split("<h3>Guests: not ranked</h3>")
    assert "Ivy" not in standings_part and "Gus" in standings_part
    # his row: no rank, his name marked, the total 370, E1 empty, E2 370 linking to his card
    assert ('<tr><td></td><td class="name">Ivy<span class="guest"> (guest)</span></td><td>370</td><td></td>'
            '<td><a href="evening-2-player-9.html">370</a></td>') in guests_part
    # the evening's own standings rank him by his score (SK20): 370 is 5th of eight, after four of 410
    evening = (site / "evening-2.html").read_text(encoding="utf-8")
    assert ('<tr><td>5</td><td class="name"><a href="evening-2-player-9.html">Ivy</a><span class="guest"> (guest)'
            '</span></td><td>370</td>') in evening
    assert (site / "evening-2-player-9.html").is_file()


def test_a_guest_made_a_member_is_ranked_with_the_evenings_he_played_as_a_guest(season):
    result = cli("players", "member", "Ivy", env={"TALLYBOARD_DIRECTOR_PIN": "0000"})
    assert result.exit_code == 5 and "nothing was changed" in result.output
    out = ok("players", "member", "ivy", env=PIN_ENV)
    assert "member: #9 Ivy" in out
    doc = standings()
    # Ivy's E2 370 counts: ninth, after Gus's 690
    assert places(doc) == RANKED + [(9, "Ivy", 370, 0)]
    assert doc["guests"] == []
    assert "guest" not in json.loads(ok("players", "list", "--json"))[-1]
    result = cli("players", "member", "Ivy", env=PIN_ENV)
    assert result.exit_code != 0 and "'Ivy' (#9) is a member already; nothing was changed" in result.output
    log = json.loads(ok("players", "log", "--json"))
    assert [(e["action"], e["what"], e["before"], e["after"]) for e in log] == [
        ("member", "#9 Ivy", "guest", "member")]


def test_a_guest_comes_back_a_member_is_not_seated_as_a_guest_and_players_guest_adds_or_marks(season):
    # Ivy again: the register's guest, seated under its spelling, no new entry
    out = ok("event", "create", "Tuesday 3", *[a for p in ["Ann", "Bob", "Cy"] for a in ("--player", p)],
             "--guest", "IVY")
    assert "guests tonight (they play and score, and are not ranked in seasons): Ivy" in out
    assert "new in the club's register" not in out
    assert [p["name"] for p in json.loads(ok("players", "list", "--json"))][-1] == "Ivy"
    # a member given as a guest is refused: never out of the rankings by a slip
    result = cli("event", "create", "Tuesday 4", *[a for p in ["Ann", "Bob", "Cy"] for a in ("--player", p)],
                 "--guest", "Dee")
    assert result.exit_code != 0
    assert "--guest 'Dee': 'Dee' (#4) is a member of the club's register" in result.output
    assert "nothing was created" in result.output
    # a name new to the club: `players add` and `--new-player` are not the way for a guest
    result = cli("event", "create", "Tuesday 4", *[a for p in ["Ann", "Bob", "Cy", "Zed"] for a in ("--player", p)])
    assert result.exit_code != 0 and "--guest 'Zed' for a visitor not ranked in seasons" in result.output
    # players guest: a new name is added as a guest (no PIN); a member made a guest needs the PIN
    assert "added #10 Zed to the club's register as a guest" in ok("players", "guest", "Zed")
    result = cli("players", "add", "zed")
    assert result.exit_code != 0 and "tallyboard players member 'Zed' makes him a member" in result.output
    assert cli("players", "guest", "Gus", env={"TALLYBOARD_DIRECTOR_PIN": "0000"}).exit_code == 5
    assert "guest: #7 Gus" in ok("players", "guest", "Gus", env=PIN_ENV)
    doc = standings()
    # Gus (690, E1 only) leaves the ranking: the others keep theirs, Ivy and Gus under them by total
    assert places(doc) == RANKED[:-1]
    assert [(r["name"], r["value"]) for r in doc["guests"]] == [("Gus", 690), ("Ivy", 370)]


def test_a_guest_new_to_an_empty_register_and_seated_with_player_keeps_his_seat(archive):
    # the first evening founds the register; Ivy given with --player too sits where --player put him (number 1)
    out = ok("event", "create", "First", "--player", "Ann", "--player", "Ivy", "--player", "Bob", "--player", "Cy",
             "--guest", "Ivy")
    assert "table 1: 0:Ann, 1:Ivy, 2:Bob, 3:Cy" in out
    assert "new in the club's register: Ann, Bob, Cy" in out
    assert ("guests tonight (they play and score, and are not ranked in seasons): Ivy (new in the club's "
            "register)") in out
    assert [(p["name"], p.get("guest", False)) for p in json.loads(ok("players", "list", "--json"))] == [
        ("Ann", False), ("Ivy", True), ("Bob", False), ("Cy", False)]


GOLDEN = Path(__file__).resolve().parent / "golden" / "archive_v3_evening.sql"


def test_a_register_made_before_guests_opens_with_its_players_members(archive):
    """An archive of version 4 (the register, no guests): tests/golden/archive_v3_evening.sql (its evening of
    Ann..Hal) with migration 4 run on it and a register entry of its own, "Ann Lee", joined to Ann's seat."""
    db = sqlite3.connect(archive)
    db.executescript(GOLDEN.read_text(encoding="utf-8"))
    db.executescript(database.ARCHIVE.migrations[3])
    db.execute("INSERT INTO register_players (id, name, key, added_at) VALUES (1, 'Ann Lee', 'ann lee', "
               "'2026-10-01T19:00:00+00:00')")
    db.execute("UPDATE event_players SET register = 1 WHERE name = 'Ann'")
    db.execute("PRAGMA user_version = 4")
    db.commit()
    db.close()
    everyone = json.loads(ok("players", "list", "--json"))
    # Ann's seat stays Ann Lee's (#1); the others join as new entries 2..8, every one a member
    assert everyone == [{"player": 1, "name": "Ann Lee", "evenings": 1}] + [
        {"player": n, "name": name, "evenings": 1} for n, name in enumerate(se.E1[1][1:], 2)]
    db = sqlite3.connect(archive)
    assert db.execute("PRAGMA user_version").fetchone() == (6,)
    assert db.execute("SELECT count(*) FROM register_players WHERE guest = 0").fetchone() == (8,)
    db.close()
