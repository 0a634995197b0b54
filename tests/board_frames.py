"""What a board shows, compared pixel for pixel: its LED frame (GRB bytes in
chain order, as on the WS2812 wire) and its OLED's 1024-byte display RAM
(page-ordered: byte page * 128 + column, bit 0 the page's top row), read from
the emulator's stand-ins or the device twin's models. A difference names the
OLED's pixel rows and the LEDs that differ and leaves both frames as PNGs
(tallyboard.tooling.render, the pictures of `tallyboard show`) for a person to look at.

The display has caught up with the board's game when it shows what the
firmware's own view composes for that game (render.frame_for_game: the same
tallypanel.view run by the MicroPython unix port): the painter draws after
the reply, once the host is quiet, so a frame read at once may be the one
before."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tallyboard.tooling import render
from tallyrun import protocol
from waiting import NotInTime, until

OLED_BYTES = 1024
OLED_WIDTH = 128
OLED_ROWS = 64
POLL_S = 0.02       # how often a frame is read again while waiting for one


@dataclass(frozen=True)
class Shown:
    """One moment of a board's display."""
    leds: bytes
    oled: bytes


def oled_rows_differing(a: bytes, b: bytes) -> list[int]:
    """The pixel rows (0 at the top) where two display RAMs differ."""
    rows: set[int] = set()
    for at in range(min(len(a), len(b), OLED_BYTES)):
        bits = a[at] ^ b[at]
        if bits:
            page = at // OLED_WIDTH
            rows.update(8 * page + bit for bit in range(8) if bits >> bit & 1)
    if len(a) != len(b):
        rows.update(range(8 * (min(len(a), len(b)) // OLED_WIDTH), OLED_ROWS))
    return sorted(rows)


def oled_columns_differing(a: bytes, b: bytes) -> list[int]:
    return sorted({at % OLED_WIDTH for at in range(min(len(a), len(b))) if a[at] != b[at]})


def leds_differing(a: bytes, b: bytes) -> list[int]:
    """The LEDs (chain index) whose three bytes differ; an LED one frame lacks differs."""
    count = max(len(a), len(b)) // 3
    return [i for i in range(count) if a[3 * i:3 * i + 3] != b[3 * i:3 * i + 3]]


def spans(numbers: list[int]) -> str:
    """[0, 1, 2, 7, 9, 10] -> '0-2, 7, 9-10'."""
    out: list[str] = []
    for n in numbers:
        if out and n == last + 1:
            first = out[-1].split("-")[0]
            out[-1] = f"{first}-{n}"
        else:
            out.append(str(n))
        last = n
    return ", ".join(out)


def grb(leds: bytes, led: int) -> str:
    part = leds[3 * led:3 * led + 3]
    return "GRB " + ",".join(str(v) for v in part) if len(part) == 3 else "none"


def difference(expected: Shown, got: Shown) -> str:
    """The differences in words ('' when the two are the same)."""
    words = []
    rows = oled_rows_differing(expected.oled, got.oled)
    if rows:
        columns = oled_columns_differing(expected.oled, got.oled)
        words.append(f"OLED rows {spans(rows)} differ (columns {spans(columns) or '-'}"
                     + (f"; RAM {len(got.oled)} bytes, not {len(expected.oled)}" if len(got.oled) != len(expected.oled)
                        else "") + ")")
    leds = leds_differing(expected.leds, got.leds)
    if leds:
        shown = ", ".join(f"{i} ({grb(expected.leds, i)} / {grb(got.leds, i)})" for i in leds[:6])
        words.append(f"LEDs {spans(leds)} differ: {shown}" + (" ..." if len(leds) > 6 else "")
                     + (f"; frame {len(got.leds)} bytes, not {len(expected.leds)}"
                        if len(got.leds) != len(expected.leds) else ""))
    return "; ".join(words)


def write_pngs(board, folder: Path, stem: str, frames: dict[str, Shown]) -> list[Path]:
    """Each frame as a PNG of the board (tallyboard show's picture), named
    stem-<name>.png in folder."""
    folder.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.+-]+", "-", stem).strip("-")
    paths = []
    for name, shown in frames.items():
        path = folder / f"{safe}-{name}.png"
        leds = shown.leds.ljust(3 * board.led_count, b"\0")[:3 * board.led_count]
        oled = shown.oled.ljust(OLED_BYTES, b"\0")[:OLED_BYTES] if board.has_oled else None
        render.png(render.Frame(board, leds, oled, f"{stem}: {name}"), path)
        paths.append(path)
    return paths


def mismatch(board, folder: Path, stem: str, expected_name: str, expected: Shown,
             got_name: str, got: Shown) -> str:
    """A failure's message: what differs, and where the two pictures are."""
    paths = write_pngs(board, folder, stem, {expected_name: expected, got_name: got})
    return (f"{stem}: {got_name} differs from {expected_name}: {difference(expected, got)}; "
            f"pictures: {', '.join(str(p) for p in paths)}")


def wait_for(read: Callable[[], Shown], expected: Shown, seconds: float) -> tuple[bool, Shown]:
    """Read the display until it shows expected, for at most seconds; whether
    it did, and the last frame read."""
    last: list[Shown] = []

    def shows() -> bool:
        last[:] = [read()]
        return last[0] == expected

    try:
        until(shows, seconds, "the expected frame", every=POLL_S)
    except NotInTime:
        return False, last[0]
    return True, last[0]


class Composer:
    """The frame the firmware composes for the game on a connected board
    (tallyboard.boardlink.client.Board), with the board's display settings, read once."""

    def __init__(self, board, board_name: str) -> None:
        self.board_name = board_name
        self.names = [board.cfg_get("name", p) for p in range(protocol.MAX_PLAYERS)]
        self.colours = [int(board.cfg_get("colour", p), 16) for p in range(protocol.MAX_PLAYERS)]
        self.brightness = int(board.cfg_get("brightness"))
        self.budget = int(board.cfg_get("budget_ma"))

    def compose(self, board) -> Shown:
        game = board.rebuild()
        frame = render.frame_for_game(self.board_name, game.name, game.players or 0, game.options, game.log,
                                      game.top - game.n, self.names, self.colours, self.brightness,
                                      self.budget, held=game.held,
                                      accepted=[] if game.game is None else
                                      [game.game.accepted_by(i) for i in range(game.n)])   # in the chain head
        return Shown(frame.leds, frame.oled or b"")
