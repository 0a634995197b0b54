"""A club evening's figures on emulated boards (issue 13). Run from the repo root:

    python bench/bench_event.py [--boards 4 8 16]

For each number of boards N: an evening of 4N players at N tables (four-hand
games, rules.md SK19) in a temporary archive, `tallyboard event attach
--emulators N`, `event start`, and `tallyboard event serve --port 0` (the
serving process: it reads a board the moment the board pushes an event, and
every board every 2 s). Round 1 is played one hand after another: each hand
sent to the table's board through serve's shared port (HAND, as `tallyboard
hand` does), then accepted by an adversary's seat button on the emulator (a
0.15 s tap). Measured:

  * the page's update latency: from the accepting button going down (and from its
    release, TAP_HOLD_S later, as bench_controls_twin times a seat press) to the
    server-sent event (a raw-socket reader of /events) whose snapshot has the
    hand in its table's sheet; median and worst over the round's hands. The
    board counts a short press of a seat button when it is let go (held 0.6 s
    it is a reject), so the board's own part is the tap's 0.15 s and its
    input's debounce: measured apart, the press -> the board's pushed event as
    another client of its shared port hears it, and the board's event -> the
    page (the host's part);
  * the host's CPU per confirmed hand: the serving process's CPU time
    (/proc/PID/stat, user + system) over the round, divided by the hands;
    and its CPU per second of the round;
  * the next round reaching the boards: from the last accept of round 1,
    `tallyboard event next` run at once, to every board's STATE showing the
    next round's game (empty) and its `round` setting 2; and `next`'s own run time.

Everything is stopped at the end (serve with Ctrl-C, `event stop-boards`).
"""
from __future__ import annotations

import argparse
import json
import re
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(ROOT / "firmware"))

from tallyboard import games
from tallyboard.boardlink import portshare  # noqa: E402
from tallyboard.boardlink.client import Board  # noqa: E402
from tallyboard.boardlink.pushed import PushedEvents  # noqa: E402
from tallyboard.tooling.emulator import Emulator, running_on  # noqa: E402

SEAT1_PIN = 11        # board/pico-reference.json: seat 1
TAP_HOLD_S = 0.15     # the accepting tap's hold: the board counts a seat's short press as it is let go
TICKS = os.sysconf("SC_CLK_TCK")


def tallyboard(*args: str, seconds: float = 120) -> str:
    done = subprocess.run([sys.executable, "-m", "tallyboard.cli", *args], capture_output=True, text=True,
                          timeout=seconds)
    if done.returncode:
        raise SystemExit(f"tallyboard {' '.join(args)} failed: {done.stdout}{done.stderr}")
    return done.stdout


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS      # utime, stime


class Events:
    """A raw-socket reader of the page's /events: the time each snapshot came and
    its hands per table."""

    def __init__(self, url: str) -> None:
        host, port = url.split("//")[1].strip("/").split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=10)
        # the page refuses a Host that is not this machine (DNS-rebinding guard)
        self.sock.sendall(f"GET /events HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n"
                          .encode())
        self.seen: list[tuple[float, list[int]]] = []
        self.troubles = 0       # boards shown not "ok" (unreachable ...), over every snapshot
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buffer = b""
        self.sock.settimeout(None)
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                line = line.rstrip(b"\r")
                if line.startswith(b"data: {") and b'"format"' in line:
                    doc = json.loads(line[6:])
                    with self.lock:
                        self.seen.append((time.monotonic(), [len(t["hands"]) for t in doc["tables"]]))
                        self.troubles += sum(1 for t in doc["tables"] if t["status"] not in ("ok", None))

    def first_after(self, since: float, table: int, hands: int, seconds: float = 10.0) -> float:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self.lock:
                for at, counts in self.seen:
                    if at >= since and counts[table - 1] >= hands:
                        return at
            time.sleep(0.005)
        with self.lock:
            last = self.seen[-1] if self.seen else None
        raise SystemExit(f"table {table} hand {hands} never reached the page in {seconds} s (last seen: {last})")

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)    # ends the reader's recv too
        except OSError:
            pass
        self.sock.close()


def wait_for(check, what: str, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"{what} did not come within {seconds} s")
        time.sleep(0.001)


def board_at_round(board: Board, round: int, club: str) -> bool:
    state = board.state()
    return int(board.cfg_get("round")) == round and state["game"] == club and state["n"] == "0"


def one_evening(boards: int, home: str) -> dict:
    os.environ["TALLYBOARD_ARCHIVE"] = f"{home}/archive-{boards}.sqlite3"    # one evening in progress each
    names = [f"P{i:02d}" for i in range(4 * boards)]
    create = ["event", "create", f"Bench {boards}", "--rounds", "2", "--hands", "4"]   # 4 hands a table, any N
    for name in names:
        create += ["--player", name]
    tallyboard(*create)
    attached = tallyboard("event", "attach", "--emulators", str(boards), seconds=60 + 10 * boards)
    ports = {int(line.split(":")[0][6:]): line.split(": ", 1)[1].split(" ")[0]
             for line in attached.splitlines() if line.startswith("table ")}
    folder = Path(re.search(r"^table 1: .*, folder (\S+)$", attached, flags=re.M).group(1)).parent
    tallyboard("event", "start", seconds=60)
    serve_log = open(f"{home}/serve-{boards}.log", "w")
    serve = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "event", "serve", "--port", "0"],
                             stdout=subprocess.PIPE, stderr=serve_log, text=True)
    serve_log.close()
    links = []
    try:
        first = serve.stdout.readline()
        url = first.split(": ", 1)[1].split(";")[0]
        events = Events(url)
        time.sleep(1.5)                        # serve has read every board once
        club = games.club_game().name
        tables = {}
        for table, port in sorted(ports.items()):
            link = portshare.open_link(port)   # joins serve's hub
            links.append(link)
            board = Board(link, timeout=3.0)
            board.hello()
            running = running_on(folder / f"table-{table}")
            tables[table] = (board, Emulator(flash=folder / f"table-{table}", io_dir=Path(running["io"]),
                                             install=False))
        # the boards' pushed events as any client of their hubs hears them: the board's own part of the latency
        heard: dict[int, list[float]] = {table: [] for table in tables}
        pushed = PushedEvents(lambda table: heard[table].append(time.monotonic()))
        for table, port in ports.items():
            pushed.follow(table, port)
        latencies, from_release, board_parts, host_parts = [], [], [], []
        cpu_before, wall_before = cpu_seconds(serve.pid), time.monotonic()
        last_accept = 0.0
        for hand in range(1, 5):
            for table, (board, emulator) in sorted(tables.items()):
                # seat 0 bought 4H and took 10; seat 1 is his adversary in every hand (SK5)
                held = len(heard[table])
                board.request("HAND", 0, "4H", None, None, 0, 10)
                wait_for(lambda: len(heard[table]) > held, f"table {table}'s HELD event")
                pressed = time.monotonic()     # the board accepts as the button goes down
                emulator.tap(SEAT1_PIN, hold=TAP_HOLD_S)
                last_accept = time.monotonic()
                seen = events.first_after(pressed, table, hand)
                latencies.append(seen - pressed)
                from_release.append(seen - pressed - TAP_HOLD_S)
                event_at = min(at for at in heard[table] if at >= pressed)
                board_parts.append(event_at - pressed)
                host_parts.append(seen - event_at)
        pushed.close()
        cpu_round, wall_round = cpu_seconds(serve.pid) - cpu_before, time.monotonic() - wall_before
        # the next round: `event next` at once, then every board polled until it shows round 2
        started = time.monotonic()
        tallyboard("event", "next", seconds=120)
        next_done = time.monotonic()
        waiting = dict(tables)
        deadline = time.monotonic() + 60
        while waiting and time.monotonic() < deadline:
            for table, (board, _) in list(waiting.items()):
                if board_at_round(board, 2, club):
                    del waiting[table]
        if waiting:
            raise SystemExit(f"boards {sorted(waiting)} did not show round 2 within 60 s")
        every_board = time.monotonic() - started
        events.close()
        troubles = events.troubles
        hands = 4 * boards
        return {"boards": boards, "hands": hands,
                "latency_median": statistics.median(latencies), "latency_max": max(latencies),
                "release_median": statistics.median(from_release), "release_max": max(from_release),
                "board_median": statistics.median(board_parts), "board_max": max(board_parts),
                "host_median": statistics.median(host_parts), "host_max": max(host_parts),
                "cpu_per_hand": cpu_round / hands, "cpu_per_second": cpu_round / wall_round,
                "round_seconds": wall_round, "next_seconds": next_done - started, "next_round_on_boards": every_board,
                "troubles": troubles}
    finally:
        for link in links:
            link.close()
        serve.send_signal(signal.SIGINT)
        try:
            serve.wait(15)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait(5)
        tallyboard("event", "stop-boards", seconds=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, nargs="+", default=[4, 8, 16])
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-event-") as tmp:
        # the commands keep their compiled modules, as an installed tallyboard does (an environment that
        # sets PYTHONDONTWRITEBYTECODE has every `tallyboard` process compile them again: `next`'s start)
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ.update(XDG_STATE_HOME=f"{tmp}/state", PYTHONPYCACHEPREFIX=f"{tmp}/pycache",
                          XDG_CACHE_HOME=f"{tmp}/cache", TALLYBOARD_EMULATOR_HOME=f"{tmp}/emu",
                          PYTHONPATH=os.pathsep.join([str(ROOT / "host"), str(ROOT / "firmware"),
                                                      os.environ.get("PYTHONPATH", "")]))
        for boards in args.boards:
            result = one_evening(boards, tmp)
            results.append(result)
            print(f"{boards:2d} boards, {result['hands']} hands: page latency median "
                  f"{result['latency_median'] * 1000:.0f} ms, worst {result['latency_max'] * 1000:.0f} ms "
                  f"(from the button's release: median {result['release_median'] * 1000:.0f} ms, "
                  f"worst {result['release_max'] * 1000:.0f} ms) "
                  f"(press -> the board's event at a client of its port: median "
                  f"{result['board_median'] * 1000:.0f} ms, worst {result['board_max'] * 1000:.0f} ms; "
                  f"the board's event -> the page: median {result['host_median'] * 1000:.1f} ms, "
                  f"worst {result['host_max'] * 1000:.1f} ms); "
                  f"serve CPU {result['cpu_per_hand'] * 1000:.0f} ms per hand "
                  f"({result['cpu_per_second'] * 100:.0f}% of a core over the {result['round_seconds']:.0f} s round); "
                  f"next round on every board {result['next_round_on_boards']:.2f} s "
                  f"(event next itself {result['next_seconds']:.2f} s); "
                  f"boards shown not ok: {result['troubles']}", flush=True)
    base = results[0]
    for r in results[1:]:
        print(f"{r['boards']} / {base['boards']} boards: latency x{r['latency_median'] / base['latency_median']:.2f} "
              f"(the host's part x{r['host_median'] / base['host_median']:.2f}), "
              f"CPU per hand x{r['cpu_per_hand'] / base['cpu_per_hand']:.2f}, "
              f"next round x{r['next_round_on_boards'] / base['next_round_on_boards']:.2f}")


if __name__ == "__main__":
    main()
