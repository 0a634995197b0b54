"""Game switches on the device twin (bench/twin_harness.py's Twin), as a table plays them: the order
a seed gives (switch_order) and the switches played with the board's counters read on the way
(switch_games). Used by bench/bench_game_switch_twin.py, tests/test_twin_game_switch.py and
tests/test_game_switch_heap.py."""
from __future__ import annotations

import time
from dataclasses import dataclass

from twin_harness import SETTLE_S


def switch_order(seed: int, count: int, games: tuple) -> list[tuple[str, int]]:
    """count games in an order the seed gives, each to another rules module than the
    game before (a switch: the last game's code goes, the next one's loads), players
    drawn from each game's range; games: tallycore.games.GAMES (the board's own table)."""
    import random

    rng = random.Random(seed)
    order: list[tuple[str, int]] = []
    last = None
    while len(order) < count:
        name, least, most, module = rng.choice(games)[:4]
        if module == last:
            continue
        last = module
        order.append((name, rng.randint(least, most)))
    return order


@dataclass
class Switches:
    done: int                  # game switches made
    blocks: list[int]          # STATS block (the largest free heap block) after every stats_every-th
    frees: list[int]           # STATS free, the same moments
    new_ms: list[float]        # NEW -> OK, emulated ms, each switch
    wall_s: float
    chip_s: float = 0.0        # the same switches in the chip's own (emulated) time


def switch_games(twin, board, order: list[tuple[str, int]], *, stats_every: int = 10,
                 push: bool = True) -> Switches:
    """Play a game switch for each (game, players) of order on the twin, as a table would:
    NEW from the host, the display caught up with the new game (its panel view loads), and
    with push the knob pushed (a hand entry opened on the board, left open when the next
    NEW comes); STATS after every stats_every-th switch. A NEW the board refuses raises
    (tallyboard.boardlink.client's BoardError, saying which switch)."""
    started = time.monotonic()
    result = Switches(0, [], [], [], 0.0)
    control = twin.control
    chip_started = control.stats()["emu_ms"]
    for number, (name, players) in enumerate(order, 1):
        twin.mark()
        try:
            board.new(name, players)
        except Exception as exc:
            raise RuntimeError(f"switch {number} of {len(order)}, NEW {name} {players}: {exc}") from exc
        answered = [line for line in twin.lines() if line.since_request_us is not None
                    and not line.text.startswith("!") and " OK " in line.text]
        if answered:
            result.new_ms.append(answered[-1].since_request_us / 1000)
        control.settle(quiet_ms=60, most_s=SETTLE_S)
        if push:
            control.press("push", ms=80)
            control.settle(quiet_ms=60, most_s=SETTLE_S)
        result.done = number
        if number % stats_every == 0:
            stats = board.request("STATS")
            result.blocks.append(int(stats["block"]))
            result.frees.append(int(stats["free"]))
    result.wall_s = time.monotonic() - started
    result.chip_s = (control.stats()["emu_ms"] - chip_started) / 1000
    return result
