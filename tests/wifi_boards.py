"""Helpers for the tests that run a board on the club's Wi-Fi in the emulator
(docs/club-mqtt.md, "A board on the club's Wi-Fi"): a flash folder with a
definition that has Wi-Fi, its enrolment over USB (NET SET, as `tallyboard`
enrols a board), and the access point the emulator's network.WLAN stand-in
finds (firmware/emu/network.py: wifi.txt in the emulator's I/O folder)."""
from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Iterator

from tallyboard.boardlink.client import Board
from tallyboard.tooling.emulator import Emulator
from tallyboard.boardlink.transport import SerialTransport
from tallynet import settings

BOARD_DEFINITIONS = Path(__file__).resolve().parents[1] / "board"
DEFINITION = "test-wifi"     # pico-reference with "wifi": true, in the flash folder only
SSID = "Club Wifi"
# The unix port's heap for these tests: the emulator's 384K (the Pico's ~190 KB at
# 32-bit words) leaves the network layer too little room once a game is in play
# (bench/bench_wifi_board.py measures it; docs/benchmarks.md), and these tests
# are about the protocol, not the heap.
HEAP_SIZE = "512K"
PICO_HEAP = "384K"           # the emulator's default: the Pico's heap, for the tests about the heap itself
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


@contextlib.contextmanager
def wifi_board(flash: Path, timeout: float = 3.0, heap_size: str = HEAP_SIZE, romfs: int = 0,
               files: list | None = None) -> Iterator[tuple[Emulator, Board]]:
    """An emulator on a wifi_flash() folder with heap_size (HEAP_SIZE unless told), and a connected
    client (HELLO done); romfs: a Pico W on tallyboard's own image, with a ROMFS partition of that size."""
    with Emulator(flash=flash, heap_size=heap_size, romfs=romfs, files=files) as emulator:
        link = SerialTransport(emulator.port)
        board = Board(link, timeout=timeout)
        try:
            board.connect()
            yield emulator, board
        finally:
            link.close()


def ident(tag: int, table: int) -> str:
    return f"{tag:04X}.{table}"


def enrol(board: Board, *, event: str, key: bytes, port: int, host: str = "127.0.0.1",
          update_key: bytes | None = None) -> None:
    """NET SET every setting, each value %XX-escaped as the protocol takes it; the broker
    login left to the board (its table's: its identity, the password from its key); the
    club's update key's public half when given (an update over the air: issue 43)."""
    values = [("ssid", SSID.encode()), ("wifi_password", PASSPHRASE.encode()), ("broker_host", host.encode()),
              ("broker_port", str(port).encode()), ("event", event.encode()),
              ("key", key.hex().encode())]
    if update_key is not None:
        values.append(("update_key", update_key.hex().encode()))
    for name, value in values:
        board.request("NET", "SET", name, settings.escape(value).decode())


def access_point(emulator: Emulator, up: bool = True) -> None:
    """The club's access point in the emulated board's reach, or gone."""
    path = emulator.io_dir / "wifi.txt"
    if up:
        path.write_text(f"{SSID}\n{PASSPHRASE}\n")
    else:
        path.unlink(missing_ok=True)
