"""A mixed club at the director (issue 24.5, docs/club-wifi.md "The director's
view"): a table host's board, a board on Wi-Fi by itself and a board on the
director's own USB in one evening. Their messages are the same envelope
(sealed with the same function, the same fields); only the sender's name
(`board-<identity>` for a wireless board) and its status messages tell the
director how each table is linked. The director's link is driven message by
message with real signed messages on a real evening store (no broker);
`event status`, the terminal view and the public page show each table's link."""
from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tallyboard.cli import main
from tallyboard.club import envelope
from tallyboard.common.console import Console
from tallyboard.evening import play
from tallyboard.evening import club as club_mod
from tallyboard.evening import table_host
from tallyboard.evening import watch, web
from tallyboard.evening.tables import event_tag

from club_director_support import Message, unstarted_director

PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lou"]   # three tables


@pytest.fixture
def director(tmp_path: Path, monkeypatch):
    with unstarted_director(tmp_path, monkeypatch, PLAYERS) as made:
        yield made


def ident(director, table: int) -> str:
    return club_mod.board_ident(event_tag(director.event), table)


def state_message(director, table: int, seq: int, host: str) -> Message:
    board = ident(director, table)
    body = {"table": table, "round": 1, "host": host, "board_id": f"pico-tallyboard@{board}",
            "status": "ok", "record": None, "stamp": None, "pending": None}
    payload = envelope.seal(envelope.board_key(director.secret, board), director.id, board, seq, "state", body)
    return Message(envelope.table_topic(director.id, board, "state"), payload)


def status_message(director, table: int, online: bool, key_of: int | None = None) -> Message:
    """A table's status as its link publishes it, a table host's or a wireless board's alike: named
    after its login, the board's identity, and signed with that board's key (docs/club-mqtt.md;
    the broker lets only that login publish it, and publishes its will, offline, when it drops).
    key_of: sign with another table's key (a forgery)."""
    login = ident(director, table)
    key = envelope.board_key(director.secret, ident(director, key_of or table))
    payload = envelope.seal(key, director.id, login, 0, "status", {"online": online, "boards": [login]})
    return Message(envelope.host_status_topic(director.id, login), payload)


def links(director) -> dict[int, dict]:
    doc = play.snapshot(director.store, director.event)
    return {t["table"]: t["link"] for t in doc["tables"]}


def test_a_table_host_a_wireless_board_and_a_usb_board_each_show_their_link(director):
    wireless = "board-" + ident(director, 2)          # the host name a board on Wi-Fi gives (docs/club-mqtt.md)
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    director.link._on_message(status_message(director, 1, True))
    director.link._on_message(status_message(director, 2, True))
    director.link._on_message(state_message(director, 1, 1, "room-a"))
    director.link._on_message(state_message(director, 2, 1, wireless))
    # table 3's board is on the director's own USB (event attach wrote this row)
    director.store.set_board(director.event, 3, "/dev/ttyACM0", f"pico-tallyboard@{ident(director, 3)}")
    after = datetime.datetime.now(datetime.timezone.utc)
    assert director.link.refused() == []
    assert director.link.applied() == {ident(director, 1): 1, ident(director, 2): 1}
    shown = links(director)
    for table in (1, 2):
        seen = datetime.datetime.fromisoformat(shown[table].pop("seen").replace("Z", "+00:00"))
        assert before <= seen <= after, (seen, before, after)
    assert shown == {1: {"kind": "table host", "via": "room-a", "online": True},
                     2: {"kind": "wireless board", "via": ident(director, 2), "online": True},
                     3: {"kind": "usb", "via": "/dev/ttyACM0", "online": True, "seen": None}}
    # the two remote tables' messages: one envelope, the same fields; the director stored both the same way
    one, two = (json.loads(state_message(director, t, 2, h).payload) for t, h in ((1, "room-a"), (2, wireless)))
    assert list(one) == list(two) == ["board", "body", "event", "kind", "seq", "sig", "v"]
    assert list(one["body"]) == list(two["body"])
    boards = director.store.boards(director.event)
    assert (boards[1]["port"], boards[2]["port"]) == ("mqtt:room-a", "mqtt:" + wireless)

    # the board on Wi-Fi drops: the broker publishes its will (online false); the table host stays
    director.link._on_message(status_message(director, 2, False))
    shown = links(director)
    assert shown[2]["online"] is False and shown[1]["online"] is True
    assert director.store.boards(director.event)[2]["status"] == club_mod.HOST_OFFLINE
    doc = play.snapshot(director.store, director.event)
    console = Console(width=200, record=True)
    console.print(watch.frame(doc))
    text = console.export_text()
    lines = text.splitlines()

    def under(title: str) -> str:      # the line under a table's title, in the tables' column
        at = next(i for i, line in enumerate(lines) if line.rstrip().endswith(title))
        return lines[at + 1][lines[at].index(title):].rstrip()

    assert under("Table 2 · board host offline").startswith(
        f"Wi-Fi board {ident(director, 2)} · offline · last message "), text
    assert under("Table 1").startswith("table host room-a · online · last message "), text
    assert under("Table 3") == "USB /dev/ttyACM0 · online", text
    # the public page: no device path of the director's laptop, the rest as it is
    page = {t["table"]: t for t in web.public(doc)["tables"]}
    assert page[3]["link"] == {"kind": "usb", "online": True, "seen": None} and "board" not in page[3]
    assert page[2]["link"]["via"] == ident(director, 2) and page[2]["link"]["online"] is False
    # `event status` says it in its board column
    out = CliRunner().invoke(main, ["event", "status", "--stored"], env={"COLUMNS": "220"})
    assert out.exit_code == 0, out.output
    assert f"Wi-Fi board {ident(director, 2)} · offline" in out.output and "(host offline)" in out.output

    # back on the Wi-Fi: online, and its next message applied as the next seq
    director.link._on_message(status_message(director, 2, True))
    director.link._on_message(state_message(director, 2, 2, wireless))
    assert links(director)[2]["online"] is True
    assert director.store.boards(director.event)[2]["status"] == "ok"
    assert director.link.applied()[ident(director, 2)] == 2


def test_a_status_signed_for_another_board_changes_no_link(director):
    wireless = "board-" + ident(director, 2)
    director.link._on_message(status_message(director, 2, True))
    director.link._on_message(state_message(director, 2, 1, wireless))
    # table 1's key signs a status in board 2's name saying it went: refused, board 2 stays online
    director.link._on_message(status_message(director, 2, False, key_of=1))
    assert [reason for _, _, reason, _ in director.link.refused()] == ["signature"]
    assert links(director)[2]["online"] is True
    assert director.store.boards(director.event)[2]["status"] == "ok"


def test_a_table_host_may_not_take_a_wireless_boards_name(tmp_path):
    from tallyboard.common.errors import TallyboardError
    secret = envelope.new_secret()
    code = envelope.read_join_code(envelope.join_code("Club-night-b39d", secret, [1], lambda t: f"B39D.{t}", "a" * 26))
    with pytest.raises(TallyboardError, match="may not start with 'board-': the director takes that for a board on "
                                              "Wi-Fi; give another --name"):
        table_host.TableHost("mqtts://table:pw@127.0.0.1:9", code, "board-B39D.1", [1], tmp_path)


def test_a_board_not_seated_yet_is_there_with_no_game(director):
    """A board on Wi-Fi says it is there before it has taken the round (round 0, no record): the
    director takes it as its link and status and stores no game; its seq is used, so the board's
    next message (seated) is the next one. A round-0 message with a game in it is refused."""
    wireless = "board-" + ident(director, 2)
    board = ident(director, 2)
    unseated = {"table": 2, "round": 0, "host": wireless, "board_id": f"pico-tallyboard@{board}",
                "status": "no game", "record": None, "stamp": None, "pending": None}
    payload = envelope.seal(envelope.board_key(director.secret, board), director.id, board, 1, "state", unseated)
    director.link._on_message(Message(envelope.table_topic(director.id, board, "state"), payload))
    assert director.link.refused() == [] and director.link.applied() == {board: 1}
    assert director.store.boards(director.event)[2] == {"port": "mqtt:" + wireless,
                                                        "board_id": f"pico-tallyboard@{board}", "status": "no game"}
    assert director.store.table_game(director.event, 1, 2) is None
    assert links(director)[2]["kind"] == "wireless board"
    # seated now: its next seq applies as any table's
    director.link._on_message(state_message(director, 2, 2, wireless))
    assert director.link.applied() == {board: 2} and director.store.boards(director.event)[2]["status"] == "ok"
    # a round-0 body that carries a game is not a board waiting for its round
    bad = dict(unseated, record={"format": "tallyboard/1", "game": "skicket", "players": ["A", "B", "C", "D"],
                                 "hands": []}, stamp={"n": "0"})
    payload = envelope.seal(envelope.board_key(director.secret, board), director.id, board, 3, "state", bad)
    director.link._on_message(Message(envelope.table_topic(director.id, board, "state"), payload))
    assert [(reason, "holds no game of the evening" in text) for _, _, reason, text in director.link.refused()] == [
        ("apply", True)]
    assert director.link.applied() == {board: 2}
