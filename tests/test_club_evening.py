"""A club evening across hosts over MQTT (docs/club-mqtt.md, "The evening
over MQTT"), end to end: a director (`tallyboard event serve --broker`) and
three table hosts (`tallyboard event table --emulators 1`), each a process
of its own, a real mosquitto between them (and once the embedded broker the
director starts). Hands are entered with `tallyboard hand --port` on a
table's emulated board and accepted with `tallyboard press --flash`; the
broker is restarted mid-round, a table host is killed with SIGKILL and
started again, a table host is cut off the broker for a while; each time the
director's tables and standings must end exactly as the boards hold them.

Every hand here is "the player in seat 0 buys 1C and takes 7": made, A = 60
+ 10 x 1 = 70 for the purchaser and his partner, 10 x (13 - 7) = 60 for each
adversary (docs/rules.md SK2, SK7). Partners (SK5, SK16): hands 1-2 seats 0
+ 2, hands 3-4 seats 0 + 1. So seat 3, an adversary in hands 1 to 4, accepts
every hand (CF), and after
  one hand:   seat 0 70,  seat 1 60,  seat 2 70,  seat 3 60
  two hands:  140, 120, 140, 120
  three:      140 + 70 = 210, 120 + 70 = 190, 140 + 60 = 200, 120 + 60 = 180
  four:       280, 260, 260, 240   (the four-hand game of three tables, SK19)
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from click.testing import CliRunner

from club_evening_support import WAIT, Evening, Proc
from machine import needs
from emu_fixtures import until
from test_club_mqtt import Relay
from tallyboard.boardlink import portshare
from tallyboard.cli import main
from tallyboard.boardlink.client import Board
from tallyboard.club import brokers, certificates, envelope
from tallyboard.club.mqtt_link import parse_url
from tallyboard.evening import club as club_mod
from tallyboard.evening.tables import event_tag
from tallyboard.tooling.emulator import running_on
from tallyboard.evening import EveningDatabase

pytestmark = [needs("mosquitto"), pytest.mark.broker, pytest.mark.process]

PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kim", "Lu"]
AFTER = {1: [70, 60, 70, 60], 2: [140, 120, 140, 120], 3: [210, 190, 200, 180], 4: [280, 260, 260, 240]}


class Club(Evening):
    """The evening of three tables, each on a table host with an emulated board."""

    def __init__(self, tmp_path: Path, monkeypatch) -> None:
        super().__init__(tmp_path, monkeypatch, PLAYERS)
        self.code = self.codes[1]
        self.director_url = "mqtt://director:%s@127.0.0.1:%%d" % self.users["director"]

    def director(self, *broker: str) -> Proc:
        proc = self.spawn("director", "event", "serve", "--port", "0", *broker)
        proc.wait_line(r"The club evening's page: http")
        return proc

    def table_host(self, table: int, url: str) -> Proc:
        plain = ["--plain"] if url.startswith("mqtt://") else []     # mosquitto here has no TLS listener
        proc = self.spawn(f"host{table}", "event", "table", "--broker", url, *plain, "--join", self.codes[table],
                          "--emulators", "1", "--table", str(table), "--name", f"host{table}")
        proc.wait_line(rf"round \d+: tables {table} seated")
        return proc

    # ---- the boards, as the table hosts hold them
    def flash(self, table: int) -> Path:
        found = list((self.tmp / f"host{table}" / "state").glob(f"tallyboard/events/*/table-{table}"))
        assert len(found) == 1, found
        return found[0]

    def port(self, table: int) -> str:
        return str(running_on(self.flash(table))["port"])

    def board(self, table: int) -> dict:
        """What the table's board holds, read directly (beside its table host)."""
        link = portshare.open_link(self.port(table))
        try:
            board = Board(link, timeout=2.0)
            board.hello()
            current = board.rebuild_settled()   # its table host may seat a round while it is read
            return {"round": int(board.cfg_get("round")), "names": board.player_names(4),
                    "hands": current.game.hands(), "totals": [current.game.total(p) for p in range(4)]}
        finally:
            link.close()

    def board_round(self, table: int) -> int:
        link = portshare.open_link(self.port(table))
        try:
            board = Board(link, timeout=2.0)
            board.hello()
            return int(board.cfg_get("round"))
        finally:
            link.close()

    def hand(self, table: int) -> None:
        """Seat 0's player buys 1C and takes 7; seat 3 accepts it."""
        before = self.board(table)
        self.cli("hand", before["names"][0], "1C", "7", "--port", self.port(table))
        self.cli("press", "seat3", "--flash", str(self.flash(table)))
        until(lambda: self.board(table)["hands"] == before["hands"] + 1, 15,
              f"hand {before['hands'] + 1} accepted at table {table}")

    def outbox_pending(self, table: int) -> int:
        """Messages table `table`'s host has queued that the director has not confirmed."""
        found = list((self.tmp / f"host{table}" / "state").rglob(f"*-host{table}.sqlite3"))
        assert len(found) == 1, found
        with sqlite3.connect(found[0]) as db:
            return db.execute("SELECT count(*) FROM outbox").fetchone()[0]

    # ---- the director's store
    def wait_director(self, hands: list[int]) -> None:
        until(lambda: self.director_hands() == hands, WAIT, f"the director's tables at {hands} hands")


@pytest.fixture
def club(tmp_path, monkeypatch):
    with Club(tmp_path, monkeypatch) as evening:
        yield evening


def _refused_reasons(club: Club) -> set[str]:
    return {row[2] for row in json.loads(club.cli("event", "refused", "--json"))}


def test_an_evening_on_mosquitto_survives_a_broker_restart_a_killed_host_and_a_host_cut_off(club, tmp_path):
    with brokers.Mosquitto(0, club.users, tmp_path / "mosquitto", event=club.event_id) as broker:
        relay = Relay(broker.port)        # table 3's way to the broker, cut below
        try:
            director = club.director("--broker", club.director_url % broker.port)
            assert club.users["director"] not in "\n".join(director.lines)      # never printed
            # each table logs in as itself, with the login its join code carries
            hosts = {t: club.table_host(t, f"mqtt://127.0.0.1:{broker.port}") for t in (1, 2)}
            hosts[3] = club.table_host(3, f"mqtt://127.0.0.1:{relay.port}")
            doc = club.doc()
            assert [t["names"] for t in doc["tables"]] == [PLAYERS[0:4], PLAYERS[4:8], PLAYERS[8:12]]

            # table 1's first hand waits for an adversary of Ann (seat 0; hand 1 partners 0 + 2): Bob or
            # Dee; the director shows it waiting, with what it gives each seat (70, 60, 70, 60)
            club.cli("hand", "Ann", "1C", "7", "--port", club.port(1))
            until(lambda: club.doc()["tables"][0]["pending"], WAIT, "the held hand at the director")
            assert club.doc()["tables"][0]["pending"] == {"hand": 1, "waiting_for": ["Bob", "Dee"],
                                                          "scores": [70, 60, 70, 60], "buttons": ["B", "D"]}
            club.cli("press", "seat3", "--flash", str(club.flash(1)))
            for table in (2, 3):
                club.hand(table)
            club.wait_director([1, 1, 1])
            assert club.doc()["tables"][0]["pending"] is None

            # the broker goes away mid-round: the boards keep scoring, the hosts keep their outboxes
            broker.stop()
            for table in (1, 2, 3):
                club.hand(table)
            broker.start()
            club.wait_director([2, 2, 2])

            # table 2's host killed with SIGKILL; its board scores on; started again, it catches up
            hosts[2].kill9()
            for table in (1, 2, 3):
                club.hand(table)
            hosts[2].start()
            hosts[2].wait_line(r"round 1: tables 2 seated")
            club.wait_director([3, 3, 3])

            # table 3's host cut off the broker for a while
            relay.cut()
            for table in (1, 2, 3):
                club.hand(table)
            club.wait_director([4, 4, 3])
            # table 3's host has read its board's hand 4 and queued it: only the cut keeps it from the director
            until(lambda: club.outbox_pending(3) > 0, WAIT, "table 3's hand queued while cut off")
            assert club.director_hands() == [4, 4, 3]      # nothing of table 3 got through the cut
            relay.restore()
            club.wait_director([4, 4, 4])

            doc = club.same_as_boards()
            assert [t["totals"] for t in doc["tables"]] == [AFTER[4]] * 3
            # the standings: each player's seat total (280, 260, 260, 240), once
            continuous = {row["name"]: row["continuous"] for row in doc["standings"]}
            assert continuous == {name: AFTER[4][i % 4] for i, name in enumerate(PLAYERS)}

            # the next round: the director's `next`, published to the table hosts, seated on their boards
            club.cli("event", "next")
            until(lambda: all(club.board_round(t) == 2 for t in (1, 2, 3)), WAIT, "round 2 on every board",
                  explain=lambda: "\n".join(f"table {t}: board in round {club.board_round(t)}; its host said:\n  "
                                            + "\n  ".join(hosts[t].lines[-8:]) for t in (1, 2, 3)))
            doc = club.doc()
            for t in doc["tables"]:
                assert club.board(t["table"])["names"] == t["names"]
            for table in (1, 2, 3):
                club.hand(table)
            club.wait_director([1, 1, 1])
            doc = club.same_as_boards()
            assert [t["totals"] for t in doc["tables"]] == [AFTER[1]] * 3
            # continuous: round 1's seat total plus round 2's first hand (70 in seats 0 and 2, else 60)
            continuous = {row["name"]: row["continuous"] for row in doc["standings"]}
            seat2 = {name: seat for t in doc["tables"] for seat, name in enumerate(t["names"])}
            assert continuous == {name: AFTER[4][i % 4] + AFTER[1][seat2[name]] for i, name in enumerate(PLAYERS)}
            # what was refused was only the hosts catching up (resends), never a forgery or a stranger
            assert _refused_reasons(club) <= {"replay", "gap"}

            # a table host stopped cleanly says so; its table shows it, until it is back
            hosts[1].stop()
            until(lambda: club.doc()["tables"][0]["status"] == club_mod.HOST_OFFLINE, WAIT, "table 1 shown offline")
            hosts[1].start()
            hosts[1].wait_line(r"round 2: tables 1 seated")
            until(lambda: club.doc()["tables"][0]["status"] == "ok", WAIT, "table 1 shown back")

            # forged, foreign and wrong messages are refused, logged and change nothing (once table 1's
            # host, back just now, has said all it had to: a forgery numbered as its next would be a replay)
            settled(club)
            forge(club, f"mqtt://127.0.0.1:{broker.port}")
            until(lambda: {"signature", "apply"} <= _refused_reasons(club), WAIT, "the forgeries logged")
            assert club.same_as_boards()["standings"] == doc["standings"]
        finally:
            relay.cut()


def applied(club: Club) -> dict[str, int]:
    with EveningDatabase() as store:
        path = club_mod.director_file(store.event())
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT board, seq FROM applied").fetchall())


def settled(club: Club, quiet: float = 1.5) -> None:
    """Until no table host's message has been applied for `quiet` seconds."""
    last = [applied(club), time.monotonic()]

    def quiet_now() -> bool:
        now = applied(club)
        if now != last[0]:
            last[:] = [now, time.monotonic()]
        return time.monotonic() - last[1] >= quiet
    until(quiet_now, WAIT, "the table hosts quiet")


def forge(club: Club, url: str) -> None:
    """Three messages on table 1's topic, on table 1's own broker login (the
    only one the broker lets publish there): its next hand signed with
    another key; its next hand, rightly signed, whose game seats other
    players; its next hand signed with table 2's key (what table 2's host
    could sign, had it table 1's login)."""
    with EveningDatabase() as store:
        event = store.event()
        secret, event_id, tag = club_mod.director_secrets(event).secret, club_mod.club_id(event), event_tag(event)
        record = store.table_game(event, 2, 1)
    with sqlite3.connect(club_mod.director_file(event)) as db:
        seq = db.execute("SELECT seq FROM applied WHERE board = ?", (f"{tag:04X}.1",)).fetchone()[0] + 1
    body = {"table": 1, "round": 2, "host": "host1", "board_id": f"emulator@{tag:04X}.1", "status": "ok",
            "record": dict(record, players=["Zed", "Yan", "Xu", "Wim"]), "stamp": {}, "pending": None}
    one = f"{tag:04X}.1"
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="forger", protocol=mqtt.MQTTv311)
    address = parse_url(url)
    client.username_pw_set(*club_mod.table_login(envelope.read_join_code(club.codes[1]), 1))
    client.connect(address.host, address.port)
    client.loop_start()
    try:
        for board, key, message_body in ((one, b"k" * 32, body),
                                         (one, envelope.board_key(secret, one), body),
                                         (one, envelope.board_key(secret, f"{tag:04X}.2"), body)):
            payload = envelope.seal(key, event_id, board, seq, "hand", message_body)
            client.publish(envelope.table_topic(event_id, board, "hand"), payload, qos=1).wait_for_publish(5)
    finally:
        client.loop_stop()
        client.disconnect()


def test_an_evening_on_the_embedded_broker_survives_a_killed_host_a_host_cut_off_and_the_director_restarted(club):
    director = club.director("--broker-port", "0")       # the broker binds a free port and says which
    said = director.wait_line(r"  TALLYBOARD_JOIN=CODE tallyboard event table --broker mqtts://(\S+) --emulators N")
    table_url = f"mqtts://{said.group(1)}"         # no password: each table's login is in its join code; TLS: its pin
    port = int(director.wait_line(r"The embedded MQTT broker: mqtts://[^:]+:(\d+)").group(1))
    page = int(director.wait_line(r"The club evening's page: http://[^:]+:(\d+)").group(1))
    assert "tallyboard event join-code --table T" in "\n".join(director.lines)
    relay = Relay(port)
    try:
        hosts = {t: club.table_host(t, table_url) for t in (1, 2)}
        hosts[3] = club.table_host(3, table_url.replace(f":{port}", f":{relay.port}"))
        for table in (1, 2, 3):
            club.hand(table)
        club.wait_director([1, 1, 1])

        hosts[1].kill9()
        for table in (1, 2, 3):
            club.hand(table)
        hosts[1].start()
        club.wait_director([2, 2, 2])

        relay.cut()
        for table in (1, 2, 3):
            club.hand(table)
        club.wait_director([3, 3, 2])
        relay.restore()
        club.wait_director([3, 3, 3])

        # the director (and its broker, whose sessions live in memory) killed with SIGKILL and started
        # again at once on the same ports (the page's and the broker's)
        director.kill9()
        for table in (1, 2, 3):
            club.hand(table)
        director.args = ["event", "serve", "--port", str(page), "--broker-port", str(port)]
        director.start()
        director.wait_line(rf"The club evening's page: http://[^:]+:{page}", 120)     # guards against a hang
        director.wait_line(rf"The embedded MQTT broker: mqtts://[^:]+:{port}", 120)
        club.wait_director([4, 4, 4])

        doc = club.same_as_boards()
        assert [t["totals"] for t in doc["tables"]] == [AFTER[4]] * 3
        continuous = {row["name"]: row["continuous"] for row in doc["standings"]}
        assert continuous == {name: AFTER[4][i % 4] for i, name in enumerate(PLAYERS)}
        assert _refused_reasons(club) <= {"replay", "gap"}
    finally:
        relay.cut()


def test_a_table_host_with_a_mistyped_join_code_is_told_to_copy_it_again(club):
    out = CliRunner().invoke(main, ["event", "table", "--broker", "mqtt://t:p@127.0.0.1:1", "--join",
                                    club.code[:-1] + ("0" if club.code[-1] != "0" else "1"), "--emulators", "1"])
    assert out.exit_code != 0
    assert "copy it again from the director" in out.output


def test_a_table_host_with_a_wrong_password_is_told_so_and_starts_nothing(club, tmp_path):
    # the broker knows table 1's login with another password (an older evening's files, say)
    login = club_mod.table_login(envelope.read_join_code(club.code), 1)[0]
    with brokers.Mosquitto(0, dict(club.users, **{login: "wrong-one"}), tmp_path / "mosquitto",
                           event=club.event_id) as broker:
        out = CliRunner().invoke(main, ["event", "table", "--broker", f"mqtt://127.0.0.1:{broker.port}", "--plain",
                                        "--join", club.code, "--emulators", "1", "--state", str(tmp_path / "host")])
    assert out.exit_code != 0
    assert "check the user name and password; nothing was started" in out.output
    assert club.users[login] not in out.output           # the password is not shown
    assert not list(tmp_path.rglob("*.running.json"))   # no emulated board was started


def test_a_table_host_with_the_clubs_tls_code_and_a_plain_broker_is_refused_unless_told_plain(club, tmp_path):
    out = CliRunner().invoke(main, ["event", "table", "--broker", "mqtt://127.0.0.1:1", "--join", club.code,
                                    "--emulators", "1", "--state", str(tmp_path / "host")])
    assert out.exit_code == 1
    assert out.output == ("tallyboard: the join code is for the club's broker over TLS (mqtts://), and "
                          "mqtt://127.0.0.1:1 is plain MQTT, where the tables' passwords and hands cross the network "
                          "readable: give the broker as mqtts://HOST:PORT (a club's TLS port is usually 8883), or "
                          "--plain if this club's broker has no TLS\n")
    assert not list(tmp_path.rglob("*.running.json"))   # no emulated board was started


def test_a_table_host_given_a_broker_user_is_told_its_join_code_carries_the_login(club, tmp_path):
    out = CliRunner().invoke(main, ["event", "table", "--broker", "mqtt://table:pw@127.0.0.1:1",
                                    "--join", club.code, "--emulators", "1", "--state", str(tmp_path / "host")])
    assert out.exit_code != 0
    assert "each table logs in to the broker as itself, with the login its join code carries" in out.output
    assert "give the broker as mqtt://HOST:PORT, without a user or password" in out.output
    assert "pw" not in out.output.replace("mqtt://HOST:PORT", "")
    assert not list(tmp_path.rglob("*.running.json"))   # no emulated board was started


def test_a_director_started_before_the_broker_serves_the_page_and_links_up_when_the_broker_comes(club, tmp_path):
    for attempt in range(5):
        # the director must be given the port before the broker takes it: if another process takes it
        # in between, mosquitto says the port is in use, and both start again on another
        port = brokers.free_port()
        director = club.director("--broker", club.director_url % port)
        director.wait_line(r"the broker does not answer yet; the director keeps trying")
        broker = brokers.Mosquitto(port, club.users, tmp_path / f"mosquitto-{attempt}", event=club.event_id)
        try:
            broker.start()
            break
        except RuntimeError as error:
            if "in use" not in str(error):
                raise
            director.stop()
    else:
        raise AssertionError("5 ports in a row were taken before mosquitto could listen on them")
    with broker:
        club.table_host(1, f"mqtt://127.0.0.1:{port}")
        club.hand(1)
        until(lambda: club.director_hands()[0] == 1, WAIT, "table 1's hand at the director")
        assert club.doc()["tables"][0]["totals"] == club.board(1)["totals"] == AFTER[1]


@needs("mosquitto")
def test_broker_files_give_a_clubs_mosquitto_each_tables_login_over_tls(club, tmp_path):
    folder = tmp_path / "mosquitto-files"
    club.cli("event", "broker-files", str(folder))
    for name in ("tallyboard.passwd", "tallyboard.acl", "tallyboard.conf", "director.pw", "broker.key"):
        assert (folder / name).stat().st_mode & 0o777 == 0o600, name
    assert not (folder / "club-ca.key").exists()          # the club CA's key stays with the director
    conf = (folder / "tallyboard.conf").read_text()
    # the bounds on what one login may make mosquitto hold (issue 40): 20 in flight, 1000 or 8 MiB queued
    for line in ("max_inflight_messages 20", "max_inflight_bytes 262144", "max_queued_messages 1000",
                 "max_queued_bytes 8388608", "message_size_limit 65536", "allow_anonymous false"):
        assert f"\n{line}\n" in conf, line
    # a TLS listener on MQTT's TLS port with the broker's chain, each login's client id its name after it
    here = folder.resolve()
    assert (f"\nlistener 8883\n{brokers.CLIENT_ID_IS_LOGIN}\ncertfile {here}/broker.pem\n"
            f"keyfile {here}/broker.key\n") in conf
    with EveningDatabase() as store:
        tag = event_tag(store.event())
    lines = (folder / "tallyboard.passwd").read_text().splitlines()
    assert [line.split(":")[0] for line in lines] == ["director", "updater", f"{tag:04X}.1", f"{tag:04X}.2",
                                                      f"{tag:04X}.3"]     # (updater: event update-boards)
    assert (folder / "tallyboard.acl").read_text() == brokers.mosquitto_acl(club.event_id)

    # mosquitto itself reads them, its listener moved to a free loopback port: table 1 logs in over TLS,
    # trusting the broker by the pin in its join code, with what that code gives, not with table 2's name
    class FromTheFiles(brokers.Mosquitto):
        def write_config(self) -> None:      # the files as written, not the class's own users and ACL
            self.dir.mkdir(parents=True, exist_ok=True)
            self.config_path.write_text(
                conf.replace("/var/lib/mosquitto/", f"{self.dir}/")
                .replace("\nlistener 8883\n", f"\nlistener {self.port} 127.0.0.1\n")
                + f"log_dest file {self.log_path}\nlog_type error\nlog_type warning\nlog_type notice\n"
                + ("user root\n" if os.geteuid() == 0 else ""))

    files = brokers.TLSFiles(here / "broker.pem", here / "broker.key")
    broker = FromTheFiles(0, {}, tmp_path / "mosquitto", tls=files, event=club.event_id)   # port 0: a free one
    broker.start()
    port = broker.port
    try:
        code = envelope.read_join_code(club.codes[1])
        user, password = club_mod.table_login(code, 1)

        def answer(name: str, secret: str, pin: str | None = code.ca_pin) -> Any:
            client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"try-{name}", protocol=mqtt.MQTTv311)
            client.username_pw_set(name, secret)
            client.tls_set_context(certificates.pinned_context(pin))
            client.tls_insecure_set(True)
            codes: list[Any] = []
            client.on_connect = lambda c, u, f, reason, p: codes.append(reason)
            try:
                client.connect("127.0.0.1", port)
            except certificates.PinMismatch as exc:
                return exc
            client.loop_start()
            try:
                until(lambda: codes, 10, f"mosquitto's answer to {name}")
            finally:
                client.loop_stop()
                client.disconnect()
            return not codes[0].is_failure

        assert user == f"{tag:04X}.1" and answer(user, password) is True
        assert answer(f"{tag:04X}.2", password) is False          # table 1's password is not table 2's
        assert answer("director", (folder / "director.pw").read_text().strip()) is True
        # a join code of another club (another CA's pin): the broker is not trusted, nothing is sent
        assert "the broker is not this club's" in str(answer(user, password, pin="a" * 26))
    finally:
        broker.stop()
