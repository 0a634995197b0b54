"""The club evening across hosts over MQTT, through a real mosquitto
(docs/club-mqtt.md, "The evening over MQTT"; figures in docs/benchmarks.md).

    python bench/bench_club_evening.py           # quick: a 10 s broker outage
    python bench/bench_club_evening.py --full    # a 60 s outage, more messages

Prints:
- hands per second applied into the evening's store by the director
  (club.Director: the record checked against the round's seating and the
  game length, then stored), with 3 and with 12 table hosts sending as fast
  as their outboxes go. These table hosts are stand-ins (this script run
  with --stand-in, one process each, each with its outbox and TableLink):
  twelve emulated boards with their hosts are too heavy for one small
  machine. Each message is a table's whole state, as `event table` sends it;
  every board's messages are checked applied exactly once;
- latency from a hand's confirmation on a board (`tallyboard press` on an
  emulated board; the moment its journal has the hand, read beside the
  table host every few milliseconds) to the director's page showing it
  (its server-sent events): a real director (`event serve --broker`) and a real table host
  (`event table --emulators 3`), each its own process;
- catch-up: the same evening with the broker stopped for the outage while
  every table scores its remaining hands; the time from the broker's start
  to the director's page showing every one of them.
"""
from __future__ import annotations

import argparse
import http.client
import json
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
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
WAIT = 300.0
USERS = {"director": "bench-director"}    # and each evening's tables, as themselves (logins())
HAND = {"purchaser": 0, "bid": "1C", "tricks": 7}     # seat 0 buys 1C and takes 7: made (rules.md SK7)


# ---------------------------------------------------------------- a stand-in table host

def logins(store, event, broker) -> dict[str, str]:
    """The evening's table logins (each table as itself), added to the broker's users; {user: password}."""
    from tallyboard.evening import club
    tables = {user: password for user, password in club.broker_users(store, event).items() if user != "director"}
    broker.set_users(dict(broker.users) | tables)
    return tables


def stand_in(args: argparse.Namespace) -> int:
    """Queue --count table states for one table (its game of 1, 2, 3, 4, 1, 2, ... hands) and wait for the director."""
    from tallyboard.club import envelope, mqtt_link, outbox
    from tallyboard.evening import club, standings

    names = json.loads(args.names)
    secret = bytes.fromhex(args.key)
    board = club.board_ident(args.tag, args.table)
    # signed with its board's key, as a table host given that table's join code signs (a stand-in of the
    # director's secret, it derives the key as the director does)
    box = outbox.Outbox(args.outbox, args.event, None, {board: envelope.board_key(secret, board)})
    table = mqtt_link.TableLink(args.url, f"{args.event}-{board}", outbox=box, boards=[board], max_backoff=1.0)
    table.start()
    for n in range(box.numbered(board) + 1, args.count + 1):
        hands = [HAND] * ((n - 1) % args.length + 1)
        body = {"table": args.table, "round": 1, "host": f"stand-in-{args.table}",
                "board_id": f"stand-in@{args.tag:04X}.{args.table}", "status": "ok",
                "record": standings.club_record(names, hands, args.length),
                "stamp": {"n": str(len(hands)), "sent_ns": str(time.time_ns())}, "pending": None}
        box.add(board, "hand", body)
    deadline = time.monotonic() + WAIT
    while box.pending() and time.monotonic() < deadline:
        time.sleep(0.05)
    table.stop()
    return 0 if not box.pending() else 1


# ---------------------------------------------------------------- the parts

def cli(env: dict[str, str], *args: str, check: bool = True) -> str:
    done = subprocess.run([sys.executable, "-m", "tallyboard.cli", *args], env=env, capture_output=True,
                          text=True, timeout=120)
    if check and done.returncode:
        raise RuntimeError(f"tallyboard {' '.join(args)}: {done.stdout}{done.stderr}")
    return done.stdout


def environment(tmp: Path, who: str, archive: Path) -> dict[str, str]:
    home = tmp / who
    home.mkdir(parents=True, exist_ok=True)
    return dict(os.environ, TALLYBOARD_ARCHIVE=str(archive), XDG_STATE_HOME=str(home / "state"),
                XDG_CACHE_HOME=str(home / "cache"), TALLYBOARD_EMULATOR_HOME=str(home / "emu"),
                PYTHONUNBUFFERED="1")


def players(tables: int) -> list[str]:
    return [f"P{n:02d}" for n in range(1, 4 * tables + 1)]


def throughput(tmp: Path, broker, tables: int, count: int) -> float:
    """Hands a second applied into the store by the director from `tables` stand-in table hosts."""
    from tallyboard.evening import EveningDatabase, club, standings
    from tallyboard.evening.tables import event_tag

    archive = tmp / f"throughput-{tables}" / "archive.sqlite3"
    env = environment(tmp, f"throughput-{tables}", archive)
    saved = {key: os.environ.get(key) for key in ("TALLYBOARD_ARCHIVE", "XDG_STATE_HOME")}
    os.environ.update(TALLYBOARD_ARCHIVE=env["TALLYBOARD_ARCHIVE"], XDG_STATE_HOME=env["XDG_STATE_HOME"])
    names = players(tables)
    store = EveningDatabase()
    processes: list[subprocess.Popen] = []
    try:
        event = store.create(f"Bench {tables}", names, [list(range(t * 4, t * 4 + 4)) for t in range(tables)], 3, None)
        length = standings.game_length(tables, event.hands)
        secret, event_id, tag = club.director_secrets(event).secret, club.club_id(event), event_tag(event)
        tables_logins = logins(store, event, broker)
        director = club.Director(store, event, f"mqtt://director:{USERS['director']}@127.0.0.1:{broker.port}")
        director.start()
        try:
            for table in range(1, tables + 1):
                user = club.board_ident(tag, table)
                processes.append(subprocess.Popen(
                    [sys.executable, __file__, "--stand-in", "--url",
                     f"mqtt://{user}:{tables_logins[user]}@127.0.0.1:{broker.port}", "--event", event_id,
                     "--key", secret.hex(), "--tag", str(tag), "--table", str(table), "--length", str(length),
                     "--names", json.dumps(names[(table - 1) * 4:table * 4]), "--count", str(count),
                     "--outbox", str(tmp / f"throughput-{tables}" / f"outbox-{table}.sqlite3")],
                    env=env, stdout=subprocess.DEVNULL))
            deadline = time.monotonic() + WAIT
            first: tuple[float, int] | None = None     # the stand-ins' start-up is not counted
            while True:
                applied = director.link.applied()
                done = sum(applied.values())
                if first is None and done:
                    first = (time.monotonic(), done)
                if done >= tables * count:
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{done} of {tables * count} applied in {WAIT:g} s")
                time.sleep(0.02)
            assert first is not None
            rate = (done - first[1]) / (time.monotonic() - first[0])
            assert applied == {club.board_ident(tag, t): count for t in range(1, tables + 1)}, applied
            for table in range(1, tables + 1):    # the last state of each table is the store's
                assert len(store.table_game(event, 1, table)["hands"]) == (count - 1) % length + 1
            for process in processes:             # each has the director's word for all it sent
                if process.wait(WAIT):
                    raise RuntimeError("a stand-in table host was not confirmed everything")
        finally:
            director.stop()
        return rate
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
        store.close()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class Page:
    """The director's page's server-sent events, read in a thread: when each table's hand count was first seen."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.seen: dict[tuple[int, int], float] = {}
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=WAIT)
        self.connection.request("GET", "/events")
        self.response = self.connection.getresponse()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("data: {") and '"tables"' in line:
                    now = time.monotonic()
                    for table in json.loads(line[6:])["tables"]:
                        self.seen.setdefault((table["table"], len(table["hands"])), now)
        except (OSError, ValueError, http.client.HTTPException):
            pass

    def wait(self, table: int, hands: int) -> float:
        deadline = time.monotonic() + WAIT
        while (table, hands) not in self.seen:
            if time.monotonic() > deadline:
                raise RuntimeError(f"table {table} with {hands} hands never on the page")
            time.sleep(0.005)
        return self.seen[(table, hands)]


def evening(tmp: Path, broker, outage: float) -> tuple[list[float], int, float]:
    """A real director and a real table host with three emulated boards: the
    latency of hands 1-2 at each table, then hands 3-4 scored while the broker
    is stopped for `outage` seconds, and the catch-up."""
    from tallyboard.boardlink import portshare
    from tallyboard.boardlink.client import Board
    from tallyboard.tooling.emulator import running_on

    archive = tmp / "evening" / "archive.sqlite3"
    director_env = environment(tmp, "evening", archive)
    host_env = environment(tmp, "host", archive)
    cli(director_env, "event", "create", "Bench night", *[a for p in players(3) for a in ("--player", p)])
    code = cli(director_env, "event", "join-code", "--table", "1", "--table", "2", "--table", "3").strip()
    url = f"mqtt://%s@127.0.0.1:{broker.port}"
    saved = {key: os.environ.get(key) for key in ("TALLYBOARD_ARCHIVE", "XDG_STATE_HOME")}
    os.environ.update(TALLYBOARD_ARCHIVE=director_env["TALLYBOARD_ARCHIVE"], XDG_STATE_HOME=director_env["XDG_STATE_HOME"])
    try:
        from tallyboard.evening import EveningDatabase
        with EveningDatabase() as store:
            logins(store, store.event(), broker)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    processes = []
    try:
        director = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "event", "serve", "--port", "0",
                                     "--broker", url % f"director:{USERS['director']}"], env=director_env,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        processes.append(director)
        page_url = re.search(r"(http://\S+/)", director.stdout.readline()).group(1)
        host = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "event", "table", "--broker",
                                 f"mqtt://127.0.0.1:{broker.port}", "--plain", "--join", code, "--emulators", "3",
                                 "--name", "bench"],
                                env=host_env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        processes.append(host)
        while "seated" not in host.stdout.readline():
            if host.poll() is not None:
                raise RuntimeError("the table host ended")
        page = Page(page_url)
        flashes = {t: next((tmp / "host" / "state").glob(f"tallyboard/events/*/table-{t}")) for t in (1, 2, 3)}

        def score(table: int) -> float:
            """A hand at the table, accepted by seat 3; when the board had it confirmed
            (its journal's hand count read beside the host, every few milliseconds)."""
            port = str(running_on(flashes[table])["port"])
            cli(host_env, "hand", f"P{(table - 1) * 4 + 1:02d}", "1C", "7", "--port", port)
            link = portshare.open_link(port)
            try:
                board = Board(link, timeout=2.0)
                board.hello()
                before = int(board.state()["n"])
                press = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "press", "seat3", "--flash",
                                          str(flashes[table])], env=host_env, stdout=subprocess.DEVNULL)
                deadline = time.monotonic() + 30
                while int(board.state()["n"]) == before:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"table {table}: the hand was never accepted")
                confirmed = time.monotonic()
                press.wait(30)
            finally:
                link.close()
            return confirmed

        latencies = []
        for hand in (1, 2):
            for table in (1, 2, 3):
                confirmed = score(table)
                latencies.append((page.wait(table, hand) - confirmed) * 1000)
        broker.stop()
        stopped = time.monotonic()
        for hand in (3, 4):
            for table in (1, 2, 3):
                score(table)
        time.sleep(max(0.0, outage - (time.monotonic() - stopped)))
        broker.start()
        restarted = time.monotonic()
        last = max(page.wait(table, 4) for table in (1, 2, 3))
        return latencies, 6, last - restarted
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
        for record in tmp.rglob("*.running.json"):
            try:
                os.kill(int(json.loads(record.read_text())["pid"]), signal.SIGTERM)
            except (OSError, ValueError, KeyError):
                pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="a 60 s outage and more messages")
    parser.add_argument("--stand-in", action="store_true", help=argparse.SUPPRESS)
    for name in ("url", "event", "key", "names", "outbox"):
        parser.add_argument(f"--{name}", help=argparse.SUPPRESS)
    for name in ("tag", "table", "length", "count"):
        parser.add_argument(f"--{name}", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stand_in:
        return stand_in(args)

    from tallyboard.club import brokers

    count = 400 if args.full else 120
    outage = 60.0 if args.full else 10.0
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        with brokers.Mosquitto(brokers.free_port(), USERS, tmp / "mosquitto", event=brokers.ANY_EVENT) as broker:
            for tables, each in ((3, count), (12, count // 4)):
                rate = throughput(tmp, broker, tables, each)
                print(f"{tables} table hosts (stand-ins), {each} hands each: {rate:.0f} hands/s applied into the store",
                      flush=True)
            latencies, queued, catch_up = evening(tmp, broker, outage)
            print(f"confirmation on a board to the director's page: median {statistics.median(latencies):.0f} ms, "
                  f"max {max(latencies):.0f} ms ({len(latencies)} hands)")
            print(f"broker stopped {outage:g} s while {queued} hands were scored: all on the page "
                  f"{catch_up:.2f} s after the broker's start")
    return 0


if __name__ == "__main__":
    sys.exit(main())
