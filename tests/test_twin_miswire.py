"""The device twin built wrong on purpose (issue 42, a builder's bring-up): twin/run.mjs --miswire
plants the wiring faults a builder makes (docs/twin.md, twin/parts/build.mjs), so that the board's
self-test can be tried against them. Each fault is seen here by the twin's own observations: the holes
the lit LEDs sit in as built (the control port's `holes`), what the firmware reads on its pins at the
raw REPL, the board's NOTE over USB, the display's address on the bus.

Two twins, each started with its faults from the run's one deploy (twin_support.deployed_image), each
in a class of its own so that pytest-xdist (--dist loadscope) runs them side by side.

The reference board's chain, by hand (board/pico-reference.json, leds.chain, in wire order):
run 0 player 0's station (LED 0), run 1 his tally holes 0..44 (LEDs 1..45), run 2 his king holes 0..19
(LEDs 46..65), run 3 player 1's station (LED 66), run 4 his tally holes 0..44 (LEDs 67..111), run 5 his
king holes 0..19 (LEDs 112..131).

What the firmware lights for Roquet, two players, after `PEG 0 5` (firmware/tallypanel/roquetview.py,
tallycore/roquet.py), by hand: player 0's tally peg at position 5, tally hole 5 - 1 = 4 (LED 1 + 4 = 5),
and his back peg in his station (LED 0); player 1's peg in his station (LED 66); the embossed tally holes
14, 29, 44 of both (LANDMARK_HOLES: LEDs 1 + 14, 1 + 29, 1 + 44 = 15, 30, 45 and 67 + 14, 67 + 29,
67 + 44 = 81, 96, 111); no king peg below 5 points."""
from __future__ import annotations

import ast

import pytest

from twin_support import TWIN_TESTS, deployed_twin, device_twin, roquet_peg  # noqa: E402
from test_twin_parts import _watch  # noqa: E402  (the firmware's own Inputs at the raw REPL)
from tallyboard.tooling.twin_control import TwinError  # noqa: E402

pytestmark = [*TWIN_TESTS, pytest.mark.emulator, pytest.mark.process]

SETTLE_S = device_twin.SETTLE_S     # a bound against a hang only (the harness's PATIENCE)
PEGGED = {0, 5, 15, 30, 45, 66, 81, 96, 111}     # the LEDs the firmware lights (the module's doc)
SEAT, SEAT_LONG, TURN = 0, 1, 3                  # tallypanel.menu's kinds


def _running(tmp_path_factory, name: str, miswire: str):
    """A twin with the firmware deployed, built with these faults, its app's first LED frame sent; stopped
    whatever happens (a class's fixture yields from it)."""
    chip = deployed_twin(tmp_path_factory, name, miswire=miswire)
    try:
        chip.start()
        chip.control.settle(quiet_ms=300, most_s=SETTLE_S, led_frames=1)
        yield chip
    finally:
        chip.stop()


# each class's twin (scope="class": its tests run in one pytest-xdist worker, beside the other class's)
@pytest.fixture(scope="class")
def twin_a(tmp_path_factory):
    yield from _running(tmp_path_factory, "twin-miswired-a", "reverse:0.tally,dead:90,encoder-ab,seats:0/1,stuck:seat3")


@pytest.fixture(scope="class")
def repl_a(twin_a):
    """Twin a's raw REPL, the app interrupted (after the tests that need the app)."""
    shell = device_twin.RawRepl(twin_a.link)
    yield shell
    shell.close()


@pytest.fixture(scope="class")
def twin_b(tmp_path_factory):
    yield from _running(tmp_path_factory, "twin-miswired-b", "swap:0.tally/1.tally,oled:0x3d")


def _peg(chip) -> bytes:
    """A two-player Roquet game and player 0's peg of 5 over USB; the frame the firmware sent once the LEDs
    are quiet (what left the pin: the chain's own colours are what the build let through)."""
    control = chip.control
    frames = control.stats()["led_frames"]
    roquet_peg(chip)
    control.settle(quiet_ms=300, most_s=SETTLE_S, led_frames=frames + 1)
    sent = control.leds().sent
    lit = {led for led in range(132) if any(sent[3 * led:3 * led + 3])}
    assert lit == PEGGED, f"the firmware lit LEDs {sorted(lit)}"
    return sent


def _colour(sent: bytes, led: int) -> bytes:
    return sent[3 * led:3 * led + 3]


def _lit_holes(control) -> dict:
    return {hole.place: hole.grb for hole in control.holes()}


def _as_wired() -> list:
    """Every LED's hole in wire order as the definition lays them (the module's doc)."""
    holes = []
    for player in (0, 1):
        holes += [(player, "station", 0)] + [(player, "tally", h) for h in range(45)] + \
                 [(player, "king", h) for h in range(20)]
    return holes


class TestReversedRowDeadLedKnobAndButtons:
    """Player 0's tally row soldered backwards, the WS2812 at chain index 90 dead, the knob's A and B
    crossed, seat buttons 0 and 1 on each other's pins and seat 3's stuck down from power-up."""

    def test_the_twin_says_how_it_was_built(self, twin_a):
        hello = twin_a.control.hello()
        assert hello["miswire"] == ["reverse:0.tally", "dead:90", "encoder-ab", "seats:0/1"]
        assert hello["oled_address"] == 0x3C
        # seat 3 (GPIO 13, buttons.seats[3]) down since power-up, with nobody pressing it
        assert twin_a.control.stats()["faults"]["stuck"] == [13]
        with pytest.raises(TwinError, match="seat3 is stuck down"):
            twin_a.control.press("seat3")

    def test_a_reversed_row_and_a_dead_led_as_the_builder_sees_them(self, twin_a):
        sent = _peg(twin_a)
        # reversed run 1: its LED 1 + j sits in tally hole 44 - j: LED 5 (hole 4 by the definition) in
        # hole 40, LEDs 15, 30, 45 (holes 14, 29, 44) in holes 30, 15, 0. The stations are other runs.
        # LED 90 dead (player 1's tally hole 90 - 67 = 23): LEDs 96 and 111, after it, stay dark, though
        # the firmware sent them their colours; LED 81 (player 1's hole 14), before it, shows.
        assert _lit_holes(twin_a.control) == {
            (0, "station", 0): _colour(sent, 0),
            (0, "tally", 40): _colour(sent, 5),
            (0, "tally", 30): _colour(sent, 15),
            (0, "tally", 15): _colour(sent, 30),
            (0, "tally", 0): _colour(sent, 45),
            (1, "station", 0): _colour(sent, 66),
            (1, "tally", 14): _colour(sent, 81),
        }
        shown = twin_a.control.leds().grb
        assert not any(shown[3 * 90:]), "the dead LED and every LED after it are dark"
        assert any(_colour(sent, 96)) and any(_colour(sent, 111))
        # the LED field drawn with the definition's map: the peg's colour in hole 40, LED 1 + 40 = 41
        assert _colour(twin_a.control.leds().seen, 41) == _colour(sent, 5)

    def test_the_firmware_reads_the_knob_backwards_and_the_seats_crossed(self, twin_a, repl_a):
        # the firmware's own pin readers (tallypanel.hw.button) at power-up: seat 3 (GPIO 13) reads 0,
        # pressed, before anybody touched a control; seats 0-2 (GPIO 10-12) read 1, released
        assert repl_a.run("from tallypanel import hw\nprint([hw.button(g)() for g in (10, 11, 12, 13)])\n").strip() \
            == "[1, 1, 1, 0]"
        control = twin_a.control

        def act() -> None:
            control.turn(2)               # clockwise: the firmware's +1 as the definition is wired
            control.press("seat0")        # seat 0's button, soldered to seat 1's pin (GPIO 11)

        # 2 detents, seat 0's press, and seat 3's button, which the firmware first reads at that press's
        # edge (its buttons' task sleeps until a contact moves) and finds down: a long press
        out = _watch(repl_a, 2 + 1 + 1, act)
        got, _, _ = out.partition(" edges ")
        assert got.startswith("got "), out
        events = ast.literal_eval(got[4:])
        assert [e for e in events if e[0] == TURN] == [(TURN, -1), (TURN, -1)], out     # anticlockwise
        assert [e for e in events if e[0] == SEAT] == [(SEAT, 1)], out                  # seat 1's
        assert [e for e in events if e[0] == SEAT_LONG] == [(SEAT_LONG, 3)], out        # stuck seat 3
        assert len(events) == 4, out


class TestSwappedRowsAndDisplayAddress:
    """The two players' tally rows change places along the wire; the OLED's address jumper set for 0x3D
    where the definition says 0x3C (oled.address 60)."""

    def test_the_display_answers_at_0x3d_and_the_board_finds_none_at_0x3c(self, twin_b):
        board = twin_b.board()
        try:
            notes = board.notes(int(board.state()["notes"]))
        finally:
            board.link.close()
        assert any(note.startswith("display: no OLED answering at 0x3C") for note in notes), notes
        control = twin_b.control
        assert control.hello()["oled_address"] == 0x3D
        oled = control.oled()
        assert oled.present and oled.fields["address"] == 0x3D
        # the firmware addressed 0x3C, which NAKed; nothing ever reached the display at 0x3D
        stats = oled.fields["stats"]
        assert stats["stray_naks"] >= 1 and stats["stray_address"] == 0x3C
        assert stats["transactions"] == 0 and not oled.on and not any(oled.ram)

    def test_swapped_rows_show_each_players_pegs_in_the_others_holes(self, twin_b):
        sent = _peg(twin_b)
        # run 1 (LEDs 1..45) sits in player 1's tally holes and run 4 (LEDs 67..111) in player 0's, hole
        # for hole: LED 5 (player 0's hole 4) in player 1's hole 4; LEDs 15, 30, 45 in player 1's holes
        # 14, 29, 44; LEDs 81, 96, 111 (player 1's) in player 0's holes 14, 29, 44. The stations stay.
        assert _lit_holes(twin_b.control) == {
            (0, "station", 0): _colour(sent, 0),
            (1, "tally", 4): _colour(sent, 5),
            (1, "tally", 14): _colour(sent, 15),
            (1, "tally", 29): _colour(sent, 30),
            (1, "tally", 44): _colour(sent, 45),
            (1, "station", 0): _colour(sent, 66),
            (0, "tally", 14): _colour(sent, 81),
            (0, "tally", 29): _colour(sent, 96),
            (0, "tally", 44): _colour(sent, 111),
        }
        assert _colour(sent, 5) != _colour(sent, 15), "the peg is not a landmark's white"

    def test_rewired_as_defined_the_holes_are_the_definitions(self, twin_b):
        control = twin_b.control
        assert control.miswire("oled:0x3d") == ["oled:0x3d"]      # the chain as the definition lays it
        holes = control.holes(every=True)
        assert [hole.led for hole in holes] == list(range(132))
        assert [hole.place for hole in holes] == _as_wired()
        sent = control.leds().sent
        assert _lit_holes(control) == {_as_wired()[led]: _colour(sent, led) for led in PEGGED}
        assert control.leds().seen == control.leds().grb
        with pytest.raises(TwinError, match="stuck button is the fault switch"):
            control.miswire("stuck:seat1")
        with pytest.raises(TwinError, match="no segment 2.tally"):
            control.miswire("reverse:2.tally")
        assert control.miswire() == ["oled:0x3d"]                 # a refused spec changes nothing
