"""The firmware on the device twin: an emulated RP2040 (rp2040js) running real MicroPython
v1.28.0, deployed with `tallyboard deploy` over its emulated USB CDC.

    python bench/bench_device_twin.py [--pegs 20] [--idle 10] [--switches 200] [--json]

Prints, in emulated time at 125 MHz: boot to the BOOT event (blank, and with a game restored
after a power cut), PEG / HAND / UNDO / REDO request -> OK latency, flash erases and page
programs per acknowledged event, idle CPU busy with no traffic, the heap free after boot
(STATS), the largest free heap block (STATS block) as games are switched in a random order
(every game of the board's table, each switch to another rules module), and how many requests a `tallyboard peg` costs on the wire (the first, which reads the
game, and the next, whose copy of the game is current). rp2040js models no
flash busy time, XIP cache misses or I²C bus time: a real Pico is that or slower (a W25Q16
sector erase is 45 ms typical, 400 ms worst; a page program 0.4 ms).
Needs node, socat and rp2040js (npm ci in twin/; docs/twin.md)."""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from twin_harness import Twin, bench_main  # noqa: E402

HANDS = [  # Skicket: purchaser, bid, doubled by, redoubled by, lone, tricks
    (0, "4H", None, None, False, 10), (1, "2S", None, None, False, 7), (2, "3NT", 1, None, False, 9),
    (3, "1C", None, None, False, 6), (0, "5D", None, None, False, 10), (1, "2NK", None, None, False, 5)]


def hand(board, purchaser, bid, doubled_by, redoubled_by, lone, tricks):
    """Skicket's HAND (its own verb since protocol 4)."""
    return board.game_verb("HAND", purchaser, bid, doubled_by, redoubled_by, int(lone), tricks)


def peg(board, player, points):
    """Roquet's PEG (its own verb since protocol 4)."""
    return board.game_verb("PEG", player, points)


def replies(twin):
    return [line for line in twin.lines() if not line.text.startswith("!") and line.since_request_us is not None]


def boot_ms(twin, wait=30.0):
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        for line in twin.lines():
            if " BOOT " in line.text:
                return line.since_reset_ms
        time.sleep(0.2)
    raise RuntimeError("no BOOT event from the twin")


def timed(twin, action, count, gap=0.3):
    """Run action() count times, gap seconds apart (0.3: the display has caught
    up, as between a player's commands; 0: back to back); each reply's latency
    (ms) and flash work per action."""
    before = twin.stats()
    twin.mark()
    latencies = []
    for _ in range(count):
        if gap:
            time.sleep(gap)
        action()
        latencies.append(replies(twin)[-1].since_request_us / 1000)
    after = twin.stats()
    return {"median_ms": round(statistics.median(latencies), 2), "max_ms": round(max(latencies), 2),
            "erases_per_event": round((after["flash_erases"] - before["flash_erases"]) / count, 3),
            "programs_per_event": round((after["flash_programs"] - before["flash_programs"]) / count, 3)}


def switch_games(twin, board, switches: int, seed: int = 20) -> dict:
    """switches NEWs in a random order (each to another rules module than the last, every game
    at least once when switches >= 16), STATS after every tenth; the heap's least figures, and
    the flash each NEW cost."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "firmware"))
    from tallycore.games import GAMES    # the board's own table: names, player ranges
    rng = random.Random(seed)
    blocks, frees = [], []
    last = None
    before = twin.stats()
    for number in range(1, switches + 1):
        name, least, most, module = rng.choice([row for row in GAMES if row[3] != last])[:4]
        last = module
        board.new(name, rng.randint(least, most))
        if number % 10 == 0:
            stats = board.request("STATS")
            blocks.append(int(stats["block"]))
            frees.append(int(stats["free"]))
    after = twin.stats()
    return {"switches": switches, "least_largest_block": min(blocks), "largest_block_at_end": blocks[-1],
            "least_free": min(frees),
            "erases_per_new": round((after["flash_erases"] - before["flash_erases"]) / switches, 3),
            "programs_per_new": round((after["flash_programs"] - before["flash_programs"]) / switches, 3)}


def run(pegs: int, idle_s: float, switches: int = 0) -> dict:
    figures: dict = {}
    with tempfile.TemporaryDirectory() as tmp, Twin(Path(tmp)) as twin:
        started = time.monotonic()
        twin.deploy()
        figures["deploy_s"] = round(time.monotonic() - started, 1)
        figures["boot_blank_ms"] = round(boot_ms(twin), 1)
        board = twin.board()
        stats = board.request("STATS")
        figures["heap_free_after_boot"] = int(stats["free"])
        figures["heap_alloc_after_boot"] = int(stats["alloc"])
        figures["largest_block_after_boot"] = int(stats["block"])
        if switches:
            figures["game_switches"] = switch_games(twin, board, switches)

        board.new("roquet", 2)
        figures["peg"] = timed(twin, lambda: peg(board, 0, 1), pegs)
        figures["peg_back_to_back"] = timed(twin, lambda: peg(board, 1, 1), pegs, gap=0)
        figures["undo"] = timed(twin, board.undo, min(5, pegs))
        figures["redo"] = timed(twin, board.redo, min(5, pegs))

        board.link.close()      # one program at a time on the port
        # the first command reads the game (and keeps a copy); the next costs OPEN and its change
        for key in ("requests_per_cli_peg_cold", "requests_per_cli_peg"):
            twin.mark()
            done = twin.tallyboard("peg", "0", "5")
            if done.returncode:
                raise RuntimeError(f"tallyboard peg failed: {done.stdout}{done.stderr}")
            figures[key] = len(replies(twin))
        board = twin.board()

        board.new("skicket", 4)
        hands = iter(HANDS)
        figures["hand"] = timed(twin, lambda: hand(board, *next(hands)), len(HANDS))

        before = twin.stats()
        time.sleep(idle_s)
        after = twin.stats()
        emulated = after["emu_ms"] - before["emu_ms"]
        figures["idle_busy_percent"] = round(100 * (after["busy_ms"] - before["busy_ms"]) / emulated, 1)

        board.link.close()
        twin.power_cut()
        twin.mark()
        twin.start()
        figures["boot_with_game_ms"] = round(boot_ms(twin), 1)
        board = twin.board()
        state = board.state()
        figures["restored_events"] = int(state["n"])
        board.link.close()
    return figures


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pegs", type=int, default=20)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of wall time with no traffic")
    parser.add_argument("--switches", type=int, default=0, help="game switches to measure the heap across")


def show(figures: dict) -> None:
    for key, value in figures.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        print(f"{key:24} {value}")


def main() -> int:
    return bench_main(__doc__, "bench_device_twin", lambda args: run(args.pegs, args.idle, args.switches),
                      show, options)


if __name__ == "__main__":
    sys.exit(main())
