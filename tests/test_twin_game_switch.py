"""Every game loadable after game switches in any order, on the chip's own heap (issue 20,
item 4): the firmware on the device twin (stock MicroPython v1.28.0 on an emulated RP2040,
its 264 KB of RAM) switches games in an order a seed gives, each switch to another rules
module than the last, as a table does: NEW from the host, the display caught up with the
new game (its panel view loaded and drawn), the knob pushed (a hand entry opened on the
board and left open when the next NEW comes). Then every game of the board's table is
started once more. Not one NEW may fail (the twin's 16th NEW in a row once stopped the
app with a MemoryError), and the board's own error counter (a display or handler failure,
a view that did not load) stays at 0.

The issue's 200 switches take the twin several minutes of wall time on a loaded CI machine:
the test makes the first of them up to the one that has switched to every game, however long the
machine takes (each wait bounded only against a hang), and the full 200 are measured by
`python bench/bench_game_switch_twin.py` (docs/benchmarks.md, "Game switches and the
heap"). Marked `twin`; under CI=true a twin that cannot start fails the module."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "firmware"))
from tallycore.games import GAMES  # noqa: E402  (the board's own table: names, player ranges, modules)


from twin_support import TWIN_TESTS, deployed_twin, device_twin, twin_switches  # noqa: E402

pytestmark = [*TWIN_TESTS, pytest.mark.process]

SEED = 20
SWITCHES = 200


def every_game_switched_to(order: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The shortest start of the bench's order that switches to every game (88 of its 200 with SEED 20):
    the switches made here, however long the machine takes; the bench makes all 200."""
    names = {row[0] for row in GAMES}
    for end in range(1, len(order) + 1):
        if {name for name, _ in order[:end]} == names:
            return order[:end]
    raise AssertionError(f"the seeded order never switches to {sorted(names - {name for name, _ in order})}")


@pytest.fixture(scope="module")
def twin(tmp_path_factory):
    chip = deployed_twin(tmp_path_factory, "twin-switch")
    try:
        chip.start()
        yield chip
    finally:
        chip.stop()


def test_every_game_loads_after_switches_in_a_seeded_order(twin):
    order = every_game_switched_to(twin_switches.switch_order(SEED, SWITCHES, GAMES))
    assert len(order) == 88
    board = twin.board()
    try:
        booted = board.request("STATS")
        switched = twin_switches.switch_games(twin, board, order)
        assert switched.done == len(order)
        for name, least, _most, *_ in GAMES:
            reply = board.new(name, least)
            assert reply["n"] == "0"
            twin.control.settle(quiet_ms=60, most_s=device_twin.SETTLE_S)
            assert board.state()["game"] == name
        stats = board.request("STATS")
    finally:
        board.link.close()
    # no display or handler failure on the way: every game's panel view loaded and drew
    assert stats["errors"] == "0", stats
    least_block = min(switched.blocks + [int(stats["block"])])
    print(f"{switched.done} switches in {switched.chip_s:.0f} s of the twin's time ({switched.wall_s:.0f} s of wall "
          f"time), then every game: the least largest free block {least_block} B (after boot {booted['block']} B), "
          f"free at the end {stats['free']} B")
