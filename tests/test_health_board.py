"""A board's health (issue 43; docs/club-mqtt.md, "Each board's health"), end to end:
the real firmware in the emulator, enrolled over USB on the club's Wi-Fi (the
network.WLAN stand-in, its signal set through rssi.txt), its definition wiring
VSYS to GPIO 28 (the ADC stand-in's reading set through adc.txt), linked to
mosquitto on loopback with the club's users and ACLs. The board publishes its
health, which the broker retains: read back by a login of the test's own, its
signature checked with the board's key, its fields sane. Powered off and on
again, after a watchdog reset: the count is 2 and the cause watchdog."""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

import wifi_boards as wb
from broker_spy import SPY_PASSWORD, SPY_USER, WatchedMosquitto
from emu_fixtures import until
from machine import needs
from tallyboard.club import envelope
from tallynet import health

pytestmark = [needs("mosquitto"), pytest.mark.emulator, pytest.mark.broker]

TAG, TABLE = 0x1A2B, 2
EVENT = "Club-night-1a2b"
IDENT = wb.ident(TAG, TABLE)
TOPIC = f"tallyboard/{EVENT}/table/{IDENT}/health"


def retained(port: int) -> dict[str, Any] | None:
    """The health the broker retains for the board, read by a fresh login (None: none yet)."""
    got: list[bytes] = []
    arrived = threading.Event()
    spy = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{EVENT}-health-spy")
    spy.username_pw_set(SPY_USER, SPY_PASSWORD)

    def on_message(client: Any, userdata: Any, message: Any) -> None:
        got.append(bytes(message.payload))
        arrived.set()

    spy.on_message = on_message
    spy.on_connect = lambda client, userdata, flags, code, properties: client.subscribe(TOPIC, 1)
    spy.connect("127.0.0.1", port)
    spy.loop_start()
    try:
        arrived.wait(2)
    finally:
        spy.loop_stop()
        spy.disconnect()
    return {"payload": got[-1]} if got else None


def opened(port: int, key: bytes) -> dict[str, Any] | None:
    found = retained(port)
    if found is None:
        return None
    return envelope.open_message(found["payload"], key, {IDENT: 0}, event=EVENT)


def test_an_enrolled_board_publishes_its_health_and_the_broker_keeps_it(tmp_path: Path):
    secret = envelope.new_secret()
    key = envelope.board_key(secret, IDENT)
    users = {IDENT: envelope.broker_password(key)}
    flash = wb.wifi_flash(tmp_path / "flash", TAG, TABLE)
    definition = flash / "board" / f"{wb.DEFINITION}.json"
    wired = json.loads(definition.read_text())
    wired["power"]["vsys_adc"] = 28                 # (pico-reference leaves GPIO 26 to 28 free)
    definition.write_text(json.dumps(wired))
    with WatchedMosquitto(0, users, tmp_path / "broker", event=EVENT) as broker:
        with wb.wifi_board(flash) as (emulator, board):
            (emulator.io_dir / "rssi.txt").write_text("-67\n")
            (emulator.io_dir / "adc.txt").write_text("28 30000\n")
            wb.access_point(emulator)
            wb.enrol(board, event=EVENT, key=key, port=broker.port)
            until(lambda: board.request("NET")["broker"] == "1", 60, "the board's link to the broker")
            message = until(lambda: opened(broker.port, key), 60, "the board's health, retained")
            assert (message["board"], message["kind"], message["seq"]) == (IDENT, "health", 0)
            body = message["body"]
            assert sorted(body) == sorted(row[0] for row in health.FIELDS)
            release = (flash / "release").read_text()
            assert len(release) == 12 and int(release, 16) >= 0
            assert (body["fw"], body["release"], body["resets"], body["cause"]) == ("0.1.0", release, 1, "power")
            assert (body["rssi"], body["reconnects"]) == (-67, 0)
            assert body["vsys_mv"] == 4531              # 30000 * 3 * 3300 // 65535 = 297,000,000 // 65535
            assert 0 <= body["up_s"] < 600
            assert 0 < body["block"] <= body["free"] < 1024 * 1024
            assert body["erases"] >= 0 and body["records"] >= 0
            # a watchdog reset: the board powers up again and counts it
            (emulator.io_dir / "reset_cause.txt").write_text("3\n")      # machine.WDT_RESET
            emulator.cut_power()
            emulator.power_on()
            board.connect()
            again = until(lambda: (m := opened(broker.port, key)) and m["body"]["resets"] == 2 and m,
                          60, "the health after the restart")
            assert again["body"]["cause"] == "watchdog"
            assert again["body"]["up_s"] <= body["up_s"] + 600
