"""The two ends of a club evening over MQTT (docs/club-mqtt.md), on paho-mqtt 2.

TableLink: a table host. Sends its outbox in order, one message at a time
with QoS 1 (the next only after the broker's PUBACK, so the director sees a
board's messages in order), keeps a persistent session (clean_session=False),
reconnects with backoff, and keeps queueing while the broker is away. It
takes the director's round (applied once, in the outbox's file) and the
director's `applied` confirmations (which empty the outbox).

DirectorLink (director_link.py): the director. Takes every table's messages with QoS 1 on a
persistent session and applies each exactly once: the callback runs inside
the transaction that records (board, seq) in its `applied` table, and a
message refused (bad JSON, unknown board, bad signature, replay, gap) is
written to its `refused` table and never applied. After each message it
publishes, retained, how far it has applied that board.

Both ends as aiomqtt does it: paho's callbacks only queue what arrived
(bounded: a flood costs at most MAX_QUEUED_BYTES, the rest is dropped
and counted, and the table hosts' resends bring back anything real), and
one worker thread checks each message and writes SQLite, then
acknowledges it to the broker (manual PUBACK), so a slow disk or a flood
never stalls paho's network thread and its keepalives.
"""
from __future__ import annotations

import collections
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
from tallynet import topics

from . import certificates, envelope, kinds
from ..common.ratelog import RateLog
from .envelope import RefusedMessage
from .outbox import Outbox

log = logging.getLogger(__name__)

RESEND_AFTER = 5.0       # seconds the director has to confirm a message before it is sent again
RESEND_AFTER_MAX = 300.0  # the wait doubles while nothing is confirmed, up to this
KEEPALIVE = 15            # seconds; the broker publishes a table host's will after 1.5 times this
MAX_QUEUED_BYTES = 4 * 1024 * 1024   # what arrived and waits for the worker; beyond it, dropped (and counted)
# the director's kinds a table host takes: the round, and how far the director applied its boards
TABLE_HOST_TAKES = (topics.ROUND, topics.APPLIED)
MAX_REFUSED = 500         # rows kept in the director's `refused` (a repeat counts in its row; the oldest go)


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
    if port == 0:      # not "the default": nothing listens on port 0; left out, the port is 1883 (8883)
        raise ValueError(f"broker {url!r}: the port is not a number from 1 to 65535 "
                         "(leave it out for MQTT's own, 1883, or 8883 with mqtts://)")
    tls = parts.scheme == "mqtts"
    return BrokerAddress(parts.hostname, port or (8883 if tls else 1883), tls,
                         unquote(parts.username) if parts.username is not None else None,
                         unquote(parts.password) if parts.password is not None else None)


def _published(info: mqtt.MQTTMessageInfo) -> bool:
    """Whether the broker acknowledged it; False, not paho's RuntimeError, when it was not sent at all
    (published while the connection was down: that ended the publisher thread, and the outbox with it)."""
    try:
        return info.is_published()
    except (RuntimeError, ValueError):
        return False


class MqttLink:
    """What both ends share: the paho client, its session, connecting and reconnecting. The session is
    kept by the broker while the link is away (the evening's links), unless `clean_session` (a link that
    wants nothing of what came meanwhile: the director's update link, update_link.py)."""

    def __init__(self, url: str, client_id: str, username: str | None, password: str | None,
                 tls_ca: str | Path | None, max_backoff: float, tls_pin: str | None = None,
                 clean_session: bool = False) -> None:
        address = parse_url(url)
        self.address = address
        self.client_id = envelope.check_name("client id", client_id)
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean_session,
                                  protocol=mqtt.MQTTv311, manual_ack=True)
        username = username if username is not None else address.username
        password = password if password is not None else address.password
        self.username = username
        if username is not None:
            self.client.username_pw_set(username, password)
        self.tls_context: ssl.SSLContext | None = None
        if address.tls:
            # the club's CA from its file, else the one the join code pins, else the system's (a public broker)
            if tls_ca or tls_pin:
                self.tls_context = (certificates.director_context(tls_ca) if tls_ca
                                    else certificates.pinned_context(str(tls_pin)))
                self.client.tls_set_context(self.tls_context)
                self.client.tls_insecure_set(True)    # no host name check: certificates.py says why
            else:
                self.client.tls_set(cert_reqs=ssl.CERT_REQUIRED)
        self.client.on_pre_connect = self._on_pre_connect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.reconnect_delay_set(min_delay=1, max_delay=max(1, int(max_backoff)))
        self.client.suppress_exceptions = True   # the network thread goes on; see _message
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._queue
        self.client.on_subscribe = self._on_subscribe
        self.connected = threading.Event()
        self.subscribed = threading.Event()   # the broker has acknowledged this connection's subscriptions
        self._subscription_mid: int | None = None
        self.generation = 0           # one more at every connection
        self.last_error: str | None = None
        self._refused_by_broker = False
        self.refusals = 0             # connections the broker refused
        self.logins = 0               # connections the broker took
        self._inbox: collections.deque[tuple[int, mqtt.MQTTMessage]] = collections.deque()
        self._inbox_bytes = 0
        self._inbox_changed = threading.Condition()
        self._worker_stop = threading.Event()
        self.dropped = 0              # messages dropped because the worker was MAX_QUEUED_BYTES behind
        self.handled = 0              # messages the worker has taken (applied, refused or dropped)
        self._worker = threading.Thread(target=self._work, name=f"mqtt-worker-{client_id}", daemon=True)

    def start(self) -> None:
        self._worker.start()
        self.client.connect_async(self.address.host, self.address.port, keepalive=KEEPALIVE)
        self.client.loop_start()

    def _queue(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        """paho's network thread: queue and return (the worker checks, writes and acknowledges)."""
        size = len(message.payload) + len(message.topic)
        with self._inbox_changed:
            if self._inbox_bytes + size > MAX_QUEUED_BYTES:
                self.dropped += 1
                drop = True
            else:
                self._inbox.append((self.generation, message))
                self._inbox_bytes += size
                self._inbox_changed.notify()
                drop = False
        if drop:   # acknowledged so the broker forgets it; a real message comes again with its sender's resend
            self._ack(self.generation, message)
            self.on_dropped(message)

    def on_dropped(self, message: mqtt.MQTTMessage) -> None:
        """A message dropped because the worker is too far behind."""

    def _work(self) -> None:
        while True:
            with self._inbox_changed:
                while not self._inbox and not self._worker_stop.is_set():
                    self._inbox_changed.wait(0.5)
                if not self._inbox:
                    return
                generation, message = self._inbox.popleft()
                self._inbox_bytes -= len(message.payload) + len(message.topic)
            try:
                self._on_message(message)
            except Exception:   # a store that failed: not applied, and the table host's resend brings it again
                log.exception("%s: %s not handled", self.client_id, message.topic)
            else:
                self._ack(generation, message)
            with self._inbox_changed:
                self.handled += 1
                self._inbox_changed.notify_all()

    def _ack(self, generation: int, message: mqtt.MQTTMessage) -> None:
        # a PUBACK belongs to the connection the message came on: after a reconnection the broker sends it again
        if message.qos and generation == self.generation and self.connected.is_set():
            self.client.ack(message.mid, message.qos)

    def wait_handled(self, count: int, timeout: float) -> bool:
        """Until the worker has taken `count` messages in all (for tests and benchmarks)."""
        deadline = time.monotonic() + timeout
        with self._inbox_changed:
            while self.handled + self.dropped < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._inbox_changed.wait(left)
        return True

    def wait_connected(self, timeout: float) -> None:
        """Until the broker has taken the link and acknowledged its subscriptions
        (so a message published after this returns reaches it); ConnectionRefused
        if it said no to the credentials, TimeoutError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not (self.connected.wait(0.05) and self.subscribed.is_set()):
            if self._refused_by_broker:
                raise ConnectionRefused(f"the broker refused {self.client_id}: {self.last_error}; "
                                        "check the user name and password")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.client_id} could not reach the broker at {self.address.host}:"
                                   f"{self.address.port} in {timeout:g} s ({self.last_error or 'no answer'})")

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self.last_error = str(reason)
            self.refusals += 1
            self._refused_by_broker = reason.value in (0x04, 0x05, 0x86, 0x87)   # bad credentials, not authorized
            log.warning("%s: broker refused the connection: %s", self.client_id, reason)
            return
        self._refused_by_broker = False
        self.last_error = None
        self.logins += 1
        self.generation += 1
        self.subscribed.clear()
        self._subscription_mid = self.connected_now()
        if self._subscription_mid is None:
            self.subscribed.set()
        self.connected.set()

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        if mid == self._subscription_mid:
            self.subscribed.set()

    def _on_pre_connect(self, client: mqtt.Client, userdata: Any) -> None:
        certificates.forget_refusal(self.tls_context)   # what the last attempt's TLS said is not this one's

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        """paho's network thread: no connection (no answer, or TLS refused the broker): why, when TLS said
        (None: no answer, which is what the broker being down looks like)."""
        refusal = certificates.refusal(self.tls_context)
        if refusal is not None and refusal != self.last_error:
            log.warning("%s: %s", self.client_id, refusal)
        self.last_error = refusal

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.connected.clear()
        self.generation += 1
        if reason.is_failure:
            self.last_error = str(reason)
            log.info("%s: connection lost (%s); reconnecting", self.client_id, reason)

    def connected_now(self) -> int | None:
        """Subscribe and announce; runs at every (re)connection. Returns the
        subscription's message id (None: nothing subscribed)."""
        return None

    def _on_message(self, message: mqtt.MQTTMessage) -> None:
        raise NotImplementedError

    def _stop_client(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        self._worker_stop.set()
        with self._inbox_changed:
            self._inbox.clear()       # not acknowledged: the broker keeps them for the next session
            self._inbox_bytes = 0
            self._inbox_changed.notify_all()
        if self._worker.is_alive():
            self._worker.join(10)


class TableLink(MqttLink):
    """One table host's link to the evening. `on_director_message(connection,
    message)` applies one director message (the round) inside a transaction
    on the outbox's file; it runs once per message. `on_director_applied()`
    runs after that transaction has committed: the place to wake whoever
    reads what it wrote (from the callback itself, a reader on another
    connection could wake first and read the file as it was). The
    director's messages are checked by the tag of this link's board (its
    first), with that board's key: `refused` keeps the last of those it
    refused, (topic, reason, text), as its log says them."""

    def __init__(self, url: str, client_id: str, username: str | None = None, password: str | None = None,
                 tls_ca: str | Path | None = None, *, outbox: Outbox,
                 on_director_message: Callable[[sqlite3.Connection, dict[str, Any]], None] | None = None,
                 on_director_applied: Callable[[], None] | None = None,
                 boards: Iterable[str] = (), max_backoff: float = 30.0, resend_after: float = RESEND_AFTER,
                 tls_pin: str | None = None) -> None:
        super().__init__(url, client_id, username, password, tls_ca, max_backoff, tls_pin)
        self.outbox = outbox
        self.event = outbox.event
        self.boards = [envelope.check_name("board", board) for board in boards]
        # what its status is named (the topic's level, the envelope's sender): its broker login, which the
        # club's ACL lets publish that status only (brokers.ACL: a table's login is its board's identity)
        self.login = envelope.check_name("login", self.username if self.username is not None else client_id)
        self._own = self.boards or None     # the outbox rows this link sends: its boards' (all, without)
        self._tag_board = self.boards[0] if self.boards else self.login   # whose tag of the round it checks
        self.refused: list[tuple[str, str, str]] = []   # (topic, reason, text) of the director's messages refused
        self.refused_log = RateLog(log, f"{client_id}: refused")     # a line a minute per topic, with a count
        self.on_director_message = on_director_message
        self.on_director_applied = on_director_applied
        self.resend_after = resend_after
        self._stopping = threading.Event()
        self._waiting = resend_after
        self.client.will_set(envelope.host_status_topic(self.event, self.login), self._status(False), qos=1,
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
            info = self.client.publish(envelope.host_status_topic(self.event, self.login), self._status(False),
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
        # signed with the key of the board its login is (the director checks it with that board's), else
        # with its first board's
        keys = self.outbox.board_keys
        signer = self.boards[0] if keys is not None and self.login not in keys and self.boards else self.login
        key = self.outbox.signing_key(signer)
        return envelope.seal(key, self.event, self.login, 0, topics.STATUS,
                             {"online": online, "boards": self.boards})

    def _publish_loop(self) -> None:
        while not self._stopping.is_set():
            if not self.connected.wait(0.2):
                continue
            generation = self.generation
            self._resend_if_unconfirmed()
            row = self.outbox.next_unacked(self._own)
            if row is None:
                with self.outbox.changed:
                    self.outbox.changed.wait(0.2)
                continue
            info = self.client.publish(row.topic, row.payload, qos=1)
            while not self._stopping.is_set() and generation == self.generation and not _published(info):
                try:
                    info.wait_for_publish(0.2)
                except (RuntimeError, ValueError):   # not sent: the connection went; it is sent again after
                    time.sleep(0.05)
            if _published(info):
                self.outbox.mark_acked(row.id)

    def _resend_if_unconfirmed(self) -> None:
        oldest = self.outbox.oldest_unconfirmed_ack(self._own)
        if oldest is not None and time.time() - oldest > self._waiting:
            count = self.outbox.resend_all(self._own)
            log.info("%s: the director has not confirmed %d messages in %.0f s; sending them again",
                     self.client_id, count, self._waiting)
            self._waiting = min(self._waiting * 2, RESEND_AFTER_MAX)

    def connected_now(self) -> int | None:
        # the director's round, and the `applied` of its own boards only (all it may read: brokers.ACL); an
        # update's offer and chunks are for a board on the club's Wi-Fi (firmware/tallynet), not a table host's
        topics = []
        for kind in kinds.FROM_DIRECTOR:
            if kind.name not in TABLE_HOST_TAKES:
                continue
            if kinds.SUBJECT in kind.levels and self.boards:
                topics += [kind.topic(self.event, board) for board in self.boards]
            else:
                topics.append(kind.subscription(self.event))
        _, mid = self.client.subscribe([(topic, 1) for topic in topics])
        self.client.publish(envelope.host_status_topic(self.event, self.login), self._status(True), qos=1,
                            retain=True)
        self.outbox.resend_all(self._own)
        self._waiting = self.resend_after
        self.outbox.notify()
        return mid

    def _on_message(self, message: mqtt.MQTTMessage) -> None:
        try:
            found = kinds.parse_topic(self.event, message.topic)
            if found is None or found[0].sender != kinds.DIRECTOR:
                raise RefusedMessage("field", f"{message.topic} is not a topic the director publishes on")
            if found[0].name not in TABLE_HOST_TAKES:
                raise RefusedMessage("field", f"{message.topic}: a {found[0].name} is for a board on the club's Wi-Fi, "
                                              "not a table host")
            kind = found[0]
            last = self.outbox.received(envelope.DIRECTOR) if kind.sequenced else 0
            # the director's message is checked by this link's own board's tag, with that board's key
            # (an `applied` by the tag of the board it is about): a table holds no key of the director's
            board = found[1] or self._tag_board
            try:
                key = self.outbox.signing_key(board)
            except ValueError as error:
                raise RefusedMessage("board", str(error)) from None
            opened = envelope.open_message(message.payload, key, {envelope.DIRECTOR: last},
                                           event=self.event, gaps=True, topic=message.topic, tag_for=board)
            if kind.name == topics.ROUND:
                if self.on_director_message is not None and self.outbox.apply_received(
                        envelope.DIRECTOR, opened["seq"], self.on_director_message, opened):
                    if self.on_director_applied is not None:
                        self.on_director_applied()
            else:
                board, seq = opened["body"]["board"], opened["body"]["seq"]
                if self.outbox.numbered(board) and self.outbox.confirm(board, seq):
                    self._waiting = self.resend_after
        except RefusedMessage as refused:
            level = logging.DEBUG if refused.reason == "replay" else logging.WARNING
            then = (" (if the director has really changed the round that often since this host last took one, "
                    "start it again with --take-next-round)") if refused.reason == "ahead" else ""
            if level == logging.DEBUG:
                log.debug("%s: refused %s: %s", self.client_id, message.topic, refused)
            else:
                self.refused_log.note(message.topic[:200], "%s: refused %s: %s%s", self.client_id, message.topic[:200],
                                      refused, then)
            self.refused.append((message.topic, refused.reason, str(refused)))
            del self.refused[:-MAX_REFUSED]
