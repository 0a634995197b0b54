"""Enrolment over USB, once (issue 24.4, docs/club-wifi.md), on the real
firmware in the emulator: its network.WLAN stand-in joins the access point
the test puts in reach (wifi.txt in its io folder), its sockets are real,
and mosquitto runs on loopback with the club's users and ACLs. `tallyboard
wifi enrol` gives the board its Wi-Fi, broker, evening, table and keys;
`status` shows its link; `leave` and enrolling again; a board without
Wi-Fi, a board not enrolled, a mistyped code and a wrong passphrase are
each said, and change nothing. Secrets come from files; none is printed."""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from click.testing import CliRunner

from emu_fixtures import until
from machine import needs
from tallyboard.cli import main
from tallyboard.club import brokers, envelope
from tallyboard.club.mqtt_link import ConnectionRefused
from tallyboard.tooling.emulator import Emulator
from tallyboard.evening import EveningDatabase
from tallyboard.evening import club as club_mod

pytestmark = [needs("mosquitto"), pytest.mark.emulator, pytest.mark.broker, pytest.mark.process]

PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
WIFI = ("Club Wifi", "correct horse")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result.exit_code, result.output


def secret_file(path: Path, text: str) -> str:
    path.write_text(text + "\n")
    path.chmod(0o600)
    return str(path)


@pytest.fixture
def evening(tmp_path, monkeypatch):
    for key, where in (("TALLYBOARD_ARCHIVE", "archive.sqlite3"), ("XDG_STATE_HOME", "state"),
                       ("XDG_CACHE_HOME", "cache"), ("TALLYBOARD_EMULATOR_HOME", "emu")):
        monkeypatch.setenv(key, str(tmp_path / where))
    for key in ("TALLYBOARD_BROKER", "TALLYBOARD_JOIN", "TALLYBOARD_BROKER_PASSWORD", "TALLYBOARD_WIFI_PASSWORD"):
        monkeypatch.delenv(key, raising=False)
    code, out = run("event", "create", "Club night", *[a for p in PLAYERS for a in ("--player", p)], "--rounds", "2")
    assert code == 0, out
    with EveningDatabase() as store:
        event = store.event()
        ident = club_mod.club_id(event)
        secret = club_mod.director_secrets(event).secret
        users = club_mod.broker_users(store, event)      # the director's and each table's login
    return tmp_path, ident, secret, users


def net(emulator: Emulator) -> dict:
    code, out = run("wifi", "status", "--json", "-p", emulator.port)
    assert code == 0, out
    return json.loads(out)


def test_a_pico_w_is_enrolled_once_over_usb_shows_its_link_leaves_and_comes_back(evening):
    tmp, event_id, secret, users = evening
    board = f"{event_id.rsplit('-', 1)[1].upper()}.2"
    _, join = run("event", "join-code", "--table", "2")
    files = {"join": secret_file(tmp / "join-2.txt", join.strip()),
             "other": secret_file(tmp / "join-1.txt", run("event", "join-code", "--table", "1")[1].strip()),
             "wifi": secret_file(tmp / "wifi.pw", WIFI[1]), "wrong": secret_file(tmp / "wrong.pw", "not the one"),
             "mistyped": secret_file(tmp / "mistyped.txt", join.strip()[:-2] + ("00" if join.strip()[-2:] != "00"
                                                                                 else "11"))}
    with brokers.Mosquitto(0, users, tmp / "mosquitto", event=event_id) as broker, \
            Emulator(flash=tmp / "flash") as emulator:
        url = f"mqtt://127.0.0.1:{broker.port}"       # no user: the board logs in as its table

        def enrol(*extra: str, password: str = files["wifi"], join_file: str = files["join"]) -> tuple[int, str]:
            return run("wifi", "enrol", "-p", emulator.port, "--ssid", WIFI[0], "--wifi-password-file", password,
                       "--broker", url, "--join-file", join_file, "--wait", "20", *extra)

        # the emulator's own definition is a plain Pico's: it has no Wi-Fi, and says so
        code, out = enrol()
        assert code != 0 and "has no Wi-Fi: a Pico W or Pico 2 W with a definition that says \"wifi\": true" in out, out
        assert net(emulator)["wifi"] is False
        # a Pico W (its definition) boots with the club link's settings
        assert run("config", "set", "board", "picow-reference", "-p", emulator.port)[0] == 0
        emulator.cut_power()
        emulator.power_on()
        state = until(lambda: net(emulator)["wifi"] and net(emulator), 60, "the W's NET")
        assert (state["enrolled"], state["error"]) == (False, "not_enrolled")
        code, out = run("wifi", "leave", "-p", emulator.port)
        assert code != 0 and "is not enrolled in an evening: nothing to leave" in out, out
        # a mistyped code is said before anything is sent
        code, out = enrol(join_file=files["mistyped"])
        assert code != 0 and "the join code is mistyped (its check does not match); copy it again" in out, out
        assert net(emulator)["enrolled"] is False

        (emulator.io_dir / "wifi.txt").write_text(f"{WIFI[0]}\n{WIFI[1]}\n")     # the access point in reach
        code, out = enrol()
        assert code == 0, out
        assert f"enrolled: board {board}, table 2 of {event_id}, on Wi-Fi 'Club Wifi', broker 127.0.0.1:" in out
        assert "reached the broker" in out and "the board is on the evening's link" in out, out
        for never in (WIFI[1], users[board], envelope.board_key(secret, board).hex()):
            assert never not in out
        state = net(emulator)
        assert state["settings"]["key"] == state["settings"]["wifi_password"] == "set"      # never read back
        assert (state["enrolled"], state["joined"], state["broker"], state["settings"]["board"]) == (
            True, True, True, board)
        assert run("config", "get", "table", "-p", emulator.port)[1].strip() == "2"
        # the director hears it: its status, signed with table 2's key, on its own client id
        heard: dict[str, bytes] = {}
        got = threading.Event()

        def on_message(client, userdata, message):
            heard[message.topic] = message.payload
            got.set()

        listener = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{event_id}-director")
        listener.username_pw_set("director", users["director"])
        listener.on_message = on_message
        listener.connect("127.0.0.1", broker.port)
        listener.subscribe(f"tallyboard/{event_id}/host/+/status", qos=1)
        listener.loop_start()
        try:
            assert got.wait(20), "no status from the board"
            topic = f"tallyboard/{event_id}/host/{board}/status"      # named after its login: its identity
            status = envelope.open_message(heard[topic], lambda m: club_mod.key_for(secret, m),
                                           {board: 0}, event=event_id, topic=topic)
            assert status["body"] == {"online": True, "boards": [board]}
        finally:
            listener.loop_stop()
            listener.disconnect()

        # status in words: no director runs here, so the board's first message (its state) waits for it
        until(lambda: net(emulator)["waiting"] == 1, 60, "the board's first message, numbered")
        code, out = run("wifi", "status", "-p", emulator.port)
        assert code == 0 and out.splitlines()[:4] == [
            f"evening: {event_id}, board {board}", "Wi-Fi 'Club Wifi': joined",
            f"broker 127.0.0.1:{broker.port} as {board}: reached", "messages waiting for the director: 1"], out

        # leave: the link's settings and keys forgotten
        code, out = run("wifi", "leave", "-p", emulator.port)
        assert code == 0 and f"left evening {event_id}" in out, out
        state = net(emulator)
        assert (state["enrolled"], state["settings"]["key"], state["settings"]["ssid"]) == (False, None, None)
        assert state["waiting"] == 0            # its messages were numbered for the evening it left
        # enrolled again with a wrong passphrase: said, and it keeps trying
        code, out = enrol(password=files["wrong"])
        # enrolled, not linked: said, with its own exit status (issue 32, item 6: it was 0)
        assert code == 3 and "the Wi-Fi refused the passphrase" in out, out
        assert "the board is enrolled but has not reached the broker in 20 s" in out, out
        assert net(emulator)["joined"] is False
        # the right one, at table 1 now (another code): the board's table follows
        code, out = enrol(join_file=files["other"])
        assert code == 0 and "reached the broker" in out, out
        assert net(emulator)["settings"]["board"] == board[:-1] + "1"
