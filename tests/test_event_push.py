"""The live page pushed, not polled (issue 33, item 4): a board's pushed event
(`! N ACCEPT ...` through its shared port) makes `event serve` read that board
and send the snapshot at once, and `event next` pushes the round to the boards
side by side.

The page's part runs with the source's fallback read set to an hour: nothing
but a push can bring the hand to the /events reader within the test's bound.
Scores, worked by hand (rules.md SK2 A = 60 + 10 x level; SK7 made: the
purchaser and partner A each, each adversary 10 x their tricks; SK5: hand 1
partners seat 0 + seat 2): table 1 (Ann Bob Cy Dee), hand 1: Ann 4H, 10
tricks: A = 100 -> Ann 100, Cy 100; Bob, Dee 10 x (13 - 10) = 30."""
from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from event_fakes import FakeStore
from test_event_web import Served, Stream
from waiting import until
from tallyboard.boardlink import portshare
from tallyboard.boardlink.client import Board
from tallyboard.cli import main
from tallyboard.commands import evening_views
from tallyboard.evening import sidebyside
from tallyboard.evening import tables as tables_mod
from tallyboard.evening import feed
from tallyboard.evening.tables import Tables
from tallyboard.tooling.emulator import Emulator, running_on

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
SEAT1_PIN = 11                     # board/pico-reference.json: seat 1
AN_HOUR = 3600.0


# ---------------------------------------------------------------- the feed, a source that pushes

class PushingSource:
    """A feed.PushedSource the test changes, then pushes from a thread of its own."""

    def __init__(self, fallback: float) -> None:
        self.fallback = fallback
        self.round = 1
        self.wake = None
        self.calls = 0

    def subscribe(self, wake) -> None:
        self.wake = wake

    def __call__(self) -> dict:
        self.calls += 1
        return {"format": "tallyboard-event-view/1", "event": "Tuesday club", "state": "running",
                "round": self.round, "rounds": 3, "hands": 6, "updated": "", "players": [], "standings": [],
                "tables": [], "moves": [], "moves_final": False, "next_seating": [], "last_round": False, "log": []}


def _rounds(stream: Stream, wanted: int) -> None:
    while True:
        kind, data, _ = stream.message(10)
        if kind == "message" and data and json.loads(data)["round"] == wanted:
            return


def test_a_push_is_sent_at_once_and_the_source_is_asked_no_more_often_than_pushed():
    source = PushingSource(AN_HOUR)
    assert isinstance(source, feed.PushedSource)
    server = Served(source)
    try:
        stream = Stream(server.port)
        _rounds(stream, 1)
        until(lambda: source.wake is not None, 60, "the feed subscribing")
        source.round = 2
        threading.Thread(target=source.wake).start()      # a board's listener, say
        _rounds(stream, 2)                                 # no poll in an hour: the push brought it
        assert source.calls == 2, source.calls             # the first read, then the push's
        stream.close()
    finally:
        server.stop()


# ---------------------------------------------------------------- the round pushed side by side

@pytest.fixture
def four_tables(tmp_path, monkeypatch):
    """Tables over four boards that are never opened (each test stands in for the board's part)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    players = [f"P{i}" for i in range(16)]
    store = FakeStore.create(tmp_path / "store.json", "Tuesday club", players,
                             [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]])
    event = store.event()
    for table in range(1, 5):
        store.set_board(event, table, f"/dev/ttyFAKE{table}", f"pico-reference@0001.{table}")
    tables = Tables(store, event)
    yield tables
    tables.close()


def test_a_round_is_pushed_to_the_boards_side_by_side(four_tables, monkeypatch):
    # every board's push waits until all four are under way: one after another, the first would wait
    # alone and the barrier break (threading.BrokenBarrierError, after 10 s)
    all_four = threading.Barrier(4, timeout=10)
    pushed = []

    def push(known, round, name, options, names):
        all_four.wait()
        pushed.append((known.table, round, names))

    monkeypatch.setattr(four_tables, "_push", push)
    four_tables.push_round(1)
    assert sorted(pushed) == [(1, 1, ["P0", "P1", "P2", "P3"]), (2, 1, ["P4", "P5", "P6", "P7"]),
                              (3, 1, ["P8", "P9", "P10", "P11"]), (4, 1, ["P12", "P13", "P14", "P15"])]


def test_no_more_boards_at_once_than_the_bound_and_a_failure_names_its_table(four_tables, monkeypatch):
    monkeypatch.setattr(sidebyside, "MAX_AT_ONCE", 2)
    lock = threading.Lock()
    under_way, most = [0], [0]
    two = threading.Barrier(2, timeout=10)

    def push(known, round, name, options, names):
        with lock:
            under_way[0] += 1
            most[0] = max(most[0], under_way[0])
        try:
            two.wait()      # two at once, always (4 boards, 2 at a time)
            if known.table == 3:
                raise tables_mod.TallyboardError("no reply")
        finally:
            with lock:
                under_way[0] -= 1

    monkeypatch.setattr(four_tables, "_push", push)
    with pytest.raises(tables_mod.TallyboardError) as raised:
        four_tables.push_round(1)
    assert most[0] == 2
    assert "table 3: the board on /dev/ttyFAKE3 does not answer (no reply)" in str(raised.value)
    assert four_tables.store.boards(four_tables.event)[3]["status"] == tables_mod.UNREACHABLE
    assert four_tables.store.boards(four_tables.event)[1]["status"] == "ok"


def test_a_sync_of_some_tables_reads_only_their_boards(four_tables, monkeypatch):
    read = []
    monkeypatch.setattr(four_tables, "_sync_one", lambda known: read.append(known.table) or known.table == 2)
    assert four_tables.sync(only=[2, 4, 9]) is True      # 9: no such table, nothing read
    assert sorted(read) == [2, 4]
    read.clear()
    assert four_tables.sync(only=[4]) is False
    assert read == [4]


# ---------------------------------------------------------------- on emulated boards

def run(*args: str) -> str:
    out = CliRunner().invoke(main, list(args))
    assert out.exit_code == 0, (args, out.output)
    return out.output


@pytest.fixture
def evening(tmp_path, monkeypatch):
    """An evening of eight players at two tables on two emulated boards, round 1
    pushed: {table: (port, flash folder)}. Every emulator is stopped at the end."""
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(tmp_path / "archive.sqlite3"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("TALLYBOARD_EMULATOR_HOME", str(tmp_path / "emu"))
    args = ["event", "create", "Tuesday club", "--rounds", "2"]
    for name in NAMES:
        args += ["--player", name]
    run(*args)
    try:
        attached = run("event", "attach", "--emulators", "2")
        boards = {}
        for line in attached.splitlines():
            if line.startswith("table "):      # table 1: /dev/pts/7 (pico-reference@23E2.1), folder DIR
                boards[int(line.split(":")[0][6:])] = (line.split(": ", 1)[1].split(" ")[0],
                                                       Path(line.rsplit(", folder ", 1)[1].strip()))
        run("event", "start")
        yield boards
    finally:
        CliRunner().invoke(main, ["event", "stop-boards"])
        for record in (tmp_path / "state").rglob("*.running.json"):
            try:
                os.kill(int(json.loads(record.read_text())["pid"]), signal.SIGKILL)
            except (OSError, ValueError, KeyError):
                pass


def _snapshots(stream: Stream):
    while True:
        kind, data, _ = stream.message(10)
        if kind == "message" and data:
            yield json.loads(data)


@pytest.mark.process
@pytest.mark.emulator
def test_an_accepted_hand_reaches_the_page_by_the_boards_push_alone(evening):
    (port1, flash1), (port2, flash2) = evening[1], evening[2]
    with evening_views.evening_source(None, fallback=AN_HOUR) as source:
        server = Served(source)
        link = None
        try:
            stream = Stream(server.port)
            snapshots = _snapshots(stream)
            first = next(snapshots)
            assert [len(t["hands"]) for t in first["tables"]] == [0, 0]
            until(lambda: source.tables.pushes is not None and source.tables.pushes.following() == {1, 2}, 10,
                  "both boards followed", explain=lambda: source.tables.pushes and source.tables.pushes.following())
            # Ann bought 4H and took 10, entered at the host; Bob (seat 1, her adversary) accepts on the board
            link = portshare.open_link(port1)           # through the page's own sharer of the port
            board = Board(link, timeout=3.0)
            board.hello()
            board.request("HAND", 0, "4H", None, None, 0, 10)
            held = next(s for s in snapshots if s["tables"][0]["pending"] is not None)
            assert held["tables"][0]["pending"]["waiting_for"] == ["Bob", "Dee"]
            running = running_on(flash1)
            Emulator(flash=flash1, io_dir=Path(running["io"]), install=False).tap(SEAT1_PIN)
            accepted = next(s for s in snapshots if s["tables"][0]["hands"])
            table = accepted["tables"][0]
            assert table["pending"] is None
            assert [h["scores"] for h in table["hands"]] == [[100, 30, 100, 30]]
            assert table["totals"] == [100, 30, 100, 30]

            # table 2's board goes away (its emulator killed: a cable pulled): its sharer stops, which is
            # heard as a push too, so the page says so without waiting for the hour's read
            pid2 = int(running_on(flash2)["pid"])
            os.kill(pid2, signal.SIGKILL)
            gone = next(s for s in snapshots if s["tables"][1]["status"] == tables_mod.UNREACHABLE)
            assert gone["tables"][0]["status"] == "ok"
            assert [len(t["hands"]) for t in gone["tables"]] == [1, 0]     # the hand counted once
            stream.close()
        finally:
            if link is not None:
                link.close()
            server.stop()


# ---------------------------------------------------------------- the listener alone

def test_the_listener_tells_of_event_lines_only_and_of_a_hub_that_goes(tmp_path, monkeypatch):
    """A stand-in hub on the port's socket path: an event line is heard, a reply
    or a garbled line is not; its end is heard once, and the board is no longer
    followed; a board forgotten is not heard at all."""
    import socket as socket_mod

    from tallyboard.boardlink import pushed, wire
    from tallyboard.boardlink.portsocket import socket_path

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    (tmp_path / "tallyboard").mkdir(mode=0o700)
    port = str(tmp_path / "ttyFAKE1")
    hub = socket_mod.socket(socket_mod.AF_UNIX, socket_mod.SOCK_STREAM)
    hub.bind(str(socket_path(port)))
    hub.listen(1)
    heard = []
    listener = pushed.PushedEvents(heard.append)
    try:
        assert listener.follow(7, port) is True
        assert listener.follow(7, port) is True                # followed already: no second connection
        assert listener.follow(8, str(tmp_path / "ttyNONE")) is False   # no hub serves it
        client, _ = hub.accept()
        client.sendall(wire.encode_request(12, b"OK n=3"))       # a reply to another client's request
        client.sendall(b"! 4 ACCEPT held=1 n=1*0000\n")          # an event whose checksum does not match
        client.close()                 # the hub goes (its board unplugged), after those lines: read before it
        until(lambda: listener.following() == set(), 60, "the hub's end heard")
        assert heard == [7]            # its end only: neither line was an event

        assert listener.follow(7, port) is True                # the board opened again
        client, _ = hub.accept()
        event = b"! 6 ACCEPT held=1 n=1 top=1 src=1 totals=100,30,100,30"
        client.sendall(event[:20])                               # a line in two parts
        client.sendall(event[20:] + b"*%04X\n" % wire.crc16(event))
        until(lambda: heard == [7, 7], 60, "the event heard", explain=lambda: heard)
        listener.forget(7)                                       # its link dropped: no longer followed
        client.close()
        until(lambda: listener.following() == set(), 60, "the board forgotten")
        assert heard == [7, 7]         # a forgotten board's hub going is not heard
    finally:
        listener.close()
        hub.close()
