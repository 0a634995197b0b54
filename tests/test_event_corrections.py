"""The director's corrections are new events, never edits (issue 44): each
one a signed entry of its own in the evening's log (before, after, by, at,
key, tag), the game counted from the board's hands and the entries in the
order made, the entries in the event record, an older archive's corrections
kept as unsigned entries, and the results site showing a corrected hand as
corrected, never "accepted by" someone who did not accept it (friction 1).
The evenings are tests/event_evenings.py's, worked out by hand there."""
from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from tallyboard import evening as tb_event
from tallyboard.cli import main
from tallyboard.club import releases
from tallyboard.evening import corrections, play, standings
from tallyboard.evening.store import EveningDatabase

import event_evenings as ev
import season_evenings as se

PIN = "4711"
STAMP = {"board_id": "B", "n": 0}
GOLDEN = Path(__file__).parent / "golden" / "archive_v3_evening.sql"
CORRECT = ("correct", "--round", "1", "--table", "1", "--hand", "4")


def cli(*args, env=None):
    return CliRunner().invoke(main, ["event", *args], env=env)


@pytest.fixture
def store(tmp_path, monkeypatch):
    """The three-table evening of event_evenings (THREE_*), round 1 played, the PIN set, an update key."""
    path = tmp_path / "archive.sqlite3"
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(path))
    monkeypatch.setenv("TALLYBOARD_DIRECTOR_PIN", PIN)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    releases.load_key(releases.update_key_path(), create=True)
    assert cli("create", "Tuesday club", *[a for n in ev.THREE_NAMES for a in ("--player", n)]).exit_code == 0
    assert cli("pin", "set", "--new-pin", PIN).exit_code == 0
    db = EveningDatabase(path)
    event = db.event()
    for t, hands in enumerate(ev.THREE_ROUND1, 1):
        db.save_table_game(event, 1, t, ev.table_record(ev.THREE_NAMES, ev.THREE_FIRST[t - 1], hands, True), STAMP)
    yield db
    db.close()


def board_hands_of(t):
    return ev.table_record(ev.THREE_NAMES, ev.THREE_FIRST[t - 1], ev.THREE_ROUND1[t - 1], True)["hands"]


def totals(db, t):
    event = db.event()
    names = [ev.THREE_NAMES[p] for p in ev.THREE_FIRST[t - 1]]
    return standings.table_sheet(names, play.counted_hands(db, event, 1, t), 4, "")["totals"]


def test_a_correction_is_a_signed_entry_whose_tag_fails_when_a_field_is_changed(store):
    result = cli(*CORRECT, "tricks=6")
    assert result.exit_code == 0, result.output
    (entry,) = store.corrections(store.event())
    assert set(entry) == {"round", "table", "hand", "before", "after", "by", "at", "key", "tag"}
    # table 1 hand 4 (the record's fourth entry, no misdeal there) is made(0): 1C, Ann, 7 tricks
    assert (entry["round"], entry["table"], entry["hand"], entry["by"]) == (1, 1, 4, "director")
    assert entry["before"] == {"purchaser": 0, "bid": "1C", "tricks": 7}
    assert entry["after"] == {"purchaser": 0, "bid": "1C", "tricks": 6}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", entry["at"])
    seed = releases.load_key(releases.update_key_path())
    assert entry["key"] == releases.public_key(seed).hex() and re.fullmatch(r"[0-9a-f]{128}", entry["tag"])
    assert corrections.check(entry) is None
    for field, value in (("after", {"purchaser": 0, "bid": "1C", "tricks": 7}), ("hand", 3), ("round", 2),
                         ("by", "Ann"), ("at", "2026-01-01T00:00:00+00:00"), ("table", 2),
                         ("before", {"purchaser": 0, "bid": "1C", "tricks": 6})):
        changed = dict(entry, **{field: value})
        assert "changed after it was signed" in corrections.check(changed), field
    other = releases.public_key(b"\x01" * 32).hex()     # another key: the tag is not its signature
    assert corrections.check(dict(entry, key=other)) is not None
    # the log still has its line, and says which key signed it
    (line,) = store.log(store.event())
    assert line["action"] == "correct" and f"signed by key {entry['key'][:8]}" in line["what"]


def test_a_correction_without_the_update_key_changes_nothing(store, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "elsewhere"))
    result = cli(*CORRECT, "tricks=6")
    assert result.exit_code != 0
    assert "a correction is signed with the director's update key: no update key at" in result.stderr
    assert "tallyboard release key" in result.stderr and "nothing was changed" in result.stderr
    assert store.corrections(store.event()) == [] and store.log(store.event()) == []


def test_a_second_correction_of_a_hand_keeps_both_and_the_last_counts(store):
    # hand 4 to 6 tricks (failed, SK8): totals 280, 260, 260, 240 become 280-70 = 210, 260-70+60 = 250,
    # 260-60+70 = 270, 240-60+70 = 250 (tests/test_event_director.py); then back to 7: the board's again
    assert cli(*CORRECT, "tricks=6").exit_code == 0
    assert totals(store, 1) == [210, 250, 270, 250]
    assert cli(*CORRECT, "tricks=7").exit_code == 0
    first, second = store.corrections(store.event())
    assert first["after"]["tricks"] == 6 and second["before"] == first["after"] and second["after"]["tricks"] == 7
    assert corrections.check(first) is None and corrections.check(second) is None
    assert totals(store, 1) == [280, 260, 260, 240]
    # the board's hands come back from the entries, undone from the last
    counted = play.counted_hands(store, store.event(), 1, 1)
    assert corrections.board_hands(counted, [first, second]) == board_hands_of(1)


def test_board_hands_undoes_a_rescore_and_the_hand_corrections_around_it(store, tmp_path):
    # table 3: hand 1 corrected, then the whole game rescored with table 1's hands, then its hand 2 corrected
    assert cli("correct", "--round", "1", "--table", "3", "--hand", "1", "tricks=8").exit_code == 0
    game = tmp_path / "game.json"
    game.write_text(json.dumps(ev.THREE_ROUND1[0]))
    assert cli("rescore", "--round", "1", "--table", "3", str(game)).exit_code == 0
    assert cli("correct", "--round", "1", "--table", "3", "--hand", "2", "tricks=8").exit_code == 0
    made = store.corrections(store.event(), 1, 3)
    assert [("whole" in e, e.get("hand")) for e in made] == [(False, 1), (True, None), (False, 2)]
    assert made[1]["before"][0]["tricks"] == 8 and made[1]["after"] == ev.THREE_ROUND1[0]
    counted = play.counted_hands(store, store.event(), 1, 3)
    assert counted[1]["tricks"] == 8 and counted[0] == ev.THREE_ROUND1[0][0]
    assert corrections.board_hands(counted, made) == board_hands_of(3)
    # the board's next sync changes none of it
    store.save_table_game(store.event(), 1, 3, ev.table_record(ev.THREE_NAMES, ev.THREE_FIRST[2],
                                                               ev.THREE_ROUND1[2], True), {"board_id": "B", "n": 9})
    assert play.counted_hands(store, store.event(), 1, 3) == counted


def test_board_hands_and_counted_by_hand():
    board = [{"tricks": 7}, {"tricks": 8}, {"misdeal": True}, {"tricks": 9}]
    entries = [{"hand": 2, "before": {"tricks": 8}, "after": {"tricks": 6}},
               {"hand": 2, "before": {"tricks": 6}, "after": {"tricks": 5}},
               {"hand": 4, "before": {"tricks": 9}, "after": {"tricks": 10}}]
    counted = corrections.counted(board, entries)
    assert counted == [{"tricks": 7}, {"tricks": 5}, {"misdeal": True}, {"tricks": 10}]
    assert corrections.board_hands(counted, entries) == board
    whole = {"whole": True, "before": counted, "after": [{"tricks": 1}]}
    assert corrections.counted(board, entries + [whole]) == [{"tricks": 1}]
    assert corrections.board_hands([{"tricks": 1}], entries + [whole]) == board
    assert corrections.counted(None, []) is None


def test_the_export_holds_the_entries_and_replays_to_the_same_standings(store, tmp_path):
    assert cli(*CORRECT, "tricks=6").exit_code == 0
    assert cli("correct", "--round", "1", "--table", "2", "--hand", "1", "tricks=8").exit_code == 0
    out = tmp_path / "evening.json"
    assert cli("export", str(out)).exit_code == 0
    exported = json.loads(out.read_text())
    assert exported["corrections"] == store.corrections(store.event())
    assert [(c["table"], c["hand"]) for c in exported["corrections"]] == [(1, 4), (2, 1)]
    assert exported["rounds"][0][0][3]["tricks"] == 6      # the hands as counted
    assert all(corrections.check(c) is None for c in exported["corrections"])
    result = cli("replay", str(out), "--json")
    assert result.exit_code == 0, result.output
    snap = tb_event.snapshot(store, store.event())
    assert [(s["rank"], s["player"], s["total"]) for s in json.loads(result.stdout)["standings"]] == [
        (s["rank"], s["player"], s["continuous"]) for s in snap["standings"]]
    # a bad entry is refused, naming the round, the table and the field
    for field, value, says in (("hand", "four", "corrections: 1: round 1: table 1: hand: must be a whole number"),
                               ("tag", "xyz", "corrections: 1: round 1: table 1: tag: must be 128 lowercase hex"),
                               ("table", 7, "corrections: 1: round 1: table 7: table: round 1 has tables 1 to 3")):
        bad = dict(exported, corrections=[dict(exported["corrections"][0], **{field: value})])
        out.write_text(json.dumps(bad))
        result = cli("replay", str(out))
        assert result.exit_code == 1 and says in result.stderr, (field, result.stderr)


def test_an_older_archive_s_corrections_open_as_unsigned_entries_and_count_the_same(tmp_path):
    # tests/golden/archive_v3_evening.sql (archive version 3): round 1 table 1 hand 4 (G1's h4, Cy's 1C with
    # 6 tricks, failed: [70, 70, 0, 60]) corrected to 7, made: seats 2, 3 70 each, seats 0, 1 10 x 6 = 60
    # each. G1's totals 410, 410, 310, 370 become 410-10 = 400, 400, 310+70 = 380, 370+10 = 380.
    path = tmp_path / "archive.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(GOLDEN.read_text(encoding="utf-8"))
    db.close()
    with EveningDatabase(path) as store:
        event = store.event("Tuesday 1")
        (entry,) = store.corrections(event)
        assert entry == {"round": 1, "table": 1, "hand": 4, "before": {"bid": "1C", "purchaser": 2, "tricks": 6},
                         "after": {"bid": "1C", "purchaser": 2, "tricks": 7}, "by": "director",
                         "at": "2026-11-27T15:19:00+00:00", "key": None, "tag": None}
        assert corrections.check(entry) == corrections.UNSIGNED
        counted = play.counted_hands(store, event, 1, 1)
        assert standings.table_sheet(["Ann", "Bob", "Cy", "Dee"], counted, 6, "")["totals"] == [400, 400, 380, 380]
        assert corrections.board_hands(counted, [entry]) == store.table_game(event, 1, 1)["hands"]
        doc, _ = play.export(store, event)
    assert doc["corrections"] == [entry]
    out = tmp_path / "e.json"
    out.write_text(json.dumps(doc))
    assert cli("replay", str(out)).exit_code == 0
    assert "event_corrections" not in {n for n, in sqlite3.connect(path).execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_the_site_shows_a_corrected_hand_as_corrected_never_accepted_by_who_did_not(tmp_path, monkeypatch):
    # friction 1 of issue 44. Round 1 table 1 (Ann Bob Cy Dee) plays G1; its hand 4 is Cy's 1C with 6
    # tricks (failed), accepted on the board by Bob (seat 1, an opponent: partners 2+3 in hand 4, SK5).
    # The director corrects it to 7 tricks after the evening: nobody at the table accepted that hand.
    path = tmp_path / "archive.sqlite3"
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(path))
    monkeypatch.delenv("TALLYBOARD_DIRECTOR_PIN", raising=False)
    table1 = [dict(ev.G1[0], accepted_by=3)] + ev.G1[1:3] + [dict(ev.G1[3], accepted_by=1)] + ev.G1[4:]
    monkeypatch.setattr(ev, "TWO_ROUND1", [table1, ev.TWO_ROUND1[1]])
    se.evening(path, *se.E1[:3], 1)
    se.ok("event", "pin", "set", "--new-pin", PIN)
    se.ok("event", "correct", "--event", "Tuesday 1", "--round", "1", "--table", "1", "--hand", "4", "tricks=7",
          *se.signing_key(path), env={"TALLYBOARD_DIRECTOR_PIN": PIN})
    with EveningDatabase(path) as store:
        (entry,) = store.corrections(store.event("Tuesday 1"))
    assert "accepted_by" not in entry["after"] and entry["before"]["accepted_by"] == 1
    se.ok("season", "create", "Autumn", "--rule", "total")
    se.ok("season", "add", "Tuesday 1")
    site = tmp_path / "site"
    se.ok("results", "build", str(site))
    page = (site / "evening-1.html").read_text()
    section = page.split('id="r1t1"')[1].split("</section>")[0]
    when = entry["at"].replace("T", " ")[:16]
    assert (f"Hand 4 corrected by the director, {when} UTC (signed, key {entry['key'][:8]}): it replaced the "
            "board's hand, Purchaser Cy, Bid 1C, Tricks 6, accepted on the board by Bob; it is now Purchaser Cy, "
            "Bid 1C, Tricks 7.") in section, section
    plain = re.sub(r'<span class="why".*?</span></span>', "", section).replace('<tr class="hand" tabindex="0">',
                                                                               "<tr>")
    head = re.findall(r"<th[^>]*>([^<]*)</th>", plain)
    column = head.index("Accepted by")
    rows = {row[0]: row for row in (re.findall(r"<td[^>]*>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", plain))
            if row and row[0].isdigit()}
    assert rows["4"][column] == "corrected" and "Bob" not in rows["4"][column]
    assert "Dee" in rows["1"][column]             # a hand not corrected: who accepted it, as before
    # Bob's card says the same
    card = (site / "evening-1-player-1.html").read_text()
    assert "Hand 4 corrected by the director" in card and "accepted on the board by Bob" in card
