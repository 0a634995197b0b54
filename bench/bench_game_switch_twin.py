"""Game switches on the chip's own heap: the firmware on the device twin (stock MicroPython
v1.28.0 on an emulated RP2040) switches games 200 times in a seeded order, then starts every
game of the board's table once more.

    python bench/bench_game_switch_twin.py [--switches 200] [--seed 20] [--no-push] [--json]

Each switch as a table plays it (bench/twin_switches.py switch_games): NEW from the host, to another
rules module than the game before; the display caught up (the game's panel view loaded and
drawn); the knob pushed (a hand entry opened on the board, left open when the next NEW
comes). STATS after every tenth switch: `free` and `block`, the largest free heap block (to
64 bytes), which is what a game's code needs in pieces as it loads. Prints the heap after
boot, the least largest block seen and the one at the end, the least free, NEW -> OK in
emulated ms, and whether every game started afterwards (tests/test_twin_game_switch.py
checks the same in a minute of wall time). Needs node, socat and rp2040js (twin/)."""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "firmware"))
from twin_harness import Twin, bench_main  # noqa: E402
from twin_switches import switch_games, switch_order  # noqa: E402
from tallycore.games import GAMES  # noqa: E402  (the board's own table)


def run(switches: int = 200, seed: int = 20, push: bool = True) -> dict:
    with tempfile.TemporaryDirectory() as tmp, Twin(Path(tmp)) as twin:
        twin.deploy()
        board = twin.board(timeout=10.0)
        try:
            booted = board.request("STATS")
            done = switch_games(twin, board, switch_order(seed, switches, GAMES), push=push)
            every = 0
            for name, least, *_ in GAMES:
                board.new(name, least)
                twin.control.settle(quiet_ms=60, most_s=30)
                every += board.state()["game"] == name
            end = board.request("STATS")
        finally:
            board.link.close()
    return {"switches": done.done, "seed": seed, "push": push,
            "heap_free_after_boot": int(booted["free"]), "largest_block_after_boot": int(booted["block"]),
            "least_largest_block": min(done.blocks), "largest_block_after_all": int(end["block"]),
            "least_free": min(done.frees), "free_after_all": int(end["free"]),
            "new_ms_median": round(statistics.median(done.new_ms), 2), "new_ms_max": round(max(done.new_ms), 2),
            "games_started_after": f"{every} of {len(GAMES)}", "errors": int(end["errors"]),
            "wall_s": round(done.wall_s)}


def show(figures: dict) -> None:
    for key, value in figures.items():
        print(f"{key:28} {value}")


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--switches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--no-push", action="store_true", help="NEW and the display alone, no hand entry opened")


def main() -> int:
    return bench_main(__doc__, "bench_game_switch_twin",
                      lambda args: run(args.switches, args.seed, not args.no_push), show, options)


if __name__ == "__main__":
    sys.exit(main())
