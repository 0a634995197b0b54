"""The builder's self-test verbs (issue 42; firmware/tallypanel/selftest.py) on the emulator: LAMP walks
the chain LED by LED and names each LED's hole, PINS reads the buttons and the knob, SCAN the OLED's bus,
POWER the current against the budget; and a self-test leaves the game and its journal exactly as they were,
even with the board's buttons pressed during it (they are the test's, not the game's).

Expected values by hand from board/pico-reference.json (leds.chain, in wire order): LED 0 player 0's
station, 1..45 his tally holes 0..44, 46..65 his king holes 0..19, 66 player 1's station, 67..111 his tally
holes, 112..131 his king holes. Buttons: seats 10, 11, 12, 13, undo 14, shift 15; knob a 16, b 17, push 18.
POWER by hand: 132 LEDs, ma_per_channel 20, idle_ma_per_led 1, budget 500 mA: every LED white at full
draws 3 * 132 * 20 + 132 = 8052 mA; the budget allows (500 - 132) * 255 // (3 * 132 * 20) = 11."""
from __future__ import annotations

import pytest

from emu_fixtures import emulated_board, until
from tallyboard.common.errors import BoardError

pytestmark = [pytest.mark.emulator]

SEAT_PINS = (10, 11, 12, 13)
KNOB_A, KNOB_B, KNOB_PUSH = 16, 17, 18
DIM = 24                     # the walk's white, each channel (tallypanel.selftest._LEVEL)

HOLES = {   # LED: (player, row, hole), by hand from the definition (the module's doc)
    0: ("0", "station", "0"), 1: ("0", "tally", "0"), 45: ("0", "tally", "44"), 46: ("0", "king", "0"),
    65: ("0", "king", "19"), 66: ("1", "station", "0"), 67: ("1", "tally", "0"), 111: ("1", "tally", "44"),
    112: ("1", "king", "0"), 131: ("1", "king", "19"),
}


def _kept(board) -> tuple:
    state = board.state()
    return state["n"], state["top"], state["lcrc"], state["game"], state["players"]


def _only(led: int) -> bytes:
    frame = bytearray(3 * 132)
    frame[3 * led:3 * led + 3] = bytes((DIM, DIM, DIM))
    return bytes(frame)


def _pegged(frame: bytes):
    """The frame if it shows Roquet's PEG 0 5 (LED 5 and both stations lit), else None."""
    lit = {led for led in range(len(frame) // 3) if any(frame[3 * led:3 * led + 3])}
    return frame if {0, 5, 66} <= lit else None


def _roquet_pegged(emulator, board) -> tuple:
    """Roquet with PEG 0 5 on the board: the game as kept, and its frame once drawn."""
    board.new("roquet", 2)
    board.game_verb("PEG", 0, 5)
    return _kept(board), until(lambda: _pegged(emulator.leds()), 5.0, "the game's frame: player 0's peg in LED 5")


def _pins_until(board, done, what: str) -> dict:
    """PINS asked until done(the replies so far, summed) holds; the sum (pressed as a set, turned added)."""
    seen: dict = {"pressed": set(), "turned": 0, "down": "-"}

    def look():
        reply = board.request("PINS")
        seen["down"] = reply["down"]
        if reply["pressed"] != "-":
            seen["pressed"] |= {int(g) for g in reply["pressed"].split(",")}
        seen["turned"] += int(reply["turned"])
        return seen if done(seen) else None

    return until(look, 8.0, what, explain=lambda: f"PINS summed: {seen}")


def test_the_self_test_names_each_led_s_hole_reads_the_controls_and_leaves_the_game_as_it_was(tmp_path):
    with emulated_board(tmp_path / "flash", timeout=3.0) as (emulator, board):
        before, game_frame = _roquet_pegged(emulator, board)

        for led, (player, row, hole) in HOLES.items():
            reply = board.request("LAMP", led)
            assert (reply["led"], reply["of"], reply["player"], reply["row"], reply["hole"]) == (
                str(led), "132", player, row, hole), led
        until(lambda: emulator.leds() == _only(131) or None, 5.0, "only LED 131 lit, dim white")
        with pytest.raises(BoardError) as refused:
            board.request("LAMP", 132)
        assert "0 to 131" in str(refused.value) and "132 LEDs" in str(refused.value)

        # the buttons: none down; one held shows in down (read from its pin); taps and turns are counted
        assert board.request("PINS") == {"down": "-", "pressed": "-", "turned": "0"}
        emulator.press(SEAT_PINS[2])
        _pins_until(board, lambda s: s["down"] == "12", "seat 2's button held down")
        emulator.release(SEAT_PINS[2])
        _pins_until(board, lambda s: s["down"] == "-", "seat 2's button let go")
        emulator.tap(SEAT_PINS[0])
        emulator.tap(KNOB_PUSH)
        seen = _pins_until(board, lambda s: {10, 18} <= s["pressed"], "seat 0's button and the knob's push")
        assert seen["pressed"] <= {10, 12, 18}, seen
        emulator.turn(KNOB_A, KNOB_B, 2)
        _pins_until(board, lambda s: s["turned"] == 2, "two detents clockwise")

        assert board.request("SCAN") == {"found": "3C", "want": "3C"}
        power = board.request("POWER")
        assert (power["full"], power["budget"], power["allows"]) == ("8052", "500", "11")
        assert int(power["now"]) >= 132

        # still the test's: the game did not hear the presses, and ENTRY (another host's, say) shows no
        # entry rather than drawing the game's sheet under the test; LAMP - gives the board back
        assert _kept(board) == before
        assert board.request("ENTRY") == {"head": "-", "step": "-", "value": "-", "entered": "-"}
        assert board.request("LAMP", "-")["led"] == "-"
        until(lambda: emulator.leds() == game_frame or None, 5.0, "the game's frame drawn again")
        assert _kept(board) == before
        # the buttons are the game's again: a press is no longer the test's (PINS starts a new test)
        assert board.request("LAMP", "-")["of"] == "132"


def _pixels(oled: bytes) -> set[tuple[int, int]]:
    """The lit pixels of an SSD1306 image (MONO_VLSB: byte page * 128 + x holds rows 8 * page..+7, bit 0 on top)."""
    return {(x, 8 * page + bit) for page in range(8) for x in range(128) for bit in range(8)
            if oled[page * 128 + x] >> bit & 1}


def test_pixels_draws_each_pattern_on_the_whole_oled_and_the_sheet_comes_back_after(tmp_path):
    every = {(x, y) for x in range(128) for y in range(64)}
    checker = {(x, y) for x, y in every if (x + y) % 2 == 1}     # (0, 0) dark, (1, 0) and (0, 1) lit
    edges = {(x, y) for x, y in every if x in (0, 127) or y in (0, 63)}   # 2 * 128 + 2 * 62 = 380 pixels
    assert len(edges) == 380 and len(checker) == 128 * 64 // 2
    with emulated_board(tmp_path / "flash", timeout=3.0) as (emulator, board):
        board.new("roquet", 2)
        from tallyboard.tooling import render
        sheet = render.frame_for_board(board).oled        # the game's sheet as the firmware's own view draws it
        until(lambda: emulator.oled() == sheet or None, 5.0, "the game's sheet drawn")
        for pattern, lit in (("ON", every), ("CHECKER", checker), ("EDGES", edges)):
            assert board.request("PIXELS", pattern) == {"pattern": pattern}
            until(lambda: _pixels(emulator.oled()) == lit or None, 5.0, f"the OLED showing {pattern}",
                  explain=lambda: f"{len(_pixels(emulator.oled()))} pixels lit")
        with pytest.raises(BoardError) as refused:
            board.request("PIXELS", "STRIPES")
        assert "ON" in str(refused.value) and "CHECKER" in str(refused.value)
        board.request("LAMP", "-")
        until(lambda: emulator.oled() == sheet or None, 5.0, "the game's sheet drawn whole again")


TEST_BUTTON = 15      # buttons.test of board/pico-reference.json: shift


def test_the_test_button_held_at_power_up_starts_the_board_s_own_self_test_which_leaves_the_game(tmp_path):
    from emu_fixtures import oled_text
    from tallypanel import screen

    with emulated_board(tmp_path / "flash", timeout=3.0) as (emulator, board):
        before, game_frame = _roquet_pegged(emulator, board)
        emulator.cut_power()
        emulator.press(TEST_BUTTON)
        emulator.power_on()
        board.connect()

        def rows(*numbers):
            return tuple(oled_text(emulator.oled(), r, screen.LIST).rstrip() for r in numbers)

        until(lambda: rows(0, 1, 2) == ("SELF-TEST 1/4 LEDS", "LED 1 OF 132", "PLAYER 1 STATION") or None, 10.0,
              "the self-test's first LED named on the OLED", explain=lambda: rows(0, 1, 2))
        until(lambda: emulator.leds() == _only(0) or None, 5.0, "only LED 0 lit, dim white")
        emulator.release(TEST_BUTTON)
        until(lambda: rows(9) == ("",) or None, 5.0, "the test armed: its button let go for 200 ms",
              explain=lambda: rows(9))
        emulator.turn(KNOB_A, KNOB_B, 2)          # LED 2: player 0's tally hole 1 (2 as people count)
        until(lambda: rows(1, 2) == ("LED 3 OF 132", "PLAYER 1 TALLY HOLE 2") or None, 5.0,
              "two detents on: LED 3", explain=lambda: rows(1, 2))
        until(lambda: emulator.leds() == _only(2) or None, 5.0, "only LED 2 lit")
        emulator.tap(SEAT_PINS[0])                # marks it wrong: the test's press, not the game's
        until(lambda: rows(4) == ("MARKED WRONG",) or None, 5.0, "LED 3 marked wrong", explain=lambda: rows(4))
        # a host's self-test takes it over (the board's own steps no more), and LAMP - ends it: the game
        # as it was
        assert board.request("SCAN") == {"found": "3C", "want": "3C"}
        emulator.turn(KNOB_A, KNOB_B, 1)
        assert board.request("PINS")["turned"] == "1"      # the host's now: counted for PINS, not stepped
        assert emulator.leds() == _only(2)
        assert _kept(board) == before
        board.request("LAMP", "-")
        until(lambda: emulator.leds() == game_frame or None, 5.0, "the game's frame drawn again")
        assert _kept(board) == before
