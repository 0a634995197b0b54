"""The shared port's cost (issue 21): what a request pays for going through the
sharer (portshare.py) rather than straight to the port. Run from the repo root:

    python bench/bench_portshare.py [--requests 1000] [--clients 3]

Boots the real firmware in the emulator (no display files: the protocol alone)
and measures in one run, with the protocol client as the CLI uses it:

  * round trip of a query (STATE): on the port itself; through the hub by its
    owner (as `watch` talks); through the socket by another process's link
    (as `tallyboard peg` beside `watch` talks); medians and p99, and the ratios;
  * --clients links at once on the socket, each sending STATE as fast as its
    replies come: requests per second in all, each client's p99, and how evenly
    the hub shared the board (the fewest requests served to a client / the most).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(ROOT / "firmware"))

from tallyboard.boardlink import portshare  # noqa: E402
from tallyboard.boardlink.client import Board  # noqa: E402
from tallyboard.tooling.emulator import Emulator  # noqa: E402
from tallyboard.boardlink.transport import SerialTransport, Transport  # noqa: E402


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def round_trips(link: Transport, count: int) -> list[float]:
    board = Board(link, timeout=3.0)
    board.connect()
    times = []
    for _ in range(count):
        seq, frame = board.encode("STATE")
        start = time.perf_counter()
        board.send_frame(seq, frame)
        times.append(time.perf_counter() - start)
    return times


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1e3:.2f} ms, p99 {percentile(values, 99) * 1e3:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_RUNTIME_DIR"] = tmp
        with Emulator(flash=Path(tmp) / "flash", io_files=False) as emulator:
            port = emulator.port
            direct = SerialTransport(port)
            try:
                on_port = round_trips(direct, args.requests)
            finally:
                direct.close()
            owner = portshare.open_link(port, serve=True)
            try:
                by_owner = round_trips(owner, args.requests)
                other = portshare.open_link(port)
                try:
                    by_socket = round_trips(other, args.requests)
                finally:
                    other.close()
                served, each_p99 = together(port, args.clients, args.seconds)
            finally:
                owner.close()
    base = statistics.median(on_port)
    print(f"STATE on the port itself:            {ms(on_port)}")
    print(f"STATE through the hub, by its owner: {ms(by_owner)}  ({statistics.median(by_owner) / base:.2f} x)")
    print(f"STATE through the socket:            {ms(by_socket)}  ({statistics.median(by_socket) / base:.2f} x)")
    total = sum(served)
    print(f"{args.clients} clients at once on the socket: {total / args.seconds:.0f} requests/s in all "
          f"({total / args.seconds * base:.2f} x one client on the port), each client's p99 "
          f"{', '.join(f'{p * 1e3:.1f}' for p in each_p99)} ms, fairness (fewest/most served) "
          f"{min(served) / max(served):.2f}")


def together(port: str, clients: int, seconds: float) -> tuple[list[int], list[float]]:
    links = [portshare.open_link(port) for _ in range(clients)]
    boards = [Board(link, timeout=3.0) for link in links]
    for board in boards:
        board.connect()
    times: list[list[float]] = [[] for _ in boards]
    stop = time.monotonic() + seconds

    def run(i: int) -> None:
        board = boards[i]
        while time.monotonic() < stop:
            seq, frame = board.encode("STATE")
            start = time.perf_counter()
            board.send_frame(seq, frame)
            times[i].append(time.perf_counter() - start)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 30)
    for link in links:
        link.close()
    return [len(t) for t in times], [percentile(t, 99) for t in times]


if __name__ == "__main__":
    main()
