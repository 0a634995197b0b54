"""A club evening's network under abuse (docs/club-mqtt.md, "Who may publish
what" and "Limits"): on mosquitto (the ACL the docs give) and the embedded
broker, a table host's login cannot remove or replace what the director
publishes; the embedded broker closes connections that never log in and
limits each address (its port: tests/test_broker_ports.py; the rule as the
docs give it: tests/test_club_acl.py); a flood of junk is counted, not stored
row by row; a message refused never uses up its board's seq; every body
and topic is checked before anything is stored.

Each negative assertion first sees evidence that the input was handled: a
message sent after it on the same connection (MQTT keeps a connection's
order) has arrived, or the director's worker has taken it."""
from __future__ import annotations

import select
import socket
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from test_club_mqtt import EVENT, USERS, broker, wait_for  # noqa: F401  (broker: the fixture, on both brokers)
from waiting import until
from machine import why_not
from tallyboard.club import brokers, director_link, embedded_broker, envelope, mqtt_link, outbox

pytestmark = [pytest.mark.broker, pytest.mark.process]


LOGIN_S = 0.5      # the embedded broker's time to log in, shortened from embedded_broker.CONNECT_TIMEOUT


@pytest.fixture
def embedded(request):
    # a test that holds idle connections open for a while asks for the real time to log in
    login_s = getattr(request, "param", LOGIN_S)
    running = embedded_broker.EmbeddedBroker(0, USERS, event=EVENT, connect_timeout=login_s)
    running.start()
    try:
        yield running
    finally:
        running.stop()


def url(broker: Any, user: str) -> str:
    return f"mqtt://{user}:{USERS[user]}@127.0.0.1:{broker.port}"


class Director:
    """A DirectorLink on board t1 (and t2) whose evening applies bodies {"n": N}
    and refuses a body {"bad": ...}; it records the table hosts' status messages."""

    def __init__(self, broker: Any, tmp_path: Path) -> None:
        self.key = envelope.new_secret()
        self.statuses: list[tuple[str, bool]] = []
        self.link = director_link.DirectorLink(url(broker, "director"), f"{EVENT}-director", event=EVENT, key=self.key,
                                      store_path=tmp_path / "director.sqlite3", boards=["t1", "t2"],
                                      on_table_message=self.apply, max_backoff=1.0,
                                      on_status=lambda host, online, boards: self.statuses.append((host, online)))
        self.link.start()
        self.link.wait_connected(10)

    @staticmethod
    def apply(connection: sqlite3.Connection, message: dict[str, Any]) -> None:
        if "bad" in message["body"]:
            raise ValueError("a game for other players")
        connection.execute("CREATE TABLE IF NOT EXISTS hands (board TEXT, seq INTEGER, n INTEGER)")
        connection.execute("INSERT INTO hands VALUES (?, ?, ?)",
                           (message["board"], message["seq"], message["body"]["n"]))

    def hands(self) -> list[tuple[str, int]]:
        with self.link._lock:
            try:
                return self.link.store.execute("SELECT board, n FROM hands ORDER BY rowid").fetchall()
            except sqlite3.OperationalError:
                return []

    def seal(self, board: str, seq: int, body: dict[str, Any], kind: str = "hand") -> bytes:
        return envelope.seal(self.key, EVENT, board, seq, kind, body)

    def status(self, host: str) -> bytes:
        return envelope.seal(self.key, EVENT, host, 0, "status", {"online": True, "boards": ["t1"]})


@pytest.fixture
def director(broker, tmp_path):
    made = Director(broker, tmp_path)
    try:
        yield made
    finally:
        made.link.stop()


def retained(broker: Any, user: str, topic: str, timeout: float = 10.0) -> bytes | None:
    """The broker's retained message on `topic` as a new subscriber of `user` gets it
    (None: none came within `timeout`; the callers expect one)."""
    got: list[bytes] = []
    came = threading.Event()
    client, _ = connected(broker, user, f"{EVENT}-board-{user}")   # its other own id: no take-over

    def on_message(c, u, message):
        got.append(message.payload)
        came.set()

    client.on_message = on_message
    try:
        client.subscribe(topic, 1)
        came.wait(timeout)
        return got[0] if got else None
    finally:
        client.loop_stop()
        client.disconnect()


# ---- least privilege (finding 1) ---------------------------------------------

def connected(broker: Any, user: str, client_id: str | None = None) -> tuple[mqtt.Client, threading.Event]:
    """A client of `user` (its client id `<event>-<user>` unless told), once the broker has said yes;
    the event is set when it is disconnected."""
    client_id = client_id or f"{EVENT}-{user}"
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311)
    client.username_pw_set(user, USERS[user])
    up, gone = threading.Event(), threading.Event()
    client.on_connect = lambda c, u, f, reason, p: up.set() if not reason.is_failure else gone.set()
    client.on_disconnect = lambda *args: gone.set()
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    assert up.wait(10), f"{user} could not connect"
    return client, gone


def attempt(broker: Any, user: str, topic: str, payload: bytes) -> None:
    """Publish as `user` and wait until the broker has dealt with it: its PUBACK
    (taken or dropped) or its closing the connection (mosquitto does, for some)."""
    client, gone = connected(broker, user)
    try:
        info = client.publish(topic, payload, qos=1, retain=True)
        wait_for(f"the broker's answer to {topic}", lambda: info.is_published() or gone.is_set(), 10)
    finally:
        client.loop_stop()
        client.disconnect()


def test_a_table_login_cannot_remove_or_replace_what_the_director_publishes(broker, director):
    # tagged for each of the evening's boards (one key in this test: Director's)
    round_payload = envelope.seal_director({"t1": director.key, "t2": director.key}, EVENT, 1, "round", {"round": 1})
    director.link.publish_round({"round": 1})
    assert retained(broker, "t1", envelope.round_topic(EVENT)) == round_payload
    # the director's round removed (an empty retained message) and replaced, an applied removed,
    # another host's status published
    for topic, payload in ((envelope.round_topic(EVENT), b""),
                           (envelope.round_topic(EVENT), envelope.seal_director({"t1": director.key}, EVENT, 9,
                                                                                "round", {"round": 9})),
                           (envelope.applied_topic(EVENT, "t1"), b""),
                           (envelope.host_status_topic(EVENT, "t2"), director.status("t2"))):
        attempt(broker, "t1", topic, payload)
    # evidence the broker has handled all of it: t1's own status, sent after, reached the director
    attempt(broker, "t1", envelope.host_status_topic(EVENT, "t1"), director.status("t1"))
    wait_for("t1's own status at the director", lambda: ("t1", True) in director.statuses)
    assert retained(broker, "t2", envelope.round_topic(EVENT)) == round_payload
    assert ("t2", True) not in director.statuses          # another table's status is not its to publish
    assert director.link.round_published_again == 0            # the broker never took the attacker's round


def test_table_1s_login_cannot_publish_on_or_read_table_2s_topics(broker, director):
    # each table logs in as its board (brokers.ACL): t1's login tries t2's hand and state, signed with t2's key
    # as if that key had leaked (the broker's rule alone stops them), and t2's status
    for topic, payload in ((envelope.table_topic(EVENT, "t2", "hand"), director.seal("t2", 1, {"n": 21})),
                           (envelope.table_topic(EVENT, "t2", "state"), director.seal("t2", 1, {"n": 22}, "state")),
                           (envelope.host_status_topic(EVENT, "t2"), director.status("t2"))):
        attempt(broker, "t1", topic, payload)
    # evidence the broker has handled all of it: t1's own hand and status, sent after on the same login,
    # reached the director
    send(broker, "t1", [(envelope.table_topic(EVENT, "t1", "hand"), director.seal("t1", 1, {"n": 11})),
                        (envelope.host_status_topic(EVENT, "t1"), director.status("t1"))])
    wait_for("t1's own hand and status at the director",
             lambda: director.link.applied().get("t1") == 1 and ("t1", True) in director.statuses)
    assert director.link.applied() == {"t1": 1}             # nothing of t2's was applied
    assert director.hands() == [("t1", 11)]
    assert director.link.refused() == []                 # t2's never reached the director to be refused
    assert ("t2", True) not in director.statuses
    # t2's own login may: its hand is applied, and the director's applied/t2 retained
    send(broker, "t2", [(envelope.table_topic(EVENT, "t2", "hand"), director.seal("t2", 1, {"n": 21}))])
    wait_for("t2's hand", lambda: director.link.applied() == {"t1": 1, "t2": 1})
    assert retained(broker, "t2", envelope.applied_topic(EVENT, "t2")) is not None
    # t1's login reads its own board's applied, not t2's: subscribed to t2's first, then its own, whose
    # retained message coming is the evidence that t2's would have come before it
    got: list[str] = []
    own = threading.Event()
    client, _ = connected(broker, "t1")

    def on_message(c, u, message):
        got.append(message.topic)
        if message.topic == envelope.applied_topic(EVENT, "t1"):
            own.set()

    client.on_message = on_message
    try:
        client.subscribe(envelope.applied_topic(EVENT, "t2"), 1)
        client.subscribe(envelope.applied_topic(EVENT, "t1"), 1)
        assert own.wait(10), got
    finally:
        client.loop_stop()
        client.disconnect()
    assert got == [envelope.applied_topic(EVENT, "t1")]


def dropped_with_a_will(broker: Any, user: str, client_id: str, topic: str, payload: bytes) -> bool:
    """Connect with a last will, then drop the connection without DISCONNECT; whether the broker let it in."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311)
    client.username_pw_set(user, USERS[user])
    client.will_set(topic, payload, qos=1, retain=True)
    answered = threading.Event()
    codes: list[Any] = []
    client.on_connect = lambda c, u, f, reason, p: (codes.append(reason), answered.set())
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        assert answered.wait(10)
        if not codes[0].is_failure:
            client.socket().shutdown(socket.SHUT_RDWR)      # gone without a word: the broker publishes the will
    finally:
        client.loop_stop()
    return not codes[0].is_failure


def test_a_table_login_cannot_leave_a_last_will_on_the_directors_topics(broker, director):
    director.link.publish_round({"round": 1})
    ours = retained(broker, "t1", envelope.round_topic(EVENT))
    assert ours is not None
    dropped_with_a_will(broker, "t1", f"{EVENT}-t1", envelope.round_topic(EVENT), b"")
    # evidence the broker has dealt with that drop: a table that connected after it, and dropped, has its will
    # (its own status, offline) at the director
    assert dropped_with_a_will(broker, "t2", f"{EVENT}-t2", envelope.host_status_topic(EVENT, "t2"),
                               envelope.seal(director.key, EVENT, "t2", 0, "status",
                                             {"online": False, "boards": ["t2"]}))
    wait_for("t2's will at the director", lambda: ("t2", False) in director.statuses)
    assert retained(broker, "t1", envelope.round_topic(EVENT)) == ours
    assert director.link.round_published_again == 0


def test_the_director_publishes_its_round_again_when_the_brokers_copy_differs(broker, director):
    director.link.publish_round({"round": 1})
    ours = retained(broker, "t1", envelope.round_topic(EVENT))
    assert ours is not None
    # the broker's copy removed (a stray publish of the director's, a broker that lost it): only `director`
    # may, and only on its own client id (a second connection of it would take the director's place), so
    # on the director's own connection
    director.link.client.publish(envelope.round_topic(EVENT), b"", qos=1, retain=True).wait_for_publish(10)
    wait_for("the director to publish its round again", lambda: director.link.round_published_again >= 1)
    wait_for("the round retained again", lambda: retained(broker, "t1", envelope.round_topic(EVENT)) == ours)


# ---- seq and shape (findings 4, 8) -----------------------------------------------

def send(broker: Any, user: str, messages: list[tuple[str, bytes]]) -> None:
    client, _ = connected(broker, user)
    try:
        for topic, payload in messages:
            client.publish(topic, payload, qos=1).wait_for_publish(10)
    finally:
        client.loop_stop()
        client.disconnect()


def test_a_message_refused_by_the_evening_does_not_use_up_its_boards_seq(broker, director):
    topic = envelope.table_topic(EVENT, "t1", "hand")
    send(broker, "t1", [(topic, director.seal("t1", 1, {"bad": True}))])
    wait_for("the refusal listed", lambda: [r[2] for r in director.link.refused()] == ["apply"])
    assert director.link.applied() == {}
    # the real host's seq 1 and 2 are applied, not refused as replays
    send(broker, "t1", [(topic, director.seal("t1", 1, {"n": 1})), (topic, director.seal("t1", 2, {"n": 2}))])
    wait_for("t1's two hands", lambda: director.link.applied() == {"t1": 2})
    assert director.hands() == [("t1", 1), ("t1", 2)]
    assert [r[2] for r in director.link.refused()] == ["apply"]


def test_wrong_kinds_and_envelopes_on_another_boards_topic_are_refused_with_their_reason(broker, director):
    signed_list_kind = dict(v=1, event=EVENT, board="t1", seq=1, kind=[], body={"n": 1})
    signed_list_kind["sig"] = envelope.signature(director.key, signed_list_kind)
    t2 = envelope.table_topic(EVENT, "t2", "hand")
    send(broker, "t1", [
        (envelope.table_topic(EVENT, "t1", "hand"), envelope.canonical(signed_list_kind)),
        (envelope.table_topic(EVENT, "t1", "state"), director.seal("t1", 1, {"n": 1}, "hand")),
    ])
    wait_for("t1's two refused", lambda: len(director.link.refused()) == 2)
    # only t2's login may publish on t2's topic (brokers.ACL): a table host of t2 that sends board 1's
    send(broker, "t2", [
        (t2, director.seal("t1", 1, {"n": 1})),                                       # board 1's on board 2's
        (t2, director.seal("t2", 1, {"n": 1})),                                       # evidence: applied
    ])
    wait_for("t2's hand", lambda: director.link.applied() == {"t2": 1})
    refused = director.link.refused()
    assert [(board, reason) for _, board, reason, _ in refused] == [("t1", "field"), ("t1", "field"),
                                                                     ("t2", "field")]
    assert "kind []" in refused[0][3]
    assert "a hand message on a state topic" in refused[1][3]
    assert "t1's hand on t2's topic" in refused[2][3]
    assert director.hands() == [("t2", 1)]


# ---- bounded (findings 2, 5) --------------------------------------------------------

def test_a_flood_of_junk_is_counted_in_one_row_not_stored_row_by_row(broker, director):
    # 120 x 60 KB = 7.2 MB: within what either broker keeps queued for one session (brokers.MAX_QUEUED_BYTES,
    # 8 MiB), so every one reaches the director, however far behind it falls
    junk = b"x" * 60_000
    assert 120 * len(junk) < brokers.MAX_QUEUED_BYTES
    topic = envelope.table_topic(EVENT, "t1", "hand")
    client, _ = connected(broker, "t1")
    try:
        for _ in range(120):
            client.publish(topic, junk, qos=1).wait_for_publish(10)
        client.publish(topic, director.seal("t1", 1, {"n": 1}), qos=1).wait_for_publish(10)
    finally:
        client.loop_stop()
        client.disconnect()
    wait_for("the hand sent after the flood", lambda: director.link.applied() == {"t1": 1})
    counts = director.link.refused_counts()
    # 120 messages, each refused as `json` or dropped unread as `flood`: counted, a row per kind of refusal
    assert len(counts) <= 2, counts
    assert {reason for _, reason, _ in counts} <= {"json", "flood"}
    assert sum(count for _, _, count in counts) == 120


def test_a_connection_that_never_logs_in_is_closed(embedded):
    with socket.create_connection(("127.0.0.1", embedded.port), timeout=LOGIN_S + 10) as idle:
        started = time.monotonic()
        assert idle.recv(16) == b""              # closed by the broker, not by this timeout
        assert time.monotonic() - started >= LOGIN_S - 0.1


def test_210_idle_connections_do_not_keep_a_table_host_out(embedded, tmp_path):
    idle = [socket.create_connection(("127.0.0.1", embedded.port), timeout=5) for _ in range(210)]
    try:
        box = outbox.Outbox(tmp_path / "o.sqlite3", EVENT, envelope.new_secret())
        table = mqtt_link.TableLink(url(embedded, "t1"), f"{EVENT}-t1", outbox=box, boards=["t1"], max_backoff=1.0)
        table.start()
        try:
            table.wait_connected(LOGIN_S + 15)
        finally:
            table.stop()
            box.close()
    finally:
        for sock in idle:
            sock.close()


def mqtt_connect_packet(user: str, client_id: str) -> bytes:
    """An MQTT 3.1.1 CONNECT with `user`'s password (clean session, keepalive 60 s)."""
    def text(value: str) -> bytes:
        return len(value.encode()).to_bytes(2, "big") + value.encode()
    body = text("MQTT") + bytes((4, 0xC2)) + (60).to_bytes(2, "big") + text(client_id) + text(user) + text(USERS[user])
    assert len(body) < 128          # one byte of remaining length
    return bytes((0x10, len(body))) + body


@pytest.mark.parametrize("embedded", [embedded_broker.CONNECT_TIMEOUT], indirect=True, ids=["login-5s"])
def test_one_address_holds_at_most_its_share_of_the_embedded_brokers_connections(embedded):
    held = [socket.create_connection(("127.0.0.1", embedded.port), timeout=embedded_broker.CONNECT_TIMEOUT + 10)
            for _ in range(embedded_broker.MAX_PER_ADDRESS)]
    try:
        # one more, logging in at once with the right password: closed without an answer
        with socket.create_connection(("127.0.0.1", embedded.port), timeout=embedded_broker.CONNECT_TIMEOUT + 10) as extra:
            try:
                extra.sendall(mqtt_connect_packet("director", "one-too-many"))
                answer = extra.recv(4)
            except ConnectionResetError:      # closed with the CONNECT unread: a reset
                answer = b""
            assert answer == b"", "the broker answered a connection beyond its limit for one address"
    finally:
        for sock in held:
            sock.close()
    # the same login once the broker has seen those go (it counts an address's connections as it
    # reads their ends): the broker's CONNACK, accepted (MQTT 3.1.1: 20 02 00 00)
    def accepted() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", embedded.port), timeout=embedded_broker.CONNECT_TIMEOUT + 10) as again:
                again.sendall(mqtt_connect_packet("director", f"{EVENT}-director"))
                return again.recv(4) == b"\x20\x02\x00\x00"
        except ConnectionResetError:
            return False

    until(accepted, 60, "the director's login once the held connections were closed")


# ---- one worker (item 6) -------------------------------------------------------------------

@pytest.fixture
def mosquitto(tmp_path):
    if why_not("mosquitto"):
        pytest.skip(why_not("mosquitto"))
    running = brokers.Mosquitto(0, USERS, tmp_path / "mosquitto", event=EVENT)
    running.start()
    try:
        yield running
    finally:
        running.stop()


def test_a_slow_store_does_not_stall_the_directors_connection(mosquitto, tmp_path, monkeypatch):
    """paho's callbacks only queue: while the director's worker is stuck in a write
    (a slow disk), its network thread still keeps the connection alive. Keepalive
    is 1 s here, so the broker drops a client silent for 1.5 s; a second client,
    made silent after the worker got stuck, is dropped first (the broker closes its socket): the
    evidence that the broker would have dropped the director too. On mosquitto,
    which drops a client silent for 1.5 times its keepalive (amqtt 0.12 does not)."""
    broker = mosquitto
    monkeypatch.setattr(mqtt_link, "KEEPALIVE", 1)
    stuck, release = threading.Event(), threading.Event()
    key = envelope.new_secret()

    def apply(connection: sqlite3.Connection, message: dict[str, Any]) -> None:
        if message["body"]["n"] == 1:
            stuck.set()
            assert release.wait(30), "never released"
        connection.execute("CREATE TABLE IF NOT EXISTS hands (n INTEGER)")
        connection.execute("INSERT INTO hands VALUES (?)", (message["body"]["n"],))

    director = director_link.DirectorLink(url(broker, "director"), f"{EVENT}-director", event=EVENT, key=key,
                                 store_path=tmp_path / "director.sqlite3", boards=["t1"],
                                 on_table_message=apply, max_backoff=1.0)
    director.start()
    try:
        director.wait_connected(10)
        generation = director.generation
        hand = envelope.table_topic(EVENT, "t1", "hand")
        send(broker, "t1", [(hand, envelope.seal(key, EVENT, "t1", 1, "hand", {"n": 1}))])
        assert stuck.wait(10), "the first hand never reached the director's store"
        silent = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{EVENT}-t2", protocol=mqtt.MQTTv311)
        silent.username_pw_set("t2", USERS["t2"])
        up = threading.Event()
        silent.on_connect = lambda c, u, f, reason, p: up.set()
        silent.connect("127.0.0.1", broker.port, keepalive=1)
        silent.loop_start()
        assert up.wait(10), "the silent client could not connect"
        silent.loop_stop()                       # silent from now on: no PINGREQ
        assert closed_by_the_peer(silent.socket(), 15), "the broker never dropped a client silent for 1.5 s"
        assert director.generation == generation, "the director's connection was dropped while its store was slow"
        release.set()
        send(broker, "t1", [(hand, envelope.seal(key, EVENT, "t1", 2, "hand", {"n": 2}))])
        wait_for("both hands applied", lambda: director.applied() == {"t1": 2})
        assert director.generation == generation, "the director's connection was dropped while its store was slow"
        silent.socket() and silent.socket().close()
    finally:
        release.set()
        director.stop()


def closed_by_the_peer(sock: Any, timeout: float) -> bool:
    """Whether the other end closes `sock` within `timeout` (what it sends meanwhile is read and dropped)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        readable, _, _ = select.select([sock], [], [], max(0.0, deadline - time.monotonic()))
        if readable:
            try:
                if sock.recv(4096) == b"":
                    return True
            except OSError:
                return True
    return False
