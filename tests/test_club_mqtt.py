"""The club transport against real brokers (docs/club-mqtt.md): table hosts
as separate processes (tests/club_publisher.py) send signed hands through
their outboxes to a director in this process; every test runs once on
mosquitto (Debian's, on a loopback port) and once on the embedded amqtt
broker. Whatever the fault (the broker restarted, a table host killed with
SIGKILL, a table host cut off), the director ends with each board's hands
1..N applied once each, in order; forged, foreign and replayed messages are
refused, logged and never applied; a wrong password is refused by the broker."""
from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable

import paho.mqtt.client as mqtt
import pytest

from tallyboard.club import brokers, certificates, director_link, embedded_broker, envelope, mqtt_link, outbox

from club_director_support import Message
from waiting import until
from machine import needs, why_not

pytestmark = [pytest.mark.broker, pytest.mark.process]

HERE = Path(__file__).resolve().parent
PUBLISHER = HERE / "club_publisher.py"
EVENT = "club-test"
# each table's login is its board's identity (brokers.ACL); `marker` a login of no board of the evening
USERS = {"director": "d-secret-1", "t1": "t1-secret", "t2": "t2-secret", "t3a": "t3a-secret",
         "t3b": "t3b-secret", "t9": "t9-secret", "marker": "m-secret"}
WAIT = 60.0   # the longest any test waits for one thing
PUBLISH_S = 300   # a publisher's own guard: its hands all applied within this, on a machine ten times as busy


def wait_for(what: str, condition: Callable[[], bool], timeout: float = WAIT) -> None:
    until(condition, timeout, what)


@pytest.fixture(params=["mosquitto", "amqtt"])
def broker(request, tmp_path):
    if request.param == "mosquitto":
        if why_not("mosquitto"):
            pytest.skip(why_not("mosquitto"))
        running: Any = brokers.Mosquitto(0, USERS, tmp_path / "mosquitto", event=EVENT)
    else:
        running = embedded_broker.EmbeddedBroker(0, USERS, event=EVENT)      # port 0: bound by the broker itself, no race
    running.start()
    try:
        yield running
    finally:
        running.stop()


class Relay:
    """A TCP relay from its own loopback port to the broker's, that the test
    can cut (every connection closed, new ones refused) and restore: a table
    host cut off the network without a firewall."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = 0                    # the first bind takes a free port and keeps it
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self.restore()

    def restore(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        self.port = listener.getsockname()[1]
        listener.listen(8)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        if self._listener is not None:
            try:
                self._listener.shutdown(socket.SHUT_RDWR)   # wakes the thread in accept()
            except OSError:
                pass
            self._listener.close()
            self._listener = None
        with self._lock:
            for end in self._sockets:
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                end.close()
            self._sockets.clear()


class Evening:
    """The director (in this process) and the table host processes of one test."""

    def __init__(self, broker: Any, tmp_path: Path, boards: list[str]) -> None:
        self.broker = broker
        self.tmp = tmp_path
        self.key = envelope.new_secret()
        self.store = tmp_path / "director.sqlite3"
        self.processes: list[subprocess.Popen[bytes]] = []
        self.director = director_link.DirectorLink(self.url("director"), f"{EVENT}-director", event=EVENT, key=self.key,
                                          store_path=self.store, boards=boards, on_table_message=self.apply,
                                          max_backoff=1.0)

    def url(self, user: str, port: int | None = None) -> str:
        return f"mqtt://{user}:{USERS[user]}@127.0.0.1:{port or self.broker.port}"

    @staticmethod
    def apply(connection: sqlite3.Connection, message: dict[str, Any]) -> None:
        # the evening's own table, in the director's transaction; no UNIQUE
        # constraint, so a hand applied twice would show as two rows
        connection.execute("CREATE TABLE IF NOT EXISTS hands (id INTEGER PRIMARY KEY, board TEXT, seq INTEGER, "
                           "n INTEGER)")
        connection.execute("INSERT INTO hands (board, seq, n) VALUES (?, ?, ?)",
                           (message["board"], message["seq"], message["body"]["n"]))

    def hands(self, board: str) -> list[int]:
        """The numbers of `board`'s hands as the director applied them, in order."""
        with sqlite3.connect(self.store) as reader:
            try:
                rows = reader.execute("SELECT seq, n FROM hands WHERE board = ? ORDER BY id", (board,)).fetchall()
            except sqlite3.OperationalError:   # no hand yet
                return []
        assert all(seq == n for seq, n in rows), rows
        return [n for _, n in rows]

    def table(self, name: str, boards: list[str], count: int, every: float = 0.03,
              port: int | None = None) -> subprocess.Popen[bytes]:
        command = [sys.executable, str(PUBLISHER), "--url", f"mqtt://127.0.0.1:{port or self.broker.port}",
                   "--client-id", EVENT,       # each link's client id <event>-<login> (brokers.client_ids)
                   "--outbox", str(self.tmp / f"{name}.outbox.sqlite3"), "--event", EVENT, "--key", self.key.hex(),
                   "--count", str(count), "--every", str(every), "--resend-after", "1", "--timeout", str(PUBLISH_S)]
        for board in boards:
            command += ["--board", board, "--login", f"{board}={USERS[board]}"]   # a link per board, as itself
        log = open(self.tmp / f"{name}.log", "ab")
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.processes.append(process)
        return process

    def finish(self, process: subprocess.Popen[bytes], name: str) -> None:
        try:
            code = process.wait(PUBLISH_S + 30)
        except subprocess.TimeoutExpired:
            process.kill()
            code = None
        assert code == 0, (self.tmp / f"{name}.log").read_text()

    def pending(self, name: str) -> int:
        with sqlite3.connect(self.tmp / f"{name}.outbox.sqlite3") as reader:
            return reader.execute("SELECT count(*) FROM outbox").fetchone()[0]

    def marker(self) -> None:
        """A message sent now through the broker, waited for until the director has handled it: the
        broker hands the director its messages in order, so whatever it had before has been handled."""
        before = sum(count for _, _, count in self.director.refused_counts())
        client = raw_client(self.url("marker"), f"{EVENT}-marker")
        try:
            client.publish(envelope.table_topic(EVENT, "marker", "hand"), b"marker", qos=1).wait_for_publish(10)
        finally:
            client.loop_stop()
            client.disconnect()
        wait_for("the marker at the director",
                 lambda: sum(count for _, _, count in self.director.refused_counts()) > before)

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait(10)
        self.director.stop()


@pytest.fixture
def evening(broker, tmp_path):
    made: list[Evening] = []

    def make(boards: list[str]) -> Evening:
        night = Evening(broker, tmp_path, boards)
        made.append(night)
        night.director.start()
        night.director.wait_connected(10)
        return night

    try:
        yield make
    finally:
        for night in made:
            night.close()


def test_three_table_hosts_every_hand_applied_once_in_order(evening):
    night = evening(["t1", "t2", "t3a", "t3b"])
    tables = [night.table("table1", ["t1"], 40), night.table("table2", ["t2"], 40),
              night.table("table3", ["t3a", "t3b"], 40)]
    for process, name in zip(tables, ("table1", "table2", "table3")):
        night.finish(process, name)
    # 40 hands queued per board, numbered 1..40 by the outbox: the director's
    # rows are exactly 1, 2, ..., 40 for each board, none doubled
    for board in ("t1", "t2", "t3a", "t3b"):
        assert night.hands(board) == list(range(1, 41))
    assert night.director.applied() == {"t1": 40, "t2": 40, "t3a": 40, "t3b": 40}


def test_the_broker_restarted_mid_stream_loses_and_doubles_nothing(evening, broker):
    night = evening(["t1", "t2"])
    one, two = night.table("table1", ["t1"], 60), night.table("table2", ["t2"], 60)
    wait_for("the director to apply 15 hands of t1", lambda: len(night.hands("t1")) >= 15)
    assert len(night.hands("t1")) < 60     # mid-stream indeed: what is applied after this needed the restart
    broker.restart()
    night.finish(one, "table1")
    night.finish(two, "table2")
    assert night.hands("t1") == list(range(1, 61))
    assert night.hands("t2") == list(range(1, 61))


def test_a_table_host_killed_mid_stream_and_started_again_loses_and_doubles_nothing(evening):
    night = evening(["t1", "t2"])
    first = night.table("table1", ["t1"], 60)
    other = night.table("table2", ["t2"], 60)
    wait_for("the director to apply 15 hands of t1", lambda: len(night.hands("t1")) >= 15)
    os.kill(first.pid, signal.SIGKILL)
    first.wait(10)
    stopped_at = len(night.hands("t1"))
    assert stopped_at < 60                 # killed mid-stream indeed
    again = night.table("table1", ["t1"], 60)
    night.finish(again, "table1")
    night.finish(other, "table2")
    assert night.hands("t1") == list(range(1, 61))
    assert night.hands("t2") == list(range(1, 61))


def test_a_table_host_cut_off_keeps_queueing_and_catches_up(evening, broker):
    night = evening(["t1", "t2"])
    relay = Relay(broker.port)
    try:
        cut_off = night.table("table1", ["t1"], 80, every=0.05, port=relay.port)
        other = night.table("table2", ["t2"], 40)
        wait_for("the director to apply 10 hands of t1", lambda: len(night.hands("t1")) >= 10)
        relay.cut()
        night.marker()                     # whatever of table1's was at the broker has reached the director
        applied_when_cut = len(night.hands("t1"))
        wait_for("table1 to queue 10 more hands while cut off", lambda: night.pending("table1") >= 10)
        night.marker()                     # the director has handled everything the broker had since
        assert len(night.hands("t1")) == applied_when_cut    # nothing got through meanwhile
        relay.restore()
        night.finish(cut_off, "table1")
        night.finish(other, "table2")
    finally:
        relay.cut()
    assert night.hands("t1") == list(range(1, 81))
    assert night.hands("t2") == list(range(1, 41))


def raw_client(url: str, client_id: str) -> mqtt.Client:
    """A plain paho client of the user in `url`, once the broker has let it in."""
    address = mqtt_link.parse_url(url)
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311)
    client.username_pw_set(address.username, address.password)
    up = threading.Event()
    client.on_connect = lambda c, u, f, reason, p: up.set() if not reason.is_failure else None
    client.connect(address.host, address.port)
    client.loop_start()
    if not up.wait(10):
        client.loop_stop()
        pytest.fail(f"{client_id} could not log in to the broker")
    return client


def test_forged_foreign_and_replayed_messages_are_refused_logged_and_never_applied(evening):
    night = evening(["t1"])
    night.finish(night.table("table1", ["t1"], 3), "table1")
    assert night.hands("t1") == [1, 2, 3]
    topic = envelope.table_topic(EVENT, "t1", "hand")
    forged = envelope.seal(b"not the evening's secret" * 2, EVENT, "t1", 4, "hand", {"n": 4, "sent_ns": 0})
    stranger = envelope.seal(night.key, EVENT, "t9", 1, "hand", {"n": 1, "sent_ns": 0})
    replayed = envelope.seal(night.key, EVENT, "t1", 2, "hand", {"n": 2, "sent_ns": 0})
    # each on a login the broker lets publish there (brokers.ACL): t1's (its key not the evening's), then a
    # login of a board that is not the evening's, then t1's again
    for login, messages, refusals in (("t1", [(topic, forged)], 1),
                                      ("t9", [(envelope.table_topic(EVENT, "t9", "hand"), stranger)], 2),
                                      ("t1", [(topic, replayed), (topic, b"{not json")], 4)):
        attacker = raw_client(night.url(login), f"{EVENT}-{login}")
        try:
            for where, payload in messages:
                attacker.publish(where, payload, qos=1).wait_for_publish(10)
            wait_for(f"{refusals} refusals in the director's log", lambda: len(night.director.refused()) >= refusals)
        finally:
            attacker.loop_stop()
            attacker.disconnect()
    reasons = [(board, reason) for _, board, reason, _ in night.director.refused()]
    assert reasons == [("t1", "signature"), ("t9", "board"), ("t1", "replay"), ("t1", "json")]
    assert night.hands("t1") == [1, 2, 3]
    assert night.hands("t9") == []
    assert night.director.applied() == {"t1": 3}


def test_a_wrong_password_is_refused_by_the_broker(evening, broker, tmp_path):
    from tallyboard.club import outbox

    night = evening(["t1"])
    box = outbox.Outbox(tmp_path / "wrong.sqlite3", EVENT, night.key)
    table = mqtt_link.TableLink(f"mqtt://t1:wrong-password@127.0.0.1:{broker.port}", f"{EVENT}-t1", outbox=box,
                           boards=["t1"], max_backoff=1.0)
    table.start()
    try:
        with pytest.raises(mqtt_link.ConnectionRefused, match="check the user name and password"):
            table.wait_connected(10)
        box.add("t1", "hand", {"n": 1, "sent_ns": 0})
        refused_before = table.refusals
        wait_for("the table host to try again after the hand and be refused again",
                 lambda: table.refusals > refused_before, 15)
        assert night.hands("t1") == []     # kept in its outbox, not delivered
        assert box.pending() == 1
    finally:
        table.stop()
        box.close()


@pytest.fixture(params=["mosquitto", "amqtt"])
def tls_broker(request, tmp_path):
    """A broker with a TLS listener only, its certificate signed by a club CA made for the test (as
    `event serve --club` and `event broker-files` make them): (broker, the CA's file)."""
    tls = certificates.broker_files(tmp_path / "club-ca")
    if request.param == "mosquitto":
        if why_not("mosquitto"):
            pytest.skip(why_not("mosquitto"))
        running: Any = brokers.Mosquitto(0, USERS, tmp_path / "mosquitto", tls=tls, event=EVENT)
    else:
        running = embedded_broker.EmbeddedBroker(0, USERS, event=EVENT, tls=tls)
    running.start()
    try:
        yield running, tmp_path / "club-ca" / certificates.CA_FILE
    finally:
        running.stop()


def test_mqtts_with_the_clubs_ca_on_both_brokers(tls_broker, tmp_path):
    """The director trusts the club CA's file; a table host, the CA's pin (its join code's); plain
    MQTT on the TLS port gets nowhere, and a table host pinning another club's CA sends nothing."""
    from tallyboard.club import outbox

    running, ca = tls_broker
    port = running.port
    pin = certificates.pin_of(ca.read_bytes())
    other_pin = certificates.pin_of(certificates.club_ca(tmp_path / "another-club").read_bytes())
    key = envelope.new_secret()
    applied: list[int] = []
    director = director_link.DirectorLink(f"mqtts://director:{USERS['director']}@127.0.0.1:{port}",
                                          f"{EVENT}-director", tls_ca=ca, event=EVENT, key=key,
                                          store_path=tmp_path / "d.sqlite3", boards=["t1"],
                                          on_table_message=lambda c, m: applied.append(m["body"]["n"]))
    box = outbox.Outbox(tmp_path / "o.sqlite3", EVENT, key)
    table = mqtt_link.TableLink(f"mqtts://t1:{USERS['t1']}@127.0.0.1:{port}", f"{EVENT}-t1", tls_pin=pin,
                                outbox=box, boards=["t1"])
    plain = mqtt_link.TableLink(f"mqtt://t2:{USERS['t2']}@127.0.0.1:{port}", f"{EVENT}-t2",
                                outbox=outbox.Outbox(tmp_path / "p.sqlite3", EVENT, key), boards=["t2"],
                                max_backoff=1.0)
    stranger = mqtt_link.TableLink(f"mqtts://t9:{USERS['t9']}@127.0.0.1:{port}", f"{EVENT}-t9", tls_pin=other_pin,
                                   outbox=outbox.Outbox(tmp_path / "s.sqlite3", EVENT, key), boards=["t9"],
                                   max_backoff=1.0)
    try:
        for link in (director, table, plain, stranger):
            link.start()
        director.wait_connected(WAIT)
        table.wait_connected(WAIT)
        for n in (1, 2, 3):
            box.add("t1", "hand", {"n": n})
        wait_for("the three hands through TLS", lambda: box.pending() == 0)
        assert applied == [1, 2, 3]
        wait_for("the stranger's refusal said", lambda: stranger.last_error is not None)
        assert stranger.last_error.startswith("the broker is not this club's") and not stranger.connected.is_set()
        # its CONNECT in plain text is no TLS handshake: the connection closed, never logged in
        wait_for("the plain link's connection closed", lambda: plain.last_error is not None)
        assert plain.logins == 0 and table.logins >= 1
    finally:
        for link in (stranger, plain, table, director):
            link.stop()


def test_a_table_host_is_woken_for_the_directors_round_only_once_it_is_committed(tmp_path):
    """The table host's main loop reads the round its link kept, on its own
    connection to the outbox file, when the link wakes it. Woken from inside
    the transaction that keeps it, the loop could read the file as it was and
    seat the last round again: CI saw table 3 seat round 1 twice and never
    round 2. A replayed round wakes nobody."""
    key = envelope.new_secret()
    box = outbox.Outbox(tmp_path / "outbox.sqlite3", EVENT, key)
    reader = sqlite3.connect(box.path)
    seen: list[list[tuple[str]]] = []

    def keep(connection: sqlite3.Connection, message: dict[str, Any]) -> None:
        connection.execute("INSERT OR REPLACE INTO club_round (id, body) VALUES (1, ?)",
                           (json.dumps(message["body"]),))

    table = mqtt_link.TableLink("mqtt://127.0.0.1:1883", "t1", outbox=box, boards=["t1"], on_director_message=keep,
                           on_director_applied=lambda: seen.append(reader.execute("SELECT body FROM club_round")
                                                                   .fetchall()))
    try:
        for seq, round in ((1, 1), (2, 2), (2, 2)):
            payload = envelope.seal_director({"t1": key}, EVENT, seq, "round", {"round": round})
            table._on_message(Message(envelope.round_topic(EVENT), payload))
        assert seen == [[('{"round": 1}',)], [('{"round": 2}',)]]
    finally:
        reader.close()
        box.close()
