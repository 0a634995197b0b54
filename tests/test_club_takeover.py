"""Issue 30's broker findings, on both brokers as a club runs them
(docs/club-mqtt.md, "Who may publish what" and "Limits"):

1. nothing before authentication: a CONNECT with the director's client id
   and a wrong password, or with a table's own login, never touches the
   director's live session; the embedded broker refuses both (CONNACK 5),
   mosquitto takes the user name as the client id;
3. bounds: a message over the envelope's 64 KiB is refused and never kept,
   a retained hand is not kept (the embedded broker; mosquitto keeps at most
   a login's own three topics, each under the cap), no login publishes under
   another evening's topics;
4. (the broker's half) whoever has no login cannot fill the embedded
   broker's 200 connections from 14 addresses.

Each negative assertion first sees evidence that the input was handled: the
broker's answer to it (CONNACK, PUBACK or the connection closed), or a
message sent after it on the same connection reaching the director."""
from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from test_club_guard import Director, attempt, connected, director, mqtt_connect_packet, send, url  # noqa: F401  (director: the fixture)
from test_club_mqtt import EVENT, USERS, broker, wait_for  # noqa: F401  (broker: the fixture, on both brokers)
from tallyboard.common import listeners
from tallyboard.club import brokers, embedded_broker, envelope

pytestmark = [pytest.mark.broker, pytest.mark.process]

RECONNECT = 5.0      # one reconnect interval of the test's director (max_backoff 1 s), with room for a slow machine


def connect_raw(port: int, packet: bytes, timeout: float = 10.0) -> bytes:
    """Send one CONNECT on a new connection; the broker's CONNACK (b'' if it closed without one)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(packet)
        try:
            return sock.recv(4)
        except ConnectionResetError:
            return b""


def connect_packet(user: str, password: str, client_id: str, clean: bool = True) -> bytes:
    """An MQTT 3.1.1 CONNECT of `user` with `password` (keepalive 60 s)."""
    def text(value: str) -> bytes:
        return len(value.encode()).to_bytes(2, "big") + value.encode()
    flags = 0xC0 | (0x02 if clean else 0x00)
    body = text("MQTT") + bytes((4, flags)) + (60).to_bytes(2, "big") + text(client_id) + text(user) + text(password)
    assert len(body) < 128
    return bytes((0x10, len(body))) + body


# ---- finding 1: nothing before authentication --------------------------------------------------

def test_a_connect_with_the_directors_client_id_never_drops_the_directors_session(broker, director):
    """The director connected and subscribed; strangers and a table's own login CONNECT with the
    director's client id, again and again; the director keeps its connection, and a table's signed
    hand sent after all of it is applied within one reconnect interval."""
    generation = director.link.generation
    theirs = f"{EVENT}-director"
    for _ in range(5):
        for user, password, clean in (("t1", "wrong", True), ("director", "wrong", False),
                                       ("nobody", "wrong", False)):
            answer = connect_raw(broker.port, connect_packet(user, password, theirs, clean))
            # refused: CONNACK 4 (bad user name or password) or 5 (not authorized)
            assert answer[:3] == b"\x20\x02\x00" and answer[3] in (4, 5), (user, answer)
        # a table's valid login with the director's client id: the embedded broker refuses it; mosquitto
        # lets it in under its own user name (use_username_as_clientid), a session of its own
        answer = connect_raw(broker.port, mqtt_connect_packet("t1", theirs))
        if isinstance(broker, embedded_broker.EmbeddedBroker):
            assert answer == b"\x20\x02\x00\x05", answer
        else:
            assert answer == b"\x20\x02\x00\x00", answer
    # a table's signed hand, after all of that on the same broker
    started = time.monotonic()
    send(broker, "t1", [(envelope.table_topic(EVENT, "t1", "hand"), director.seal("t1", 1, {"n": 1}))])
    wait_for("t1's hand at the director", lambda: director.link.applied() == {"t1": 1}, RECONNECT)
    assert time.monotonic() - started < RECONNECT
    assert director.link.generation == generation, "the director's session was dropped"
    assert director.hands() == [("t1", 1)]


def test_a_connect_with_another_tables_client_id_is_refused_or_its_own(broker, director):
    """t2's link connected; t1's login with t2's client id does not take t2's place."""
    t2, t2_gone = connected(broker, "t2")
    try:
        answer = connect_raw(broker.port, mqtt_connect_packet("t1", f"{EVENT}-t2"))
        if isinstance(broker, embedded_broker.EmbeddedBroker):
            assert answer == b"\x20\x02\x00\x05", answer
        else:
            assert answer == b"\x20\x02\x00\x00", answer        # as "t1", its own
        # evidence: t2's own hand, sent after on t2's connection, is applied, and t2 was never dropped
        t2.publish(envelope.table_topic(EVENT, "t2", "hand"), director.seal("t2", 1, {"n": 2}), qos=1)
        wait_for("t2's hand at the director", lambda: director.link.applied() == {"t2": 1}, RECONNECT)
        assert not t2_gone.is_set(), "t2's connection was taken over by t1's login"
    finally:
        t2.loop_stop()
        t2.disconnect()


def test_each_login_connects_with_its_own_client_ids_only():
    assert brokers.client_ids("ev-1a2b", "director") == ("ev-1a2b-director",)
    # a table host's link, and a board on the club's Wi-Fi (firmware/tallynet/link.py: <event>-board-<ident>)
    assert brokers.client_ids("ev-1a2b", "1A2B.3") == ("ev-1a2b-1A2B.3", "ev-1a2b-board-1A2B.3")


# ---- finding 3: bounds --------------------------------------------------------------------------

def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def retained_bytes(broker: Any) -> int:
    """What the broker holds as retained messages: mosquitto's resident memory (kB -> bytes), the
    embedded broker's retained store (it lives in this process, whose memory the test moves too)."""
    if isinstance(broker, embedded_broker.EmbeddedBroker):
        return sum(len(message.data or b"") for message in list(broker._broker._retained_messages.values()))
    assert broker.process is not None
    return rss_kb(broker.process.pid) * 1024


def test_a_5_mb_retained_hand_is_refused_and_never_kept(broker, director):
    topic = envelope.table_topic(EVENT, "t1", "hand")
    before = retained_bytes(broker)
    big = b"x" * (5 * 1024 * 1024)
    for _ in range(4):
        attempt(broker, "t1", topic, big)               # its PUBACK or the connection closed
    # evidence the broker has handled all of it: t1's own hand, sent after, reached the director
    send(broker, "t1", [(topic, director.seal("t1", 1, {"n": 1}))])
    wait_for("t1's hand after the big ones", lambda: director.link.applied() == {"t1": 1})
    assert retained_bytes(broker) - before < 4 * 1024 * 1024, "the broker kept the big messages"
    assert [r[2] for r in director.link.refused()] == []      # none of them reached the director
    # a message at the envelope's limit still goes through (refused by the director as junk, not by the broker)
    send(broker, "t1", [(topic, b"y" * envelope.MAX_BYTES), (topic, director.seal("t1", 2, {"n": 2}))])
    wait_for("t1's second hand", lambda: director.link.applied() == {"t1": 2})
    assert [r[2] for r in director.link.refused()] == ["json"]


def test_a_retained_hand_is_not_kept_by_the_embedded_broker(tmp_path):
    """The contract retains status, round and applied only (kinds.KINDS); amqtt kept any retained
    message of any table login. (mosquitto cannot refuse retain by topic: there a login can keep at
    most one message on each of its three topics, each under the size cap; docs/club-mqtt.md.)"""
    broker = embedded_broker.EmbeddedBroker(0, USERS, event=EVENT)
    broker.start()
    try:
        director = Director(broker, tmp_path)
        try:
            topic = envelope.table_topic(EVENT, "t1", "hand")
            attempt(broker, "t1", topic, director.seal("t1", 1, {"n": 1}))    # retained (attempt retains)
            wait_for("t1's hand at the director", lambda: director.link.applied() == {"t1": 1})
            assert topic not in broker._broker._retained_messages
            # its status is retained by contract, and is kept
            attempt(broker, "t1", envelope.host_status_topic(EVENT, "t1"), director.status("t1"))
            wait_for("t1's status", lambda: ("t1", True) in director.statuses)
            assert envelope.host_status_topic(EVENT, "t1") in broker._broker._retained_messages
        finally:
            director.link.stop()
    finally:
        broker.stop()


def test_no_login_publishes_or_reads_under_another_evenings_topics(broker):
    other = "other-night-9f9f"
    got: list[str] = []
    mine = threading.Event()
    spy, _ = connected(broker, "director")      # the director's login: the only one that reads hands
    try:
        spy.on_message = lambda c, u, message: (got.append(message.topic),
                                                mine.set() if message.topic.startswith(f"tallyboard/{EVENT}/")
                                                else None)
        spy.subscribe(f"tallyboard/{other}/table/+/+", 1)
        spy.subscribe(f"tallyboard/{EVENT}/table/+/+", 1)
        # t1 publishes its hand under another evening's topic, retained, then under this evening's
        attempt(broker, "t1", f"tallyboard/{other}/table/t1/hand", b"elsewhere")
        attempt(broker, "t1", envelope.table_topic(EVENT, "t1", "hand"), b"here")
        assert mine.wait(10), got
        assert got == [envelope.table_topic(EVENT, "t1", "hand")]
    finally:
        spy.loop_stop()
        spy.disconnect()
    assert not brokers.may("t1", None, f"tallyboard/{other}/table/t1/hand", True, event=EVENT)
    assert not brokers.may("director", None, f"tallyboard/{other}/director/round", True, event=EVENT)


# ---- finding 4, the broker's half: connection caps ----------------------------------------------

def test_14_addresses_cannot_fill_the_embedded_brokers_connections(caplog):
    """Without a login, 14 addresses each open as many connections as the old per-address cap let
    them (16: 224, over the listener's 200); a director on a 15th then logs in at once."""
    broker = embedded_broker.EmbeddedBroker(0, USERS, event=EVENT)
    broker.start()
    held: list[socket.socket] = []
    try:
        with caplog.at_level(logging.WARNING):
            for n in range(2, 16):
                for _ in range(16):
                    held.append(socket.create_connection(("127.0.0.1", broker.port), timeout=5,
                                                         source_address=(f"127.0.0.{n}", 0)))
            # the broker has seen every one of them: the last address's last connection is closed (over its
            # cap), or held
            with socket.create_connection(("127.0.0.1", broker.port), timeout=10) as director:
                started = time.monotonic()
                director.sendall(mqtt_connect_packet("director", f"{EVENT}-director"))
                director.settimeout(embedded_broker.CONNECT_TIMEOUT / 2)
                try:
                    answer = director.recv(4)
                except socket.timeout:
                    answer = b"(none)"
                assert answer == b"\x20\x02\x00\x00", (f"the director got {answer!r} in "
                                                       f"{time.monotonic() - started:.1f} s")
        # each crowded address logged once, not once per connection closed
        crowded = [r for r in caplog.records if "have not logged in; closing new ones" in r.getMessage()]
        assert 1 <= len(crowded) <= 14, len(crowded)
        assert embedded_broker.MAX_CONNECTIONS // embedded_broker.MAX_PER_ADDRESS >= 50      # 50 addresses, not 13
    finally:
        for sock in held:
            sock.close()
        broker.stop()


def test_accept_errors_are_logged_once_per_run(caplog):
    """asyncio reports a listener out of file descriptors at every retry (once a second, with a
    traceback); the embedded broker's loop logs the first of a run and a count at its end (the
    handler the page's server uses too: listeners.AcceptErrors)."""
    loop = asyncio.new_event_loop()
    try:
        handler = listeners.AcceptErrors(logging.getLogger("test-accept"), "the broker")
        with caplog.at_level(logging.WARNING, logger="test-accept"):
            for _ in range(100):
                handler(loop, {"message": "socket.accept() out of system resource",
                               "exception": OSError(24, "Too many open files")})
            assert len(caplog.records) == 1
            handler.last -= handler.QUIET_AFTER + 1             # a quiet while: the run is over
            handler(loop, {"message": "socket.accept() out of system resource",
                           "exception": OSError(24, "Too many open files")})
        assert [r.getMessage() for r in caplog.records][1:] == [
            "the broker could accept again; 99 more accept errors in that run",
            "the broker cannot accept connections: [Errno 24] Too many open files (logged once until it can again)"]
    finally:
        loop.close()
