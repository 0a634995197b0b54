"""A club evening over the wireless path (issue 24; docs/club-wifi.md; figures
in docs/benchmarks.md): boards on the club's Wi-Fi by themselves, no table
host, through a real mosquitto on loopback with the evening's per-table
logins, to a real director (`tallyboard event serve --broker`) and its page.

    python bench/bench_wifi_evening.py            # quick: a 10 s broker outage
    python bench/bench_wifi_evening.py --full     # a 60 s outage

Three emulated Pico W boards (the firmware in the unix-port emulator, its
network.WLAN stand-in joined, its sockets real), each enrolled with
`tallyboard wifi enrol`, seat themselves from the director's round. Prints:
- latency from a hand's confirmation on a board (entered with `tallyboard
  hand --port`, accepted on seat 3's button; the moment its journal has the
  hand, read over USB every few milliseconds) to the director's page
  showing it (its server-sent events): hands 1 and 2 at each table;
- catch-up: the broker stopped while every table scores hands 3 and 4, kept
  stopped for the outage, then started: the time from its start to the page
  showing every table's fourth hand.
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_club_evening import Page, environment, players  # noqa: E402

WIFI = ("Club Wifi", "club passphrase")
SEAT3_PIN = 13       # picow-reference: pico-reference's wiring
WAIT = 120.0


def cli(*args: str) -> str:
    from click.testing import CliRunner
    from tallyboard.cli import main
    result = CliRunner().invoke(main, list(args))
    if result.exit_code != 0:
        raise RuntimeError(f"tallyboard {' '.join(args[:2])}: {result.output}")
    return result.output


def secret(path: Path, text: str) -> str:
    path.write_text(text + "\n")
    path.chmod(0o600)
    return str(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="a 60 s outage")
    args = parser.parse_args()
    outage = 60.0 if args.full else 10.0

    from tallyboard.boardlink.client import Board
    from tallyboard.club import brokers
    from tallyboard.tooling.emulator import Emulator
    from tallyboard.evening import EveningDatabase
    from tallyboard.evening import club as club_mod
    from tallyboard.boardlink.transport import SerialTransport

    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        env = environment(tmp, "evening", tmp / "evening" / "archive.sqlite3")
        os.environ.update({k: env[k] for k in ("TALLYBOARD_ARCHIVE", "XDG_STATE_HOME", "XDG_CACHE_HOME",
                                                "TALLYBOARD_EMULATOR_HOME")})
        cli("event", "create", "Bench night", *[a for p in players(3) for a in ("--player", p)])
        with EveningDatabase() as store:
            event = store.event()
            users = club_mod.broker_users(store, event)
        codes = {t: cli("event", "join-code", "--table", str(t)).strip() for t in (1, 2, 3)}
        boards: dict[int, Emulator] = {}
        director = None
        with brokers.Mosquitto(brokers.free_port(), users, tmp / "mosquitto", event=club_mod.club_id(event)) as broker:
            try:
                director = subprocess.Popen(
                    [sys.executable, "-m", "tallyboard.cli", "event", "serve", "--port", "0", "--broker",
                     f"mqtt://director@127.0.0.1:{broker.port}"], env={**env, "TALLYBOARD_BROKER_PASSWORD":
                                                                      users["director"]},
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                page_url = re.search(r"(http://\S+/)", director.stdout.readline()).group(1)
                for table in (1, 2, 3):
                    emulator = Emulator(flash=tmp / f"wifi-{table}" / "flash")
                    emulator.start()
                    boards[table] = emulator
                    cli("config", "set", "board", "picow-reference", "-p", emulator.port)
                    emulator.cut_power()
                    emulator.power_on()
                    (emulator.io_dir / "wifi.txt").write_text(f"{WIFI[0]}\n{WIFI[1]}\n")
                    cli("wifi", "enrol", "-p", emulator.port, "--ssid", WIFI[0],
                        "--wifi-password-file", secret(tmp / "wifi.pw", WIFI[1]),
                        "--broker", f"mqtt://127.0.0.1:{broker.port}",
                        "--join-file", secret(tmp / f"t{table}.join", codes[table]))
                page = Page(page_url)

                def open_board(table: int) -> Board:
                    board = Board(SerialTransport(boards[table].port), timeout=2.0)
                    board.hello()
                    return board

                for table in (1, 2, 3):       # each seats itself from the director's round
                    board = open_board(table)
                    try:
                        deadline = time.monotonic() + WAIT
                        while board.cfg_get("round") != "1":
                            if time.monotonic() > deadline:
                                raise RuntimeError(f"table {table} never seated itself")
                            time.sleep(0.1)
                    finally:
                        board.link.close()

                def score(table: int) -> float:
                    """A hand held at the table, accepted on seat 3's button; when the journal had it."""
                    board = open_board(table)
                    try:
                        board.game_verb("HAND", 0, "1C", "-", "-", 0, 7)
                        before = int(board.state()["n"])
                        press = threading.Thread(target=boards[table].tap, args=(SEAT3_PIN,))
                        press.start()
                        deadline = time.monotonic() + 30
                        while int(board.state()["n"]) == before:
                            if time.monotonic() > deadline:
                                raise RuntimeError(f"table {table}: the hand was never accepted")
                        confirmed = time.monotonic()
                        press.join(30)
                    finally:
                        board.link.close()
                    return confirmed

                latencies = []
                for hand in (1, 2):
                    for table in (1, 2, 3):
                        confirmed = score(table)
                        latencies.append((page.wait(table, hand) - confirmed) * 1000)
                print(f"a hand confirmed on a board on Wi-Fi to the director's page: median "
                      f"{statistics.median(latencies):.0f} ms, worst {max(latencies):.0f} ms ({len(latencies)} hands)",
                      flush=True)
                broker.stop()
                stopped = time.monotonic()
                for hand in (3, 4):
                    for table in (1, 2, 3):
                        score(table)
                time.sleep(max(0.0, outage - (time.monotonic() - stopped)))
                broker.start()
                restarted = time.monotonic()
                last = max(page.wait(table, 4) for table in (1, 2, 3))
                print(f"broker stopped {outage:g} s while the three boards scored 6 hands: all on the page "
                      f"{last - restarted:.2f} s after the broker's start")
            finally:
                if director is not None:
                    director.send_signal(signal.SIGTERM)
                    try:
                        director.wait(15)
                    except subprocess.TimeoutExpired:
                        director.kill()
                for emulator in boards.values():
                    emulator.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
