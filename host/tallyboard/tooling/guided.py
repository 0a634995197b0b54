"""The guided self-test (`tallyboard board test`, issue 42): the board's self-test verbs (LAMP, PINS,
SCAN, PIXELS, POWER: docs/protocol.md) asked in turn, the builder asked what each showed, and what they
saw gathered for bringup.examine.

The builder is any object with ask(text) -> the line typed and say(text): the command's is the terminal,
a test's answers from the board as built (an automated builder), or presses the emulator's pins when
asked to. A builder that also has show(picture) is shown, during the LED walk, the board with only the
expected hole lit (a rich renderable drawn by `tallyboard show`'s terminal renderer from the definition
alone: HolePictures); one without it is not. Waiting for a press is counted in the board's own answers
(PINS asked every POLL_S), so a slow link waits longer rather than giving up early."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from tallypanel import boarddef
from tallyrun.protocol import PIXEL_PATTERNS
from tallypanel.boarddef import BoardDef

from ..common.errors import BoardError
from .bringup import Hole, Observed
from .render import Frame
from .render_terminal import terminal

ROWS = ("station", "tally", "king")
POLL_S = 0.1


class Builder(Protocol):
    def ask(self, text: str) -> str: ...

    def say(self, text: str) -> None: ...


class ShowsPictures(Protocol):
    """A builder that can be shown a picture (optional: the walk asks getattr(builder, "show"))."""

    def show(self, picture: Any) -> None: ...


WALK_LEVEL = 24     # the walk's white, each channel (tallypanel.selftest._LEVEL): the picture's lit LED


class HolePictures:
    """The board with one LED lit, dim white as LAMP lights it, drawn by `tallyboard show`'s terminal
    renderer (render_terminal.terminal) from the board definition alone: no board round trip and no
    MicroPython (the frame is only that LED's three bytes), a few milliseconds a picture."""

    def __init__(self, board: BoardDef):
        self.board = board

    def lit(self, led: int) -> Any:
        """The picture (a rich renderable: the peg field, no OLED) with only LED led lit."""
        leds = bytearray(3 * self.board.led_count)
        leds[3 * led:3 * led + 3] = bytes((WALK_LEVEL, WALK_LEVEL, WALK_LEVEL))
        return terminal(Frame(self.board, bytes(leds), None, f"LED {led + 1}"))


def hole_pictures(definition: dict[str, Any]) -> HolePictures | None:
    """The walk's pictures for a definition, or None when it does not load (its faults are
    `tallyboard board check`'s to name)."""
    try:
        return HolePictures(boarddef.from_dict(definition))
    except (ValueError, TypeError):
        return None


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


def walk(board: Asker, builder: Builder, pictures: HolePictures | None = None) -> list[Hole | None]:
    """The chain LED by LED (LAMP): for each, the hole the builder saw lit, or None. A builder with
    show(picture) is shown each LED's expected hole lit, when pictures are given."""
    count = int(board.request("LAMP", 0)["of"])
    show: Callable[[Any], None] | None = getattr(builder, "show", None)
    if pictures is not None and pictures.board.led_count != count:
        pictures = None          # the board runs another chain than the definition tested against
    seen: list[Hole | None] = []
    builder.say(f"The LED walk: one LED of the {count} lit at a time, dim white. For each, press Enter if it "
                "is the hole named, type the hole it is in (e.g. '2 tally 5'), or n if nothing lit.")
    led = 0
    while led < count:
        expected = _expected(board.request("LAMP", led))
        named = hole_words(expected) if expected is not None else "no hole (an LED beside a button)"
        if show is not None and pictures is not None:
            show(pictures.lit(led))
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


@dataclass
class Controls:
    """What the buttons and the knob gave (controls()): the GPIO seen pressed for each seat (None: none in
    time), the knob's direction read when turned clockwise and when turned anticlockwise (+1, -1, 0:
    nothing), the GPIO seen pressed when the knob was pushed (None: none), the buttons down throughout."""
    seats: list[int | None]
    turned: int
    turned_back: int
    pushed: int | None
    stuck: list[int]


def _direction(detents: int | None) -> int:
    return 0 if not detents else 1 if detents > 0 else -1


def controls(board: Asker, builder: Builder, seats: int, knob: bool, wait_s: float,
             sleep: Callable[[float], None] = time.sleep) -> Controls:
    """Each seat button asked for in turn, then the knob turned one click clockwise, one click
    anticlockwise and pushed, each waited for at most wait_s."""
    down_at_start = _down(board.request("PINS"))

    def newly_pressed(reply: dict[str, str]) -> list[int]:
        return [g for g in _pressed(reply) if g not in down_at_start]

    found: list[int | None] = []
    for seat in range(seats):
        builder.say(f"Press seat {seat + 1}'s button (and let go).")
        gpio = wait_for(board, newly_pressed, wait_s, sleep)
        found.append(gpio[0] if gpio else None)
    turned = turned_back = 0
    pushed: int | None = None
    if knob:
        builder.say("Turn the knob one click clockwise.")
        turned = _direction(wait_for(board, lambda reply: int(reply["turned"]), wait_s, sleep))
        builder.say("Turn the knob one click anticlockwise.")
        turned_back = _direction(wait_for(board, lambda reply: int(reply["turned"]), wait_s, sleep))
        builder.say("Push the knob (and let go).")
        gpio = wait_for(board, newly_pressed, wait_s, sleep)
        pushed = gpio[0] if gpio else None
    stuck = sorted(down_at_start & _down(board.request("PINS")))
    return Controls(found, turned, turned_back, pushed, stuck)


def oled(board: Asker) -> int | None:
    """The address the display answers at (SCAN): the definition's if it is among those found."""
    reply = board.request("SCAN")
    if reply["found"] == "-":
        return None
    found = [int(a, 16) for a in reply["found"].split(",")]
    want = None if reply["want"] == "-" else int(reply["want"], 16)
    return want if want in found else found[0]


# PIXELS' patterns (the firmware's protocol.PIXEL_PATTERNS: all on, the checkerboard, the edges), each with
# the question, in their order, that asks whether the display showed it whole
_QUESTIONS = (
    "Is every pixel of the display lit, with no dark dots or lines? [Y/n]",
    "A fine even grey checkerboard, with no stripes or blotches? [Y/n]",
    "A frame along all four edges, every side whole? [Y/n]",
)
PATTERNS = tuple(zip((word.decode() for word in PIXEL_PATTERNS), _QUESTIONS, strict=True))


def yes(builder: Builder, question: str) -> bool:
    """A yes-or-no question asked until answered: Enter or y is yes, n is no."""
    while True:
        answer = builder.ask(question).strip().lower()
        if answer in ("", "y", "yes"):
            return True
        if answer in ("n", "no"):
            return False
        builder.say("Answer y (or Enter) for yes, n for no.")


def display_patterns(board: Asker, builder: Builder) -> list[bool | None]:
    """Each PIXELS pattern drawn on the display and the builder asked whether it showed whole (None: the
    board could not draw it, and says why)."""
    builder.say("The display: three test patterns, one at a time. Look closely at each.")
    answers: list[bool | None] = []
    for pattern, question in PATTERNS:
        try:
            board.request("PIXELS", pattern)
        except BoardError as exc:
            builder.say(f"The display could not show its test patterns: {exc}")
            return answers + [None] * (len(PATTERNS) - len(answers))
        answers.append(yes(builder, question))
    return answers


def run(board: Asker, definition: dict[str, Any], builder: Builder, wait_s: float = 10.0,
        sleep: Callable[[float], None] = time.sleep) -> Observed:
    """The whole self-test, ended (LAMP -) whatever happens: what the builder and the board saw."""
    pictures = hole_pictures(definition) if hasattr(builder, "show") else None
    try:
        holes = walk(board, builder, pictures)
        seats = len(definition.get("buttons", {}).get("seats", []))
        knob = controls(board, builder, seats, bool(definition.get("encoder")), wait_s, sleep)
        display = definition.get("oled")
        address = oled(board) if display else None
        patterns: list[bool | None] = [None] * len(PATTERNS)
        if display and address is not None and address == display.get("address"):
            patterns = display_patterns(board, builder)
        power = board.request("POWER")
        builder.say(f"Current: every LED white at full brightness would draw {power['full']} mA against the "
                    f"budget's {power['budget']} mA; the budget allows brightness {power['allows']} of 255.")
    finally:
        board.request("LAMP", "-")
    screen_on, screen_checker, screen_edges = patterns
    return Observed(holes, knob.turned, knob.seats, knob.stuck, address, turned_back=knob.turned_back,
                    pushed=knob.pushed, screen_on=screen_on, screen_checker=screen_checker,
                    screen_edges=screen_edges)
