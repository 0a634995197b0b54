"""What one login can make the embedded broker hold (issue 40, finding 1; docs/club-mqtt.md, "Limits"):
QoS 2 messages that never get their PUBREL, and messages kept for an offline session. Raw MQTT 3.1.1
packets on a loopback socket, as a hostile table's login would send them (paho would send the PUBREL)."""
from __future__ import annotations

import logging
import socket
import struct

import paho.mqtt.client as mqtt
import pytest

from tallyboard.club import brokers, embedded_broker
from test_club_mqtt import EVENT, USERS
from machine import needs
from waiting import until

pytestmark = [pytest.mark.broker]

BIG = 60 * 1024          # a message as big as the envelope lets through (envelope.MAX_BYTES is 64 KiB)


def _remaining(length: int) -> bytes:
    out = bytearray()
    while True:
        byte, length = length % 128, length // 128
        out.append(byte | (0x80 if length else 0))
        if not length:
            return bytes(out)


def _text(value: str) -> bytes:
    return struct.pack("!H", len(value)) + value.encode()


def connect_packet(user: str, password: str, client_id: str, clean: bool = True) -> bytes:
    flags = 0xC0 | (0x02 if clean else 0)          # user name, password, clean session
    body = _text("MQTT") + bytes([4, flags]) + struct.pack("!H", 60) + _text(client_id) + _text(user) + _text(password)
    return bytes([0x10]) + _remaining(len(body)) + body


def qos2_publish(topic: str, packet_id: int, payload: bytes) -> bytes:
    body = _text(topic) + struct.pack("!H", packet_id) + payload
    return bytes([0x34]) + _remaining(len(body)) + body


class RawLogin:
    """A table's login on a raw socket: CONNECT, then whatever the test sends."""

    def __init__(self, port: int, user: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.sendall(connect_packet(user, USERS[user], f"{EVENT}-{user}"))
        connack = self._read(4)
        assert connack[:2] == b"\x20\x02" and connack[3] == 0, f"CONNACK {connack!r}: not logged in"

    def _read(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            more = self.sock.recv(count - len(data))
            if not more:
                break
            data += more
        return data

    def flood(self, topic: str, count: int) -> int:
        """Send count QoS 2 PUBLISHes and never a PUBREL; how many went out before the broker closed."""
        payload = b"x" * BIG
        for sent in range(count):
            try:
                self.sock.sendall(qos2_publish(topic, sent % 65535 + 1, payload))
            except OSError:
                return sent
        return count

    def closed_by_the_broker(self) -> bool:
        self.sock.settimeout(30)
        try:
            while self.sock.recv(65536):
                pass               # PUBRECs, then the end
            return True
        except socket.timeout:
            return False           # still open after 30 s of silence
        except OSError:
            return True            # reset: closed all the same

    def close(self) -> None:
        self.sock.close()


def held_awaiting_pubrel(broker: embedded_broker.EmbeddedBroker) -> int:
    return sum(len(session.inflight_in) for session, _ in broker._broker._sessions.values())


def test_a_login_that_never_sends_pubrel_is_closed_at_the_bound_and_what_it_held_is_let_go(monkeypatch):
    # 256 KiB over 60 KB messages: four held make 240 KB, a fifth would make 300 KB, so the connection is
    # closed at the fifth and the session never holds more than four, however long the flood
    most = [0]
    publish = embedded_broker._BoundedHandler.handle_publish

    async def counted(handler, packet):
        await publish(handler, packet)
        if handler.session is not None:
            most[0] = max(most[0], len(handler.session.inflight_in))

    monkeypatch.setattr(embedded_broker._BoundedHandler, "handle_publish", counted)
    with embedded_broker.EmbeddedBroker(0, USERS, event=EVENT) as broker:
        # a table's login on its own board's state topic: 200 messages of 60 KB (12 MB), never a PUBREL
        login = RawLogin(broker.port, "t2")
        login.flood(f"tallyboard/{EVENT}/table/t2/state", 200)
        assert login.closed_by_the_broker()
        login.close()
        assert 1 <= most[0] <= 4 == brokers.MAX_INFLIGHT_BYTES // BIG
        until(lambda: held_awaiting_pubrel(broker) == 0, 30, "the held QoS 2 messages let go with the connection",
              explain=lambda: f"{held_awaiting_pubrel(broker)} still held")
        # the login may come back: it is closed, not banned
        RawLogin(broker.port, "t2").close()


def test_an_offline_sessions_queue_keeps_at_most_its_bound(monkeypatch):
    # the director subscribed with a persistent session, then went away; t1's state messages are kept
    # for it up to MAX_QUEUED (1000) and MAX_QUEUED_BYTES (8 MiB): 8 MiB / 60 KB = 139 of them
    # every message the broker handles for an offline session, kept or not (amqtt handles them in tasks of
    # their own: not always in the order they came)
    handled: dict[str, int] = {f"{EVENT}-director": 0}
    keep = embedded_broker._GuardedBroker._retain_broadcast_message

    async def counted(broker, broadcast, qos, target_session):
        handled[target_session.client_id] = handled.get(target_session.client_id, 0) + 1
        await keep(broker, broadcast, qos, target_session)

    monkeypatch.setattr(embedded_broker._GuardedBroker, "_retain_broadcast_message", counted)
    with embedded_broker.EmbeddedBroker(0, USERS, event=EVENT) as broker:
        director = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{EVENT}-director", clean_session=False)
        director.username_pw_set("director", USERS["director"])
        subscribed = []
        director.on_subscribe = lambda *args: subscribed.append(True)
        director.connect("127.0.0.1", broker.port)
        director.loop_start()
        director.subscribe(f"tallyboard/{EVENT}/table/+/state", qos=1)
        until(lambda: subscribed, 30, "the director's subscription")
        director.disconnect()
        director.loop_stop()
        session = broker._broker._sessions[f"{EVENT}-director"][0]
        until(lambda: session.transitions.state != "connected", 60, "the broker to see the director gone")
        table = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{EVENT}-t1")
        table.username_pw_set("t1", USERS["t1"])
        table.connect("127.0.0.1", broker.port)
        table.loop_start()
        try:
            infos = [table.publish(f"tallyboard/{EVENT}/table/t1/state", b"y" * BIG, qos=1) for _ in range(200)]
            # then a small one: 136 x 60 KB leaves room for it under 8 MiB
            infos.append(table.publish(f"tallyboard/{EVENT}/table/t1/state", b"last", qos=1))
            for info in infos:
                info.wait_for_publish(120)
            # the table stays connected until the broker has handled them all (amqtt lets go of what a
            # client's connection still had on its way when the client leaves)
            queue = session.retained_messages
            until(lambda: handled[f"{EVENT}-director"] == 201, 120, "all 201 messages handled for the offline "
                  "director", explain=lambda: f"{handled}; {queue.qsize()} kept")
        finally:
            table.disconnect()
            table.loop_stop()
        kept = [bytes(message.data) for message in queue._queue]
        assert b"last" in kept                                      # there was room for the small one
        assert 100 <= len(kept) - 1 <= 136, len(kept)             # 8 MiB // 60 KB = 136 of the big ones
        assert sum(map(len, kept)) <= brokers.MAX_QUEUED_BYTES == 8 * 1024 * 1024


def _client(port: int, user: str, **options) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{EVENT}-{user}", **options)
    client.username_pw_set(user, USERS[user])
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


@needs("mosquitto")
@pytest.mark.process
def test_mosquitto_as_configured_keeps_a_bounded_queue_for_an_offline_director(tmp_path):
    # mosquitto's own bounds, from the lines brokers.mosquitto_limits() writes: kept for the offline director
    # at most MAX_QUEUED_BYTES (8 MiB) of queued messages beyond MAX_INFLIGHT (20) in flight: 8 MiB / 60 KB =
    # 139.8, so at most 20 + 140 = 160 of a flood of 400 reach it when it comes back (without the bounds, 400)
    with brokers.Mosquitto(0, USERS, tmp_path / "mosquitto", event=EVENT) as broker:
        subscribed: list[bool] = []
        director = _client(broker.port, "director", clean_session=False)
        director.on_subscribe = lambda *args: subscribed.append(True)
        director.subscribe(f"tallyboard/{EVENT}/table/+/state", qos=1)
        until(lambda: subscribed, 30, "the director's subscription")
        director.disconnect()
        director.loop_stop()
        table = _client(broker.port, "t1")
        try:
            for info in [table.publish(f"tallyboard/{EVENT}/table/t1/state", b"z" * BIG, qos=1) for _ in range(400)]:
                info.wait_for_publish(60)
        finally:
            table.disconnect()
            table.loop_stop()
        received: list[str] = []
        marker = f"tallyboard/{EVENT}/director/marker"
        director = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{EVENT}-director", clean_session=False)
        director.username_pw_set("director", USERS["director"])
        director.on_message = lambda _c, _u, message: received.append(message.topic)
        director.on_connect = lambda client, *args: client.subscribe(marker, qos=1)
        director.connect("127.0.0.1", broker.port)
        director.loop_start()
        try:
            # the director's own message after the queue: delivered once everything queued before it is
            until(lambda: director.publish(marker, b"end", qos=1) and marker in received, 60,
                  "the queue delivered, then the director's marker", every=1.0)
        finally:
            director.disconnect()
            director.loop_stop()
        kept = received.index(marker)
        assert 100 <= kept <= 20 + 136 + 1, kept          # 20 in flight, 8 MiB // 60 KB = 136 queued
        assert (brokers.MAX_INFLIGHT, brokers.MAX_QUEUED_BYTES // BIG) == (20, 136)


def test_refused_connects_from_one_address_are_one_line_and_a_count(caplog):
    with caplog.at_level(logging.WARNING, "amqtt.broker"):
        with embedded_broker.EmbeddedBroker(0, USERS, event=EVENT) as broker:
            for _ in range(50):     # a table's login with a wrong password, 50 times
                with socket.create_connection(("127.0.0.1", broker.port), timeout=30) as sock:
                    sock.sendall(connect_packet("t2", "wrong", f"{EVENT}-t2"))
                    assert sock.recv(4) == b"\x20\x02\x00\x05"        # CONNACK 5: not authorized
    lines = [r.getMessage() for r in caplog.records if r.name == "amqtt.broker"]
    # the first said as it is, the other 49 counted and said when the broker stops: two lines, not 100
    assert len(lines) == 2, lines
    assert "'club-test-t2' (user 't2') not authorized (no such user, or a wrong password)" in lines[0]
    assert lines[1].startswith("the broker refused: 49 more from 127.0.0.1 in the last "), lines[1]


@pytest.mark.filterwarnings("ignore:`BrokerSysPlugin`:DeprecationWarning")     # amqtt's, of its own plugin
def test_a_message_reaches_every_subscriber_though_one_resubscribes_while_it_goes_out():
    # amqtt 0.12 delivers a message in a loop over its subscriptions with an await in each delivery; a board
    # that restarts meanwhile has its subscriptions removed and made again. Here the first delivery's check
    # removes a third filter: every subscriber of the topic still gets the message, and nothing raises
    # ("dictionary changed size during iteration" lost the rest of the deliveries: embedded_broker._Subscriptions).
    import asyncio
    from collections import deque
    from types import SimpleNamespace

    from tallyboard.club import embedded_broker

    loop = asyncio.new_event_loop()
    try:
        broker = embedded_broker._GuardedBroker({"listeners": {"default": {"type": "tcp", "bind": "127.0.0.1:0"}}},
                                                loop=loop, event="Club-night-1a2b")
        delivered: list[str] = []

        def session(name: str) -> Any:
            return SimpleNamespace(client_id=name, clean_session=True, is_anonymous=False,
                                   transitions=SimpleNamespace(state="connected"))

        class Handler:
            def __init__(self, name: str) -> None:
                self.name = name

            async def mqtt_publish(self, topic: str, data: bytes, qos: int, retain: bool) -> None:
                delivered.append(self.name)

        topic = "tallyboard/Club-night-1a2b/director/chunk/1A2B.1"
        broker._subscriptions["tallyboard/Club-night-1a2b/director/chunk/+"] = [(session("updater"), 0)]
        broker._subscriptions[topic] = [(session("1A2B.1"), 0)]
        broker._subscriptions["tallyboard/Club-night-1a2b/director/offer/1A2B.2"] = [(session("1A2B.2"), 1)]
        restarted = []

        async def allowed(target: Any, topic: str, action: Any) -> bool:
            if not restarted:         # 1A2B.2 restarts: its subscription removed (made again once it is back)
                restarted.append(broker._subscriptions.pop("tallyboard/Club-night-1a2b/director/offer/1A2B.2"))
                await asyncio.sleep(0)
            return True

        broker._topic_filtering = allowed
        broker._get_handler = lambda target: Handler(target.client_id)
        tasks: deque[Any] = deque()

        async def one_broadcast() -> None:
            await broker._broadcast_queue.put({"topic": topic, "data": b"chunk", "session": session("updater")})
            await broker._run_broadcast(tasks)
            await asyncio.gather(*tasks)

        loop.run_until_complete(one_broadcast())
        assert sorted(delivered) == ["1A2B.1", "updater"]
    finally:
        loop.close()
