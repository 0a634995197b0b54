"""A broker's port (docs/club-mqtt.md, "Brokers"): the embedded broker frees its port the moment it
stops, mid-stream or not, and starts again on it at once; given port 0 it binds one itself and says
which; mosquitto given port 0 takes another when a process took the one it was offered (free_port()'s
race)."""
from __future__ import annotations

import socket

import pytest

from test_club_guard import Director, connected, url
from test_club_mqtt import EVENT, USERS, wait_for
from machine import why_not
from tallyboard.club import brokers, embedded_broker, mqtt_link, outbox

pytestmark = [pytest.mark.broker, pytest.mark.process]


def listening(port: int) -> bool:
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        probe.bind(("127.0.0.1", port))
        probe.listen(1)
        return False
    except OSError:
        return True
    finally:
        probe.close()


@pytest.mark.parametrize("attempt", range(3))
def test_the_embedded_broker_frees_its_port_when_stopped_mid_stream(tmp_path, attempt):
    broker = embedded_broker.EmbeddedBroker(0, USERS, event=EVENT)
    broker.start()
    port = broker.port
    director = Director(broker, tmp_path)
    box = outbox.Outbox(tmp_path / "o.sqlite3", EVENT, director.key)
    table = mqtt_link.TableLink(url(broker, "t1"), f"{EVENT}-t1", outbox=box, boards=["t1"], max_backoff=1.0)
    table.start()
    try:
        for n in range(1, 201):
            box.add("t1", "hand", {"n": n})
        wait_for("hands flowing", lambda: len(director.hands()) >= 20)
        assert listening(port)
        broker.stop()                           # raises if amqtt did not shut down
        assert len(director.hands()) < 200      # stopped mid-stream indeed (the table host needs the broker)
        assert not listening(port)
        broker.start()                          # on the same port at once
        assert broker.port == port
        wait_for("every hand after the restart", lambda: box.pending() == 0)
        assert [n for _, n in director.hands()] == list(range(1, 201))
    finally:
        table.stop()
        box.close()
        director.link.stop()
        broker.stop()


def test_mosquitto_on_port_0_takes_another_port_when_another_process_took_the_one_it_was_given(tmp_path,
                                                                                                monkeypatch):
    """free_port()'s race: another process binds the port between free_port() and
    mosquitto's bind. Played here by a listener of this test on the first port offered."""
    if why_not("mosquitto"):
        pytest.skip(why_not("mosquitto"))
    taker = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    taker.bind(("127.0.0.1", 0))
    taker.listen(1)
    taken = taker.getsockname()[1]
    offered: list[int] = []
    real_free_port = brokers.free_port

    def racing_free_port() -> int:
        offered.append(taken if not offered else real_free_port())
        return offered[-1]

    monkeypatch.setattr(brokers, "free_port", racing_free_port)
    broker = brokers.Mosquitto(0, USERS, tmp_path / "mosquitto", event=EVENT)
    try:
        broker.start()
        assert offered[0] == taken
        assert len(offered) == 2, (f"Mosquitto.start() took port {broker.port}, which another process "
                                   "listens on, for its own")     # the taken port was tried, then one more
        assert broker.port == offered[1] != taken
        client, _ = connected(broker, "director")    # the broker answers there
        client.loop_stop()
        client.disconnect()
    finally:
        broker.stop()
        taker.close()


def test_the_embedded_broker_on_port_0_binds_a_port_itself_and_says_which():
    broker = embedded_broker.EmbeddedBroker(0, USERS, event=EVENT)
    broker.start()
    try:
        assert broker.port != 0 and listening(broker.port)
        client, _ = connected(broker, "director")
        client.loop_stop()
        client.disconnect()
    finally:
        broker.stop()
    assert not listening(broker.port)
