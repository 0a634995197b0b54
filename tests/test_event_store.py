"""The evening in the archive file (tallyboard.evening.EveningDatabase), the
snapshot every view shows, `event create/status/next/finish/export`, and the
boards' hook. Expectations from tests/event_evenings.py (worked by hand)."""
import json
import sqlite3

import pytest
from click.testing import CliRunner

from tallyboard import evening as tb_event
from tallyboard.scorebook.archive import Archive
from tallyboard.cli import main
from tallyboard.evening import play
from tallyboard.evening.store import EveningError, EveningDatabase

import event_evenings as ev
from waiting import until

STAMP = {"board_id": "E6614103E7", "n": 4, "lcrc": "1A2B", "held": 0}


@pytest.fixture
def archive(tmp_path, monkeypatch):
    path = tmp_path / "archive.sqlite3"
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(path))
    return path


def cli(*args, input=None):
    return CliRunner().invoke(main, ["event", *args], input=input)


def create_three(archive):
    args = ["create", "Tuesday club", "--rounds", "3"]
    for name in ev.THREE_NAMES:
        args += ["--player", name]
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    return EveningDatabase(archive)


def play_round(store, names, seating, games, round, four_hands=True):
    """Each table's board reports its game; which of them changed what is stored."""
    event = store.event()
    return [store.save_table_game(event, round, t, ev.table_record(names, seating[t - 1], hands, four_hands),
                                  dict(STAMP, n=len(hands))) for t, hands in enumerate(games, 1)]


def test_create_seats_in_the_order_given(archive):
    store = create_three(archive)
    event = store.event()
    assert (event.name, event.state, event.round, event.rounds) == ("Tuesday club", "created", 1, 3)
    assert store.seating(event, 1) == ev.THREE_FIRST
    assert store.names(event) == ev.THREE_NAMES


def test_create_refuses_players_not_in_fours_and_a_wrong_table_count(archive):
    result = cli("create", "x", "--player", "Ann", "--player", "Bob", "--player", "Cy")
    assert result.exit_code != 0 and "3 players: an evening seats four at every table" in result.stderr
    args = ["create", "x", "--tables", "3"] + [a for n in ev.TWO_NAMES for a in ("--player", n)]
    result = cli(*args)
    assert result.exit_code != 0 and "3 tables seat 12 players, and 8 are given" in result.stderr
    assert not archive.exists() or EveningDatabase(archive).events() == []


def test_a_drawn_seating_is_the_seed_s_shuffle(archive, tmp_path):
    import random

    players = tmp_path / "players.txt"
    players.write_text("\n".join(ev.TWO_NAMES) + "\n")
    result = cli("create", "drawn", "--players-file", str(players), "--seating", "draw", "--seed", "7")
    assert result.exit_code == 0, result.stderr
    order = list(range(8))
    random.Random(7).shuffle(order)   # the draw is the seeded shuffle of the order given
    assert EveningDatabase(archive).seating(EveningDatabase(archive).event(), 1) == [order[:4], order[4:]]


def test_saving_the_same_game_twice_changes_nothing(archive):
    store = create_three(archive)
    event = store.event()
    record = ev.table_record(ev.THREE_NAMES, ev.THREE_FIRST[0], ev.THREE_ROUND1[0][:2], True)
    assert store.save_table_game(event, 1, 1, record, STAMP) is True
    before = store.refresh(event).updated_at
    rows = sqlite3.connect(archive).execute("SELECT count(*) FROM event_games").fetchone()
    assert store.save_table_game(event, 1, 1, json.loads(json.dumps(record)), dict(STAMP)) is False
    assert sqlite3.connect(archive).execute("SELECT count(*) FROM event_games").fetchone() == rows == (1,)
    assert store.refresh(event).updated_at == before
    # the board's newer game replaces the stored one: never added to it
    longer = ev.table_record(ev.THREE_NAMES, ev.THREE_FIRST[0], ev.THREE_ROUND1[0][:3], True)
    assert store.save_table_game(event, 1, 1, longer, dict(STAMP, n=3)) is True
    assert store.table_game(event, 1, 1) == longer
    doc = tb_event.snapshot(store, event)
    # hands 1-3 of sides 02 02 01: seat 0 70+70+70 = 210, seat 1 60+60+70 = 190,
    # seat 2 70+70+60 = 200, seat 3 60+60+60 = 180
    assert doc["tables"][0]["totals"] == [210, 190, 200, 180]
    assert store.refresh(event).state == "running"


def test_a_record_for_another_table_is_refused(archive):
    store = create_three(archive)
    event = store.event()
    other = ev.table_record(ev.THREE_NAMES, ev.THREE_FIRST[1], [], True)
    with pytest.raises(EveningError, match="round 1 table 1: the game is for Eve, Fay, Gus, Hal but the table seats "
                                         "Ann, Bob, Cy, Dee; is it another table's board"):
        store.save_table_game(event, 1, 1, other, STAMP)
    six = ev.table_record(ev.THREE_NAMES, ev.THREE_FIRST[0], [], False)
    with pytest.raises(EveningError, match="not the evening's game of 4 hands"):
        store.save_table_game(event, 1, 1, six, STAMP)
    assert store.table_game(event, 1, 1) is None


def test_the_archive_s_own_games_are_left_alone(archive):
    with Archive(archive) as games_archive:
        from tallyboard.scorebook import records

        games_archive.add(records.from_document(ev.table_record(ev.THREE_NAMES, ev.THREE_FIRST[0],
                                                                ev.THREE_ROUND1[0], True)), "test")
    store = create_three(archive)
    play_round(store, ev.THREE_NAMES, ev.THREE_FIRST, ev.THREE_ROUND1, 1)
    with Archive(archive) as games_archive:
        assert len(list(games_archive.entries())) == 1


def test_the_snapshot_of_a_round_in_play_and_over(archive):
    store = create_three(archive)
    event = store.event()
    play_round(store, ev.THREE_NAMES, ev.THREE_FIRST, [ev.THREE_ROUND1[0], ev.THREE_ROUND1[1][:3]], 1)
    store.set_board(event, 1, "/dev/ttyACM0", "E661")
    store.set_pending(event, 1, 2, {"hand": 4, "waiting_for": ["Eve", "Gus"], "scores": [70, 70, 60, 60]})
    doc = tb_event.snapshot(store, event)
    assert doc["format"] == "tallyboard-event-view/1" and doc["round"] == 1 and doc["hands"] == 4
    t1, t2, t3 = doc["tables"]
    assert t1["complete"] and t1["totals"] == [280, 260, 260, 240] and t1["board"] == "/dev/ttyACM0"
    assert t1["status"] == "ok" and t1["names"] == ["Ann", "Bob", "Cy", "Dee"]
    # hand 3 of table 1 (sides 01, seat 0 bought): the seats pivot, Bob and Cy change seats (SK5)
    # and why (tallycore.why): Ann bid 1C and her side took 7 = 6 + 1, made: she and her partner Bob
    # 60 + 10 = 70 (SK7), Cy and Dee 10 for each of the 13 - 7 = 6 tricks they took (SK7)
    assert t1["hands"][2] == {"hand": 3, "dealer": 0, "seats": [0, 2, 1, 3], "scores": [70, 70, 60, 60], "why": [
        "Ann and Bob +70: made: the purchaser and his partner score the bid's value, 60 + 10 a level (SK7)",
        "Cy and Dee +60: an adversary of a bid made: 10 for each trick the adversaries took (SK7)"]}
    # table 2 after three hands of sides 13 13 23: 60x3 = 180, 70+70+60 = 200, 60+60+70 = 190, 70x3 = 210
    assert not t2["complete"] and t2["totals"] == [180, 200, 190, 210] and t2["board"] is None
    assert t2["pending"]["waiting_for"] == ["Eve", "Gus"]
    assert t3["hands"] == [] and t3["totals"] == [0, 0, 0, 0]
    assert doc["moves_final"] is False
    # provisional: table 2's leader so far Hal (210) goes up into Dee's seat
    # 3; table 3 has nothing yet: all tied, seat 0 (Ivy) up into Hal's seat 3
    assert [(m["player"], m["from"], m["to"], m["seat"]) for m in doc["moves"]] == [
        (3, 1, 3, 0), (7, 2, 1, 3), (8, 3, 2, 3)]
    # table 1's game is what was stored: only tables 2 and 3 changed
    assert play_round(store, ev.THREE_NAMES, ev.THREE_FIRST, ev.THREE_ROUND1, 1) == [False, True, True]
    store.set_pending(event, 1, 2, None)
    doc = tb_event.snapshot(store, event)
    assert doc["moves_final"] is True and doc["next_seating"] == ev.THREE_SEATING2
    assert [(m["name"], m["from"], m["to"], m["seat"]) for m in doc["moves"]] == [
        ("Dee", 1, 3, 2), ("Fay", 2, 1, 3), ("Kit", 3, 2, 1)]
    assert [s["continuous"] for s in doc["standings"]] == sorted(ev.THREE_ROUND1_SCORES, reverse=True)
    assert doc["standings"][0] == {"rank": 1, "player": 0, "name": "Ann", "continuous": 280, "games": 1,
                                   "games_won": 1, "table": 1}
    assert doc["tables"][1]["pending"] is None


def test_next_refuses_naming_the_tables_not_over(archive):
    store = create_three(archive)
    play_round(store, ev.THREE_NAMES, ev.THREE_FIRST, [ev.THREE_ROUND1[0], ev.THREE_ROUND1[1][:3]], 1)
    result = cli("next")
    assert result.exit_code != 0 and result.stdout == ""
    assert ("round 1 is not over: table 2 (3 of 4 hands), table 3 (0 of 4 hands); finish those games, or "
            "tallyboard event next --force with the director's PIN") in result.stderr
    assert store.event().round == 1


def test_a_whole_evening_through_the_store_then_export_and_replay(archive, tmp_path, monkeypatch):
    pushed = []
    monkeypatch.setattr(play, "_new_round_pushers", [])
    tb_event.add_new_round_pusher(lambda store, event, round: pushed.append(
        (round, store.seating(event, round), store.refresh(event).round)))
    store = create_three(archive)
    event = store.event()
    store.set_board(event, 1, "emu1", "B1")
    play_round(store, ev.THREE_NAMES, ev.THREE_FIRST, ev.THREE_ROUND1, 1)
    result = cli("next")
    assert result.exit_code == 0, result.stderr
    assert "Round 2 of 3: table 1: Ann, Bob, Cy, Fay; table 2: Eve, Kit, Gus, Hal; table 3: Ivy, Jo, Dee, Lou" \
        in result.stdout
    # the store first, then the push: the pusher saw round 2 stored
    assert pushed == [(2, ev.THREE_SEATING2, 2)]
    play_round(store, ev.THREE_NAMES, ev.THREE_SEATING2, ev.THREE_ROUND2, 2)
    doc = tb_event.snapshot(store, store.event())
    assert doc["next_seating"] == ev.THREE_SEATING3
    assert [(s["rank"], s["player"]) for s in doc["standings"]] == ev.THREE_STANDINGS
    assert [s["continuous"] for s in doc["standings"]] == [ev.THREE_TOTALS[p] for _, p in ev.THREE_STANDINGS]
    assert [s["games_won"] for s in doc["standings"]] == [ev.THREE_GAMES_WON[p] for _, p in ev.THREE_STANDINGS]
    out = tmp_path / "evening.json"
    result = cli("export", str(out))
    assert result.exit_code == 0, result.stderr
    exported = json.loads(out.read_text())
    assert exported["rounds"] == [ev.THREE_ROUND1, ev.THREE_ROUND2] and "reseated" not in exported
    result = cli("replay", str(out), "--json")
    assert result.exit_code == 0, result.stderr
    replayed = json.loads(result.stdout)
    assert [(s["rank"], s["player"], s["total"], s["games_won"]) for s in replayed["standings"]] == [
        (s["rank"], s["player"], s["continuous"], s["games_won"]) for s in doc["standings"]]
    assert replayed["next_seating"] == doc["next_seating"]
    result = cli("finish")
    assert result.exit_code == 0, result.stderr
    assert "'Tuesday club' is finished. Winner: Ann (550)" in result.stdout
    assert store.event("Tuesday club").state == "finished"
    result = cli("next", "--event", "Tuesday club")
    assert result.exit_code != 0 and "is finished; nothing was changed" in result.stderr


def test_export_leaves_the_round_in_play_out_and_says_so(archive):
    store = create_three(archive)
    play_round(store, ev.THREE_NAMES, ev.THREE_FIRST, ev.THREE_ROUND1, 1)
    assert cli("next").exit_code == 0
    play_round(store, ev.THREE_NAMES, ev.THREE_SEATING2, [ev.THREE_ROUND2[0]], 2)
    result = cli("export")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["rounds"] == [ev.THREE_ROUND1]
    assert "note: round 2 is in progress (table 2 (0 of 4 hands), table 3 (0 of 4 hands))" in result.stderr


def test_the_last_round_then_finish(archive):
    store = create_three(archive)
    for _ in range(2):
        event = store.event()
        seating = store.seating(event, event.round)
        play_round(store, ev.THREE_NAMES, seating, ev.THREE_ROUND1, event.round)
        assert cli("next").exit_code == 0
    play_round(store, ev.THREE_NAMES, store.seating(store.event(), 3), ev.THREE_ROUND1, 3)
    result = cli("next")
    assert result.exit_code != 0 and "all 3 rounds of 'Tuesday club' are played: tallyboard event finish" \
        in result.stderr


def test_status_prints_the_standings_and_tables(archive):
    store = create_three(archive)
    play_round(store, ev.THREE_NAMES, ev.THREE_FIRST, ev.THREE_ROUND1, 1)
    result = cli("status")
    assert result.exit_code == 0, result.stderr
    assert "Tuesday club — running, round 1 of 3, 4-hand games" in result.stdout
    assert "Ann 280, Bob 260, Cy 260, Dee 240" in result.stdout
    assert "Moves: Dee table 1 → 3 seat 2; Fay table 2 → 1 seat 3; Kit table 3 → 2 seat 1" in result.stdout
    result = cli("status", "--json")
    assert json.loads(result.stdout)["event"] == "Tuesday club"


def test_no_event_says_how_to_start_one(archive):
    result = cli("status")
    assert result.exit_code != 0
    assert "no event in progress: start one with tallyboard event create NAME --player NAME" in result.stderr


def test_readers_in_other_threads_see_whole_changes(archive):
    import threading

    store = create_three(archive)
    event = store.event()
    seen, failures = [], []
    stop = threading.Event()

    def watch():
        try:
            while not stop.is_set():
                doc = tb_event.snapshot(store, event)
                seen.append(sum(len(t["hands"]) for t in doc["tables"]))
        except Exception as exc:   # what the view thread would die of
            failures.append(exc)

    reader = threading.Thread(target=watch)
    reader.start()
    try:
        for n in range(1, 5):
            play_round(store, ev.THREE_NAMES, ev.THREE_FIRST, [g[:n] for g in ev.THREE_ROUND1], 1)
            until(lambda n=n: len(seen) >= 2 * n or failures, 10, f"{2 * n} snapshots read by the other thread",
                  every=0.01)
    finally:
        stop.set()
        reader.join(10)
    assert not failures and not reader.is_alive()
    assert seen == sorted(seen) and seen[-1] == 12 and set(seen) <= set(range(13))
