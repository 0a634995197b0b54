"""The differential frame test's comparison (tests/board_frames.py) says
what differs: the OLED's pixel rows and columns, the LEDs with both colours,
and leaves both frames as PNGs; equal frames have no difference."""
from __future__ import annotations

from board_frames import OLED_BYTES, Shown, difference, mismatch, spans
from tallyboard.tooling import render


def test_a_pixel_and_an_led_that_differ_are_named_and_pictured(tmp_path):
    board = render.find_board("pico-reference")
    leds = bytearray(3 * board.led_count)
    leds[3 * 7:3 * 7 + 3] = bytes((16, 0, 63))       # LED 7 lit, GRB
    oled = bytearray(OLED_BYTES)
    oled[2 * 128 + 40] = 0b0000_0100                  # page 2, column 40, bit 2: pixel row 2 * 8 + 2 = 18
    expected = Shown(bytes(leds), bytes(oled))
    assert difference(expected, Shown(bytes(leds), bytes(oled))) == ""

    got_leds = bytearray(leds)
    got_leds[3 * 7:3 * 7 + 3] = bytes((0, 16, 63))    # red and green swapped: a colour order mistake
    got_oled = bytearray(oled)
    got_oled[2 * 128 + 40] = 0
    got_oled[7 * 128 + 127] = 0b1000_0000              # page 7, bit 7: the last row, 63
    said = mismatch(board, tmp_path, "01-test-step02", "emulator", expected, "twin",
                    Shown(bytes(got_leds), bytes(got_oled)))
    assert said.startswith("01-test-step02: twin differs from emulator: OLED rows 18, 63 differ (columns 40, 127); "
                           "LEDs 7 differ: 7 (GRB 16,0,63 / GRB 0,16,63); pictures: ")
    for name in ("emulator", "twin"):
        picture = tmp_path / f"01-test-step02-{name}.png"
        assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_short_frame_is_a_difference():
    full = Shown(bytes(6), bytes(OLED_BYTES))
    said = difference(full, Shown(bytes(3), bytes(OLED_BYTES)))
    assert said == "LEDs 1 differ: 1 (GRB 0,0,0 / none); frame 3 bytes, not 6"


def test_spans():
    assert spans([0, 1, 2, 7, 9, 10]) == "0-2, 7, 9-10"
    assert spans([]) == ""
