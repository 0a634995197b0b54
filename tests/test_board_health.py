"""Each board's health at the director (issue 43; docs/club-mqtt.md, "The director's
view of the boards"): the body's check reads tallynet.health.FIELDS; the director's
link takes a board's own signed health and refuses a forged or malformed one,
changing nothing; the latest of each board is kept in the director's club file and
survives reopening; the judge's warnings, worked out by hand; `tallyboard event
boards` on an evening seeded through the link's real receive path (no broker: its
worker is driven message by message, as test_club_links does)."""
from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from tallynet import health as fields
from tallyboard.cli import main
from tallyboard.club import director_link, envelope, kinds
from tallyboard.common import database
from tallyboard.common.ratelog import RateLog
from tallyboard.evening import board_health, play
from tallyboard.evening import club as club_mod
from tallyboard.evening.board_health import judge
from tallyboard.evening.tables import event_tag

from club_director_support import Message, unstarted_director

PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]     # two tables
RELEASE = "abc123def456"       # the director's checkout's release, as the tests set it


def good_body(**changes) -> dict:
    body = {"fw": "0.1.0", "release": RELEASE, "up_s": 3 * 3600 + 25 * 60 + 7, "resets": 5, "cause": "power",
            "free": 61_440, "block": 30_720, "rssi": -61, "reconnects": 1, "erases": 12, "records": 340,
            "vsys_mv": 5_020}
    body.update(changes)
    return body


# ---------------------------------------------------------------- the body's check

def test_the_body_check_reads_the_one_definition_and_takes_a_good_body():
    assert [f[0] for f in fields.FIELDS] == list(good_body())       # the body above is the definition's
    kinds.KINDS["health"].body(good_body())
    kinds.KINDS["health"].body(good_body(rssi=None, vsys_mv=None, release="-"))   # unmeasured; no release


@pytest.mark.parametrize("changes, field", [
    ({"rssi": 3}, "rssi"),                        # above its range
    ({"rssi": -128}, "rssi"),                     # below it
    ({"vsys_mv": 20_001}, "vsys_mv"),
    ({"free": -1}, "free"),
    ({"up_s": "3600"}, "up_s"),                   # a number as text
    ({"resets": True}, "resets"),                 # JSON true is no number
    ({"block": 2**30}, "block"),
    ({"fw": ""}, "fw"),                           # a name of no letters
    ({"fw": "0.1.0<b>"}, "fw"),                   # letters a name has not
    ({"release": "x" * 17}, "release"),           # longer than its 16
    ({"release": None}, "release"),               # a name is never null
    ({"cause": "brownout"}, "cause"),             # not one of the causes
    ({"erases": None, "surplus": 1}, "surplus"),  # a field the definition has not
])
def test_the_body_check_refuses_each_bad_body_naming_the_field(changes, field):
    with pytest.raises(kinds.BodyError, match=field):
        kinds.KINDS["health"].body(good_body(**changes))


def test_a_body_missing_a_field_is_refused_naming_it():
    body = good_body()
    del body["reconnects"]
    with pytest.raises(kinds.BodyError, match="missing reconnects"):
        kinds.KINDS["health"].body(body)


# ---------------------------------------------------------------- received at the director

@pytest.fixture
def director(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(board_health, "current_release", lambda: RELEASE)
    with unstarted_director(tmp_path, monkeypatch, PLAYERS) as made:
        yield made


def ident(director, table: int) -> str:
    return club_mod.board_ident(event_tag(director.event), table)


def health_message(director, table: int, body: dict, key_of: int | None = None, board: str | None = None,
                   topic_of: int | None = None) -> Message:
    """Table `table`'s health as its board publishes it: on its own topic, signed with its own key.
    key_of: signed with another table's key; board: another envelope sender; topic_of: on
    another table's topic (forgeries)."""
    sender = board or ident(director, table)
    key = envelope.board_key(director.secret, ident(director, key_of or table))
    payload = envelope.seal(key, director.id, sender, 0, "health", body)
    return Message(envelope.table_topic(director.id, ident(director, topic_of or table), "health"), payload)


def status_message(director, table: int, online: bool) -> Message:
    login = ident(director, table)
    payload = envelope.seal(envelope.board_key(director.secret, login), director.id, login, 0, "status",
                            {"online": online, "boards": [login]})
    return Message(envelope.host_status_topic(director.id, login), payload)


def test_a_boards_own_health_is_kept_with_when_it_came(director):
    director.link._on_message(health_message(director, 1, good_body()))
    assert director.link.refused() == []
    kept = director.link.health()
    assert list(kept) == [ident(director, 1)]
    body, at, first = kept[ident(director, 1)]
    assert body == good_body() and first == 5 and at.count(":") == 2


@pytest.mark.parametrize("forgery, reason", [
    ({"key_of": 2}, "signature"),                 # table 2's key on table 1's health: not table 1's
    ({"topic_of": 2}, "field"),                   # table 1's health on table 2's topic
    ({"board": "0000.9"}, "field"),               # another sender on table 1's topic
])
def test_a_forged_health_is_refused_and_changes_nothing(director, forgery, reason):
    director.link._on_message(health_message(director, 1, good_body(rssi=-50)))
    director.link._on_message(health_message(director, 1, good_body(rssi=-90, resets=9), **forgery))
    assert director.link.health()[ident(director, 1)][0]["rssi"] == -50
    assert ident(director, 2) not in director.link.health()
    assert [reason for _, reason, _ in director.link.refused_counts()] == [reason], director.link.refused()


def test_a_malformed_health_is_refused_naming_its_field_and_changes_nothing(director, caplog, monkeypatch):
    # the refusals' log says a topic's first refusal a minute: a fresh one, whatever ran before in this process
    monkeypatch.setattr(director_link, "_REFUSED_LOG", RateLog(director_link.log, "the director refused"))
    director.link._on_message(health_message(director, 1, good_body()))
    director.link._on_message(health_message(director, 1, good_body(free="lots")))
    director.link._on_message(Message(envelope.table_topic(director.id, ident(director, 1), "health"), b"{not json"))
    assert director.link.health()[ident(director, 1)][0] == good_body()
    reasons = [(reason, text) for _, reason, text in
               [(r[1], r[2], r[3]) for r in director.link.refused()]]
    assert reasons[0][0] == "field" and "health free 'lots'" in reasons[0][1]
    assert reasons[1][0] == "json"
    assert f"refused {envelope.table_topic(director.id, ident(director, 1), 'health')}: health 0 from " \
        f"'{ident(director, 1)}': health free 'lots' is not a whole number" in caplog.text


def test_a_board_not_of_the_evening_is_refused(director):
    stranger = club_mod.board_ident(event_tag(director.event), 7)      # the evening has two tables
    key = envelope.board_key(director.secret, stranger)
    payload = envelope.seal(key, director.id, stranger, 0, "health", good_body())
    director.link._on_message(Message(envelope.table_topic(director.id, stranger, "health"), payload))
    assert director.link.health() == {}
    assert director.link.refused()[0][2] == "board"


def test_the_latest_is_kept_the_first_resets_stay_and_both_survive_reopening(director):
    director.link._on_message(health_message(director, 2, good_body(resets=5)))
    director.link._on_message(health_message(director, 2, good_body(resets=7, cause="soft", up_s=60)))
    path = club_mod.director_file(director.event)
    director.link.stop()
    db = database.open_file(path, database.DIRECTOR)
    try:
        assert database.version_of(db) == database.DIRECTOR.version
        (board, body, first), = db.execute("SELECT board, body, first_resets FROM health").fetchall()
    finally:
        db.close()
    assert (board, json.loads(body), first) == (ident(director, 2), good_body(resets=7, cause="soft", up_s=60), 5)


def test_the_retained_copy_handed_again_keeps_when_the_report_first_came(director):
    link = director.link
    link._on_message(health_message(director, 2, good_body(up_s=60)))
    board = ident(director, 2)
    with link._lock:
        link.store.execute("UPDATE health SET at = '2026-11-29 19:00:00' WHERE board = ?", (board,))
    link._on_message(health_message(director, 2, good_body(up_s=60)))    # the broker's retained copy again
    assert link.health()[board][1] == "2026-11-29 19:00:00"
    link._on_message(health_message(director, 2, good_body(up_s=360)))   # a new report: now
    assert link.health()[board][1] != "2026-11-29 19:00:00"


def test_a_directors_file_of_before_the_health_is_migrated_with_what_it_had(tmp_path):
    """Version 3 (each client's status) to 4 (each board's health): the statuses kept, no health yet."""
    import sqlite3

    path = tmp_path / "club-director.sqlite3"
    old = sqlite3.connect(path)
    for script in database.DIRECTOR.migrations[:3]:
        old.executescript(script)
    old.execute("INSERT INTO clients VALUES ('1A2B.1', 1, '2026-11-27 19:00:00', '[\"1A2B.1\"]')")
    old.execute("PRAGMA user_version = 3")
    old.commit()
    old.close()
    db = database.open_file(path, database.DIRECTOR)
    try:
        assert database.version_of(db) == database.DIRECTOR.version == 4
        assert db.execute("SELECT client, online FROM clients").fetchall() == [("1A2B.1", 1)]
        assert db.execute("SELECT count(*) FROM health").fetchone() == (0,)
    finally:
        db.close()


# ---------------------------------------------------------------- the judge, worked out by hand

def warnings(body: dict | None, release: str | None = RELEASE, fw: str | None = "0.1.0", first: int | None = 5,
             age: float | None = 30, online: bool = True) -> list[str]:
    return [w["text"] for w in judge(body, release=release, fw=fw, first_resets=first, age_s=age, online=online)]


def test_a_healthy_board_has_no_warning():
    assert warnings(good_body()) == []
    # each threshold itself is not past it
    assert warnings(good_body(rssi=-75, resets=7, free=20_000, block=8_000, vsys_mv=4_500), age=600) == []


def test_each_warning_in_words_with_what_to_do():
    assert warnings(good_body(rssi=-76)) == ["weak signal: -76 dBm: move the board or the access point closer"]
    # 5 at the first report, 8 now: grown by 3
    assert warnings(good_body(resets=8)) == [
        "frequent resets: 3 resets this evening: check its supply and cable; if it goes on, swap the board"]
    # the watchdog's reset with none this evening (5 then, 5 now): how rp2 says machine.reset(), as a deploy
    # resets the board, so no warning; one reset this evening (5 then, 6 now) by the watchdog: a warning
    assert warnings(good_body(cause="watchdog")) == []
    assert warnings(good_body(cause="watchdog", resets=6)) == [
        "frequent resets: last reset by the watchdog, this evening: check its supply and cable; if it goes on, "
        "swap the board"]
    # 19 999 / 1024 = 19.53; 30 720 / 1024 = 30.0
    assert warnings(good_body(free=19_999)) == [
        "heap low: 19.5 KB free, largest block 30.0 KB: restart the board between rounds"]
    # 7 999 / 1024 = 7.81
    assert warnings(good_body(block=7_999)) == [
        "heap low: 60.0 KB free, largest block 7.8 KB: restart the board between rounds"]
    # 2 x PERIOD_MS = 600 s; 601 s is 10 min
    assert warnings(good_body(), age=601) == [
        "silent: no report in 10 min while online: check that the board is running, and restart it if it does "
        "not answer"]
    assert warnings(good_body(vsys_mv=4_400)) == ["supply low: 4.40 V: use a better USB supply or a shorter cable"]
    assert warnings(good_body(release="000000000000")) == [
        "old firmware: release 000000000000, the director's is abc123def456: deploy this checkout to the board "
        "(tallyboard deploy)"]


def test_old_firmware_by_its_version_when_the_release_is_not_known():
    assert warnings(good_body(fw="0.0.9"), release=None) == [
        "old firmware: firmware 0.0.9, the director's is 0.1.0: deploy this checkout to the board "
        "(tallyboard deploy)"]
    assert warnings(good_body(fw="0.2.0"), release=None) == []         # newer than the director's: not old
    assert warnings(good_body(fw="dev"), release=None) == []           # no version to compare
    assert warnings(good_body(fw="0.1.0", release="0123456789ab"), release=None) == []


def test_what_is_not_measured_or_not_online_warns_of_nothing():
    assert warnings(good_body(rssi=None, vsys_mv=None, free=None, block=None, resets=None)) == []
    assert warnings(good_body(), age=10_000, online=False) == []         # offline: not silent, just away
    assert warnings(None, age=601) == [
        "silent: no report in 10 min while online: check that the board is running, and restart it if it does "
        "not answer"]
    assert warnings(None, age=599) == []


def test_several_warnings_at_once_in_one_order():
    names = [w["warning"] for w in judge(good_body(release="-", rssi=-90, cause="watchdog", resets=6, free=1_000,
                                                   vsys_mv=3_900),
                                         release=RELEASE, fw="0.1.0", first_resets=5, age_s=900, online=True)]
    assert names == ["old firmware", "weak signal", "frequent resets", "heap low", "silent", "supply low"]


# ---------------------------------------------------------------- `tallyboard event boards`

def seeded(director) -> None:
    """Table 1 healthy; table 2 with a weak signal and its resets grown from 5 to 9 since its first report."""
    director.link._on_message(status_message(director, 1, True))
    director.link._on_message(status_message(director, 2, True))
    director.link._on_message(health_message(director, 1, good_body()))
    director.link._on_message(health_message(director, 2, good_body(resets=5)))
    director.link._on_message(health_message(director, 2, good_body(
        resets=9, cause="soft", rssi=-82, up_s=125, free=18_432, block=9_216, reconnects=4, erases=3, records=17,
        vsys_mv=None, release="0123456789ab")))
    assert director.link.refused() == []


def test_event_boards_prints_each_board_and_its_warnings_in_words(director, monkeypatch):
    seeded(director)
    monkeypatch.setenv("COLUMNS", "250")
    result = CliRunner().invoke(main, ["event", "boards"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    one = next(line for line in lines if line.strip().startswith("1 ") and ident(director, 1) in line)
    two = next(line for line in lines if line.strip().startswith("2 ") and ident(director, 2) in line)
    # table 1: 3 h 25 min up; 61 440 / 1024 = 60.0 KB, 30 720 / 1024 = 30.0 KB; 5.02 V
    for cell in (RELEASE, "3:25", "5 (power)", "60.0 / 30.0", "-61 dBm", "12 / 340", "5.02 V", "ok"):
        assert cell in one, (cell, one)
    # table 2: 0:02 up; 18 432 / 1024 = 18.0, 9 216 / 1024 = 9.0; no VSYS
    for cell in ("0123456789ab (old)", "0:02", "9 (soft)", "18.0 / 9.0", "-82 dBm", "3 / 17", "—",
                 "old firmware, weak signal, frequent resets, heap low"):
        assert cell in two, (cell, two)
    said = [line for line in lines if line.startswith("table 2 (")]
    assert said == [
        f"table 2 ({ident(director, 2)}): old firmware: release 0123456789ab, the director's is {RELEASE}: deploy "
        "this checkout to the board (tallyboard deploy)",
        f"table 2 ({ident(director, 2)}): weak signal: -82 dBm: move the board or the access point closer",
        f"table 2 ({ident(director, 2)}): frequent resets: 4 resets this evening: check its supply and cable; if it "
        "goes on, swap the board",
        f"table 2 ({ident(director, 2)}): heap low: 18.0 KB free, largest block 9.0 KB: restart the board between "
        "rounds"]
    assert not [line for line in lines if line.startswith("table 1 (")]


def test_event_boards_json_for_scripts(director):
    seeded(director)
    result = CliRunner().invoke(main, ["event", "boards", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["event"] == "Club night"
    assert [c["key"] for c in doc["columns"]][:3] == ["table", "board", "release"]
    rows = {r["table"]: r for r in doc["rows"]}
    assert rows[1]["health"] == good_body() and rows[1]["warnings"] == [] and rows[1]["online"] is True
    assert [w["warning"] for w in rows[2]["warnings"]] == ["old firmware", "weak signal", "frequent resets",
                                                           "heap low"]
    assert rows[2]["old"] is True and rows[2]["health"]["resets"] == 9


def test_event_boards_silent_board_from_the_stored_time(director):
    seeded(director)
    later = board_health.evening_rows(director.store, director.event,
                                      now=_stored_now(director) + timedelta(seconds=601))
    assert ["silent" in [w["warning"] for w in row["warnings"]] for row in later] == [True, True]


def _stored_now(director):
    """The latest time a report was stored at (SQLite's whole seconds): on a loaded machine the boards'
    reports may be stored in different seconds, and each is judged from its own."""
    return max(board_health._stored(at) for _, at, _ in director.link.health().values())


def test_event_boards_with_no_report_says_what_to_do(director):
    result = CliRunner().invoke(main, ["event", "boards"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("no board of evening 'Club night' has reported its health yet.")
    assert "tallyboard event serve --club" in result.output
    assert json.loads(CliRunner().invoke(main, ["event", "boards", "--json"]).output)["rows"] == []


def test_event_boards_with_no_evening_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(tmp_path / "archive.sqlite3"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    result = CliRunner().invoke(main, ["event", "boards"])
    assert result.exit_code != 0
    assert "no event in progress: start one with tallyboard event create" in result.output


def test_the_snapshot_carries_the_boards_only_when_a_board_reported(director):
    assert "boards" not in play.snapshot(director.store, director.event)
    seeded(director)
    doc = play.snapshot(director.store, director.event)
    assert [r["table"] for r in doc["boards"]["rows"]] == [1, 2]
    assert doc["boards"]["rows"][1]["shown"]["heap"] == "18.0 / 9.0"


@pytest.mark.process        # builds the file set: mpy-cross
def test_the_directors_release_is_this_checkouts_file_set():
    from tallyboard.tooling import fileset

    assert board_health.current_release.__wrapped__() == fileset.release_id(fileset.build())
