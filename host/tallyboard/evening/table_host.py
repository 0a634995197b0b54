"""A table host of a club evening (docs/club-mqtt.md): its boards read and
pushed as on the director's own USB, what they say sent to the director
through its outbox, the director's round applied (club.py: the evening's
club side it shares with the director)."""
from __future__ import annotations

import json
import logging
import socket
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable

from tallynet import tablestate
from tallynet.outbox import check_round

from ..common import database
from ..club import envelope
from ..club.envelope import tag_of
from ..club.mqtt_link import ConnectionRefused, TableLink, parse_url
from ..club.outbox import Outbox
from ..common.errors import TallyboardError
from .store import EveningError
from .tables import OK, Tables, event_tag
from .club import MAX_BACKOFF_S, SEAT_RETRY_S, WIRELESS, HostEvening, board_ident, table_login

log = logging.getLogger(__name__)


class HostStore:
    """The store a table host's Tables reads and writes: the evening from
    the director's round, the tables' games in memory; every change of a
    table is handed to `changed(round, table)`. An EveningStore[HostEvening]
    (evening/evening_store.py)."""

    def __init__(self, body: dict[str, Any], changed: Callable[[int, int], None]) -> None:
        self.body = body
        self.changed = changed
        self.games: dict[tuple[int, int], tuple[dict, dict]] = {}
        self.pendings: dict[tuple[int, int], dict | None] = {}
        self.attached: dict[int, dict] = {}
        self.rounds_of: dict[int, int] = {}      # table -> the round last stored from its board

    def event(self, name: str | None = None) -> HostEvening:
        b = self.body
        if name is not None and name != b["name"]:
            raise EveningError(f"the director's evening is {b['name']!r}, not {name!r}")
        return HostEvening(b["id"], b["name"], b["round"], b["rounds"], b["hands"])

    def names(self, event: HostEvening) -> list[str]:
        return list(self.body["players"])

    def seating(self, event: HostEvening, round: int) -> list[list[int]]:
        seatings = self.body["seatings"]
        if not 1 <= round <= len(seatings):
            raise EveningError(f"the director has published no round {round} yet")
        return seatings[round - 1]

    def boards(self, event: HostEvening) -> dict[int, dict]:
        return {t: dict(b) for t, b in sorted(self.attached.items())}

    def set_board(self, event: HostEvening, table: int, port: str, board_id: str) -> None:
        self.attached[table] = {"port": port, "board_id": board_id, "status": OK}

    def set_table_status(self, event: HostEvening, table: int, status: str) -> None:
        self.attached.setdefault(table, {"port": "", "board_id": ""})["status"] = status
        self.changed(self.rounds_of.get(table, self.body["round"]), table)

    def save_table_game(self, event: HostEvening, round: int, table: int, record: dict, stamp: dict) -> bool:
        if self.games.get((round, table)) == (record, stamp):
            return False
        self.games[(round, table)] = (record, stamp)
        self.rounds_of[table] = round
        if stamp.get("board_id"):
            self.attached.setdefault(table, {"port": "", "status": OK})["board_id"] = stamp["board_id"]
        self.changed(round, table)
        return True

    def table_game(self, event: HostEvening, round: int, table: int) -> dict | None:
        game = self.games.get((round, table))
        return game[0] if game else None

    def set_pending(self, event: HostEvening, round: int, table: int, pending: dict | None) -> None:
        self.pendings[(round, table)] = pending
        self.changed(round, table)

    def pending(self, event: HostEvening, round: int, table: int) -> dict | None:
        return self.pendings.get((round, table))


def host_name() -> str:
    """This machine's name as a topic level."""
    name = "".join(c if c.isascii() and (c.isalnum() or c in "_.-") else "-" for c in socket.gethostname())
    return name.strip("-.")[:40] or "host"


class TableHost:
    """A table host of the evening of join code `code`: its boards (`ports`,
    or `emulators` emulated boards) for the tables `numbers` (some of the
    code's), its outbox in `state_dir`."""

    def __init__(self, url: str, code: envelope.JoinCode, name: str, numbers: list[int],
                 state_dir: Path, ports: list[str] | None = None, emulators: int = 0, tls_ca: str | None = None,
                 timeout: float = 1.0, poll: float = 0.2, say: Callable[[str], None] = print,
                 take_next_round: bool = False, plain: bool = False) -> None:
        event_id = self.event_id = code.event
        if code.ca_pin and not parse_url(url).tls and not plain:
            raise TallyboardError(f"the join code is for the club's broker over TLS (mqtts://), and {url} is plain "
                                  "MQTT, where the tables' passwords and hands cross the network readable: give the "
                                  "broker as mqtts://HOST:PORT (a club's TLS port is usually 8883), or --plain if "
                                  "this club's broker has no TLS")
        missing = [t for t in numbers if t not in code.tables]
        if missing:
            raise TallyboardError(f"the join code is for table {', '.join(map(str, code.tables))}, not "
                                  f"{', '.join(map(str, missing))}: ask the director for the code of this host's "
                                  "tables (tallyboard event join-code --table N ...)")
        self.name = envelope.check_name("host name", name)
        if name.startswith(WIRELESS):
            raise TallyboardError(f"a table host's name may not start with {WIRELESS!r}: the director takes that "
                                  "for a board on Wi-Fi; give another --name")
        self.numbers = numbers
        self.ports = list(ports or [])
        self.emulators = emulators
        self.timeout = timeout
        self.poll = poll
        self.say = say
        self.tag = tag_of(event_id)
        keys = {board_ident(self.tag, t): key for t, key in zip(code.tables, code.keys)}
        # each table's key signs its board's messages and checks its tag of the director's: the code holds no
        # key that speaks for the director (issue 30)
        self.outbox = Outbox(state_dir / f"{event_id}-{self.name}.sqlite3", event_id, None, keys)
        self.db = database.open_file(self.outbox.path, database.TABLE_HOST)
        if take_next_round:
            last = self.outbox.forget_received(envelope.DIRECTOR)
            say(f"the director's next round is taken whatever its number (this host had taken round seq {last})")
        self.new_round = threading.Event()
        # one link per table, each logged in as that table (its board's identity, the password its key
        # gives): the broker lets it publish that board's messages and status only (brokers.ACL), as it
        # would a board on the club's Wi-Fi; they share the outbox, each sending its own board's rows
        self.links = []
        for table in numbers:
            user, password = table_login(code, table)
            self.links.append(TableLink(url, f"{event_id}-{user}", user, password, tls_ca=tls_ca, tls_pin=code.ca_pin,
                                        outbox=self.outbox, on_director_message=self._keep_round,
                                        on_director_applied=self.new_round.set, boards=[user],
                                        max_backoff=MAX_BACKOFF_S))
        self.store: HostStore | None = None
        self.tables: Tables | None = None
        self.seat_again: float | None = None     # when to push the round again to a board that missed it
        self._lock = threading.RLock()
        self.pushed = threading.Event()          # a board pushed an event: read it now, not at the next poll
        self._due: set[int] = set()              # the tables whose boards pushed

    # the director's round: kept in the outbox file (applied once there), seated by the main loop once
    # that write has committed (the link sets new_round then: set here, the loop could read the round before)
    def _keep_round(self, connection: sqlite3.Connection, message: dict[str, Any]) -> None:
        body = message["body"]
        check_round(body)
        connection.execute("INSERT OR REPLACE INTO club_round (id, body) VALUES (1, ?)", (json.dumps(body),))

    def _kept_round(self) -> dict[str, Any] | None:
        row = self.db.execute("SELECT body FROM club_round WHERE id = 1").fetchone()
        return json.loads(row[0]) if row else None

    # every change of a table: its whole state, queued once
    def _changed(self, round: int, table: int) -> None:
        store, tables = self.store, self.tables
        if store is None or tables is None or table not in self.numbers:
            return
        game = store.games.get((round, table))
        attached = store.attached.get(table, {})
        body = tablestate.body(table, round, self.name, attached.get("board_id") or "board@" + board_ident(self.tag, table),
                               attached.get("status", OK), game[0] if game else None, game[1] if game else None,
                               store.pendings.get((round, table)))
        board = board_ident(self.tag, table)
        text = json.dumps(body, sort_keys=True)
        with self._lock:
            with database.write(self.db) as db:
                row = db.execute("SELECT body FROM club_last WHERE board = ? AND round = ?",
                                 (board, round)).fetchone()
                if row is not None and row[0] == text:     # nothing written: the transaction ends empty
                    return
                kind = tablestate.kind(body, json.loads(row[0]) if row else None)
                self.outbox.add_in(db, board, kind, body)
                db.execute("INSERT OR REPLACE INTO club_last (board, round, body) VALUES (?, ?, ?)",
                           (board, round, text))
        self.outbox.notify()

    def _seat(self, body: dict[str, Any]) -> None:
        """The director's round onto this host's boards (the first time: attach them)."""
        store, tables = self.store, self.tables
        if store is None or tables is None:
            store = HostStore(body, self._changed)
            event = store.event()
            if event_tag(event) != self.tag or body["tag"] != self.tag:
                raise TallyboardError("the director's evening and this tallyboard disagree on the event's tag: "
                                      "update tallyboard on this host")
            tables = Tables(store, event, self.timeout)
            tables.follow_pushes(self._board_pushed)
            self.store, self.tables = store, tables
            if self.emulators:
                tables.attach_emulators(self.emulators, self.numbers)   # started again if it had stopped
            else:
                tables.attach_ports(self.ports, self.numbers)
        else:
            store.body = body
            tables.event = store.event()
        tables.names = store.names(tables.event)
        seated = [t for t in self.numbers if t <= len(body["seatings"][-1])]
        tables.sync()         # what the boards hold is queued before a new game replaces it
        try:
            tables.push_round(body["round"], seated)
        except TallyboardError as exc:
            self.say(f"round {body['round']}: {exc}; trying again in {SEAT_RETRY_S:g} s")
            self.seat_again = time.monotonic() + SEAT_RETRY_S
            return
        self.seat_again = None
        self.say(f"round {body['round']}: tables {', '.join(map(str, seated)) or 'none'} seated")

    def _board_pushed(self, table: int) -> None:
        # on the boards' listening thread: only noted; the main loop reads the board
        with self._lock:
            self._due.add(table)
        self.pushed.set()

    def run(self, stop: threading.Event, wait_round: float = 60.0) -> None:
        """Until `stop`: take the director's rounds, read the boards, queue what changed."""
        for link in self.links:
            link.start()
        try:
            body = self._kept_round()
            deadline = time.monotonic() + wait_round
            if body is None:       # the first start: nothing to do before the broker has let this host in
                try:
                    for link in self.links:
                        link.wait_connected(max(0.1, deadline - time.monotonic()))
                except (ConnectionRefused, TimeoutError) as exc:
                    raise TallyboardError(f"{exc}; nothing was started") from None
            while body is None:
                if stop.is_set():
                    return
                if time.monotonic() > deadline:
                    raise TallyboardError(f"no round from the director in {wait_round:g} s: is the director's "
                                          "`tallyboard event serve` running, and the join code this evening's?")
                self.new_round.wait(0.2)
                body = self._kept_round()
            self.new_round.clear()
            self._seat(body)
            next_full = 0.0
            while not stop.is_set():
                if self.new_round.is_set() or (self.seat_again is not None and time.monotonic() > self.seat_again):
                    self.new_round.clear()
                    self._seat(self._kept_round() or body)
                self.pushed.clear()
                with self._lock:
                    due, self._due = self._due, set()
                if self.tables is not None:
                    # every board each poll; between polls, the boards that pushed an event at once
                    if time.monotonic() >= next_full:
                        next_full = time.monotonic() + self.poll
                        self.tables.sync()
                    elif due:
                        self.tables.sync(only=due)
                self.pushed.wait(max(0.0, next_full - time.monotonic()))
        finally:
            if self.tables is not None:
                self.tables.close()
            for link in self.links:
                link.stop()
            self.outbox.close()
            self.db.close()
