"""The board's picture in a terminal, with rich, for `watch` and `show`: the
peg field as coloured holes and the OLED in half blocks or braille, or as the
rows of text it shows (read back from its pixels with the firmware's own font).
The frame and the holes' places are tallyboard.tooling.render's."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Group
from rich.text import Text

from tallypanel import boarddef

from .render import KING_HOLES, Frame, check_frame, holes, led_colour, oled_pixel


_BRAILLE_BITS = ((0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (1, 0, 0x08), (1, 1, 0x10), (1, 2, 0x20),
                 (0, 3, 0x40), (1, 3, 0x80))


def terminal(frame: Frame, braille: bool = False, as_text: bool = False) -> Any:
    """A rich renderable: the peg field as coloured holes (● lit, · dark,
    ○ a dark embossed hole), B's side on top turned round, and the OLED: with
    as_text the rows of text it shows, read back from its pixels (36 columns by
    12 lines, readable in any terminal; a screen that is not text falls back to
    pixels), else in half blocks (1 x 2 pixels a character: 128 x 32) or braille
    (2 x 4 pixels: 64 x 16)."""
    check_frame(frame)
    by_slot = {(h.player, h.row, h.hole): h for h in holes(frame.board)}

    def cell(player: int, row: str, hole: int) -> Text:
        h = by_slot[(player, row, hole)]
        colour = led_colour(frame.leds, h.led)
        if colour:
            return Text("●", style=f"bold rgb({colour[0]},{colour[1]},{colour[2]})")
        return Text("○" if h.landmark else "·", style="rgb(150,110,70)")

    def tally_lines(player: int) -> list[Text]:
        # as on the board: station and single holes 1-15, then the double
        # holes' inner lane (31 at the turn .. 45) above the outer lane (16-30)
        singles = Text("  ")
        singles.append_text(cell(player, "station", 0))
        singles.append(" ")
        for hole in range(15):
            singles.append_text(cell(player, "tally", hole))
            singles.append(" " if hole % 5 != 4 else "  ")
        inner = Text(" " * len(singles))
        outer = Text(" " * len(singles))
        for c in range(15):
            inner.append_text(cell(player, "tally", 30 + c))
            inner.append(" " if c % 5 != 4 else "  ")
            outer.append_text(cell(player, "tally", 15 + c))
            outer.append(" " if c % 5 != 4 else "  ")
        singles.append(" " * (len(outer) - len(singles)))
        return [inner, singles, outer]

    def king_line(player: int) -> Text:
        line = Text("    ")  # centred under the tally row's span
        for hole in range(KING_HOLES):
            line.append_text(cell(player, "king", hole))
            line.append("  ")
        return line

    lines: list[Text] = []
    width = 70
    for line in reversed([king_line(1)] + tally_lines(1)):  # B's side, turned round
        line.append(" " * (width - len(line)))
        lines.append(_reversed(line))
    lines.append(Text("  " + "LIVRET".center(66, "─"), style="rgb(200,170,120)"))
    lines.append(king_line(0))
    lines.extend(tally_lines(0))
    if frame.oled is not None:
        lines.append(Text(""))
        rows = oled_rows(frame.oled) if as_text else None
        if rows is not None:
            lines.extend(_oled_text(rows))
        else:
            lines.extend(_braille(frame.oled) if braille else _half_blocks(frame.oled))
    return Group(*lines)


def _oled_font() -> dict[bytes, str]:
    """The OLED's small glyphs (tallypanel/sheetview.py's _CHARS and _GLYPHS, read
    from its source: it imports framebuf) by their three column bytes."""
    if not _GLYPHS:
        import ast

        source = Path(boarddef.__file__).with_name("sheetview.py").read_text(encoding="utf-8")
        table = {}
        for node in ast.parse(source).body:
            target = node.targets[0] if isinstance(node, ast.Assign) else None
            if isinstance(node, ast.Assign) and isinstance(target, ast.Name) and target.id in (
                    "_CHARS", "_GLYPHS", "_STAR_ARMS"):
                table[target.id] = ast.literal_eval(node.value)
        for i, c in enumerate(table["_CHARS"]):
            _GLYPHS.setdefault(table["_GLYPHS"][3 * i:3 * i + 3], chr(c))
        # the big '*': a bar in columns 2-3, rows 2-7, and its arms (SheetView.__init__)
        _BIG_STAR.update((x, y) for x in (2, 3) for y in range(2, 8))
        _BIG_STAR.update((x0, y) for x, y in table["_STAR_ARMS"] for x0 in (x, 5 - x))
    return _GLYPHS


_GLYPHS: dict[bytes, str] = {}
_BIG_STAR: set[tuple[int, int]] = set()


def _big_star_at(oled: bytes, x0: int, y0: int) -> bool:
    return all(oled_pixel(oled, x0 + x, y0 + y) == ((x, y) in _BIG_STAR) for x in range(6) for y in range(10))


def _cell(oled: bytes, x0: int, y0: int, scale: int) -> bytes:
    return bytes(sum(oled_pixel(oled, x0 + scale * x, y0 + scale * j) << j for j in range(5)) for x in range(3))


def oled_rows(oled: bytes) -> list[tuple[str, bool, bool]] | None:
    """The OLED's picture read back as the rows of text it shows: (text, big,
    underlined) a row, in the screen layout (tallypanel.screen.LAYOUTS) whose
    glyphs account for every lit pixel; None when none does (not a text screen)."""
    from tallypanel import screen

    font = _oled_font()
    best = None
    for layout in screen.LAYOUTS:
        rows = []
        unknown = 0
        covered = bytearray(64)
        for r in range(len(layout) // 2):
            y, flags = layout[2 * r], layout[2 * r + 1]
            big = bool(flags & screen.BIG)
            cell_w, cols, height = (8, screen.BIG_COLS, 12) if big else (4, screen.COLS, 6)
            text = ""
            for col in range(cols):
                glyph = _cell(oled, cell_w * col, y, 2 if big else 1)
                char = font.get(glyph)
                if big and char is None and _big_star_at(oled, cell_w * col, y):
                    char = "*"
                if char is None:
                    unknown += 1
                    char = "?"
                text += char
            rows.append((text.rstrip(), big, bool(flags & screen.LINE)))
            for yy in range(y, min(64, y + height)):
                covered[yy] = 1
        lit_outside = any(oled_pixel(oled, x, yy) for yy in range(64) if not covered[yy] for x in range(0, 128, 2))
        if unknown == 0 and not lit_outside and (best is None or len(rows) < len(best)):
            best = rows
    return best


def _oled_text(rows: list[tuple[str, bool, bool]]) -> list[Any]:
    """The OLED's rows as text in a frame: a big row's characters spaced to the small rows' width."""
    style = "rgb(190,230,255) on rgb(8,10,14)"
    lines = [Text("┌" + "─" * 34 + "┐", style="rgb(11,42,74)")]
    for text, big, underlined in rows:
        shown = " ".join(text) if big else text
        line = Text("│ ", style="rgb(11,42,74)")
        line.append(shown.ljust(32)[:32], style=style + (" bold" if big else "") + (" underline" if underlined else ""))
        line.append(" │", style="rgb(11,42,74)")
        lines.append(line)
    lines.append(Text("└" + "─" * 34 + "┘", style="rgb(11,42,74)"))
    return lines


def _reversed(text: Text) -> Text:
    out = Text()
    for span_text in reversed(list(_cells(text))):
        out.append_text(span_text)
    return out


def _cells(text: Text) -> list[Text]:
    return [text[i:i + 1] for i in range(len(text))]


def _half_blocks(oled: bytes) -> list[Any]:
    rows = []
    for cy in range(32):
        chars = []
        for x in range(128):
            top = oled_pixel(oled, x, 2 * cy)
            bottom = oled_pixel(oled, x, 2 * cy + 1)
            chars.append("█" if top and bottom else "▀" if top else "▄" if bottom else " ")
        rows.append(Text("".join(chars), style="rgb(190,230,255) on rgb(8,10,14)"))
    return rows


def _braille(oled: bytes) -> list[Any]:
    rows = []
    for cy in range(16):
        chars = []
        for cx in range(64):
            bits = 0
            for dx, dy, bit in _BRAILLE_BITS:
                if oled_pixel(oled, 2 * cx + dx, 4 * cy + dy):
                    bits |= bit
            chars.append(chr(0x2800 + bits))
        rows.append(Text("".join(chars), style="rgb(190,230,255) on rgb(8,10,14)"))
    return rows


# ---------------------------------------------------------------- the bytes
