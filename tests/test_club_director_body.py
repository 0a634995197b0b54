"""What the director stores of a table host's message (docs/club-mqtt.md,
"Payloads"): a body is checked field by field before anything of it is
stored (a held hand's names must be that table's players), and a message
the evening refuses never uses up its board's seq. The director's link is
driven directly, message by message, on a real evening store (no broker)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tallyboard.club import envelope
from tallyboard.evening import club as club_mod
from tallyboard.evening.tables import event_tag

from club_director_support import Message, unstarted_director

PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]    # round 1: Ann Bob Cy Dee at table 1


@pytest.fixture
def director(tmp_path: Path, monkeypatch):
    with unstarted_director(tmp_path, monkeypatch, PLAYERS) as made:
        yield made


def state(director, board_table: int, seq: int, **changes) -> Message:
    tag = event_tag(director.event)
    board = club_mod.board_ident(tag, board_table)
    body = {"table": board_table, "round": 1, "host": "room-a", "board_id": f"emulator@{tag:04X}.{board_table}",
            "status": "ok", "record": None, "stamp": None, "pending": None}
    body.update(changes)
    payload = envelope.seal(envelope.board_key(director.secret, board), director.id, board, seq, "state", body)
    return Message(envelope.table_topic(director.id, board, "state"), payload)


def reasons(director) -> list[str]:
    return [reason for _, _, reason, _ in director.link.refused()]


def test_a_held_hand_of_the_wrong_shape_is_refused_and_nothing_of_it_stored(director):
    # finding 3: waiting_for a string, hand a piece of HTML
    bad = {"hand": "<b>x</b>", "waiting_for": "notalist", "scores": [70, 60, 70, 60]}
    director.link._on_message(state(director, 1, 1, pending=bad))
    assert reasons(director) == ["apply"]
    assert director.store.pending(director.event, 1, 1) is None
    assert director.link.applied() == {}          # its seq not used up
    # the same hand held for a player of another table (Eve sits at table 2)
    other = {"hand": 1, "waiting_for": ["Eve"], "scores": [70, 60, 70, 60]}
    director.link._on_message(state(director, 1, 1, pending=other))
    assert reasons(director) == ["apply", "apply"]
    assert "not at this table" in director.link.refused()[1][3]
    # the real one: hand 1 held for Bob or Dee (seat 0's adversaries in hand 1), 70/60/70/60
    good = {"hand": 1, "waiting_for": ["Bob", "Dee"], "scores": [70, 60, 70, 60]}
    director.link._on_message(state(director, 1, 1, pending=good))
    assert director.store.pending(director.event, 1, 1) == good
    assert director.link.applied() == {club_mod.board_ident(event_tag(director.event), 1): 1}


def test_a_held_hand_names_its_buttons_one_letter_each_or_is_refused(director):
    # the buttons beside waiting_for (issue 23): Bob at seat 1 presses B, Dee at seat 3 presses D
    for bad in (["B"], ["B", "<b>"], ["B", "DD"], "BD", ["B", 4]):
        director.link._on_message(state(director, 1, 1, pending={"hand": 1, "waiting_for": ["Bob", "Dee"],
                                                                 "scores": [70, 60, 70, 60], "buttons": bad}))
    assert reasons(director) == ["apply"] * 5
    assert director.store.pending(director.event, 1, 1) is None
    good = {"hand": 1, "waiting_for": ["Bob", "Dee"], "scores": [70, 60, 70, 60], "buttons": ["B", "D"]}
    director.link._on_message(state(director, 1, 1, pending=good))
    assert director.store.pending(director.event, 1, 1) == good


@pytest.mark.parametrize("field,value", [("status", "<script>"), ("host", "a b"), ("stamp", {"n": [1]}),
                                         ("board_id", "emulator@0000.1"), ("extra", 1)])
def test_each_field_of_the_body_is_checked(director, field, value):
    director.link._on_message(state(director, 1, 1, **{field: value}))
    assert reasons(director) == ["apply"]
    assert director.link.applied() == {}


def test_a_board_id_with_an_escape_sequence_or_a_bidi_override_is_refused(director):
    """Issue 30's finding 6: a board_id ending in the table's own `@TAG.1` but holding a terminal's
    title sequence or U+202E was stored, and `event attach` printed it raw."""
    tag = event_tag(director.event)
    for bad in (f"A\x1b]0;PWNED\x07@{tag:04X}.1", f"\u202eevil@{tag:04X}.1"):
        director.link._on_message(state(director, 1, 1, board_id=bad))
    stamped = {"game": "skicket", "n": 0, "board_id": f"\u202eevil@{tag:04X}.1"}
    director.link._on_message(state(director, 1, 1, stamp=stamped))
    assert reasons(director) == ["apply"] * 3
    assert director.store.boards(director.event) == {}
    assert director.link.applied() == {}
    director.link._on_message(state(director, 1, 1))         # the table's own id is taken
    assert director.store.boards(director.event)[1]["board_id"] == f"emulator@{tag:04X}.1"


def test_a_board_signed_with_another_tables_key_is_refused(director):
    # finding 4: one secret for every table let any table host sign for any board; now table 2's key
    # (all table 2's host has) does not sign for board 1
    tag = event_tag(director.event)
    one, two = club_mod.board_ident(tag, 1), club_mod.board_ident(tag, 2)
    body = {"table": 1, "round": 1, "host": "room-b", "board_id": f"emulator@{tag:04X}.1", "status": "ok",
            "record": None, "stamp": None, "pending": None}
    forged = envelope.seal(envelope.board_key(director.secret, two), director.id, one, 1, "state", body)
    director.link._on_message(Message(envelope.table_topic(director.id, one, "state"), forged))
    assert reasons(director) == ["signature"]
    assert director.link.applied() == {}


def test_a_board_sending_another_tables_state_does_not_use_up_its_seq(director):
    # finding 4: board 2 signs table 1's state (its seq 1); then board 2's own messages 1 and 2 are applied
    tag = event_tag(director.event)
    director.link._on_message(state(director, 2, 1, table=1, board_id=f"emulator@{tag:04X}.1"))
    assert reasons(director) == ["apply"]
    director.link._on_message(state(director, 2, 1))
    director.link._on_message(state(director, 2, 2, status="no game"))
    assert director.link.applied() == {club_mod.board_ident(tag, 2): 2}
    assert reasons(director) == ["apply"]           # no replay
    assert director.store.boards(director.event)[2]["status"] == "no game"


def good_record(director) -> dict:
    from tallyboard.evening import standings
    return standings.club_record(PLAYERS[:4], [], standings.game_length(2, director.event.hands))


def stamp_of(director, **changes) -> dict:
    tag = event_tag(director.event)
    stamp = {"game": "skicket", "players": "4", "options": "0", "n": "0", "top": "0", "lcrc": "0000",
             "held": "-", "board_id": f"emulator@{tag:04X}.1", "round": 1}
    stamp.update(changes)
    return stamp


@pytest.mark.parametrize("stamp_change", [
    {"lcrc": "\x1b[2J\x1b[31mOWNED"},            # an escape sequence: the terminal that shows it cleared
    {"held": "<script>alert(1)</script>"},       # HTML
    {"n": "\u202e0"},                            # a bidirectional override
    {"n": "9" * 81},                             # longer than any of OPEN's fields
    {"note": "hello"},                           # a field no stamp has
    {"round": 2**40},                            # a number beyond the format's
])
def test_a_stamp_is_checked_at_the_door_like_a_name_and_nothing_of_it_stored(director, stamp_change):
    # issue 40, finding 5: a table's `stamp` values were stored as they came
    director.link._on_message(state(director, 1, 1, record=good_record(director),
                                    stamp=stamp_of(director, **stamp_change)))
    assert reasons(director) == ["apply"]
    assert "stamp is not a board's journal position" in director.link.refused()[0][3]
    assert director.store.table_stamp(director.event, 1, 1) is None
    assert director.link.applied() == {}
    # the same state with a board's own stamp is stored, with its seq
    director.link._on_message(state(director, 1, 1, record=good_record(director), stamp=stamp_of(director)))
    assert director.store.table_stamp(director.event, 1, 1) == stamp_of(director)


@pytest.mark.parametrize("where", ["record", "hand"])
def test_a_record_with_a_field_no_record_has_is_refused_and_nothing_of_it_stored(director, where):
    record = good_record(director)
    if where == "record":
        record["comment"] = "<img src=x onerror=alert(1)>"
    else:
        # Ann bids 4 hearts and takes 10 (docs/records.md: a Skicket hand), with a field no hand has
        record["hands"] = [{"purchaser": 0, "bid": "4H", "tricks": 10, "comment": "\x1b[31m"}]
    director.link._on_message(state(director, 1, 1, record=record, stamp=stamp_of(director)))
    assert reasons(director) == ["apply"], director.link.refused()
    assert "comment" in director.link.refused()[0][3]
    assert director.store.table_game(director.event, 1, 1) is None
