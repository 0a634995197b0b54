"""A board on the club's Wi-Fi (issue 24), on the MicroPython unix port: the
heap its network layer takes, and the request -> OK time over USB while it
publishes. Run from the repo root:

    python bench/bench_wifi_board.py [--heap 384K --heap 768K] [--requests 300]

For each --heap (the unix port's -X heapsize; 384K is the emulator's, the
Pico's ~190 KB at 32-bit words: host/tallyboard/tooling/emulator.py HEAP_SIZE), one
emulated board with a Wi-Fi board definition (tests/wifi_boards.py) boots
on a fresh flash folder:

  * not enrolled: the club link's settings only (tallynet.settings: NET);
  * enrolled, against mosquitto on loopback and a DirectorLink whose round
    seats it: the network layer loaded (tallynet.link, its MQTT client
    and transport), its Skicket game started, one hand entered and confirmed
    by the director;

and reads STATS (gc.collect, then mem_free, mem_alloc, the largest free
block). The difference in heap in use is the network layer's cost (64-bit
words: about half of it on the chip). Then it times --requests STATE
requests (request written -> OK read, over the emulator's pty) while the
link is idle, and after a change each time (CFG SET name, then 60 ms: the
OLED redraws its names) before the enrolment and again once linked, when
each change is also composed, numbered, signed and published: the ratio of
the two is the figure (one run, one machine)."""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import wifi_boards as wb  # noqa: E402
from tallyboard.boardlink.client import Board  # noqa: E402
from tallyboard.club import envelope  # noqa: E402
from tallyboard.club.brokers import Mosquitto  # noqa: E402
from tallyboard.club.director_link import DirectorLink  # noqa: E402
from tallyboard.tooling.emulator import Emulator  # noqa: E402
from tallyboard.evening.club import key_for, round_game  # noqa: E402
from tallyboard.boardlink.transport import SerialTransport  # noqa: E402
from tallycore import game as core_game  # noqa: E402

TAG, TABLE, EVENT = 0x1A2B, 1, "Bench-night-1a2b"
IDENT = wb.ident(TAG, TABLE)


def until(check, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise SystemExit(f"{what} did not come within {seconds} s")


def stats(board: Board) -> tuple[int, int, int]:
    reply = board.request("STATS")
    return int(reply["free"]), int(reply["alloc"]), int(reply["block"])


def timed(board: Board, requests: int, change: bool) -> list[float]:
    out = []
    for i in range(requests):
        if change:
            board.cfg_set("name", f"P{i % 97}", 3)     # a change: the link composes and publishes after it
            time.sleep(0.06)                           # the host quiet: the link's turn (QUIET_MS 50)
        start = time.perf_counter()
        board.request("STATE")
        out.append((time.perf_counter() - start) * 1000)
    return out


def run(heap: str, requests: int, work: Path) -> None:
    secret = envelope.new_secret()
    users = {"director": "d", IDENT: envelope.broker_password(envelope.board_key(secret, IDENT))}
    with Mosquitto(0, users, work / "broker", event=EVENT) as broker:
        director = DirectorLink(f"mqtt://director:d@127.0.0.1:{broker.port}", f"{EVENT}-director", event=EVENT,
                                key=lambda m: key_for(secret, m), store_path=work / "director.sqlite3",
                                boards={IDENT}, on_table_message=lambda c, m: None, max_backoff=1)
        director.start()
        director.wait_connected(10)
        game, options, record_options = round_game(2, None)
        director.publish_round({"name": "Bench night", "id": 1, "tag": TAG, "round": 1, "rounds": 1, "hands": None,
                                "players": [f"P{i}" for i in range(8)], "seatings": [[[0, 1, 2, 3], [4, 5, 6, 7]]],
                                "game": game, "options": options & ~core_game.CONFIRM,
                                "record_options": record_options})
        try:
            flash = wb.wifi_flash(work / f"flash-{heap}", TAG, TABLE)
            with Emulator(flash=flash, heap_size=heap) as emulator:
                link = SerialTransport(emulator.port)
                board = Board(link, timeout=5)
                board.connect()
                before = stats(board)
                alone = timed(board, requests, True)       # the same changes, no link: the baseline
                wb.access_point(emulator)
                wb.enrol(board, event=EVENT, key=envelope.board_key(secret, IDENT), port=broker.port)
                until(lambda: board.cfg_get("round") == "1", 30, "the board seated")
                board.game_verb("HAND", 1, "4H", "-", "-", 0, 10)
                until(lambda: board.request("NET")["waiting"] == "0", 30, "the director's confirmation")
                after = stats(board)
                idle = timed(board, requests, False)
                busy = timed(board, requests, True)
                sent = board.request("NET")
                link.close()
        finally:
            director.stop()
    print(f"heap {heap}: not enrolled free {before[0]:,} B in use {before[1]:,} B block {before[2]:,} B; "
          f"linked, a game in play: free {after[0]:,} B in use {after[1]:,} B block {after[2]:,} B; "
          f"the network layer and its game take {after[1] - before[1]:,} B")
    print(f"  request -> OK (STATE), linked and idle: median {statistics.median(idle):.2f} ms, worst {max(idle):.2f} ms")
    print(f"  after a change each time (CFG SET name, then 60 ms): not enrolled median {statistics.median(alone):.2f} "
          f"ms, worst {max(alone):.2f} ms; linked, publishing each change: median {statistics.median(busy):.2f} ms, "
          f"worst {max(busy):.2f} ms (ratio of medians {statistics.median(busy) / statistics.median(alone):.2f}); "
          f"link {sent}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--heap", action="append", help="the unix port's heap size (-X heapsize), repeatable")
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for heap in args.heap or ["384K"]:
            (Path(tmp) / heap).mkdir()
            run(heap, args.requests, Path(tmp) / heap)    # each its own broker and director files


if __name__ == "__main__":
    main()
