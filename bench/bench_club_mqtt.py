"""The club transport through a real mosquitto (docs/club-mqtt.md, figures in docs/benchmarks.md).

    python bench/bench_club_mqtt.py           # quick: a 10 s broker outage
    python bench/bench_club_mqtt.py --full    # a 60 s outage, more messages

Table hosts are separate processes (tests/club_publisher.py), each with its
own outbox and one board; the director is this process (DirectorLink, its
store in SQLite). Prints:
- messages per second applied by the director with 3 and with 12 table
  hosts sending as fast as their outboxes go (each message applied once:
  checked);
- latency from a message queued in a table host's outbox to its
  application by the director (median, p95), with 3 table hosts at 20
  hands a second each;
- catch-up: the broker stopped for the outage while 3 table hosts keep
  queueing; the time from the broker's start to every queued message applied.
"""
from __future__ import annotations

import argparse
import logging
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tallyboard.club import brokers, director_link, envelope, mqtt_link

ROOT = Path(__file__).resolve().parent.parent
PUBLISHER = ROOT / "tests" / "club_publisher.py"
WAIT = 600.0


class Run:
    def __init__(self, tmp: Path, broker: brokers.Mosquitto, users: dict[str, str], name: str, boards: list[str]):
        self.tmp = tmp / name
        self.tmp.mkdir()
        self.broker = broker
        self.users = users
        self.key = envelope.new_secret()
        self.event = f"bench-{name}"        # one evening per run: no retained message of another
        self.latencies: list[float] = []
        self.applied_at: list[float] = []
        self.seen: dict[str, list[int]] = {board: [] for board in boards}
        self.lock = threading.Lock()
        self.director = director_link.DirectorLink(self.url("director"), f"director-{name}", event=self.event, key=self.key,
                                          store_path=self.tmp / "director.sqlite3", boards=boards,
                                          on_table_message=self.apply, max_backoff=1.0)
        self.processes: list[subprocess.Popen[bytes]] = []

    def url(self, user: str) -> str:
        return f"mqtt://{user}:{self.users[user]}@127.0.0.1:{self.broker.port}"

    def apply(self, connection: sqlite3.Connection, message: dict) -> None:
        now = time.time_ns()
        connection.execute("CREATE TABLE IF NOT EXISTS hands (board TEXT, n INTEGER)")
        connection.execute("INSERT INTO hands VALUES (?, ?)", (message["board"], message["body"]["n"]))
        with self.lock:
            self.latencies.append((now - message["body"]["sent_ns"]) / 1e6)
            self.applied_at.append(time.monotonic())
            self.seen[message["board"]].append(message["body"]["n"])

    def start_tables(self, count: int, every: float) -> None:
        for index, board in enumerate(self.seen):
            user = board          # each table logs in as its board (brokers.ACL)
            command = [sys.executable, str(PUBLISHER), "--url", self.url(user), "--client-id", f"{self.event}-{user}",
                       "--outbox", str(self.tmp / f"{board}.sqlite3"), "--event", self.event, "--key", self.key.hex(),
                       "--board", board, "--count", str(count), "--every", str(every), "--timeout", str(WAIT)]
            self.processes.append(subprocess.Popen(command, stdout=subprocess.DEVNULL))

    def total(self) -> int:
        with self.lock:
            return sum(len(ns) for ns in self.seen.values())

    def wait_total(self, total: int) -> None:
        deadline = time.monotonic() + WAIT
        while self.total() < total:
            if time.monotonic() > deadline:
                raise SystemExit(f"gave up: {self.total()} of {total} applied")
            time.sleep(0.01)

    def check_once_in_order(self, count: int) -> None:
        for board, ns in self.seen.items():
            assert ns == list(range(1, count + 1)), f"{board}: {len(ns)} applied, not 1..{count} once each"

    def queued(self, board: str) -> int:
        with sqlite3.connect(self.tmp / f"{board}.sqlite3") as reader:
            row = reader.execute("SELECT last FROM numbered WHERE board = ?", (board,)).fetchone()
        return row[0] if row else 0

    def close(self) -> None:
        for process in self.processes:
            try:
                process.wait(WAIT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.director.stop()


def throughput(tmp: Path, broker: brokers.Mosquitto, users: dict[str, str], tables: int, count: int) -> float:
    run = Run(tmp, broker, users, f"rate{tables}", [f"b{n}" for n in range(tables)])
    run.director.start()
    run.director.wait_connected(10)
    try:
        run.start_tables(count, 0.0)
        run.wait_total(tables * count)
        run.check_once_in_order(count)
        return (tables * count - 1) / (run.applied_at[-1] - run.applied_at[0])
    finally:
        run.close()


def latency(tmp: Path, broker: brokers.Mosquitto, users: dict[str, str], count: int) -> tuple[float, float]:
    run = Run(tmp, broker, users, "latency", ["b0", "b1", "b2"])
    run.director.start()
    run.director.wait_connected(10)
    try:
        run.start_tables(count, 0.05)
        run.wait_total(3 * count)
        run.check_once_in_order(count)
        ordered = sorted(run.latencies)
        return statistics.median(ordered), ordered[int(len(ordered) * 0.95)]
    finally:
        run.close()


def catch_up(tmp: Path, broker: brokers.Mosquitto, users: dict[str, str], outage: float) -> tuple[float, int]:
    boards = ["b0", "b1", "b2"]
    count = int((outage + 8) / 0.05)           # 20 hands a second each, through the outage and after it
    run = Run(tmp, broker, users, "outage", boards)
    run.director.start()
    run.director.wait_connected(10)
    try:
        run.start_tables(count, 0.05)
        run.wait_total(60)
        broker.stop()
        time.sleep(outage)
        backlog = {board: run.queued(board) for board in boards}
        started = time.monotonic()
        broker.start()
        deadline = started + WAIT
        while any(len(run.seen[board]) < backlog[board] for board in boards):
            if time.monotonic() > deadline:
                raise SystemExit("gave up waiting for the catch-up")
            time.sleep(0.01)
        elapsed = time.monotonic() - started
        run.wait_total(3 * count)
        run.check_once_in_order(count)
        return elapsed, sum(backlog.values()) - 60
    finally:
        run.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="a 60 s outage and more messages (the issue's figures)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)   # the resends after the outage are refused as replays, by design
    outage = 60.0 if args.full else 10.0
    per_table = 1000 if args.full else 300
    users = {"director": "bench-director"} | {f"b{n}": f"bench-table-{n}" for n in range(12)}   # a login per board
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{subprocess.run([brokers.MOSQUITTO, '-h'], capture_output=True, text=True).stdout.splitlines()[0]}")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        with brokers.Mosquitto(brokers.free_port(), users, tmp / "mosquitto", event=brokers.ANY_EVENT) as broker:
            for tables in (3, 12):
                rate = throughput(tmp, broker, users, tables, per_table if tables == 3 else per_table // 4)
                print(f"{tables:2d} table hosts: {rate:7.0f} messages/s applied by the director, each once")
            median, p95 = latency(tmp, broker, users, 200)
            print(f"latency queued -> applied, 3 table hosts at 20/s each: median {median:.1f} ms, p95 {p95:.1f} ms")
            elapsed, backlog = catch_up(tmp, broker, users, outage)
            print(f"broker out for {outage:.0f} s: {backlog} messages queued meanwhile, all applied "
                  f"{elapsed:.2f} s after the broker came back")


if __name__ == "__main__":
    main()
