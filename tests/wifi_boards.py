"""Helpers for the tests that run a board on the club's Wi-Fi in the emulator
(docs/club-mqtt.md, "A board on the club's Wi-Fi"): a flash folder with a
definition that has Wi-Fi, its enrolment over USB (NET SET, as `tallyboard`
enrols a board), and the access point the emulator's network.WLAN stand-in
finds (firmware/emu/network.py: wifi.txt in the emulator's I/O folder)."""
from __future__ import annotations

import json
from pathlib import Path

from tallyboard.client import Board
from tallyboard.emulator import Emulator
from tallynet import settings

BOARD_DEFINITIONS = Path(__file__).resolve().parents[1] / "board"
DEFINITION = "test-wifi"     # pico-reference with "wifi": true, in the flash folder only
SSID = "Club Wifi"
PASSPHRASE = "club-passphrase"


def wifi_flash(flash: Path, tag: int, table: int) -> Path:
    """A flash folder whose board runs a definition with Wi-Fi, as table `table`
    of the evening of `tag` (its CFG event and table: its identity)."""
    (flash / "board").mkdir(parents=True, exist_ok=True)
    definition = json.loads((BOARD_DEFINITIONS / "pico-reference.json").read_text())
    definition["name"] = DEFINITION
    definition["wifi"] = True
    (flash / "board" / f"{DEFINITION}.json").write_text(json.dumps(definition))
    (flash / "config.txt").write_text(f"board {DEFINITION}\nevent {tag}\ntable {table}\n")
    return flash


def ident(tag: int, table: int) -> str:
    return f"{tag:04X}.{table}"


def enrol(board: Board, *, event: str, key: bytes, director_key: bytes, port: int, user: str,
          password: str, host: str = "127.0.0.1") -> None:
    """NET SET every setting, each value %XX-escaped as the protocol takes it."""
    values = [("ssid", SSID.encode()), ("wifi_password", PASSPHRASE.encode()), ("broker_host", host.encode()),
              ("broker_port", str(port).encode()), ("broker_user", user.encode()),
              ("broker_password", password.encode()), ("event", event.encode()),
              ("key", key.hex().encode()), ("director_key", director_key.hex().encode())]
    for name, value in values:
        board.request("NET", "SET", name, settings.escape(value).decode())


def access_point(emulator: Emulator, up: bool = True) -> None:
    """The club's access point in the emulated board's reach, or gone."""
    path = emulator.io_dir / "wifi.txt"
    if up:
        path.write_text(f"{SSID}\n{PASSPHRASE}\n")
    else:
        path.unlink(missing_ok=True)
