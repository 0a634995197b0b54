"""A builder's bring-up (issue 42): what the self-test saw, read into what is wrong and the change to
the board definition that fixes it (tallyboard.tooling.bringup). The reference board's chain, by hand
(board/pico-reference.json): LED 0 player 0's station, 1-45 his tally holes 0-44, 46-65 his king holes
0-19, 66 player 1's station, 67-111 his tally holes, 112-131 his king holes. Its buttons: seats on GPIO 10,
11, 12, 13, undo 14, shift 15; the knob a 16, b 17, push 18."""
from __future__ import annotations

import json
from pathlib import Path

from tallyboard.tooling import bringup
from tallypanel import boarddef

PUSH = 18                    # the knob's push pin (encoder.push)
DEFINITION = json.loads((Path(__file__).resolve().parent.parent / "board" / "pico-reference.json").read_text())


def as_wired() -> list:
    holes = []
    for player in (0, 1):
        holes += [(player, "station", 0)] + [(player, "tally", h) for h in range(45)] + \
                 [(player, "king", h) for h in range(20)]
    assert len(holes) == 132
    return holes


def test_a_board_built_as_defined_passes_with_nothing_to_change():
    report = bringup.examine(DEFINITION, bringup.Observed(as_wired(), 1, [10, 11, 12, 13], [], 0x3C, pushed=PUSH))
    assert report.passed and report.fix is None


def test_a_row_soldered_backwards_is_the_definitions_to_change():
    seen = as_wired()
    seen[1:46] = [(0, "tally", h) for h in range(44, -1, -1)]      # LED 1 in hole 44 ... LED 45 in hole 0
    report = bringup.examine(DEFINITION, bringup.Observed(seen, 1, [10, 11, 12, 13], [], 0x3C, pushed=PUSH))
    assert report.fix == {"leds": {"chain": [[0, "station", 0, 0], [0, "tally", 44, 0], [0, "king", 0, 19],
                                             [1, "station", 0, 0], [1, "tally", 0, 44], [1, "king", 0, 19]]}}
    assert "player 1's tally row runs from hole 45 to 1, not 1 to 45" in report.faults[0]
    # the fixed definition is one the board takes
    boarddef.from_dict(bringup.fixed(DEFINITION, report.fix))


def test_two_rows_swapped_along_the_wire():
    seen = as_wired()
    seen[46:66], seen[112:132] = seen[112:132], seen[46:66]           # the two king rows' places swapped
    report = bringup.examine(DEFINITION, bringup.Observed(seen, 1, [10, 11, 12, 13], [], 0x3C, pushed=PUSH))
    assert report.fix["leds"]["chain"] == [[0, "station", 0, 0], [0, "tally", 0, 44], [1, "king", 0, 19],
                                           [1, "station", 0, 0], [1, "tally", 0, 44], [0, "king", 0, 19]]
    assert "player 2's king holes 1 to 20 come 3rd along the wire" in report.faults[0]
    assert "player 1's king holes 1 to 20 come 6th along the wire" in report.faults[0]


def test_a_dead_led_darkens_the_chain_after_it_and_is_the_solders_to_fix():
    seen = as_wired()
    seen[70:] = [None] * 62                 # LED 70 dead: it and the 61 after it show nothing
    report = bringup.examine(DEFINITION, bringup.Observed(seen, 1, [10, 11, 12, 13], [], 0x3C, pushed=PUSH))
    # LED 69 is player 1's tally hole 2 (67 + 2): "player 2's tally hole 3" in the builder's counting
    assert report.faults == ["the chain goes dark at LED 71 of 132 (after player 2's tally hole 3): that LED is "
                             "dead or its data in is not soldered; replace it or reflow its DIN, then test again"]
    assert report.fix is None


def test_the_knob_the_display_and_the_seat_buttons_each_say_their_change():
    seen = bringup.Observed(as_wired(), -1, [10, 11, 12, None], [15], 0x3D, turned_back=1, pushed=PUSH)
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
    swapped = bringup.examine(DEFINITION, bringup.Observed(as_wired(), 1, [11, 10, 12, 13], [], 0x3C, pushed=PUSH))
    assert swapped.fix == {"buttons": {"seats": [11, 10, 12, 13]}}
    changed = bringup.fixed(DEFINITION, swapped.fix)
    assert changed["buttons"] == {"seats": [11, 10, 12, 13], "undo": 14, "shift": 15, "test": 15}
    assert DEFINITION["buttons"]["seats"] == [10, 11, 12, 13]          # the original untouched


def _knob(turned: int, turned_back: int, pushed: int | None = PUSH) -> bringup.Report:
    """The reference board as built but for the knob: clockwise read turned, anticlockwise turned_back."""
    return bringup.examine(DEFINITION, bringup.Observed(as_wired(), turned, [10, 11, 12, 13], [], 0x3C,
                                                        turned_back=turned_back, pushed=pushed))


def test_the_knob_is_reversed_only_when_both_ways_read_the_other_way():
    assert _knob(1, -1).passed
    reversed_knob = _knob(-1, 1)
    assert reversed_knob.fix == {"encoder": {"a": 17, "b": 16}}      # a 16, b 17 crossed
    assert reversed_knob.faults == ["the knob turned clockwise reads as anticlockwise: its A and B are the other "
                                    "way round"]
    pins = ("check GPIO 16 (A) and GPIO 17 (B), each soldered to its pin of the knob, and its common pin to GND")
    # both ways read the same way, or one way nothing: a pin that does not change; no change to the definition
    for turned, turned_back, words in ((-1, -1, "anticlockwise and turned anticlockwise read anticlockwise"),
                                       (1, 1, "clockwise and turned anticlockwise read clockwise"),
                                       (-1, 0, "anticlockwise and turned anticlockwise read nothing"),
                                       (0, -1, "nothing and turned anticlockwise read anticlockwise")):
        report = _knob(turned, turned_back)
        assert report.fix is None, (turned, turned_back)
        assert report.faults == [f"the knob turned clockwise read {words}: one of its two pins does not change "
                                 f"as it turns; {pins}"]
    nothing = _knob(0, 0)
    assert nothing.fix is None and nothing.faults == [f"the knob gave nothing when turned: {pins}"]


def test_the_knob_s_push_never_seen_on_another_pin_or_another_button_s():
    never = _knob(1, -1, None)
    assert never.fix is None
    assert never.faults == ["the knob's push (GPIO 18) was never seen pressed: check its wiring to the pin and "
                            "to GND"]
    # GPIO 20 is no button's in the definition: the push is wired there, the definition's push changes
    elsewhere = _knob(1, -1, 20)
    assert elsewhere.faults == ["the knob's push is on GPIO 20, not GPIO 18"]
    assert elsewhere.fix == {"encoder": {"push": 20}}
    assert bringup.fixed(DEFINITION, elsewhere.fix)["encoder"] == {"a": 16, "b": 17, "push": 20,
                                                                   "steps_per_detent": 4}
    # GPIO 14 is the undo button's, GPIO 11 seat 2's (people's numbers): a wire to move, not the definition
    on_undo = _knob(1, -1, 14)
    assert on_undo.fix is None
    assert on_undo.faults == ["pushing the knob pressed the undo button (GPIO 14): the push is wired to that "
                              "button's pin; move its wire to GPIO 18"]
    assert _knob(1, -1, 11).faults == ["pushing the knob pressed seat button 2 (GPIO 11): the push is wired to "
                                       "that button's pin; move its wire to GPIO 18"]


def test_each_display_pattern_not_shown_whole_is_a_fault_with_what_to_do_and_nothing_to_change():
    def screen(on, checker, edges) -> bringup.Report:
        return bringup.examine(DEFINITION, bringup.Observed(as_wired(), 1, [10, 11, 12, 13], [], 0x3C, pushed=PUSH,
                                                            screen_on=on, screen_checker=checker,
                                                            screen_edges=edges))

    assert screen(True, True, True).passed
    assert screen(None, None, None).passed          # not asked: no display answered (its own fault)
    dead = ("with every pixel on, the display shows dark dots or lines: those pixels or lines are dead, the "
            "display is damaged; replace it")
    shorted = ("the display's checkerboard shows stripes or blotches: neighbouring rows or columns are shorted in "
               "the display's flex; replace it")
    small = ("the display's frame misses a side: the display is not 128x64 (a 128x32 shows only the top half) or "
             "its picture is offset; the firmware drives only a 128x64 SSD1306: fit one")
    assert screen(False, True, True).faults == [dead]
    assert screen(True, False, True).faults == [shorted]
    assert screen(True, True, False).faults == [small]
    everything = screen(False, False, False)
    assert everything.faults == [dead, shorted, small] and everything.fix is None
