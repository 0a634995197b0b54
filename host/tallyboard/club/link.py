"""The two ends of a club evening over MQTT (docs/club-mqtt.md), on paho-mqtt 2.

TableLink: a table host. Sends its outbox in order, one message at a time
with QoS 1 (the next only after the broker's PUBACK, so the director sees a
board's messages in order), keeps a persistent session (clean_session=False),
reconnects with backoff, and keeps queueing while the broker is away. It
takes the director's round (applied once, in the outbox's file) and the
director's `applied` confirmations (which empty the outbox).

DirectorLink: the director. Takes every table's messages with QoS 1 on a
persistent session and applies each exactly once: the callback runs inside
the transaction that records (board, seq) in its `applied` table, and a
message refused (bad JSON, unknown board, bad signature, replay, gap) is
written to its `refused` table and never applied. After each message it
publishes, retained, how far it has applied that board.
"""
from __future__ import annotations

import logging
import sqlite3
import ssl
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping
from urllib.parse import unquote, urlsplit

import paho.mqtt.client as mqtt

from .. import database
from . import envelope
from .envelope import RefusedMessage
from .outbox import Outbox

log = logging.getLogger(__name__)

RESEND_AFTER = 5.0       # seconds the director has to confirm a message before it is sent again
RESEND_AFTER_MAX = 300.0  # the wait doubles while nothing is confirmed, up to this
KEEPALIVE = 15            # seconds; the broker publishes a table host's will after 1.5 times this


class ConnectionRefused(ConnectionError):
    """The broker refused the link: wrong user name or password, or not allowed."""


@dataclass(frozen=True)
class BrokerAddress:
    host: str
    port: int
    tls: bool
    username: str | None
    password: str | None


def parse_url(url: str) -> BrokerAddress:
    """mqtt://user:pass@host:port or mqtts://... (TLS); ValueError saying what is wrong."""
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts"):
        raise ValueError(f"broker {url!r}: write it as mqtt://user:password@host:port (mqtts:// for TLS)")
    if not parts.hostname:
        raise ValueError(f"broker {url!r} names no host: write it as mqtt://user:password@host:port")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"broker {url!r}: the port is not a number from 1 to 65535") from None
    tls = parts.scheme == "mqtts"
    return BrokerAddress(parts.hostname, port or (8883 if tls else 1883), tls,
                         unquote(parts.username) if parts.username is not None else None,
                         unquote(parts.password) if parts.password is not None else None)


class _Link:
    """What both ends share: the paho client, its session, connecting and reconnecting."""

    def __init__(self, url: str, client_id: str, username: str | None, password: str | None,
                 tls_ca: str | Path | None, max_backoff: float) -> None:
        address = parse_url(url)
        self.address = address
        self.client_id = envelope.check_name("client id", client_id)
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False,
                                  protocol=mqtt.MQTTv311)
        username = username if username is not None else address.username
        password = password if password is not None else address.password
        if username is not None:
            self.client.username_pw_set(username, password)
        if address.tls:
            self.client.tls_set(ca_certs=str(tls_ca) if tls_ca else None, cert_reqs=ssl.CERT_REQUIRED)
        self.client.reconnect_delay_set(min_delay=1, max_delay=max(1, int(max_backoff)))
        self.client.suppress_exceptions = True   # the network thread goes on; see _message
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._message
        self.connected = threading.Event()
        self.generation = 0           # one more at every connection
        self.last_error: str | None = None
        self._refused_by_broker = False

    def start(self) -> None:
        self.client.connect_async(self.address.host, self.address.port, keepalive=KEEPALIVE)
        self.client.loop_start()

    def wait_connected(self, timeout: float) -> None:
        """Until the broker has taken the link; ConnectionRefused if it said
        no to the credentials, TimeoutError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not self.connected.wait(0.05):
            if self._refused_by_broker:
                raise ConnectionRefused(f"the broker refused {self.client_id}: {self.last_error}; "
                                        "check the user name and password")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.client_id} could not reach the broker at {self.address.host}:"
                                   f"{self.address.port} in {timeout:g} s ({self.last_error or 'no answer'})")

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self.last_error = str(reason)
            self._refused_by_broker = reason.value in (0x04, 0x05, 0x86, 0x87)   # bad credentials, not authorized
            log.warning("%s: broker refused the connection: %s", self.client_id, reason)
            return
        self._refused_by_broker = False
        self.last_error = None
        self.generation += 1
        self.connected_now()
        self.connected.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.connected.clear()
        self.generation += 1
        if reason.is_failure:
            self.last_error = str(reason)
            log.info("%s: connection lost (%s); reconnecting", self.client_id, reason)

    def connected_now(self) -> None:
        """Subscribe and announce; runs at every (re)connection."""

    def _message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            self._on_message(client, userdata, message)
        except Exception:   # a store that failed: not applied, and the table host's resend brings it again
            log.exception("%s: %s not handled", self.client_id, message.topic)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        raise NotImplementedError

    def _stop_client(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class TableLink(_Link):
    """One table host's link to the evening. `on_director_message(connection,
    message)` applies one director message (the round) inside a transaction
    on the outbox's file; it runs once per message."""

    def __init__(self, url: str, client_id: str, username: str | None = None, password: str | None = None,
                 tls_ca: str | Path | None = None, *, outbox: Outbox,
                 on_director_message: Callable[[sqlite3.Connection, dict[str, Any]], None] | None = None,
                 boards: Iterable[str] = (), max_backoff: float = 30.0, resend_after: float = RESEND_AFTER) -> None:
        super().__init__(url, client_id, username, password, tls_ca, max_backoff)
        self.outbox = outbox
        self.event = outbox.event
        self.key = outbox.key
        self.boards = [envelope.check_name("board", board) for board in boards]
        self.on_director_message = on_director_message
        self.resend_after = resend_after
        self._stopping = threading.Event()
        self._waiting = resend_after
        self.client.will_set(envelope.host_status_topic(self.event, client_id), self._status(False), qos=1,
                             retain=True)
        self._publisher = threading.Thread(target=self._publish_loop, name=f"outbox-{client_id}", daemon=True)

    def start(self) -> None:
        super().start()
        self._publisher.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Say offline, close the link and end the publisher (rows not confirmed stay in the outbox)."""
        self._stopping.set()
        self.outbox.notify()
        self._publisher.join(timeout)
        if self.connected.is_set():
            info = self.client.publish(envelope.host_status_topic(self.event, self.client_id), self._status(False),
                                       qos=1, retain=True)
            try:
                info.wait_for_publish(1.0)
            except (RuntimeError, ValueError):
                pass
        self._stop_client()

    def add(self, board: str, kind: str, body: Mapping[str, Any]) -> int:
        """Queue one message (outbox.add); its seq."""
        return self.outbox.add(board, kind, body)

    def _status(self, online: bool) -> bytes:
        return envelope.seal(self.key, self.event, self.client_id, 0, "status",
                             {"online": online, "boards": self.boards})

    def connected_now(self) -> None:
        self.client.subscribe([(envelope.round_topic(self.event), 1),
                               (envelope.applied_topic(self.event, "+"), 1)])
        self.client.publish(envelope.host_status_topic(self.event, self.client_id), self._status(True), qos=1,
                            retain=True)
        self.outbox.resend_all()
        self._waiting = self.resend_after
        self.outbox.notify()

    def _publish_loop(self) -> None:
        while not self._stopping.is_set():
            if not self.connected.wait(0.2):
                continue
            generation = self.generation
            self._resend_if_unconfirmed()
            row = self.outbox.next_unacked()
            if row is None:
                with self.outbox.changed:
                    self.outbox.changed.wait(0.2)
                continue
            info = self.client.publish(row.topic, row.payload, qos=1)
            while not self._stopping.is_set() and generation == self.generation and not info.is_published():
                try:
                    info.wait_for_publish(0.2)
                except (RuntimeError, ValueError):   # not sent: the connection went; it is sent again after
                    time.sleep(0.05)
            if info.is_published():
                self.outbox.mark_acked(row.id)

    def _resend_if_unconfirmed(self) -> None:
        oldest = self.outbox.oldest_unconfirmed_ack()
        if oldest is not None and time.time() - oldest > self._waiting:
            count = self.outbox.resend_all()
            log.info("%s: the director has not confirmed %d messages in %.0f s; sending them again",
                     self.client_id, count, self._waiting)
            self._waiting = min(self._waiting * 2, RESEND_AFTER_MAX)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            if message.topic == envelope.round_topic(self.event):
                opened = envelope.open_message(message.payload, self.key,
                                               {envelope.DIRECTOR: self.outbox.received(envelope.DIRECTOR)},
                                               event=self.event, gaps=True)
                if opened["kind"] != "round":
                    raise RefusedMessage("field", f"a {opened['kind']} message on the round's topic")
                if self.on_director_message is not None:
                    self.outbox.apply_received(envelope.DIRECTOR, opened["seq"], self.on_director_message, opened)
            else:
                opened = envelope.open_message(message.payload, self.key, {envelope.DIRECTOR: 0}, event=self.event)
                body = opened["body"]
                board, seq = body.get("board"), body.get("seq")
                if (opened["kind"] != "applied" or message.topic != envelope.applied_topic(self.event, str(board))
                        or type(seq) is not int or not 0 <= seq <= envelope.MAX_SEQ):
                    raise RefusedMessage("field", f"not an applied message for its topic: {message.topic}")
                if self.outbox.numbered(board) and self.outbox.confirm(board, seq):
                    self._waiting = self.resend_after
        except RefusedMessage as refused:
            level = logging.DEBUG if refused.reason == "replay" else logging.WARNING
            log.log(level, "%s: refused %s: %s", self.client_id, message.topic, refused)


class DirectorLink(_Link):
    """The director's link. `on_table_message(connection, message)` applies
    one hand or state message inside the transaction of the director's
    store (SQLite at `store_path`, the evening's own tables beside these);
    it runs exactly once per (board, seq). `boards` is the set of board
    identities of the evening, or a function of the store's connection
    that returns it. `on_status(host, online, boards)` hears table hosts
    come and go."""

    def __init__(self, url: str, client_id: str, username: str | None = None, password: str | None = None,
                 tls_ca: str | Path | None = None, *, event: str, key: bytes, store_path: str | Path,
                 boards: Iterable[str] | Callable[[sqlite3.Connection], Iterable[str]],
                 on_table_message: Callable[[sqlite3.Connection, dict[str, Any]], None],
                 on_status: Callable[[str, bool, list[str]], None] | None = None,
                 max_backoff: float = 30.0) -> None:
        super().__init__(url, client_id, username, password, tls_ca, max_backoff)
        self.event = envelope.check_name("event", event)
        self.key = key
        self.store = database.open_file(store_path, database.DIRECTOR)
        self._boards = boards if callable(boards) else frozenset(boards)
        self.on_table_message = on_table_message
        self.on_status = on_status
        self._lock = threading.RLock()

    def stop(self) -> None:
        self._stop_client()
        with self._lock:
            self.store.close()

    def connected_now(self) -> None:
        self.client.subscribe([(envelope.table_topic(self.event, "+", "+"), 1),
                               (envelope.host_status_topic(self.event, "+"), 1)])
        with self._lock:   # a broker that lost its retained messages gets them again
            for topic, payload in self.store.execute("SELECT topic, payload FROM sent ORDER BY seq").fetchall():
                self.client.publish(topic, bytes(payload), qos=1, retain=True)

    def publish_round(self, body: Mapping[str, Any]) -> int:
        """Publish the round (seating, game length: the evening's body),
        retained; its seq. Stored first, so it is published again after
        every reconnection."""
        topic = envelope.round_topic(self.event)
        with self._lock:
            with database.write(self.store) as db:
                seq = db.execute("SELECT coalesce(max(seq), 0) FROM sent").fetchone()[0] + 1
                payload = envelope.seal(self.key, self.event, envelope.DIRECTOR, seq, "round", body)
                db.execute("INSERT INTO sent (topic, seq, payload) VALUES (?, ?, ?) ON CONFLICT (topic) "
                           "DO UPDATE SET seq = excluded.seq, payload = excluded.payload", (topic, seq, payload))
        self.client.publish(topic, payload, qos=1, retain=True)
        return seq

    def applied(self) -> dict[str, int]:
        """The last seq applied from each board."""
        with self._lock:
            return dict(self.store.execute("SELECT board, seq FROM applied").fetchall())

    def refused(self) -> list[tuple[str, str | None, str, str]]:
        """(when, board, reason, text) of every message refused, oldest first."""
        with self._lock:
            return self.store.execute("SELECT at, board, reason, text FROM refused ORDER BY id").fetchall()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        levels = message.topic.split("/")
        if len(levels) == 5 and levels[2] == "host":
            self._status_message(message, levels[3])
            return
        board = levels[3] if len(levels) == 5 else None
        with self._lock, database.write(self.store):
            last = self._last(board)
            try:
                if board is None or len(levels) != 5 or levels[2] != "table":
                    raise RefusedMessage("field", f"not a table's topic: {message.topic}")
                known = self._boards(self.store) if callable(self._boards) else self._boards
                opened = envelope.open_message(message.payload, self.key,
                                               {name: self._last(name) for name in (board,) if name in known},
                                               event=self.event)
                if opened["board"] != board or opened["kind"] != levels[4] or opened["kind"] not in ("hand",
                                                                                                      "state"):
                    raise RefusedMessage("field", f"a {opened['kind']} message of board {opened['board']!r} "
                                                  f"on the topic {message.topic}")
                self.store.execute("SAVEPOINT apply")
                try:
                    self.on_table_message(self.store, opened)
                except Exception as error:   # the evening refused it: nothing of it stays
                    self.store.execute("ROLLBACK TO apply")
                    raise RefusedMessage("apply", f"{opened['kind']} {opened['seq']} of board {board!r} "
                                                  f"not applied: {error}") from None
                self.store.execute("RELEASE apply")
                self.store.execute("INSERT INTO applied (board, seq) VALUES (?, ?) ON CONFLICT (board) "
                                   "DO UPDATE SET seq = excluded.seq", (board, opened["seq"]))
                last = opened["seq"]
            except RefusedMessage as refused:
                log.warning("refused %s: %s", message.topic, refused)
                self.store.execute("INSERT INTO refused (at, board, topic, reason, text) VALUES "
                                   "(datetime('now'), ?, ?, ?, ?)", (board, message.topic, refused.reason,
                                                                    str(refused)))
        if board is not None and last and envelope.is_name(board):
            self.client.publish(envelope.applied_topic(self.event, board),
                                envelope.seal(self.key, self.event, envelope.DIRECTOR, 0, "applied",
                                              {"board": board, "seq": last}), qos=1, retain=True)

    def _last(self, board: str | None) -> int:
        row = self.store.execute("SELECT seq FROM applied WHERE board = ?", (board,)).fetchone()
        return row[0] if row else 0

    def _status_message(self, message: mqtt.MQTTMessage, host: str) -> None:
        try:
            opened = envelope.open_message(message.payload, self.key, {host: 0}, event=self.event)
            body = opened["body"]
            online, boards = body.get("online"), body.get("boards")
            if (opened["kind"] != "status" or type(online) is not bool or not isinstance(boards, list)
                    or not all(isinstance(name, str) for name in boards)):
                raise RefusedMessage("field", f"not a status message: {message.topic}")
        except RefusedMessage as refused:
            log.warning("refused %s: %s", message.topic, refused)
            with self._lock:
                self.store.execute("INSERT INTO refused (at, board, topic, reason, text) VALUES "
                                   "(datetime('now'), ?, ?, ?, ?)", (host, message.topic, refused.reason, str(refused)))
            return
        if self.on_status is not None:
            self.on_status(host, online, boards)
