"""The director's end of a club evening over MQTT (docs/club-mqtt.md): takes
every table's messages with QoS 1 on a persistent session and applies each
exactly once, inside the transaction that records it; refuses and records
what it cannot trust; publishes the round and how far it has applied each
board (mqtt_link.py: the connection both ends share, and the table host's)."""
from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import paho.mqtt.client as mqtt

from tallynet import topics

from ..common import database
from ..common.ratelog import RateLog
from . import envelope, kinds
from .envelope import RefusedMessage
from .mqtt_link import MAX_REFUSED, MqttLink

log = logging.getLogger(__name__)
# a table's refused messages: a line a minute per topic with a count, never one a message (common/ratelog.py)
_REFUSED_LOG = RateLog(log, "the director refused")


def _keep_sent(db: sqlite3.Connection, topic: str, seq: int, payload: bytes) -> None:
    """The director's last message on a topic, with its seq: published again after every reconnection."""
    db.execute("INSERT INTO sent (topic, seq, payload) VALUES (?, ?, ?) ON CONFLICT (topic) "
               "DO UPDATE SET seq = excluded.seq, payload = excluded.payload", (topic, seq, payload))


class DirectorLink(MqttLink):
    """The director's link. `on_table_message(connection, message)` applies
    one hand or state message inside the transaction of the director's
    store (SQLite at `store_path`, the evening's own tables beside these);
    it runs exactly once per (board, seq). `boards` is the set of board
    identities of the evening, or a function of the store's connection
    that returns it. `on_status(host, online, boards)` hears table hosts
    come and go; `on_health(board, body)` hears a board's health report once
    it is checked and stored (table `health`, the latest of each board);
    `on_update(board, body)` a board's update status once it is checked (the
    latest of each board, in memory: updates())."""

    def __init__(self, url: str, client_id: str, username: str | None = None, password: str | None = None,
                 tls_ca: str | Path | None = None, *, event: str, key: envelope.Key, store_path: str | Path,
                 boards: Iterable[str] | Callable[[sqlite3.Connection], Iterable[str]],
                 on_table_message: Callable[[sqlite3.Connection, dict[str, Any]], None],
                 on_status: Callable[[str, bool, list[str]], None] | None = None,
                 on_health: Callable[[str, dict[str, Any]], None] | None = None,
                 on_update: Callable[[str, dict[str, Any]], None] | None = None,
                 max_backoff: float = 30.0) -> None:
        super().__init__(url, client_id, username, password, tls_ca, max_backoff)
        self.event = envelope.check_name("event", event)
        self.key = key
        self.store = database.open_file(store_path, database.DIRECTOR)
        self._boards = boards if callable(boards) else frozenset(boards)
        self.on_table_message = on_table_message
        self.on_status = on_status
        self.on_health = on_health
        self.on_update = on_update
        self._updates: dict[str, tuple[dict[str, Any], float]] = {}   # board: its latest update status, when
        self._lock = threading.RLock()
        self._dropped_noted = 0
        self.round_published_again = 0     # times the broker's round differed from ours and was replaced
        self.rounds_taken_from_the_broker = 0   # times the broker's round was ours and ahead of the file

    def stop(self) -> None:
        self._stop_client()
        with self._lock:
            self.store.close()

    def connected_now(self) -> int | None:
        _, mid = self.client.subscribe([(kind.subscription(self.event), 1) for kind in kinds.FROM_TABLES]
                                       + [(envelope.round_topic(self.event), 1)])   # its own round: the broker's copy
        with self._lock:   # a broker that lost its retained messages gets them again
            for topic, payload in self.store.execute("SELECT topic, payload FROM sent ORDER BY seq").fetchall():
                self.client.publish(topic, bytes(payload), qos=1, retain=True)
        return mid

    def publish_round(self, body: Mapping[str, Any]) -> int:
        """Publish the round (seating, game length: the evening's body),
        retained; its seq. Stored first, so it is published again after
        every reconnection, and whenever the broker's copy is not this one."""
        topic = envelope.round_topic(self.event)
        with self._lock:
            with database.write(self.store) as db:
                seq = db.execute("SELECT coalesce(max(seq), 0) FROM sent").fetchone()[0] + 1
                payload = envelope.seal_director(self._tag_keys(self._evening_boards()), self.event, seq, topics.ROUND,
                                                 body)
                _keep_sent(db, topic, seq, payload)
        self.client.publish(topic, payload, qos=1, retain=True)
        return seq

    def _evening_boards(self) -> frozenset[str]:
        return frozenset(self._boards(self.store) if callable(self._boards) else self._boards)

    def _tag_keys(self, boards: Iterable[str]) -> dict[str, bytes]:
        """{board: its key} for the tags of a message to `boards`: each table checks its own
        tag with its own key, so none can make the director's message for another."""
        keys = {}
        for board in boards:
            key = self.key({"board": board}) if callable(self.key) else self.key
            if key is None:
                raise ValueError(f"no key for board {board!r}")
            keys[board] = key
        return keys

    def applied(self) -> dict[str, int]:
        """The last seq applied from each board."""
        with self._lock:
            return dict(self.store.execute("SELECT board, seq FROM applied").fetchall())

    def refused(self) -> list[tuple[str, str | None, str, str]]:
        """(when last, board, reason, text) of every kind of message refused, oldest first
        (a repeat of the same refusal counts in its row: refused_counts())."""
        with self._lock:
            return self.store.execute("SELECT at, board, reason, text FROM refused ORDER BY id").fetchall()

    def refused_counts(self) -> list[tuple[str | None, str, int]]:
        """(board, reason, how many times) of each row of refused, oldest first."""
        with self._lock:
            return self.store.execute("SELECT board, reason, count FROM refused ORDER BY id").fetchall()

    def _on_message(self, message: mqtt.MQTTMessage) -> None:
        if self.dropped > self._dropped_noted:
            count, self._dropped_noted = self.dropped - self._dropped_noted, self.dropped
            with self._lock:
                self._refuse(None, topics.ROOT + "/" + self.event + "/#", "flood",
                             "messages dropped unread: more came than the director could check", count)
        found = kinds.parse_topic(self.event, message.topic)
        if found is not None and found[0].name == topics.ROUND:
            self._check_round(message)
            return
        if found is not None and found[0].name in (topics.STATUS, topics.HEALTH, topics.UPDATE):
            # a table host's status, a board's health or update: unnumbered, the latest kept
            {topics.STATUS: self._status_message, topics.HEALTH: self._health_message,
             topics.UPDATE: self._update_message}[found[0].name](message, found[1] or "")
            return
        board = found[1] if found is not None and found[0].sender == kinds.TABLE else None
        last = 0
        with self._lock, database.write(self.store):
            last = self._last(board)
            try:
                if board is None:
                    raise RefusedMessage("field", f"not a table's topic: {message.topic}")
                known = self._boards(self.store) if callable(self._boards) else self._boards
                opened = envelope.open_message(message.payload, self.key,
                                               {board: last} if board in known else {},
                                               event=self.event, topic=message.topic)
                self.store.execute("SAVEPOINT apply")
                try:
                    self.on_table_message(self.store, opened)
                except Exception as error:   # the evening refused it: nothing of it stays, its seq not used
                    self.store.execute("ROLLBACK TO apply")
                    self.store.execute("RELEASE apply")
                    raise RefusedMessage("apply", f"{opened['kind']} {opened['seq']} of board {board!r} "
                                                  f"not applied: {error}") from None
                self.store.execute("RELEASE apply")
                self.store.execute("INSERT INTO applied (board, seq, at) VALUES (?, ?, datetime('now')) "
                                   "ON CONFLICT (board) DO UPDATE SET seq = excluded.seq, at = excluded.at",
                                   (board, opened["seq"]))
                last = opened["seq"]
            except RefusedMessage as refused:
                _REFUSED_LOG.note(message.topic[:200], "refused %s: %s", message.topic[:200], refused)
                self._refuse(board, message.topic, refused.reason, str(refused))
        if board is not None and last and envelope.is_name(board):
            self.client.publish(envelope.applied_topic(self.event, board),
                                envelope.seal_director(self._tag_keys([board]), self.event, 0, topics.APPLIED,
                                                       {"board": board, "seq": last}), qos=1, retain=True)

    def _refuse(self, board: str | None, topic: str, reason: str, text: str, count: int = 1) -> None:
        """One refusal into `refused`, inside the caller's transaction (or on its own): the same
        refusal again counts in its row; beyond MAX_REFUSED rows the oldest go."""
        topic, text = topic[:300], text[:500]
        updated = self.store.execute("UPDATE refused SET count = count + ?, at = datetime('now') WHERE "
                                     "board IS ? AND topic = ? AND reason = ? AND text = ?",
                                     (count, board, topic, reason, text)).rowcount
        if not updated:
            self.store.execute("INSERT INTO refused (at, board, topic, reason, text, count) VALUES "
                               "(datetime('now'), ?, ?, ?, ?, ?)", (board, topic, reason, text, count))
            self.store.execute("DELETE FROM refused WHERE id <= (SELECT max(id) FROM refused) - ?", (MAX_REFUSED,))

    def _check_round(self, message: mqtt.MQTTMessage) -> None:
        """The broker's copy of the retained round. One this director signed with a seq ahead of its
        file's (the file restored from an older copy: issue 40) is taken as the last published, so the
        next round goes on from its number and the tables take it; any other that is not the one this
        director published last (removed with an empty message, or replaced) is replaced by ours again."""
        topic = envelope.round_topic(self.event)
        with self._lock:
            row = self.store.execute("SELECT seq, payload FROM sent WHERE topic = ?", (topic,)).fetchone()
        if row is not None and bytes(row[1]) == message.payload:
            return
        ahead = self._own_round_ahead(bytes(message.payload), row[0] if row else 0)
        if ahead is not None:
            with self._lock, database.write(self.store) as db:
                _keep_sent(db, topic, ahead, bytes(message.payload))
                self.rounds_taken_from_the_broker += 1     # counted as it is committed: a reader sees both
            log.warning("the broker holds round message %d, signed by this director, and this director's file "
                        "only %d (restored from an older copy?): the next round is numbered from %d, so the "
                        "tables take it", ahead, row[0] if row else 0, ahead + 1)
            return
        if row is None:
            return
        self.round_published_again += 1
        log.warning("the broker's round is not the director's (%d bytes); publishing it again",
                    len(message.payload))
        self.client.publish(topic, bytes(row[1]), qos=1, retain=True)

    def _own_round_ahead(self, payload: bytes, ours: int) -> int | None:
        """The seq of a round this director signed (its tag for one of the evening's boards checks) if it
        is above `ours`, by no more than the tables take (envelope.ROUND_AHEAD: one further out, a bug or a
        leaked key's, is no round of this evening's to number on from); else None."""
        try:
            claimed = json.loads(payload)["seq"]
        except (ValueError, TypeError, KeyError, RecursionError):
            return None
        if type(claimed) is not int or not ours < claimed <= ours + envelope.ROUND_AHEAD:
            return None
        for board in sorted(self._evening_boards()):
            key = self.key({"board": board}) if callable(self.key) else self.key
            if key is None:
                continue
            try:
                envelope.open_message(payload, key, {envelope.DIRECTOR: claimed - 1}, event=self.event,
                                      topic=envelope.round_topic(self.event), tag_for=board)
            except RefusedMessage:
                continue
            return claimed
        return None

    def _last(self, board: str | None) -> int:
        row = self.store.execute("SELECT seq FROM applied WHERE board = ?", (board,)).fetchone()
        return row[0] if row else 0

    def _status_message(self, message: mqtt.MQTTMessage, host: str) -> None:
        try:
            opened = envelope.open_message(message.payload, self.key, {host: 0}, event=self.event,
                                           topic=message.topic)
        except RefusedMessage as refused:
            _REFUSED_LOG.note(message.topic[:200], "refused %s: %s", message.topic[:200], refused)
            with self._lock:
                self._refuse(host, message.topic, refused.reason, str(refused))
            return
        body = opened["body"]
        with self._lock, database.write(self.store) as db:
            db.execute("INSERT INTO clients (client, online, at, boards) VALUES (?, ?, datetime('now'), ?) ON CONFLICT (client) "
                       "DO UPDATE SET online = excluded.online, at = excluded.at, boards = excluded.boards",
                       (host, int(body["online"]), json.dumps(body["boards"])))
        if self.on_status is not None:
            self.on_status(host, body["online"], body["boards"])

    def clients(self) -> dict[str, tuple[bool, str, list[str]]]:
        """Each client's last status (a table host's, a wireless board's): online, when, its boards."""
        with self._lock:
            return {client: (bool(online), at, json.loads(boards)) for client, online, at, boards in
                    self.store.execute("SELECT client, online, at, boards FROM clients").fetchall()}

    def _health_message(self, message: mqtt.MQTTMessage, board: str) -> None:
        """A board's health (docs/club-mqtt.md, "Each board's health"): from one of the evening's
        boards, signed with that board's own key (the topic's subject must be the envelope's
        board: no table publishes another's), its body as tallynet.health.FIELDS says
        (kinds._health_body, checked by open_message). The latest of each board is kept with
        when it came, and the reset count of the first this evening; a refused one changes
        nothing but `refused`."""
        opened = self._board_message(message, board)
        if opened is None:
            return
        body = opened["body"]
        with self._lock, database.write(self.store) as db:
            # the same body again (the broker's retained copy, handed to a director that restarted) keeps
            # when it first came: the board said nothing new, and its age must not read "0 s ago"
            db.execute("INSERT INTO health (board, body, at, first_resets, first_at) VALUES "
                       "(?, ?, datetime('now'), ?, datetime('now')) ON CONFLICT (board) "
                       "DO UPDATE SET body = excluded.body, "
                       "at = CASE WHEN health.body = excluded.body THEN health.at ELSE excluded.at END",
                       (board, json.dumps(body, sort_keys=True), body["resets"]))
        if self.on_health is not None:
            self.on_health(board, body)

    def health(self) -> dict[str, tuple[dict[str, Any], str, int | None]]:
        """Each board's latest health: (its body, when it came (UTC, SQLite's), the reset count of the
        first this evening)."""
        with self._lock:
            return {board: (json.loads(body), at, first) for board, body, at, first in
                    self.store.execute("SELECT board, body, at, first_resets FROM health").fetchall()}

    def _update_message(self, message: mqtt.MQTTMessage, board: str) -> None:
        """A board's side of an update over the air (docs/club-mqtt.md, "Updates over the air"): from one
        of the evening's boards, signed with that board's own key on its own topic, its body as
        kinds._update_body says. The latest of each board is kept in memory with when it came (the
        director's club file has no table for it: `event update-boards` follows an update itself); a
        refused one changes nothing but `refused`. An empty message (the retained status cleared) is none."""
        if not message.payload:
            return
        opened = self._board_message(message, board)
        if opened is None:
            return
        with self._lock:
            self._updates[board] = (opened["body"], time.time())
        if self.on_update is not None:
            self.on_update(board, opened["body"])

    def _board_message(self, message: mqtt.MQTTMessage, board: str) -> dict[str, Any] | None:
        """A board's own unnumbered message, checked (one of the evening's boards, its key, its own topic);
        None, and the refusal recorded, if it is not to be taken."""
        try:
            with self._lock:
                known = self._evening_boards()
            return envelope.open_message(message.payload, self.key, {board: 0} if board in known else {},
                                         event=self.event, topic=message.topic)
        except RefusedMessage as refused:
            _REFUSED_LOG.note(message.topic[:200], "refused %s: %s", message.topic[:200], refused)
            with self._lock:
                self._refuse(board if envelope.is_name(board) else None, message.topic, refused.reason, str(refused))
            return None

    def updates(self) -> dict[str, tuple[dict[str, Any], float]]:
        """Each board's latest update status this link took: (its body, when it came, time.time())."""
        with self._lock:
            return dict(self._updates)
