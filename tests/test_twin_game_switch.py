"""Every game loadable after game switches in any order, on the chip's own heap (issue 20,
item 4): the firmware on the device twin (stock MicroPython v1.28.0 on an emulated RP2040,
its 264 KB of RAM) switches games in an order a seed gives, each switch to another rules
module than the last, as a table does: NEW from the host, the display caught up with the
new game (its panel view loaded and drawn), the knob pushed (a hand entry opened on the
board and left open when the next NEW comes). Then every game of the board's table is
started once more. Not one NEW may fail (the twin's 16th NEW in a row once stopped the
app with a MemoryError), and the board's own error counter (a display or handler failure,
a view that did not load) stays at 0.

The issue's 200 switches take the twin about a quarter of a Pico's speed and several
minutes of wall time on a loaded CI machine: the test makes as many of the 200 as fit in
SWITCH_WALL_S of wall time (at least MIN_SWITCHES), and the full 200 are measured by
`python bench/bench_game_switch_twin.py` (docs/benchmarks.md, "Game switches and the
heap"). Marked `twin`; under CI=true a twin that cannot start fails the module."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "firmware"))
from tallycore.games import GAMES  # noqa: E402  (the board's own table: names, player ranges, modules)


from twin_support import TWIN_TESTS, deployed_twin, device_twin  # noqa: E402

pytestmark = [*TWIN_TESTS, pytest.mark.process]

SEED = 20
SWITCHES = 200
SWITCH_WALL_S = 60        # wall time for the switches (the bench makes all 200)
MIN_SWITCHES = 16         # and the sixteen NEWs after them: 32 at least (31 + 16 on a machine at load 15)


@pytest.fixture(scope="module")
def twin(tmp_path_factory):
    chip = deployed_twin(tmp_path_factory, "twin-switch")
    try:
        chip.start()
        yield chip
    finally:
        chip.stop()


def test_every_game_loads_after_switches_in_a_seeded_order(twin):
    order = device_twin.switch_order(SEED, SWITCHES, GAMES)
    assert {name for name, _ in order} == {row[0] for row in GAMES}
    board = twin.board(timeout=10.0)
    try:
        booted = board.request("STATS")
        switched = device_twin.switch_games(twin, board, order, wall_s=SWITCH_WALL_S)
        assert switched.done >= MIN_SWITCHES, \
            f"only {switched.done} switches in {SWITCH_WALL_S} s: the twin is too slow here to check the heap"
        for name, least, _most, *_ in GAMES:
            reply = board.new(name, least)
            assert reply["n"] == "0"
            twin.control.settle(quiet_ms=60, most_s=30)
            assert board.state()["game"] == name
        stats = board.request("STATS")
    finally:
        board.link.close()
    # no display or handler failure on the way: every game's panel view loaded and drew
    assert stats["errors"] == "0", stats
    least_block = min(switched.blocks + [int(stats["block"])])
    print(f"{switched.done} switches in {switched.wall_s:.0f} s, then every game: the least largest free "
          f"block {least_block} B (after boot {booted['block']} B), free at the end {stats['free']} B")
