"""Differential simulation over the emulator: 200 random games (Skicket and
Roquet, with undo/redo, refused probes and mid-game reconnections) played
through the board and through the host's core; and a planted difference must
be caught, naming the seed and the game to replay."""
import traceback

import pytest
from click.testing import CliRunner
from emu_fixtures import emulated_board

from tallycore import roquet, skicket
from tallyboard.tooling import simulate as sim
from tallyboard.games import roquet as roquet_profile
from tallyboard.games import skicket as skicket_profile
from tallyboard.cli import main

pytestmark = [pytest.mark.emulator]


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    with emulated_board(tmp_path_factory.mktemp("simulate") / "flash") as pair:
        yield pair


def test_two_hundred_games_agree(emu):
    _, board = emu
    stats = sim.simulate(board, ("skicket", "roquet"), 100, seed=2026)
    assert stats.games == 200
    assert stats.by_game == {"skicket": 100, "roquet": 100}
    # the mix the simulation promises actually happened
    assert stats.undos > 50 and stats.redos > 10 and stats.probes > 50
    assert stats.reconnects > 20


def test_generated_skicket_hands_cover_the_rules():
    rng = sim.game_rng(1, "skicket", 1)
    draws = [skicket_profile.candidate(rng) for _ in range(3000)]
    hands = [e for e in draws if e != skicket.MISDEAL]
    assert skicket.MISDEAL in draws
    assert any(skicket.doubled_by_of(e) != skicket.NOBODY for e in hands)
    assert any(skicket.redoubled_by_of(e) != skicket.NOBODY for e in hands)
    assert any(skicket.lone_of(e) for e in hands)
    assert any(skicket.strain_of(e) == skicket.NO_TRICK for e in hands)
    assert any(skicket.tricks_of(e) == 13 for e in hands)


def test_generated_roquet_pegs_are_in_range():
    rng = sim.game_rng(1, "roquet", 1)
    draws = [roquet_profile.candidate(rng) for _ in range(2000)]
    assert roquet.HAND_END in draws
    points = [roquet.peg_points(e) for e in draws if e != roquet.HAND_END]
    assert min(points) == 1 and max(points) <= 99
    assert {roquet.peg_player(e) for e in draws if e != roquet.HAND_END} == {0, 1}


def test_a_difference_is_caught_with_the_seed_to_replay(emu, monkeypatch):
    _, board = emu
    honest = skicket.total
    # a host core that is off by one for player 2: the board (MicroPython) is not
    monkeypatch.setattr(skicket, "total", lambda state, players, p: honest(state, players, p) + (p == 2))
    with pytest.raises(sim.SimulationMismatch) as info:
        sim.simulate(board, ("skicket",), 3, seed=77)
    message = str(info.value)
    assert message.startswith("skicket game 1 (seed 77), after ")
    assert "totals" in message
    assert message.endswith("reproduce with: tallyboard simulate --game skicket --seed 77 --first 1 --games 1")


def test_the_simulate_command(tmp_path):
    result = CliRunner().invoke(main, ["simulate", "--game", "roquet", "--games", "3", "--seed", "5"])
    assert result.exit_code == 0, (result.output, "".join(traceback.format_exception(*result.exc_info))
                                   if result.exc_info else "")    # where an error came from, should one come
    assert "3 games agree (3 roquet;" in result.output
