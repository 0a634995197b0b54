"""Pictures of the board: the exact LED frame and OLED buffer the firmware
shows, drawn as the physical board (PNG with Pillow, SVG as text; the
terminal's rendering with rich is tallyboard.tooling.render_terminal).

Layout (A. T. Dana's Roquet board, docs/rules.md RQ2): two sides, player
A at the near edge and player B at the far edge (turned round, as he sits);
on each side the tally row outside (15 single holes, then the double holes'
outer and inner lanes, in divisions of five, the station hole before the
first), the king row inside (20 larger holes, 5 to 100), the livret space in
the middle. The OLED is drawn beside the board, pixel for pixel.

Where the bytes come from (`frame_for_record`, `frame_for_board`): the
firmware's own tallypanel.view, run by the MicroPython unix port
(frame_dump.py), so the picture is byte for byte what the board shows; or
the emulator's leds.bin / oled.bin."""
from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable, Sequence

from tallypanel import boarddef
from tallypanel.boarddef import BoardDef

from ..common.errors import TallyboardError
from .mpunix import core_path, micropython_binary

OLED_BYTES = 1024
PX_PER_INCH = 80
BOARD_W, BOARD_H = 13 * PX_PER_INCH, 8 * PX_PER_INCH   # Dana's board, 13 x 8 in
OLED_SCALE = 2
PANEL_X = BOARD_W + 40
WIDTH = PANEL_X + 128 * OLED_SCALE + 24 + 40
HEIGHT = BOARD_H
WOOD = (139, 90, 43)
WOOD_DARK = (110, 68, 30)
HOLE = (48, 30, 16)
OLED_ON = (190, 230, 255)
OLED_OFF = (8, 10, 14)
LABEL = (240, 220, 180)

_TALLY_X0 = 110           # column 0 of the tally row
_TALLY_PITCH = 28
_GROUP_GAP = 8            # divisions of five
_STATION_X = 66
_OUTER_Y = BOARD_H - 70   # player A's outer lane (nearest the edge)
_LANE_GAP = 26
_KING_Y = _OUTER_Y - _LANE_GAP - 66
_TALLY_R = 7
_KING_R = 11

# the holes of each side's rows, as the board definition numbers its slots
TALLY_HOLES = boarddef.KING - boarddef.TALLY              # 45
KING_HOLES = boarddef.SLOTS_PER_PLAYER - boarddef.KING    # 20


@dataclass
class Hole:
    x: float
    y: float
    r: float
    player: int
    row: str           # "station", "tally" or "king"
    hole: int
    led: int
    landmark: bool = False


@dataclass
class Frame:
    """What the board shows: the LED chain's bytes (GRB, chain order) and the
    OLED's 1024-byte page-ordered buffer (None: the board has no OLED)."""
    board: BoardDef
    leds: bytes
    oled: bytes | None
    title: str = ""


def _column_x(column: int) -> float:
    return _TALLY_X0 + column * _TALLY_PITCH + (column // 5) * _GROUP_GAP


def holes(board: BoardDef) -> list[Hole]:
    """Every hole of the field with its position on the picture and its LED."""
    out: list[Hole] = []
    king_span = _column_x(29) - _TALLY_X0
    for player in range(2):
        def place(x: float, y: float) -> tuple[float, float]:
            # player B sits across the table: his side is player A's turned round
            return (x, y) if player == 0 else (BOARD_W - x, BOARD_H - y)
        single_y = _OUTER_Y - _LANE_GAP / 2
        x, y = place(_STATION_X, single_y)
        out.append(Hole(x, y, _TALLY_R + 1, player, "station", 0, board.led(player, boarddef.STATION, 0)))
        for hole in range(TALLY_HOLES):
            if hole < 15:
                column, lane_y = hole, single_y                     # single holes 1..15
            elif hole < 30:
                column, lane_y = hole, _OUTER_Y                     # outer lane 16..30
            else:
                column, lane_y = 15 + hole - 30, _OUTER_Y - _LANE_GAP  # inner lane, 31 at the turn
            x, y = place(_column_x(column), lane_y)
            out.append(Hole(x, y, _TALLY_R, player, "tally", hole, board.led(player, boarddef.TALLY, hole),
                            hole in boarddef.EMBOSSED_HOLES))
        for hole in range(KING_HOLES):
            x, y = place(_TALLY_X0 + hole * king_span / 19, _KING_Y)
            out.append(Hole(x, y, _KING_R, player, "king", hole, board.led(player, boarddef.KING, hole)))
    return out


def led_colour(leds: bytes, led: int) -> tuple[int, int, int] | None:
    """The LED's colour as a picture shows it (None: dark). The hue is the
    LED's own; the intensity is relative to the brightest channel of the
    frame, brightened with a square-root curve: a WS2812 at 4 of 255
    already glows plainly in a room, while a picture at 4 of 255 is black."""
    at = 3 * led
    if at + 3 > len(leds):
        return None
    g, r, b = leds[at], leds[at + 1], leds[at + 2]
    top = max(r, g, b)
    if top == 0:
        return None
    brightest = max(leds)
    scale = 255 * (top / brightest) ** 0.5 / top
    return (min(255, round(r * scale)), min(255, round(g * scale)), min(255, round(b * scale)))


def _hex(rgb: Sequence[int]) -> str:
    return "#%02x%02x%02x" % tuple(rgb)


def oled_pixel(oled: bytes, x: int, y: int) -> bool:
    return bool(oled[(y >> 3) * 128 + x] >> (y & 7) & 1)


def _labels() -> list[tuple[float, float, str, int, int]]:
    """(x, y, text, size, rotation) for the printed parts of the board."""
    out: list[tuple[float, float, str, int, int]] = []
    king_span = _column_x(29) - _TALLY_X0
    for player in range(2):
        for hole in range(KING_HOLES):
            x = _TALLY_X0 + hole * king_span / 19
            y = _KING_Y + 24
            if player:
                x, y = BOARD_W - x, BOARD_H - y
            out.append((x, y, str(5 * (hole + 1)), 11, 180 * player))
        for column, text in ((14, "15"), (29, "30")):
            x, y = _column_x(column), _OUTER_Y + 20
            if player:
                x, y = BOARD_W - x, BOARD_H - y
            out.append((x, y, text, 10, 180 * player))
    return out


def check_frame(frame: Frame) -> None:
    if len(frame.leds) != 3 * frame.board.led_count:
        raise TallyboardError(f"the LED frame has {len(frame.leds)} bytes; board {frame.board.name} "
                              f"has {frame.board.led_count} LEDs ({3 * frame.board.led_count} bytes)")
    if frame.oled is not None and len(frame.oled) != OLED_BYTES:
        raise TallyboardError(f"the OLED buffer has {len(frame.oled)} bytes, not {OLED_BYTES}")


# ---------------------------------------------------------------- SVG

def svg(frame: Frame) -> str:
    check_frame(frame)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="Georgia, serif">',
             f'<title>{_esc(frame.title or "tallyboard")}</title>',
             '<defs><filter id="glow" x="-100%" y="-100%" width="300%" height="300%">'
             '<feGaussianBlur stdDeviation="5"/></filter></defs>',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#1c1c1c"/>',
             f'<rect x="8" y="8" width="{BOARD_W - 16}" height="{BOARD_H - 16}" rx="18" '
             f'fill="{_hex(WOOD)}" stroke="{_hex(WOOD_DARK)}" stroke-width="6"/>']
    lx0, lx1 = _TALLY_X0 - 20, _column_x(29) + 20
    ly0, ly1 = BOARD_H - _KING_Y + 40, _KING_Y - 40
    parts.append(f'<rect x="{lx0}" y="{ly0}" width="{lx1 - lx0}" height="{ly1 - ly0}" rx="10" '
                 f'fill="{_hex(WOOD_DARK)}" stroke="{_hex(LABEL)}" stroke-opacity="0.4"/>')
    parts.append(f'<text x="{(lx0 + lx1) / 2}" y="{BOARD_H / 2 - 8}" text-anchor="middle" font-size="30" '
                 f'fill="{_hex(LABEL)}" letter-spacing="8">LIVRET</text>')
    parts.append(f'<text x="{(lx0 + lx1) / 2}" y="{BOARD_H / 2 + 22}" text-anchor="middle" font-size="13" '
                 f'fill="{_hex(LABEL)}">ROQUET · DANA\'S PAT.</text>')
    for x, y, text, size, rotation in _labels():
        parts.append(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle" dominant-baseline="middle" '
                     f'font-size="{size}" fill="{_hex(LABEL)}" transform="rotate({rotation} {x:.1f} {y:.1f})">'
                     f'{text}</text>')
    glows = []
    for h in holes(frame.board):
        colour = led_colour(frame.leds, h.led)
        at = 3 * h.led
        tip = (f"player {'AB'[h.player]} {h.row} hole {h.hole} - LED {h.led} "
               f"GRB {frame.leds[at]},{frame.leds[at + 1]},{frame.leds[at + 2]}")
        ring = f' stroke="{_hex(LABEL)}" stroke-width="1.5"' if h.landmark else ""
        fill = _hex(colour) if colour else _hex(HOLE)
        parts.append(f'<circle cx="{h.x:.1f}" cy="{h.y:.1f}" r="{h.r}" fill="{fill}"{ring}>'
                     f'<title>{tip}</title></circle>')
        if colour:
            glows.append(f'<circle cx="{h.x:.1f}" cy="{h.y:.1f}" r="{h.r * 1.8:.1f}" fill="{fill}" '
                         f'opacity="0.55" filter="url(#glow)"/>')
    parts.extend(glows)
    parts.extend(_svg_oled(frame))
    lines = caption_lines(frame.title, lambda text: len(text) * _SVG_CHAR_W)
    for i, line in enumerate(lines):
        parts.append(f'<text x="{PANEL_X}" y="{HEIGHT - 24 - CAPTION_STEP * (len(lines) - 1 - i)}" '
                     f'font-size="14" fill="#cccccc">{_esc(line)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _svg_oled(frame: Frame) -> list[str]:
    x0, y0 = PANEL_X + 12, (HEIGHT - 64 * OLED_SCALE) // 2
    parts = [f'<rect x="{PANEL_X}" y="{y0 - 12}" width="{128 * OLED_SCALE + 24}" '
             f'height="{64 * OLED_SCALE + 24}" rx="6" fill="#0b2a4a"/>',
             f'<rect x="{x0}" y="{y0}" width="{128 * OLED_SCALE}" height="{64 * OLED_SCALE}" '
             f'fill="{_hex(OLED_OFF)}"/>']
    if frame.oled is None:
        parts.append(f'<text x="{x0 + 64 * OLED_SCALE}" y="{y0 + 32 * OLED_SCALE}" text-anchor="middle" '
                     f'font-size="14" fill="#888888">no OLED on this board</text>')
        return parts
    parts.append(f'<g fill="{_hex(OLED_ON)}">')
    for y in range(64):
        x = 0
        while x < 128:
            if oled_pixel(frame.oled, x, y):
                start = x
                while x < 128 and oled_pixel(frame.oled, x, y):
                    x += 1
                parts.append(f'<rect x="{x0 + start * OLED_SCALE}" y="{y0 + y * OLED_SCALE}" '
                             f'width="{(x - start) * OLED_SCALE}" height="{OLED_SCALE}"/>')
            x += 1
    parts.append("</g>")
    parts.append(f'<text x="{x0}" y="{y0 + 64 * OLED_SCALE + 34}" font-size="12" fill="#aaaaaa">'
                 f'SSD1306 128x64 (drawn x{OLED_SCALE})</text>')
    return parts


CAPTION_W = WIDTH - PANEL_X - 16     # the caption's room, right of the board, short of the edge
CAPTION_STEP = 17                    # between its lines
_SVG_CHAR_W = 8.5                    # a 14 px serif character at its widest (a viewer measures, not we)


def caption_lines(title: str, width: Callable[[str], float]) -> list[str]:
    """The caption in lines that fit CAPTION_W as width() measures them: broken at
    spaces, and a word longer than a line (a path) after a '/' or, at worst, anywhere."""
    lines: list[str] = []
    line = ""
    for word in title.split():
        joined = f"{line} {word}" if line else word
        if width(joined) <= CAPTION_W:
            line = joined
            continue
        if line:
            lines.append(line)
        line = ""
        while width(word) > CAPTION_W:
            cut = len(word) - 1
            while cut > 1 and width(word[:cut]) > CAPTION_W:
                cut -= 1
            slash = word.rfind("/", 0, cut)
            cut = slash + 1 if slash > 0 else cut
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    if line:
        lines.append(line)
    return lines


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# ---------------------------------------------------------------- PNG

def png(frame: Frame, path: str | Path | BinaryIO) -> None:
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    check_frame(frame)
    image = Image.new("RGB", (WIDTH, HEIGHT), (28, 28, 28))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((8, 8, BOARD_W - 8, BOARD_H - 8), radius=18, fill=WOOD, outline=WOOD_DARK, width=6)
    lx0, lx1 = _TALLY_X0 - 20, _column_x(29) + 20
    ly0, ly1 = BOARD_H - _KING_Y + 40, _KING_Y - 40
    draw.rounded_rectangle((lx0, ly0, lx1, ly1), radius=10, fill=WOOD_DARK, outline=(170, 140, 100))
    big = _font(ImageFont, 30)
    small = _font(ImageFont, 13)
    tiny = _font(ImageFont, 11)
    draw.text(((lx0 + lx1) / 2, BOARD_H / 2 - 10), "L I V R E T", fill=LABEL, font=big, anchor="mm")
    draw.text(((lx0 + lx1) / 2, BOARD_H / 2 + 22), "ROQUET - DANA'S PAT.", fill=LABEL, font=small, anchor="mm")
    for x, y, text, size, rotation in _labels():
        if rotation:
            label = Image.new("RGBA", (40, 20), (0, 0, 0, 0))
            ImageDraw.Draw(label).text((20, 10), text, fill=LABEL, font=tiny, anchor="mm")
            label = label.rotate(180)
            image.paste(label, (round(x - 20), round(y - 10)), label)
        else:
            draw.text((x, y), text, fill=LABEL, font=tiny, anchor="mm")
    glow = Image.new("RGB", (WIDTH, HEIGHT), (0, 0, 0))
    glow_draw = ImageDraw.Draw(glow)
    spots = []
    for h in holes(frame.board):
        colour = led_colour(frame.leds, h.led)
        box = (h.x - h.r, h.y - h.r, h.x + h.r, h.y + h.r)
        if colour:
            g = h.r * 2.0
            glow_draw.ellipse((h.x - g, h.y - g, h.x + g, h.y + g), fill=colour)
            spots.append((box, colour, h.landmark))
        else:
            draw.ellipse(box, fill=HOLE, outline=LABEL if h.landmark else None, width=2 if h.landmark else 0)
    glow = glow.filter(ImageFilter.GaussianBlur(6))
    image = Image.blend(image, Image.composite(glow, image, glow.convert("L").point(lambda v: min(255, v * 3))),
                        0.6)
    draw = ImageDraw.Draw(image)
    for box, colour, landmark in spots:
        draw.ellipse(box, fill=colour, outline=LABEL if landmark else None, width=2 if landmark else 0)
    _png_oled(frame, draw, small)
    lines = caption_lines(frame.title, small.getlength)
    for i, line in enumerate(lines):
        draw.text((PANEL_X, HEIGHT - 30 - CAPTION_STEP * (len(lines) - 1 - i)), line, fill=(204, 204, 204),
                  font=small)
    image.save(path, format="PNG")


def _png_oled(frame: Frame, draw: Any, font: Any) -> None:
    x0, y0 = PANEL_X + 12, (HEIGHT - 64 * OLED_SCALE) // 2
    draw.rounded_rectangle((PANEL_X, y0 - 12, PANEL_X + 128 * OLED_SCALE + 24, y0 + 64 * OLED_SCALE + 12),
                           radius=6, fill=(11, 42, 74))
    draw.rectangle((x0, y0, x0 + 128 * OLED_SCALE - 1, y0 + 64 * OLED_SCALE - 1), fill=OLED_OFF)
    if frame.oled is None:
        draw.text((x0 + 64 * OLED_SCALE, y0 + 32 * OLED_SCALE), "no OLED on this board", fill=(136, 136, 136),
                  font=font, anchor="mm")
        return
    for y in range(64):
        for x in range(128):
            if oled_pixel(frame.oled, x, y):
                draw.rectangle((x0 + x * OLED_SCALE, y0 + y * OLED_SCALE,
                                x0 + (x + 1) * OLED_SCALE - 1, y0 + (y + 1) * OLED_SCALE - 1), fill=OLED_ON)
    draw.text((x0, y0 + 64 * OLED_SCALE + 22), f"SSD1306 128x64 (drawn x{OLED_SCALE})", fill=(170, 170, 170),
              font=font)


def _font(image_font: Any, size: int) -> Any:
    for name in ("DejaVuSerif.ttf", "DejaVuSans.ttf", "LiberationSerif-Regular.ttf"):
        try:
            return image_font.truetype(name, size)
        except OSError:
            continue
    try:
        return image_font.load_default(size)
    except TypeError:  # Pillow < 10.1
        return image_font.load_default()


def find_board(name: str) -> BoardDef:
    """A board definition by name, from the checkout's board/ folder."""
    from . import fileset

    folder = fileset.board_dir()
    if folder is None:
        raise TallyboardError("no board definitions found (board/ in the checkout)")
    try:
        return boarddef.find(name, str(folder))
    except ValueError as exc:
        raise TallyboardError(f"{exc}; the definitions are in {folder}") from None


def board_on_flash(flash: Path, name: str) -> BoardDef:
    """The definition the board itself runs: board/NAME.json on its flash (the
    emulator's flash folder), which may differ from the checkout's."""
    try:
        return boarddef.find(name, str(Path(flash) / "board"))
    except ValueError as exc:
        raise TallyboardError(f"the board's own definition: {exc}; it runs without its display "
                              f"until one is set with tallyboard config set board NAME") from None


def board_file(name: str) -> Path:
    from . import fileset

    find_board(name)
    folder = fileset.board_dir()
    assert folder is not None
    return folder / f"{name}.json"


def frame_for_game(board_name: str, game: str | None, players: int, options: int, events: Sequence[int],
                   undone: int = 0, names: Sequence[str] = (), colours: Sequence[int] = (),
                   brightness: int = 64, budget_ma: int = 500, title: str = "",
                   held: tuple[int, int] | None = None, entry: Sequence[str] | None = None,
                   accepted: Sequence[int] = ()) -> Frame:
    """The exact frame the firmware shows for a game: its own tallypanel.view
    run by the MicroPython unix port (frame_dump.py). accepted: who accepted
    each event (-1: nobody), which the game's chain head on the OLED covers."""
    from tallyrun import protocol

    board = find_board(board_name)
    spec = {"board_file": str(board_file(board_name)), "game": game, "players": players,
            "options": options, "events": list(events), "undone": undone,
            "held": list(held) if held else None, "entry": list(entry) if entry else None,
            "accepted": list(accepted),
            "names": list(names) or ["P%d" % (p + 1) for p in range(protocol.MAX_PLAYERS)],
            "colours": list(colours) or list(protocol.PLAYER_COLOURS),
            "brightness": brightness, "budget_ma": budget_ma}
    with tempfile.TemporaryDirectory() as tmp:
        spec_path = Path(tmp) / "spec.json"
        spec_path.write_text(json.dumps(spec))
        import os
        env = dict(os.environ, MICROPYPATH=str(core_path()))
        result = subprocess.run([micropython_binary(), str(Path(__file__).with_name("frame_dump.py")),
                                 str(spec_path)], capture_output=True, text=True, timeout=60, env=env)
    out = {}
    for line in result.stdout.splitlines():
        key, _, value = line.partition(" ")
        out[key] = value
    if result.returncode != 0 or "leds" not in out:
        problem = out.get("error") or (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise TallyboardError(f"the firmware could not draw this game: {problem}")
    oled = None if out.get("oled", "-") == "-" else bytes.fromhex(out["oled"])
    return Frame(board, bytes.fromhex(out["leds"]), oled, title)


def frame_for_loaded(loaded: Any, board_name: str = "pico-reference", brightness: int = 64,
                     budget_ma: int = 500, colours: Sequence[int] = (), title: str = "") -> Frame:
    """A records.LoadedGame (a record, or the board's game rebuilt)."""
    game = loaded.game
    events = [game.log[i] for i in range(game.top)]
    return frame_for_game(board_name, loaded.name, game.players, game.options, events,
                          game.top - game.n, [n[:16] for n in loaded.players], colours,
                          brightness, budget_ma, title, accepted=_accepted(game))


def _accepted(game: Any) -> list[int]:
    """Who accepted each applied event of a core game (-1: nobody)."""
    return [game.accepted_by(i) for i in range(game.n)] if game is not None else []


def frame_from_files(board: BoardDef, io_dir: Path, title: str = "") -> Frame:
    """The emulator's last frame: leds.bin and oled.bin in its I/O folder."""
    try:
        leds = (io_dir / "leds.bin").read_bytes()
    except FileNotFoundError:
        raise TallyboardError(f"the emulator has not lit its LEDs yet ({io_dir / 'leds.bin'} is missing); "
                              "is it running the firmware?") from None
    try:
        oled: bytes | None = (io_dir / "oled.bin").read_bytes()
    except FileNotFoundError:
        oled = None if not board.has_oled else bytes(OLED_BYTES)
    return Frame(board, leds, oled, title)


def frame_for_board(board: Any, title: str = "", entry: Any = None) -> Frame:
    """The frame a connected board (tallyboard.boardlink.client.Board, HELLO done)
    shows now: its game and display settings read over the wire, composed by
    the firmware's own code (the protocol has no frame dump), with entry (the
    board's ENTRY: client.EntryScreen) the hand entry on its OLED. For `watch`:
    ``rich`` can print ``terminal(frame_for_board(board))``."""
    from tallyrun import protocol

    name = board.hello_fields.get("board", "pico-reference")
    current = board.rebuild()
    names = [board.cfg_get("name", p) for p in range(protocol.MAX_PLAYERS)]
    colours = [int(board.cfg_get("colour", p), 16) for p in range(protocol.MAX_PLAYERS)]
    brightness = int(board.cfg_get("brightness"))
    budget = int(board.cfg_get("budget_ma"))
    return frame_for_game(name, current.name, current.players or 0, current.options, current.log,
                          current.top - current.n, names, colours, brightness, budget,
                          title or f"board on {board.link.name}", current.held,
                          None if entry is None else (entry.head, entry.step, entry.value, entry.entered),
                          _accepted(current.game))
