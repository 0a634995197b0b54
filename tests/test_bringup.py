"""A builder's bring-up (issue 42): what the self-test saw, read into what is wrong and the change to
the board definition that fixes it (tallyboard.tooling.bringup). The reference board's chain, by hand
(board/pico-reference.json): LED 0 player 0's station, 1-45 his tally holes 0-44, 46-65 his king holes
0-19, 66 player 1's station, 67-111 his tally holes, 112-131 his king holes."""
from __future__ import annotations

import json
from pathlib import Path

from tallyboard.tooling import bringup
from tallypanel import boarddef

DEFINITION = json.loads((Path(__file__).resolve().parent.parent / "board" / "pico-reference.json").read_text())


def as_wired() -> list:
    holes = []
    for player in (0, 1):
        holes += [(player, "station", 0)] + [(player, "tally", h) for h in range(45)] + \
                 [(player, "king", h) for h in range(20)]
    assert len(holes) == 132
    return holes


def test_a_board_built_as_defined_passes_with_nothing_to_change():
    report = bringup.examine(DEFINITION, bringup.Observed(as_wired(), 1, [10, 11, 12, 13], [], 0x3C))
    assert report.passed and report.fix is None


def test_a_row_soldered_backwards_is_the_definitions_to_change():
    seen = as_wired()
    seen[1:46] = [(0, "tally", h) for h in range(44, -1, -1)]      # LED 1 in hole 44 ... LED 45 in hole 0
    report = bringup.examine(DEFINITION, bringup.Observed(seen, 1, [10, 11, 12, 13], [], 0x3C))
    assert report.fix == {"leds": {"chain": [[0, "station", 0, 0], [0, "tally", 44, 0], [0, "king", 0, 19],
                                             [1, "station", 0, 0], [1, "tally", 0, 44], [1, "king", 0, 19]]}}
    assert "player 1's tally row runs from hole 45 to 1, not 1 to 45" in report.faults[0]
    # the fixed definition is one the board takes
    boarddef.from_dict(bringup.fixed(DEFINITION, report.fix))


def test_two_rows_swapped_along_the_wire():
    seen = as_wired()
    seen[46:66], seen[112:132] = seen[112:132], seen[46:66]           # the two king rows' places swapped
    report = bringup.examine(DEFINITION, bringup.Observed(seen, 1, [10, 11, 12, 13], [], 0x3C))
    assert report.fix["leds"]["chain"] == [[0, "station", 0, 0], [0, "tally", 0, 44], [1, "king", 0, 19],
                                           [1, "station", 0, 0], [1, "tally", 0, 44], [0, "king", 0, 19]]
    assert "player 2's king holes 1 to 20 come 3rd along the wire" in report.faults[0]
    assert "player 1's king holes 1 to 20 come 6th along the wire" in report.faults[0]


def test_a_dead_led_darkens_the_chain_after_it_and_is_the_solders_to_fix():
    seen = as_wired()
    seen[70:] = [None] * 62                 # LED 70 dead: it and the 61 after it show nothing
    report = bringup.examine(DEFINITION, bringup.Observed(seen, 1, [10, 11, 12, 13], [], 0x3C))
    # LED 69 is player 1's tally hole 2 (67 + 2): "player 2's tally hole 3" in the builder's counting
    assert report.faults == ["the chain goes dark at LED 71 of 132 (after player 2's tally hole 3): that LED is "
                             "dead or its data in is not soldered; replace it or reflow its DIN, then test again"]
    assert report.fix is None


def test_the_knob_the_display_and_the_seat_buttons_each_say_their_change():
    seen = bringup.Observed(as_wired(), -1, [10, 11, 12, None], [15], 0x3D)
    report = bringup.examine(DEFINITION, seen)
    assert report.fix == {"encoder": {"a": 17, "b": 16}, "oled": {"address": 0x3D}}
    assert report.faults == [
        "the knob turned clockwise reads as anticlockwise: its A and B are the other way round",
        "seat button 4 (GPIO 13) was never seen pressed: check its wiring to the pin and to GND",
        "the button on GPIO 15 is down from the start and never let go: it is stuck or shorted to GND; free or "
        "replace it",
        "the display answers at 0x3D, not 0x3C: its address jumper is the other way",
    ]
    # seats 1 and 2 on each other's pins (and all four seen): the definition's pins change
    swapped = bringup.examine(DEFINITION, bringup.Observed(as_wired(), 1, [11, 10, 12, 13], [], 0x3C))
    assert swapped.fix == {"buttons": {"seats": [11, 10, 12, 13]}}
    changed = bringup.fixed(DEFINITION, swapped.fix)
    assert changed["buttons"] == {"seats": [11, 10, 12, 13], "undo": 14, "shift": 15}
    assert DEFINITION["buttons"]["seats"] == [10, 11, 12, 13]          # the original untouched
