"""The season's standings beside a club evening's live views (issue 33, item 2: "on the live page's
side"): the snapshot of an evening in a season carries each season's standings as they stand now,
the evening counted as far as it has gone (its rounds that are over), and follows the evening;
evening/watch.py check() accepts the field and refuses a bad one. The evenings are
tests/season_evenings.py's, made without boards; the figures are worked out below by hand."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from tallyboard.commands.evening_views import EveningSource
from tallyboard.evening import director
from tallyboard.evening.store import EveningDatabase
from tallyboard.evening.watch import check

import event_evenings as ev
import season_evenings as se
from season_evenings import ok

# E2: E1's people in the reverse order, numbers 0..7 Hal Gus Fay Eve Dee Cy Bob Ann
E2 = ("Tuesday 2", ["Hal", "Gus", "Fay", "Eve", "Dee", "Cy", "Bob", "Ann"])


@pytest.fixture
def archive(tmp_path, monkeypatch):
    path = tmp_path / "archive.sqlite3"
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(path))
    monkeypatch.delenv("TALLYBOARD_DIRECTOR_PIN", raising=False)
    monkeypatch.setattr(director, "_sleep", lambda seconds: None)
    return path


def store_games(path, name, round, tables):
    with EveningDatabase(path) as store:
        event = store.event(name)
        seating = store.seating(event, round)
        for t, hands in enumerate(tables, 1):
            store.save_table_game(event, round, t, ev.table_record(store.names(event), seating[t - 1], hands, False),
                                  se.STAMP)


def live(path, name):
    """The snapshot `event serve` and `event watch` show, from the store (no boards attached)."""
    with EveningDatabase(path) as store:
        return check(EveningSource(store, store.event(name), None)())


def places(panel):
    return [(r["rank"], r["name"], r["value"], r["decided_by"]) for r in panel["standings"]]


def test_the_snapshot_of_an_evening_in_seasons_carries_their_standings_as_far_as_it_has_gone(archive):
    se.evening(archive, *se.E1)                                   # Tuesday 1, both rounds, finished
    ok("event", "create", E2[0], "--rounds", "2", *[a for p in E2[1] for a in ("--player", p)])
    assert "seasons" not in live(archive, E2[0])                  # in no season: no panel
    ok("season", "create", "Autumn", "--rule", "total")
    ok("season", "add", "Tuesday 1", "Tuesday 2", "--season", "Autumn")
    ok("season", "create", "Cup", "--rule", "games_won")
    ok("season", "add", "Tuesday 1", "Tuesday 2", "--season", "Cup")

    # round 1 of Tuesday 2 over, round 2 in play with three hands in at table 1
    store_games(archive, E2[0], 1, ev.TWO_ROUND1)
    ok("event", "next", "--event", E2[0])
    store_games(archive, E2[0], 2, [ev.TWO_ROUND2[0][:3]])
    doc = live(archive, E2[0])
    autumn, cup = doc["seasons"]
    assert (autumn["season"], cup["season"]) == ("Autumn", "Cup")
    # Tuesday 2 counts round 1 only (TWO_ROUND1_SCORES by number): Hal 410, Gus 410, Fay 310, Eve 370, Dee 410,
    # Cy 410, Bob 310, Ann 370; games won: table 1's seats 0, 1 (Hal, Gus), table 2's (Dee, Cy). With
    # Tuesday 1 (Ann 810, Bob 790, Cy 710, Dee 770, Eve 790, Fay 790, Gus 690, Hal 770; won 2 1 1 1 1 1 0 1):
    # Ann 810 + 370 = 1180, Dee 770 + 410 = 1180, Hal 770 + 410 = 1180, Eve 790 + 370 = 1160,
    # Cy 710 + 410 = 1120, Bob 790 + 310 = 1100, Fay 790 + 310 = 1100, Gus 690 + 410 = 1100;
    # won Ann 2 + 0 = 2, Dee 1 + 1 = 2, Hal 1 + 1 = 2, Cy 1 + 1 = 2, Eve 1, Bob 1, Fay 1, Gus 0 + 1 = 1.
    # Total (ties by games won): Ann, Dee, Hal equal on both, one rank; Bob, Fay, Gus likewise.
    assert places(autumn) == [(1, "Ann", 1180, None), (1, "Dee", 1180, None), (1, "Hal", 1180, None),
                              (4, "Eve", 1160, None), (5, "Cy", 1120, None), (6, "Bob", 1100, None),
                              (6, "Fay", 1100, None), (6, "Gus", 1100, None)]
    assert autumn["figure"] == "total" and autumn["unranked"] == []
    assert autumn["rule_words"].startswith("total continuous score over the season's evenings; a tie is broken by "
                                           "games won")
    assert autumn["evening"] == {"evening": 2, "of": 2, "rounds_counted": 1, "finished": False}
    assert autumn["note"] == ("Tuesday 2 (evening 2 of 2) counts as far as it has gone: 1 of its 2 rounds; the "
                              "round in play counts once every table's game of it is over")
    # Games won (ties by the total): on 2, Ann, Dee, Hal (1180) above Cy (1120); on 1, Eve (1160) above
    # Bob, Fay, Gus (1100): each placed by the total among those equal to him on games won.
    assert places(cup) == [(1, "Ann", 2, "total"), (1, "Dee", 2, "total"), (1, "Hal", 2, "total"),
                           (4, "Cy", 2, "total"), (5, "Eve", 1, "total"), (6, "Bob", 1, "total"),
                           (6, "Fay", 1, "total"), (6, "Gus", 1, "total")]
    assert cup["figure"] == "games won"

    # round 2's games all in, stored by the views' own connection (as a board's sync stores them): it is
    # over, so it counts though `finish` has not been run; one source all along, as `event serve` keeps it.
    # Tuesday 2 whole (TWO_TOTALS by number): Hal 810, Gus 790, Fay 710, Eve 770, Dee 790, Cy 790, Bob 690,
    # Ann 770; won (TWO_GAMES_WON) Hal 2, Gus 1, Fay 1, Eve 1, Dee 1, Cy 1, Bob 0, Ann 1.
    # Ann 810 + 770 = 1580 (won 2 + 1 = 3), Hal 770 + 810 = 1580 (1 + 2 = 3): one rank; Dee 770 + 790 =
    # 1560 (2), Eve 790 + 770 = 1560 (2); Cy 710 + 790 = 1500 (2), Fay 790 + 710 = 1500 (2); Bob 790 + 690 =
    # 1480 (1), Gus 690 + 790 = 1480 (1).
    with EveningDatabase(archive) as store:
        source = EveningSource(store, store.event(E2[0]), None)
        assert places(check(source())["seasons"][0]) == places(autumn)
        event = store.event(E2[0])
        seating = store.seating(event, 2)
        for t, hands in enumerate(ev.TWO_ROUND2, 1):
            store.save_table_game(event, 2, t, ev.table_record(store.names(event), seating[t - 1], hands, False),
                                  se.STAMP)
        autumn = check(source())["seasons"][0]
        assert places(autumn) == [
            (1, "Ann", 1580, None), (1, "Hal", 1580, None), (3, "Dee", 1560, None), (3, "Eve", 1560, None),
            (5, "Cy", 1500, None), (5, "Fay", 1500, None), (7, "Bob", 1480, None), (7, "Gus", 1480, None)]
        # the last round over: the evening counts whole (records.md: `finished`, no round after its last)
        assert autumn["evening"] == {"evening": 2, "of": 2, "rounds_counted": 2, "finished": True}
        assert autumn["note"] == "Tuesday 2 (evening 2 of 2) counts whole: every round of it is over"

        # the director corrects Tuesday 1 after the fact, in another process: round 1 table 1 hand 4 (G1's
        # h4, 1C with 6 tricks, failed) made with 7: seats 2, 3 score 70 each, seats 0, 1 10 x 6 = 60 each,
        # where it gave [70, 70, 0, 60]: Ann -10, Bob -10, Cy +70, Dee +10 (season_evenings' E3 case);
        # table 1's winners still Ann and Bob (400). Totals: Hal 1580 (won 3); Ann 1570 (3), Cy 1570 (2),
        # Dee 1570 (2): Ann above them by games won, they equal on both; Eve 1560, Fay 1500, Gus 1480,
        # Bob 1470.
        ok("event", "pin", "set", "--new-pin", se.PIN)
        ok("event", "correct", "--event", "Tuesday 1", "--round", "1", "--table", "1", "--hand", "4", "tricks=7",
           *se.signing_key(archive), env={"TALLYBOARD_DIRECTOR_PIN": se.PIN})
        assert places(check(source())["seasons"][0]) == [
            (1, "Hal", 1580, None), (2, "Ann", 1570, "games_won"), (3, "Cy", 1570, "games_won"),
            (3, "Dee", 1570, "games_won"), (5, "Eve", 1560, None), (6, "Fay", 1500, None), (7, "Gus", 1480, None),
            (8, "Bob", 1470, None)]
    ok("event", "finish", "--event", E2[0])
    autumn = live(archive, E2[0])["seasons"][0]
    assert autumn["evening"]["finished"] is True and places(autumn)[0] == (1, "Hal", 1580, None)
    # event status --json is the same document
    assert json.loads(ok("event", "status", "--json", "--event", E2[0]))["seasons"][0] == autumn
    # docs/events.md's example has the keys of a real one
    text = (Path(__file__).resolve().parents[1] / "docs" / "events.md").read_text(encoding="utf-8")
    example = json.loads(re.search(r"```json\n\s*(\{\"seasons\".*?)```", text, re.S).group(1))["seasons"][0]
    assert list(example) == list(autumn)
    assert list(example["evening"]) == list(autumn["evening"])
    assert list(example["standings"][0]) == list(autumn["standings"][0])


GOOD = {"format": "tallyboard-event-view/1", "seasons": [
    {"season": "Autumn", "rule_words": "total continuous score ...", "figure": "total", "note": "...",
     "evening": {"evening": 2, "of": 2, "rounds_counted": 1, "finished": False},
     "standings": [{"rank": 1, "name": "Ann", "value": 1180, "decided_by": None}],
     "unranked": [{"name": "Gus", "value": 740.0, "evenings": 1}]},
    {"season": "Cup", "problem": "the season record cannot be read"}]}


@pytest.mark.parametrize("spoil, said", [
    (lambda d: d.update(seasons={"Autumn": 1}), "seasons: must be a list"),
    (lambda d: d["seasons"][0].pop("season"), "1: must be an object with the season's name"),
    (lambda d: d["seasons"][0]["standings"][0].pop("rank"), "1: standings: must be a list of"),
    (lambda d: d["seasons"][0]["standings"][0].update(value="1180"), "1: standings: must be a list of"),
    (lambda d: d["seasons"][0]["unranked"].append(None), "1: unranked: must be a list of"),
    (lambda d: d["seasons"][0]["evening"].update(finished="no"), "1: evening: must be"),
    (lambda d: d["seasons"][0].pop("rule_words"), "1: rule_words: must be a sentence"),
    (lambda d: d["seasons"][1].update(problem=None), "2: problem: must be a sentence"),
])
def test_check_accepts_the_seasons_and_refuses_a_bad_one(spoil, said):
    assert check(copy.deepcopy(GOOD)) == GOOD
    bad = copy.deepcopy(GOOD)
    spoil(bad)
    with pytest.raises(ValueError, match="the snapshot's seasons: " + said):
        check(bad)


def test_event_watch_draws_each_season_beside_the_evening_a_page_at_a_time(archive):
    """The terminal's live view shows the seasons as the page does at its side: on 80 x 24, the
    tables and the seasons turn a page at a time, every page whole."""
    from io import StringIO

    from rich.console import Console

    from tallyboard.evening import watch

    se.evening(archive, *se.E1)                                   # Tuesday 1, both rounds, finished
    ok("season", "create", "Autumn", "--rule", "total")
    ok("season", "add", "Tuesday 1", "--season", "Autumn")
    doc = live(archive, se.E1[0])
    pages = []
    for page in range(6):
        out = StringIO()
        Console(file=out, width=80, height=24).print(watch.frame(doc, 24, page))
        pages.append(out.getvalue())
    assert all(len(p.splitlines()) <= 24 and max(len(line) for line in p.splitlines()) <= 80 for p in pages)
    season = next(p for p in pages if "Season · Autumn" in p)
    assert "the season's standings, the next page in a few seconds" in " ".join(season.split())
    rows = [line.split()[-4:] for line in season.splitlines() if re.search(r"\b(Ann|Bob|Eve|Fay|Dee|Hal|Cy|Gus)\s+\d+\s*$",
                                                                             line)]
    # Tuesday 1 alone (season_evenings' E1): Ann 810 (won 2), Bob, Eve, Fay 790 (won 1 each: one rank,
    # nothing breaks it), Dee, Hal 770 (won 1 each), Cy 710, Gus 690; the evening's own standings are
    # on the left of the same lines, so each row's last three words are the season's
    assert [r[-3:] for r in rows] == [["1", "Ann", "810"], ["2", "Bob", "790"], ["2", "Eve", "790"],
                                      ["2", "Fay", "790"], ["5", "Dee", "770"], ["5", "Hal", "770"],
                                      ["7", "Cy", "710"], ["8", "Gus", "690"]]
    assert "counts whole: every round of it is over" in " ".join(season.split())
    # without a height (--once, a log) every table and the season are printed
    out = StringIO()
    Console(file=out, width=80).print(watch.frame(doc))
    assert "Season · Autumn" in out.getvalue() and "the next page" not in out.getvalue()
