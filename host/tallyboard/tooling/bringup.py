"""A builder's bring-up (issue 42): from what the self-test saw, what is wrong with the build and, where
the answer points at the board definition rather than the solder, the change to board/<name>.json that
fixes it.

What the self-test saw (Observed):
  holes      for each LED of the chain in wire order, the hole it lit as the builder saw it
             ((player, row, hole), rows as the definition names them), or None: nothing lit;
  turned     the knob turned one click clockwise as asked: the direction the board read (+1, -1), or
             0: nothing;
  seats      for each seat button asked for in turn (seat 0 first), the GPIO the board saw pressed,
             or None: none within the time;
  stuck      GPIOs of buttons down from the start and never released;
  oled       the I2C address the display answered at, or None: none answered;
  turned_back  the knob turned one click anticlockwise as asked: the direction read (-1 as it should),
             or 0: nothing;
  pushed     the knob pushed as asked: the GPIO the board saw pressed (the encoder's push pin as it
             should), or None: none within the time;
  screen_on, screen_checker, screen_edges
             the builder's answer to each of the display's test patterns (PIXELS ON, CHECKER, EDGES):
             True: shown whole, False: not, None: not asked (no display, or none answered).

Pure: the guided `tallyboard board test`, the board's own self-test and the tests read it alike."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

Hole = tuple[int, str, int]        # player, row ("station", "tally", "king"), hole


@dataclass
class Observed:
    holes: list[Hole | None]
    turned: int = 1
    seats: list[int | None] = field(default_factory=list)
    stuck: list[int] = field(default_factory=list)
    oled: int | None = None
    turned_back: int = -1
    pushed: int | None = None
    screen_on: bool | None = None
    screen_checker: bool | None = None
    screen_edges: bool | None = None


@dataclass
class Report:
    faults: list[str]                  # what is wrong, in the builder's words, each with what to do
    fix: dict[str, Any] | None = None  # the definition's sections that change (None: nothing to change there)

    @property
    def passed(self) -> bool:
        return not self.faults


def runs_of(holes: list[Hole]) -> list[list[Any]]:
    """The chain as runs in wire order, [player, row, first, last] (last < first: backwards), as a board
    definition writes it, of holes lit one LED after another."""
    runs: list[list[Any]] = []
    step = 0
    for player, row, hole in holes:
        if runs:
            last = runs[-1]
            same_row = last[0] == player and last[1] == row
            if same_row and last[2] == last[3] and abs(hole - last[3]) == 1:
                step = hole - last[3]          # a run's second LED sets its direction
                last[3] = hole
                continue
            if same_row and last[2] != last[3] and hole - last[3] == step:
                last[3] = hole
                continue
        runs.append([player, row, hole, hole])
        step = 0
    return runs


def _hole_name(hole: Hole) -> str:
    player, row, number = hole
    return f"player {player + 1}'s {row} hole {number + 1}" if row != "station" else f"player {player + 1}'s station"


def _chain(definition: dict[str, Any], seen: list[Hole | None]) -> tuple[list[str], list[list[Any]] | None]:
    faults: list[str] = []
    lit = len(seen)
    while lit and seen[lit - 1] is None:
        lit -= 1
    if lit < len(seen):
        # a WS2812 that is dead passes nothing on: every LED after it is dark
        last = seen[lit - 1] if lit else None
        before = f" (after {_hole_name(last)})" if last is not None else ""
        faults.append(f"the chain goes dark at LED {lit + 1} of {len(seen)}{before}: that LED is dead or its "
                      f"data in is not soldered; replace it or reflow its DIN, then test again")
    gaps = [i for i in range(lit) if seen[i] is None]
    for i in gaps:
        faults.append(f"LED {i + 1} lit nothing, though the chain goes on past it: it is damaged, or not in a "
                      "hole; replace it")
    holes = [hole for hole in seen[:lit] if hole is not None]
    twice = sorted({_hole_name(h) for h in holes if holes.count(h) > 1})
    if twice:
        faults.append(f"{', '.join(twice)} lit for two LEDs: mark each hole as you see it and test again")
    if lit < len(seen) or gaps or twice:
        return faults, None        # the solder first: the chain's order is read again once it is whole
    built = runs_of(holes)
    said = [list(run) for run in definition["leds"]["chain"]]
    if built == said:
        return faults, None
    faults.append("the LEDs run in another order than the definition says: " + _differences(said, built))
    return faults, built


def _differences(said: list[list[Any]], built: list[list[Any]]) -> str:
    words = []
    for at, run in enumerate(built):
        if at < len(said) and said[at] == run:
            continue
        player, row, first, last = run
        if [player, row, last, first] in said:
            words.append(f"player {player + 1}'s {row} row runs from hole {first + 1} to {last + 1}, not "
                         f"{last + 1} to {first + 1}")
        else:
            words.append(f"player {player + 1}'s {row} holes {first + 1} to {last + 1} come "
                         f"{_ordinal(at + 1)} along the wire")
    return "; ".join(words) + " (the chain below is the board as built)"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def examine(definition: dict[str, Any], seen: Observed) -> Report:
    """What the self-test's answers say of the build, and the change to the definition that fixes what
    the definition, not the solder, has wrong."""
    faults, chain = _chain(definition, seen.holes)
    fix: dict[str, Any] = {}
    if chain is not None:
        fix["leds"] = {"chain": chain}
    buttons = definition.get("buttons", {})
    pins = buttons.get("seats", [])
    encoder = definition.get("encoder")
    if encoder:
        knob_faults, knob_fix = _knob(encoder, seen, _other_buttons(buttons))
        faults += knob_faults
        if knob_fix:
            fix["encoder"] = knob_fix
    seats = list(pins)
    for seat, gpio in enumerate(seen.seats):
        if gpio is None:
            faults.append(f"seat button {seat + 1} (GPIO {pins[seat]}) was never seen pressed: check its "
                          "wiring to the pin and to GND")
        elif gpio != pins[seat]:
            seats[seat] = gpio
    if seats != pins and sorted(seats) == sorted(pins):
        faults.append("the seat buttons are wired to each other's pins: " + ", ".join(
            f"seat {seat + 1} is on GPIO {gpio}" for seat, gpio in enumerate(seats) if gpio != pins[seat]))
        fix["buttons"] = {"seats": seats}
    for gpio in seen.stuck:
        faults.append(f"the button on GPIO {gpio} is down from the start and never let go: it is stuck or "
                      "shorted to GND; free or replace it")
    oled = definition.get("oled")
    if oled and seen.oled != oled["address"]:
        if seen.oled is None:
            faults.append(f"no display answered on I2C (the definition says 0x{oled['address']:02X}): check "
                          f"SDA on GPIO {oled['sda']}, SCL on GPIO {oled['scl']} and its power")
        else:
            faults.append(f"the display answers at 0x{seen.oled:02X}, not 0x{oled['address']:02X}: its address "
                          "jumper is the other way")
            fix["oled"] = {"address": seen.oled}
    if oled:
        faults += _screen(seen)
    return Report(faults, fix or None)


def _other_buttons(buttons: dict[str, Any]) -> dict[int, str]:
    """The definition's buttons other than the knob's push, by GPIO, named as a builder knows them."""
    named = {gpio: f"seat button {seat + 1}" for seat, gpio in enumerate(buttons.get("seats", []))}
    for key, name in (("undo", "the undo button"), ("shift", "the shift button")):
        if isinstance(buttons.get(key), int):
            named.setdefault(buttons[key], name)
    return named


_WAY = {1: "clockwise", -1: "anticlockwise", 0: "nothing"}


def _knob(encoder: dict[str, Any], seen: Observed, others: dict[int, str]) -> tuple[list[str], dict[str, Any]]:
    """The knob's turns both ways and its push: the faults, and the encoder's fields that change."""
    faults: list[str] = []
    fix: dict[str, Any] = {}
    a, b = encoder["a"], encoder["b"]
    pins = f"check GPIO {a} (A) and GPIO {b} (B), each soldered to its pin of the knob, and its common pin to GND"
    turns = (seen.turned, seen.turned_back)
    if turns == (-1, 1):
        faults.append("the knob turned clockwise reads as anticlockwise: its A and B are the other way round")
        fix.update(a=b, b=a)
    elif turns == (0, 0):
        faults.append(f"the knob gave nothing when turned: {pins}")
    elif turns != (1, -1):
        faults.append(f"the knob turned clockwise read {_WAY[seen.turned]} and turned anticlockwise read "
                      f"{_WAY[seen.turned_back]}: one of its two pins does not change as it turns; {pins}")
    push = encoder.get("push")
    if push is None or seen.pushed == push:
        return faults, fix
    if seen.pushed is None:
        faults.append(f"the knob's push (GPIO {push}) was never seen pressed: check its wiring to the pin and to GND")
    elif seen.pushed in others:
        faults.append(f"pushing the knob pressed {others[seen.pushed]} (GPIO {seen.pushed}): the push is wired "
                      f"to that button's pin; move its wire to GPIO {push}")
    else:
        faults.append(f"the knob's push is on GPIO {seen.pushed}, not GPIO {push}")
        fix["push"] = seen.pushed
    return faults, fix


def _screen(seen: Observed) -> list[str]:
    """The builder's answers to the display's test patterns: each "no" a fault with what to do. None of
    them is the definition's to change: the firmware drives one display, a 128x64 SSD1306."""
    faults = []
    if seen.screen_on is False:
        faults.append("with every pixel on, the display shows dark dots or lines: those pixels or lines are "
                      "dead, the display is damaged; replace it")
    if seen.screen_checker is False:
        faults.append("the display's checkerboard shows stripes or blotches: neighbouring rows or columns are "
                      "shorted in the display's flex; replace it")
    if seen.screen_edges is False:
        faults.append("the display's frame misses a side: the display is not 128x64 (a 128x32 shows only the "
                      "top half) or its picture is offset; the firmware drives only a 128x64 SSD1306: fit one")
    return faults


def fixed(definition: dict[str, Any], fix: dict[str, Any]) -> dict[str, Any]:
    """The definition with the fix's sections changed (the rest as it was)."""
    out = copy.deepcopy(definition)
    for section, values in fix.items():
        out.setdefault(section, {}).update(values)
    return out
