"""The guided self-test (`tallyboard board test`, issue 42): the board's self-test verbs (LAMP, PINS,
SCAN, POWER: docs/protocol.md) asked in turn, the builder asked what each showed, and what they saw
gathered for bringup.examine.

The builder is any object with ask(text) -> the line typed and say(text): the command's is the terminal,
a test's answers from the board as built (an automated builder), or presses the emulator's pins when
asked to. Waiting for a press is counted in the board's own answers (PINS asked every POLL_S), so a slow
link waits longer rather than giving up early."""
from __future__ import annotations

import time
from typing import Any, Callable, Protocol

from .bringup import Hole, Observed

ROWS = ("station", "tally", "king")
POLL_S = 0.1


class Builder(Protocol):
    def ask(self, text: str) -> str: ...

    def say(self, text: str) -> None: ...


class Asker(Protocol):
    def request(self, verb: str, *args: Any, timeout: float | None = None) -> dict[str, str]: ...


def hole_words(hole: Hole) -> str:
    """A hole as people count it: players, tally and king holes from 1."""
    player, row, number = hole
    if row == "station":
        return f"player {player + 1}'s station"
    return f"player {player + 1}'s {row} hole {number + 1}"


def parse_hole(text: str) -> Hole:
    """The hole a builder typed, as people count it: "2 tally 5", "1 k 3", "2 station" (or "2 s").
    ValueError says how to type one."""
    words = text.split()
    how = "type the hole as PLAYER ROW HOLE, e.g. '2 tally 5', '1 king 3' or '2 station'"
    if len(words) not in (2, 3) or not words[0].isdigit():
        raise ValueError(how)
    rows = [row for row in ROWS if row.startswith(words[1].lower())]
    if len(rows) != 1:
        raise ValueError(f"{words[1]!r} is no row: station, tally or king; {how}")
    row = rows[0]
    if row == "station":
        return int(words[0]) - 1, row, 0
    if len(words) != 3 or not words[2].isdigit() or int(words[2]) < 1:
        raise ValueError(how)
    return int(words[0]) - 1, row, int(words[2]) - 1


def _expected(reply: dict[str, str]) -> Hole | None:
    if reply["player"] == "-":
        return None
    return int(reply["player"]), reply["row"], int(reply["hole"])


def walk(board: Asker, builder: Builder) -> list[Hole | None]:
    """The chain LED by LED (LAMP): for each, the hole the builder saw lit, or None."""
    count = int(board.request("LAMP", 0)["of"])
    seen: list[Hole | None] = []
    builder.say(f"The LED walk: one LED of the {count} lit at a time, dim white. For each, press Enter if it "
                "is the hole named, type the hole it is in (e.g. '2 tally 5'), or n if nothing lit.")
    led = 0
    while led < count:
        expected = _expected(board.request("LAMP", led))
        named = hole_words(expected) if expected is not None else "no hole (an LED beside a button)"
        answer = builder.ask(f"LED {led + 1} of {count}: {named}?").strip()
        if answer == "":
            seen.append(expected)
        elif answer.lower() == "n":
            seen.append(None)
            rest = builder.ask("Nothing lit. Does every LED after it stay dark too (a dead LED stops the "
                               "chain)? [Y/n]").strip().lower()
            if rest in ("", "y", "yes"):
                seen.extend([None] * (count - led - 1))
                break
        else:
            try:
                seen.append(parse_hole(answer))
            except ValueError as exc:
                builder.say(str(exc))
                continue
        led += 1
    return seen


def _pressed(reply: dict[str, str]) -> list[int]:
    return [] if reply["pressed"] == "-" else [int(g) for g in reply["pressed"].split(",")]


def _down(reply: dict[str, str]) -> set[int]:
    return set() if reply["down"] == "-" else {int(g) for g in reply["down"].split(",")}


def wait_for(board: Asker, seen: Callable[[dict[str, str]], Any], wait_s: float,
             sleep: Callable[[float], None] = time.sleep) -> Any:
    """PINS asked until seen(its reply) is something, at most wait_s / POLL_S times; None if never."""
    for _ in range(max(1, round(wait_s / POLL_S))):
        found = seen(board.request("PINS"))
        if found:
            return found
        sleep(POLL_S)
    return None


def controls(board: Asker, builder: Builder, seats: int, knob: bool, wait_s: float,
             sleep: Callable[[float], None] = time.sleep) -> tuple[list[int | None], int, list[int]]:
    """Each seat button asked for in turn and a clockwise turn of the knob: the GPIO seen pressed for each
    seat (None: none in time), the knob's direction (+1, -1, 0: nothing), the buttons down throughout."""
    down_at_start = _down(board.request("PINS"))
    found: list[int | None] = []
    for seat in range(seats):
        builder.say(f"Press seat {seat + 1}'s button (and let go).")
        gpio = wait_for(board, lambda reply: [g for g in _pressed(reply) if g not in down_at_start], wait_s, sleep)
        found.append(gpio[0] if gpio else None)
    turned = 0
    if knob:
        builder.say("Turn the knob one click clockwise.")
        detents = wait_for(board, lambda reply: int(reply["turned"]), wait_s, sleep)
        turned = 0 if not detents else 1 if detents > 0 else -1
    stuck = sorted(down_at_start & _down(board.request("PINS")))
    return found, turned, stuck


def oled(board: Asker) -> int | None:
    """The address the display answers at (SCAN): the definition's if it is among those found."""
    reply = board.request("SCAN")
    if reply["found"] == "-":
        return None
    found = [int(a, 16) for a in reply["found"].split(",")]
    want = None if reply["want"] == "-" else int(reply["want"], 16)
    return want if want in found else found[0]


def run(board: Asker, definition: dict[str, Any], builder: Builder, wait_s: float = 10.0,
        sleep: Callable[[float], None] = time.sleep) -> Observed:
    """The whole self-test, ended (LAMP -) whatever happens: what the builder and the board saw."""
    try:
        holes = walk(board, builder)
        seats = len(definition.get("buttons", {}).get("seats", []))
        found, turned, stuck = controls(board, builder, seats, bool(definition.get("encoder")), wait_s, sleep)
        address = oled(board) if definition.get("oled") else None
        power = board.request("POWER")
        builder.say(f"Current: every LED white at full brightness would draw {power['full']} mA against the "
                    f"budget's {power['budget']} mA; the budget allows brightness {power['allows']} of 255.")
    finally:
        board.request("LAMP", "-")
    return Observed(holes, turned, found, stuck, address)
