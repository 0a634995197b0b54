"""A club evening across hosts over MQTT (docs/club-mqtt.md, "The evening over
MQTT"), on the transport of tallyboard.club.

The director (`event serve/watch --broker`) keeps the evening's store as on
one host; it publishes the round (every round's seating, the players, the
game length: round_body) and applies the tables' messages into the store.
A table host (`event table`) has some of the evening's boards: it keeps the
evening as the director last published it (HostStore, in memory, the round
body kept in its outbox file), reads its boards with Tables.sync() as the
director would, and every change of a table (its game record, the hand it
holds, its board's status) goes into its outbox as one message carrying the
table's whole state: applied twice it changes nothing, and the outbox's
sequence applies it once anyway.

A board's identity on the wire is `<event tag>.<table>` (tablestate.board_ident), its
`event` and `table` settings (evening/tables.py); the director accepts the
tables of the evening's seatings and nothing else."""
from __future__ import annotations

import json
import logging
import re
import secrets
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from tallynet import tablestate
from tallynet.tablestate import board_ident
from tallyrun.protocol import MAX_TABLE

from ..common import database
from ..common import names as tallyboard_names
from ..club import brokers, certificates, envelope
from ..club.envelope import tag_of
from ..club.director_link import DirectorLink
from .evening_store import EventT, EveningStore
from .store import Evening, EveningError, EveningDatabase
from .tables import NO_GAME, OK, REMOTE, SWAPPED, UNREACHABLE, event_folder, event_tag, events_home, round_game

log = logging.getLogger(__name__)

HOST_OFFLINE = "host offline"     # a table's status at the director while its table host is away
ROUND_POLL_S = 0.5                # how often the director looks for a new round or seating to publish
SEAT_RETRY_S = 2.0                # a board that missed the round (unplugged, say) is given it again this often
MAX_BACKOFF_S = 5.0               # a lost broker is tried again at least this often: a club's network, not the world's


def club_id(event: AnyEvening) -> str:
    """The evening's id on the wire: its folder's name (safe letters, then its tag)."""
    return event_folder(event).name


def round_body(store: EveningStore[Evening], event: Evening) -> dict[str, Any]:
    """What the director publishes as the round: enough for a table host to
    seat its boards (every round's seating so far, the players by number), and
    for a board on Wi-Fi to seat itself as Tables.push_round would: the
    round's game, its packed options (NEW's) and its record's options."""
    seatings = [store.seating(event, r) for r in range(1, event.round + 1)]
    game, options, record_options = round_game(len(seatings[-1]) if seatings else 0, event.hands)
    return {"name": event.name, "id": event.id, "tag": event_tag(event), "round": event.round,
            "rounds": event.rounds, "hands": event.hands, "players": store.names(event),
            "seatings": seatings, "game": game, "options": options, "record_options": record_options}


# ---------------------------------------------------------------- the director

def director_file(event: Evening) -> Path:
    """The director's club file of an evening (its secret, what it applied and refused, what it sent)."""
    return event_folder(event) / "club-director.sqlite3"


DIRECTOR_LOGIN = brokers.DIRECTOR_USER    # the director's broker user
UPDATER_LOGIN = brokers.UPDATER_USER      # event update-boards' (club/update_link.py)


@dataclass(frozen=True)
class Secrets:
    secret: bytes
    director_password: str     # the director's broker password (the embedded broker; event broker-files)
    tables_password: str       # unused since each table logs in as itself (broker_users); kept in the file


def director_secrets(event: Evening) -> Secrets:
    """The evening's secret (made once, kept in the director's club file, readable by its owner only)."""
    db = database.open_file(director_file(event), database.DIRECTOR)
    try:
        with database.write(db):
            db.execute("INSERT OR IGNORE INTO club (id, secret, director, tables) VALUES (1, ?, ?, ?)",
                       (envelope.new_secret(), secrets.token_urlsafe(18), secrets.token_urlsafe(18)))
        secret, director, tables = db.execute("SELECT secret, director, tables FROM club").fetchone()
    finally:
        db.close()
    return Secrets(bytes(secret), director, tables)


def join_code(event: Evening, tables: list[int]) -> str:
    """The code the table host of `tables` joins with: their keys only, so it signs for no other board;
    and the pin of the club's CA, so it trusts the club's broker and no other."""
    tag = event_tag(event)
    pin = certificates.pin_of(certificates.club_ca(club_ca_folder()).read_bytes())
    return envelope.join_code(club_id(event), director_secrets(event).secret, tables, lambda t: board_ident(tag, t),
                              pin)


def club_ca_folder() -> Path:
    """Where the director keeps the club's CA and its brokers' certificates (certificates.py): one
    for every evening and season of the club, so a join code's pin stays the club's."""
    return events_home().parent / "club-ca"


def key_for(secret: bytes, message: Mapping[str, Any]) -> bytes | None:
    """The key a message must be signed with (docs/club-mqtt.md, "The join code"): a
    board's, for what is sent about it, for the status of the table's login (its board's
    identity: the broker lets only that login publish it) and for that board's tag of the
    director's messages (the director link asks with {"board": board}). The director has
    no key of its own: what it says is tagged with each table's (issue 30)."""
    sender = message.get("board")
    if sender == envelope.DIRECTOR:
        return None
    return envelope.board_key(secret, sender) if isinstance(sender, str) and envelope.is_name(sender) else None


WIRELESS = "board-"      # a wireless board's host name on the wire: board-<its identity> (docs/club-wifi.md)
USB, TABLE_HOST, WIRELESS_BOARD = "usb", "table host", "wireless board"     # a table's link, as the views say it


def link_kind(port: str | None) -> str | None:
    """How a table's board reaches the director, from its port in the store: on
    the director's own USB, through a table host, or by itself over Wi-Fi
    (the host name a wireless board gives, board-<identity>); None: no board.
    Its messages are the same either way: only the name tells."""
    if not port:
        return None
    if not port.startswith(REMOTE):
        return USB
    return WIRELESS_BOARD if port[len(REMOTE):].startswith(WIRELESS) else TABLE_HOST


def links(event: Evening, boards: dict[int, dict]) -> dict[int, dict[str, Any]]:
    """Each attached table's link (docs/club-wifi.md, "The director's view"):
    kind, the table host's name or the board's port, whether it is online
    (its login's last status at the director; on USB: it answers), and
    when the director last applied a message of its board (UTC)."""
    tag = event_tag(event)
    seen: dict[str, str | None] = {}
    clients: dict[str, bool] = {}
    path = director_file(event)
    if path.exists():
        db = database.open_file(path, database.DIRECTOR)
        try:
            seen = dict(db.execute("SELECT board, at FROM applied").fetchall())
            clients = {client: bool(online) for client, online in
                       db.execute("SELECT client, online FROM clients").fetchall()}
        finally:
            db.close()
    out = {}
    for table, board in boards.items():
        port, kind = board.get("port"), link_kind(board.get("port"))
        if kind is None:
            continue
        status = board.get("status")
        if kind == USB:
            out[table] = {"kind": kind, "via": port, "online": status not in (UNREACHABLE,), "seen": None}
            continue
        host = str(port)[len(REMOTE):]      # a remote link's port (link_kind read it)
        ident = board_ident(tag, table)
        # its login's last status (a table's status is named after its login, the board's identity, and
        # signed with that board's key: the broker lets only that login publish it)
        online = clients.get(ident)
        out[table] = {"kind": kind, "via": host[len(WIRELESS):] if kind == WIRELESS_BOARD else host,
                      "online": (status != HOST_OFFLINE) if online is None else online and status != HOST_OFFLINE,
                      "seen": _utc(seen.get(ident))}
    return out


def _utc(at: str | None) -> str | None:
    """SQLite's datetime('now') (UTC, 'YYYY-MM-DD HH:MM:SS') as ISO 8601 with its Z."""
    return at.replace(" ", "T") + "Z" if at else None


def table_count(store: EveningStore[Evening], event: Evening) -> int:
    """The evening's tables (the most any round's seating has)."""
    return max(len(store.seating(event, r)) for r in range(1, max(event.round, 1) + 1))


def broker_users(store: EveningStore[Evening], event: Evening) -> dict[str, str]:
    """Every broker login of the evening, {user: password}: the director's, and each
    table's (its board's identity, the password its key gives: envelope.broker_password),
    for the embedded broker and for a club's mosquitto (event broker-files)."""
    made = director_secrets(event)
    tag = event_tag(event)
    users = {DIRECTOR_LOGIN: made.director_password, UPDATER_LOGIN: updater_password(made)}
    for table in range(1, table_count(store, event) + 1):
        board = board_ident(tag, table)
        users[board] = envelope.broker_password(envelope.board_key(made.secret, board))
    return users


def updater_password(made: Secrets) -> str:
    """`event update-boards`' broker password: derived from the evening's secret as a table's is from
    its key, under a name no board has, so it is the director's laptop's alone."""
    return envelope.broker_password(envelope.board_key(made.secret, UPDATER_LOGIN))


def table_login(code: envelope.JoinCode, table: int) -> tuple[str, str]:
    """(user, password) table `table` of a join code logs in to the broker with."""
    if table not in code.tables:
        raise ValueError(f"the join code is not table {table}'s")
    board = board_ident(tag_of(code.event), table)
    return board, envelope.broker_password(code.keys[code.tables.index(table)])


def refused(event: Evening) -> list[tuple[str, str | None, str, str, int]]:
    """(when last, board, reason, text, how many times) of every refusal of the director, oldest first."""
    path = director_file(event)
    if not path.exists():
        return []
    db = database.open_file(path, database.DIRECTOR)
    try:
        return db.execute("SELECT at, board, reason, text, count FROM refused ORDER BY id").fetchall()
    finally:
        db.close()


TABLE_STATUSES = (OK, UNREACHABLE, SWAPPED, NO_GAME)    # what a table host says of its board
# a stamp's fields, as tablestate.stamp() names them, each a number or OPEN's text: checked at the door like
# a name (issue 40, finding 5: escape sequences and HTML were stored), never shown as they came
STAMP_FIELDS = frozenset(tablestate.stamp(*[None] * 9))
STAMP_TEXT = re.compile(r"[A-Za-z0-9_.@:+-]{0,80}")
TABLE_BODY = frozenset({"table", "round", "host", "board_id", "status", "record", "stamp", "pending"})
MAX_SCORE = 10**6           # a held hand's score for a seat; far beyond any game's


def check_table_body(body: dict[str, Any], tag: int, names: list[str]) -> None:
    """A hand or state body from a table host, field by field (docs/club-mqtt.md,
    "Payloads"); `names` are that table's players in their seats. ValueError
    saying what is wrong: nothing of a body of another shape is stored."""
    if set(body) != TABLE_BODY:
        raise ValueError("the body's fields are " + ", ".join(sorted(body)) + "; expected "
                         + ", ".join(sorted(TABLE_BODY)))
    table = body["table"]
    board_id, host, status = body["board_id"], body["host"], body["status"]
    if not tallyboard_names.is_board_id(board_id, tag, table):
        raise ValueError(f"board_id {str(board_id)[:80]!r} is not a board of table {table} "
                         f"(<board's name>@{board_ident(tag, table)})")
    if not envelope.is_name(host):
        raise ValueError(f"host {str(host)[:80]!r} is not a name")
    if status not in TABLE_STATUSES:
        raise ValueError(f"status {str(status)[:80]!r} is not one of " + ", ".join(TABLE_STATUSES))
    record, stamp = body["record"], body["stamp"]
    if record is not None and not isinstance(record, dict):
        raise ValueError("record is not a game record")
    if record is not None and not isinstance(stamp, dict):
        raise ValueError("a record without its stamp")
    if stamp is not None and not (isinstance(stamp, dict) and set(stamp) <= STAMP_FIELDS and all(
            (type(v) is int and abs(v) < 2**30) or (isinstance(v, str) and STAMP_TEXT.fullmatch(v))
            for v in stamp.values())):
        raise ValueError("stamp is not a board's journal position (its fields, each a number or a short word "
                         "of letters, digits and _ . @ : + -)")
    if stamp is not None and "board_id" in stamp and not tallyboard_names.is_board_id(stamp["board_id"], tag, table):
        raise ValueError(f"the stamp's board_id {str(stamp['board_id'])[:80]!r} is not a board of table {table}")
    check_pending(body["pending"], names)


def check_pending(pending: object, names: list[str]) -> None:
    """A held hand (tables.pending_of) or None: {hand: 1..999, waiting_for: some of the
    table's `names`, scores: a whole number per seat, and (optional) buttons: the letter
    of the seat button each of waiting_for presses, "-" for none}."""
    if pending is None:
        return
    if not isinstance(pending, dict) or not {"hand", "waiting_for", "scores"} <= set(pending) \
            or not set(pending) <= {"hand", "waiting_for", "scores", "buttons"}:
        raise ValueError("pending is not a held hand {hand, waiting_for, scores[, buttons]}")
    hand, waiting, scores = pending["hand"], pending["waiting_for"], pending["scores"]
    buttons = pending.get("buttons", [])
    if "buttons" in pending and not (isinstance(buttons, list) and isinstance(waiting, list)
                                     and len(buttons) == len(waiting) and all(_is_button(b) for b in buttons)):
        raise ValueError("pending buttons are not one letter or digit for each of waiting_for: " + str(buttons)[:60])
    if type(hand) is not int or not 1 <= hand <= 999:
        raise ValueError(f"pending hand {hand!r} is not a number from 1 to 999")
    if not (isinstance(waiting, list) and 1 <= len(waiting) <= len(names) and len(set(map(str, waiting))) == len(waiting)
            and all(isinstance(name, str) and name in names for name in waiting)):
        raise ValueError("pending waits for someone not at this table: " + str(waiting)[:120])
    if not (isinstance(scores, list) and len(scores) == len(names)
            and all(type(score) is int and -MAX_SCORE <= score <= MAX_SCORE for score in scores)):
        raise ValueError(f"pending scores are not {len(names)} whole numbers")


def _is_button(letter: object) -> bool:
    return isinstance(letter, str) and len(letter) == 1 and (letter == "-" or "A" <= letter <= "Z"
                                                            or "0" <= letter <= "9")


def _int(body: dict[str, Any], key: str, low: int, high: int) -> int:
    value = body.get(key)
    if type(value) is not int or not low <= value <= high:
        raise ValueError(f"{key} {value!r} is not a number from {low} to {high}")
    return value


class Director:
    """The director's end: DirectorLink into the store, the round published
    whenever the store's round or seating changes. A context manager. The
    store is the director's own EveningDatabase: it checks a table's record and
    reads the event again, which no other EveningStore does."""

    def __init__(self, store: EveningDatabase, event: Evening, url: str, tls_ca: str | None = None,
                 on_change: Callable[[], None] | None = None) -> None:
        self.store = store
        self.on_change = on_change     # called after a table's message or its link's status went into the store
        self.event = event
        self.tag = event_tag(event)
        self.id = club_id(event)
        self.secret = director_secrets(event).secret
        self.link = DirectorLink(url, f"{self.id}-director", tls_ca=tls_ca, event=self.id,
                                 key=lambda message: key_for(self.secret, message),
                                 store_path=director_file(event), boards=self._boards,
                                 on_table_message=self._apply, on_status=self._host_status,
                                 on_health=lambda board, body: self._changed(), max_backoff=MAX_BACKOFF_S)
        self._stop = threading.Event()
        self._publisher = threading.Thread(target=self._publish_rounds, name="club-rounds", daemon=True)

    def start(self, wait: float = 10.0) -> bool:
        """Link to the broker and publish the round; False when the broker did
        not answer within `wait` seconds (the link keeps trying, the round
        goes when it answers). ConnectionRefused when it refused the user."""
        self.link.start()
        try:
            self.link.wait_connected(wait)
            connected = True
        except TimeoutError:
            connected = False
        self._publish_round_if_new()
        self._publisher.start()
        return connected

    def stop(self) -> None:
        self._stop.set()
        if self._publisher.is_alive():
            self._publisher.join(5)
        self.link.stop()

    def __enter__(self) -> "Director":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _boards(self, connection: sqlite3.Connection) -> set[str]:
        event = self.store.refresh(self.event)
        return {board_ident(self.tag, t) for t in range(1, table_count(self.store, event) + 1)}

    def _apply(self, connection: sqlite3.Connection, message: dict[str, Any]) -> None:
        """One table message into the store: the table's whole state, so
        applying it again changes nothing. A message the evening cannot take
        (a body of the wrong shape, a game for other players, a table it does
        not have) raises: the link rolls back whatever it wrote, lists it in
        `refused` (apply) and does not count its seq as applied, so the table
        host's own next message is still the next one."""
        try:
            self._apply_body(message)
        except (EveningError, KeyError, TypeError) as exc:
            raise ValueError(str(exc)) from None
        self._changed()

    def _changed(self) -> None:
        # the live views' push: it only wakes their worker, which reads the evening's store (each of its
        # methods has committed what it wrote)
        if self.on_change is not None:
            self.on_change()

    def _apply_body(self, message: dict[str, Any]) -> None:
        body = message["body"]
        event = self.store.refresh(self.event)
        table = _int(body, "table", 1, MAX_TABLE)
        # round 0: a board not seated yet (a board on Wi-Fi before it took the round, or between two
        # rounds): it says only that it is there; nothing of a game comes with it
        round = _int(body, "round", 0, event.round)
        if message["board"] != board_ident(self.tag, table):
            raise ValueError(f"board {message['board']} sent table {table}'s state")
        if round == 0:
            self._apply_presence(event, table, body)
            return
        seating = self.store.seating(event, round)
        if table > len(seating):
            raise ValueError(f"round {round} has no table {table} (tables 1 to {len(seating)})")
        names = [self.store.names(event)[p] for p in seating[table - 1]]
        check_table_body(body, self.tag, names)
        board_id, host, status = body["board_id"], body["host"], body["status"]
        record, stamp, pending = body["record"], body["stamp"], body["pending"]
        if record is not None:
            self.store.check_table_record(event, round, table, record)
        known = self.store.boards(event).get(table)
        if known is None or known["port"] != REMOTE + host or known["board_id"] != board_id:
            self.store.set_board(event, table, REMOTE + host, board_id)
        if record is not None:
            self.store.save_table_game(event, round, table, record, stamp)
        if round == event.round and self.store.pending(event, round, table) != pending:
            self.store.set_pending(event, round, table, pending)
        self.store.set_table_status(event, table, status)

    def _apply_presence(self, event: Evening, table: int, body: dict[str, Any]) -> None:
        """A board's state before it was seated (round 0): its link and status, no game."""
        count = table_count(self.store, event)
        if table > count:
            raise ValueError(f"the evening has no table {table} (tables 1 to {count})")
        if body["record"] is not None or body["stamp"] is not None or body["pending"] is not None:
            raise ValueError("a board not seated yet (round 0) holds no game of the evening")
        check_table_body(body, self.tag, [])
        known = self.store.boards(event).get(table)
        if known is None or known["port"] != REMOTE + body["host"] or known["board_id"] != body["board_id"]:
            self.store.set_board(event, table, REMOTE + body["host"], body["board_id"])
        self.store.set_table_status(event, table, body["status"])

    def _host_status(self, login: str, online: bool, boards: list[str]) -> None:
        """A table's link came or went (its status is named after its login, the
        board's identity): its board is `ok` again (its next message says
        otherwise if it is not), or `host offline`."""
        for table, known in self.store.boards(self.event).items():
            if board_ident(self.tag, table) != login or not known["port"].startswith(REMOTE):
                continue
            if not online:
                self.store.set_table_status(self.event, table, HOST_OFFLINE)
            elif known["status"] == HOST_OFFLINE:
                self.store.set_table_status(self.event, table, OK)
        self._changed()

    def _publish_round_if_new(self) -> None:
        body = round_body(self.store, self.store.refresh(self.event))
        with self.link._lock:
            row = self.link.store.execute("SELECT payload FROM sent WHERE topic = ?",
                                          (envelope.round_topic(self.id),)).fetchone()
        sent = json.loads(bytes(row[0])) if row is not None else None
        # published again when it changed, and when what was sent is signed with the director's key of an
        # older tallyboard (no tags: no table would take it now)
        if sent is None or sent["body"] != body or "tags" not in sent:
            self.link.publish_round(body)

    def _publish_rounds(self) -> None:
        while not self._stop.wait(ROUND_POLL_S):
            try:
                self._publish_round_if_new()
            except Exception:     # the store busy, say: tried again in a moment
                log.exception("the round was not published; trying again")


# ---------------------------------------------------------------- a table host

@dataclass
class HostEvening:
    """The evening as a table host knows it (the director's round)."""
    id: int
    name: str
    round: int
    rounds: int
    hands: int | None
    state: str = "running"


AnyEvening = Evening | HostEvening     # the director's evening, or a table host's view of it
