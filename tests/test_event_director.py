"""The director (docs/events.md): the PIN kept as a salted hash, and every
director's command refused without it (nothing changed) and logged with it;
a correction survives the next sync from the board. Expectations worked by
hand (tests/event_evenings.py)."""
import json
import sqlite3
import threading

import pytest
from click.testing import CliRunner

from tallyboard import evening as tb_event
from tallyboard.cli import main
from tallyboard.club import releases
from tallyboard.evening import director
from tallyboard.evening.store import EveningDatabase

import event_evenings as ev

PIN = "4711"
STAMP = {"board_id": "B", "n": 0}


@pytest.fixture(autouse=True)
def delays(monkeypatch):
    """The delays after wrong PINs, kept here instead of slept."""
    slept = []
    monkeypatch.setattr(director, "_sleep", slept.append)
    return slept


@pytest.fixture
def store(tmp_path, monkeypatch):
    path = tmp_path / "archive.sqlite3"
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(path))
    monkeypatch.delenv("TALLYBOARD_DIRECTOR_PIN", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))     # the director's update key signs corrections
    releases.load_key(releases.update_key_path(), create=True)
    args = ["create", "Tuesday club"] + [a for n in ev.THREE_NAMES for a in ("--player", n)]
    assert cli(*args).exit_code == 0
    return EveningDatabase(path)


def cli(*args, env=None):
    return CliRunner().invoke(main, ["event", *args], env=env)


def set_pin(store):
    result = cli("pin", "set", "--new-pin", PIN)
    assert result.exit_code == 0, result.stderr


def save(store, round, table, seating, hands):
    event = store.event()
    return store.save_table_game(event, round, table, ev.table_record(ev.THREE_NAMES, seating[table - 1], hands, True),
                                 STAMP)


def play_round1(store):
    for t, hands in enumerate(ev.THREE_ROUND1, 1):
        save(store, 1, t, ev.THREE_FIRST, hands)


def everything(store):
    """Every row the evening has in the file, to show that nothing changed."""
    db = sqlite3.connect(store.path)
    return {table: db.execute(f"SELECT * FROM {table}").fetchall() for table in (
        "event_events", "event_players", "event_rounds", "event_games", "event_correction_entries", "event_log",
        "event_director")}


def test_the_pin_is_stored_as_a_salted_hash_and_changing_it_needs_the_old(store):
    set_pin(store)
    stored = store.director_pin()
    assert PIN not in stored and stored.startswith("scrypt$")
    result = cli("pin", "set", "--new-pin", "9999")
    assert result.exit_code != 0 and "changing it needs the old one" in result.stderr
    result = cli("pin", "set", "--new-pin", "9999", "--pin", "1234")
    assert result.exit_code != 0 and "that is not the director's PIN; nothing was changed" in result.stderr
    assert store.director_pin() == stored
    result = cli("pin", "set", "--new-pin", "9999", "--pin", PIN)
    assert result.exit_code == 0 and "changed" in result.stdout
    assert store.director_pin() != stored
    # the same PIN set twice hashes differently (its own salt), and both hashes are that PIN's
    first = store.director_pin()
    result = cli("pin", "set", "--new-pin", "9999", "--pin", "9999")
    assert result.exit_code == 0, result.output
    second = store.director_pin()
    assert second != first and second.split("$")[4] != first.split("$")[4]       # scrypt$N$r$p$salt$digest
    assert director.pin_matches("9999", first) and director.pin_matches("9999", second)
    assert not director.pin_matches("4711", second)


def test_a_pin_too_short_is_refused(store):
    result = cli("pin", "set", "--new-pin", "12")
    assert result.exit_code != 0 and "at least 4 characters" in result.stderr
    assert store.director_pin() is None


CORRECT = ("correct", "--round", "1", "--table", "1", "--hand", "4", "tricks=6")


@pytest.mark.parametrize("args, env, says", [
    (CORRECT, None, "needs the director's PIN: give --pin-file FILE or set TALLYBOARD_DIRECTOR_PIN (or run it at a "
                    "terminal, which asks); nothing was changed"),
    (CORRECT + ("--pin", "0000"), None, "that is not the director's PIN; nothing was changed"),
    (CORRECT, {"TALLYBOARD_DIRECTOR_PIN": "0000"}, "that is not the director's PIN"),
    (("rescore", "--round", "1", "--table", "1", "GAME"), None, "tallyboard event rescore needs the director's PIN"),
    (("move", "Ann", "--table", "2", "--seat", "0"), None, "tallyboard event move needs the director's PIN"),
    (("withdraw", "Ann", "--substitute", "Zoe"), None, "needs the director's PIN"),
    (("add", "W", "X", "Y", "Z"), None, "needs the director's PIN"),
    (("next", "--force"), None, "tallyboard event next --force needs the director's PIN"),
    (("finish", "--force"), None, "needs the director's PIN"),
])
def test_without_the_pin_nothing_changes(store, tmp_path, args, env, says):
    set_pin(store)
    play_round1(store)
    game = tmp_path / "game.json"
    game.write_text(json.dumps(ev.THREE_ROUND2[0]))
    args = tuple(str(game) if a == "GAME" else a for a in args)
    before = everything(store)
    result = cli(*args, env=env)
    assert result.exit_code != 0 and result.stdout == ""
    assert says in result.stderr
    after = everything(store)
    # nothing changed, but a wrong PIN is in the log (a missing one is only said)
    logged = after.pop("event_log")[len(before.pop("event_log")):]
    assert after == before
    wrong = "not the director's PIN" in says
    assert [(row[3], row[4], row[6]) for row in logged] == (
        [("wrong PIN", "tallyboard event correct", "1 wrong in a row")] if wrong else [])


def test_without_a_pin_set_the_command_says_how_to_set_one(store):
    play_round1(store)
    result = cli(*CORRECT, "--pin", PIN)
    assert result.exit_code != 0
    assert "needs the director's PIN, and none is set: tallyboard event pin set sets it" in result.stderr


def test_a_correction_is_logged_and_survives_the_next_sync(store):
    set_pin(store)
    play_round1(store)
    result = cli(*CORRECT, "--pin", PIN)
    assert result.exit_code == 0, result.stderr
    # table 1 hand 4: Ann (seat 0) bought 1C with her partner Bob (hands 3-4,
    # SK5) and took 7: Ann, Bob 70, Cy, Dee 60. Corrected to 6 tricks, failed
    # (SK8): Ann 0; Bob 10 x 6 = 60; Cy and Dee 10 x 7 = 70. Totals 280, 260,
    # 260, 240 become 280-70 = 210, 260-70+60 = 250, 260-60+70 = 270, 240-60+70 = 250.
    doc = tb_event.snapshot(store, store.event())
    assert doc["tables"][0]["totals"] == [210, 250, 270, 250]
    assert doc["tables"][0]["corrected"] is True
    # the head's loser is now Ann (210): provisional moves follow the correction
    assert doc["moves"][0] == {"player": 0, "name": "Ann", "from": 1, "to": 3, "seat": 2}
    (entry,) = doc["log"]
    assert entry["action"] == "correct" and "round 1 table 1 hand 4" in entry["what"]
    assert "kept over the board's record" in entry["what"]
    assert json.loads(entry["before"])["tricks"] == 7 and json.loads(entry["after"])["tricks"] == 6
    # the board syncs its own record again (same game, a newer stamp): the correction stays
    event = store.event()
    board = ev.table_record(ev.THREE_NAMES, ev.THREE_FIRST[0], ev.THREE_ROUND1[0], True)
    assert store.save_table_game(event, 1, 1, board, {"board_id": "B", "n": 5}) is True
    assert store.table_game(event, 1, 1) == board
    assert tb_event.snapshot(store, event)["tables"][0]["totals"] == [210, 250, 270, 250]
    result = cli("log", "--json")
    assert [e["action"] for e in json.loads(result.stdout)] == ["correct"]
    result = cli("log")
    words = result.stdout.split()
    assert result.exit_code == 0 and "correct" in words and '"tricks":' in words and "7}" in words and "6}" in words


def test_a_correction_the_rules_refuse_changes_nothing(store):
    set_pin(store)
    play_round1(store)
    before = everything(store)
    result = cli("correct", "--round", "1", "--table", "1", "--hand", "4", "tricks=14", "--pin", PIN)
    assert result.exit_code != 0
    assert "round 1 table 1: hand 4: tricks: must be 0 to 13; nothing was changed" in result.stderr
    result = cli("correct", "--round", "1", "--table", "1", "--hand", "5", "tricks=6", "--pin", PIN)
    assert result.exit_code != 0 and "round 1 table 1 has hands 1 to 4, not 5" in result.stderr
    assert everything(store) == before


def test_a_player_named_in_a_correction_is_his_seat(store):
    set_pin(store)
    play_round1(store)
    # hand 1 at table 1: Ann bought (sides 02). Now Bob (seat 1) bought and
    # made it: Bob and Dee 70, Ann and Cy 60; totals 280-10, 260+10, 260-10,
    # 240+10
    result = cli("correct", "--round", "1", "--table", "1", "--hand", "1", "purchaser=Bob", "--pin", PIN)
    assert result.exit_code == 0, result.stderr
    assert tb_event.snapshot(store, store.event())["tables"][0]["totals"] == [270, 270, 250, 250]


def test_a_game_rescored_replaces_the_board_s_and_is_logged(store, tmp_path):
    set_pin(store)
    play_round1(store)
    game = tmp_path / "game.json"
    # table 3 rescored with sides 02 02 01 01: 280, 260, 260, 240 (was 250, 250, 270, 270)
    game.write_text(json.dumps(ev.table_record(ev.THREE_NAMES, ev.THREE_FIRST[2], ev.THREE_ROUND1[0], True)))
    result = cli("rescore", "--round", "1", "--table", "3", str(game), "--pin", PIN)
    assert result.exit_code == 0, result.stderr
    doc = tb_event.snapshot(store, store.event())
    assert doc["tables"][2]["totals"] == [280, 260, 260, 240]
    assert doc["log"][0]["before"] == "totals [250, 250, 270, 270]"
    assert doc["log"][0]["after"] == "totals [280, 260, 260, 240] (4 hands)"
    # the board's next sync does not undo it
    save(store, 1, 3, ev.THREE_FIRST, ev.THREE_ROUND1[2])
    assert tb_event.snapshot(store, store.event())["tables"][2]["totals"] == [280, 260, 260, 240]


def test_moving_a_player_between_rounds_swaps_seats_and_pushes_again(store, monkeypatch):
    from tallyboard.evening import play

    pushed = []
    monkeypatch.setattr(play, "_new_round_pushers", [lambda s, e, r: pushed.append((r, s.seating(e, r)))])
    set_pin(store)
    store.set_board(store.event(), 1, "emu", "B1")
    result = cli("move", "Ann", "--table", "2", "--seat", "1", "--pin", PIN)
    assert result.exit_code == 0, result.stderr
    seating = [[5, 1, 2, 3], [4, 0, 6, 7], [8, 9, 10, 11]]   # Ann and Fay change seats
    assert store.seating(store.event(), 1) == seating
    assert pushed == [(1, seating)]
    (entry,) = store.log(store.event())
    assert entry["action"] == "move" and json.loads(entry["before"]) == ev.THREE_FIRST
    assert json.loads(entry["after"]) == seating


def test_seats_change_only_between_rounds(store):
    set_pin(store)
    save(store, 1, 2, ev.THREE_FIRST, ev.THREE_ROUND1[1][:1])
    before = everything(store)
    result = cli("move", "Ann", "--table", "2", "--seat", "1", "--pin", PIN)
    assert result.exit_code != 0 and "round 1 has begun (table 2 has a hand)" in result.stderr
    assert everything(store) == before


def test_withdraw_with_a_substitute(store):
    set_pin(store)
    result = cli("withdraw", "Cy", "--substitute", "Zoe", "--pin", PIN)
    assert result.exit_code == 0, result.stderr
    event = store.event()
    assert store.names(event)[12] == "Zoe"
    assert store.seating(event, 1)[0] == [0, 1, 12, 3]
    doc = tb_event.snapshot(store, event)
    cy = next(s for s in doc["standings"] if s["name"] == "Cy")
    assert cy["withdrawn"] is True and cy["table"] is None


def test_withdraw_four_closes_the_foot_table(store):
    set_pin(store)
    play_round1(store)
    assert cli("next").exit_code == 0
    # round 2 seats [[0,1,2,5],[4,10,6,7],[8,9,3,11]]; Bob, Eve, Jo and Lou
    # leave: the foot table's others (Ivy, Dee) take Bob's and Eve's seats,
    # head first; the foot table closes; two tables now play six hands (SK19)
    result = cli("withdraw", "Bob", "Eve", "Jo", "Lou", "--pin", PIN)
    assert result.exit_code == 0, result.stderr
    event = store.event()
    assert store.seating(event, 2) == [[0, 8, 2, 5], [3, 10, 6, 7]]
    doc = tb_event.snapshot(store, event)
    assert doc["hands"] == 6 and len(doc["tables"]) == 2
    # their round-1 scores stay in the standings
    bob = next(s for s in doc["standings"] if s["name"] == "Bob")
    assert bob["continuous"] == 260 and bob["withdrawn"] is True


def test_add_four_opens_a_table_at_the_foot(store):
    set_pin(store)
    result = cli("add", "Max", "Ned", "Oli", "Pam", "--pin", PIN)
    assert result.exit_code == 0, result.stderr
    event = store.event()
    assert store.seating(event, 1)[3] == [12, 13, 14, 15]
    result = cli("add", "Quin", "--pin", PIN)
    assert result.exit_code != 0 and "players are added in fours" in result.stderr


def test_next_force_with_the_pin_closes_the_games_short_and_logs_it(store):
    set_pin(store)
    save(store, 1, 1, ev.THREE_FIRST, ev.THREE_ROUND1[0])
    save(store, 1, 2, ev.THREE_FIRST, ev.THREE_ROUND1[1][:3])
    result = cli("next", "--force", "--pin", PIN)
    assert result.exit_code == 0, result.stderr
    event = store.event()
    assert event.round == 2
    (entry,) = store.log(event)
    assert entry["action"] == "next" and entry["before"] == "table 2 (3 of 4 hands), table 3 (0 of 4 hands)"
    # table 2 closed after three hands: 180, 200, 190, 210 (sides 13 13 23):
    # Hal (210) went up; table 3 closed with nothing: Ivy (seat 0) up
    assert store.seating(event, 2) == [[0, 1, 2, 7], [4, 5, 6, 8], [3, 9, 10, 11]]
    doc, _ = tb_event.play.export(store, event)
    assert doc["ended_early"] == [[1, 2], [1, 3]]


def test_a_director_s_evening_exports_and_replays_to_the_same_standings(store, tmp_path):
    set_pin(store)
    play_round1(store)
    assert cli("correct", "--round", "1", "--table", "1", "--hand", "4", "tricks=6", "--pin", PIN).exit_code == 0
    assert cli("next").exit_code == 0
    # after the correction Ann (210) lost at the head instead of Dee: round 2
    # seats [[5, 1, 2, 3], [4, 10, 6, 7], [8, 9, 0, 11]]; the director swaps Ann and Jo
    event = store.event()
    assert store.seating(event, 2) == [[5, 1, 2, 3], [4, 10, 6, 7], [8, 9, 0, 11]]
    assert cli("move", "Ann", "--table", "3", "--seat", "1", "--pin", PIN).exit_code == 0
    seating = store.seating(event, 2)
    assert seating == [[5, 1, 2, 3], [4, 10, 6, 7], [8, 0, 9, 11]]
    for t, hands in enumerate(ev.THREE_ROUND2, 1):
        save(store, 2, t, seating, hands)
    out = tmp_path / "evening.json"
    assert cli("export", str(out)).exit_code == 0
    exported = json.loads(out.read_text())
    assert exported["reseated"] == [None, seating]
    assert exported["rounds"][0][0][3]["tricks"] == 6   # the correction, not the board's 7
    result = cli("replay", str(out), "--json")
    assert result.exit_code == 0, result.stderr
    snap = tb_event.snapshot(store, store.event())
    assert [(s["rank"], s["player"], s["total"]) for s in json.loads(result.stdout)["standings"]] == [
        (s["rank"], s["player"], s["continuous"]) for s in snap["standings"]]


# ---------------------------------------------------------------- wrong PINs, PIN files

def test_wrong_pins_wait_longer_each_time_are_logged_and_lock_the_pin(store, delays, monkeypatch):
    set_pin(store)
    play_round1(store)
    clock = [1_000_000.0]
    monkeypatch.setattr(director, "_now", lambda: clock[0])
    for n in range(1, 5):
        result = cli(*CORRECT, "--pin", f"000{n}")
        assert result.exit_code != 0 and "that is not the director's PIN; nothing was changed" in result.stderr
    # 0.5 s doubled each time: 0.5, 1, 2, 4
    assert delays == [0.5, 1.0, 2.0, 4.0]
    result = cli(*CORRECT, "--pin", "0005")
    assert delays[-1] == 8.0
    assert ("that is not the director's PIN, the 5th wrong one in a row: the PIN is locked for 15 minutes"
            in result.stderr), result.stderr
    # locked: the right PIN is refused too, without being checked (no delay), and logged
    clock[0] += 14 * 60
    result = cli(*CORRECT, "--pin", PIN)
    assert result.exit_code != 0 and "the director's PIN is locked after 5 wrong PINs in a row: wait 1 minute" \
        in result.stderr, result.stderr
    assert len(delays) == 5
    event = store.event()
    log = [(e["action"], e["what"], e["after"]) for e in store.log(event)]
    assert log[:4] == [("wrong PIN", "tallyboard event correct", f"{n} wrong in a row") for n in range(1, 5)]
    assert log[4][2].startswith("5 wrong in a row; the PIN is locked until ")
    assert log[5] == ("PIN locked", "tallyboard event correct", "refused without checking the PIN")
    # 15 minutes after the fifth: a wrong PIN before the right one locks it again at once
    clock[0] += 60
    result = cli(*CORRECT, "--pin", "0006")
    assert "the PIN is locked for 15 minutes" in result.stderr, result.stderr
    clock[0] += 15 * 60
    # then the right PIN works, and the count starts again
    result = cli(*CORRECT, "--pin", PIN)
    assert result.exit_code == 0, result.output
    assert store.wrong_pins() == (0, 0.0)
    cli(*CORRECT, "--pin", "0009")
    assert delays[-1] == 0.5


def test_wrong_pins_guessed_at_once_are_checked_one_after_another_and_the_lock_holds(store, delays, monkeypatch):
    """Issue 30's finding 5: 20 guesses at once were all checked, none refused as locked, because
    each read the count before any wrote it. Each guess here is a command of its own (its own
    connection to the archive, as another process has), all let go at the same moment."""
    set_pin(store)
    checked = []
    real_check = director.pin_matches

    def counted(pin, stored):
        checked.append(pin)
        return real_check(pin, stored)

    monkeypatch.setattr(director, "pin_matches", counted)
    guesses = 20
    start = threading.Barrier(guesses)
    answers = []

    def guess(n):
        with EveningDatabase(store.path) as own:
            event = own.event()
            start.wait()
            try:
                director.check_pin(own, f"{9000 + n}", "tallyboard event correct", event)
            except director.DirectorError as exc:
                answers.append(str(exc))

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(guesses)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads), "a guess still waits after 60 s"
    assert len(answers) == guesses
    assert len(checked) == director.LOCK_AFTER, f"{len(checked)} of {guesses} guesses at once were checked"
    assert sum(a.startswith("the director's PIN is locked after 5 wrong PINs in a row") for a in answers) == \
        guesses - director.LOCK_AFTER
    assert sorted(delays) == [0.5, 1.0, 2.0, 4.0, 8.0]   # each checked one answered as the next in a row
    failures, locked_until = store.wrong_pins()
    assert failures == director.LOCK_AFTER and locked_until > 0
    # the lock holds: the right PIN too is refused, unchecked
    with pytest.raises(director.DirectorError, match="locked after 5 wrong PINs"):
        director.check_pin(store, PIN, "tallyboard event correct", store.event())
    assert len(checked) == director.LOCK_AFTER
    log = [e["action"] for e in store.log(store.event())]
    assert log.count("wrong PIN") == director.LOCK_AFTER and log.count("PIN locked") == guesses - director.LOCK_AFTER + 1


def test_the_pin_from_a_file_and_the_new_pin_from_a_file(store, tmp_path):
    new = tmp_path / "new-pin"
    new.write_text(PIN + "\n")
    new.chmod(0o600)
    result = cli("pin", "set", "--new-pin-file", str(new))
    assert result.exit_code == 0 and "set" in result.stdout, result.output
    assert director.pin_matches(PIN, store.director_pin())
    play_round1(store)
    given = tmp_path / "pin"
    given.write_text(PIN + "\n")
    given.chmod(0o644)
    result = cli(*CORRECT, "--pin-file", str(given))
    assert result.exit_code == 0, result.output
    assert f"{given} holds the director's PIN and other users may read it (0644): chmod 600 it" in result.stderr
    result = cli(*CORRECT, env={"TALLYBOARD_DIRECTOR_PIN_FILE": str(given)})
    assert result.exit_code == 0, result.output
    result = cli(*CORRECT, "--pin-file", str(tmp_path / "none"))
    assert result.exit_code != 0 and f"{tmp_path / 'none'}: cannot read the director's PIN" in result.stderr
    result = cli(*CORRECT, "--pin-file", str(given), "--pin", PIN)
    assert result.exit_code != 0 and "give it once" in result.stderr
    # a file named beats a PIN left in the environment
    result = cli(*CORRECT, "--pin-file", str(given), env={"TALLYBOARD_DIRECTOR_PIN": "0000"})
    assert result.exit_code == 0, result.output


def test_the_pin_in_argv_still_works_and_its_help_says_ps_shows_it(store):
    result = cli("correct", "--help")
    assert "visible to every user of this machine in `ps`" in " ".join(result.stdout.split())
    assert "--pin-file" in result.stdout
