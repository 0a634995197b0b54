"""Pictures of the board (tallyboard.tooling.render, tallyboard show): the layout of
the physical board, the exact bytes the firmware composes, PNG/SVG/terminal."""
import pytest
import json
import re
from pathlib import Path

from click.testing import CliRunner
from PIL import Image
from rich.console import Console

from tallypanel import boarddef, screen

from tallycore import roquet
from tallycore.game import Game
from tallypanel.ledfield import LedField
from tallyboard.scorebook import records
from tallyboard.tooling import render, render_terminal
from tallyboard.cli import main

ROOT = Path(__file__).resolve().parent.parent
DEMO_ROQUET = ROOT / "host" / "tallyboard" / "data" / "demo_roquet.json"
BOARD = boarddef.find("pico-reference", str(ROOT / "board"))


def test_every_hole_once_with_player_b_turned_round():
    holes = render.holes(BOARD)
    assert len(holes) == 132
    assert sorted(h.led for h in holes) == list(range(132))
    by = {(h.player, h.row, h.hole): h for h in holes}
    for hole in range(45):
        a, b = by[(0, "tally", hole)], by[(1, "tally", hole)]
        assert (a.x + b.x, a.y + b.y) == (render.BOARD_W, render.BOARD_H)
    # Player A's side is the lower half: tally row outside (nearer the edge)
    # than the king row; the turn (position 31, hole 44) sits beside hole 29.
    assert by[(0, "tally", 20)].y > by[(0, "king", 5)].y > render.BOARD_H / 2
    assert by[(0, "tally", 44)].x == by[(0, "tally", 29)].x
    assert by[(0, "tally", 44)].y < by[(0, "tally", 29)].y
    assert [h.hole for h in holes if h.landmark and h.player == 0] == [14, 29, 44]


@pytest.mark.emulator
def test_record_frame_is_the_firmware_frame_byte_for_byte():
    loaded = records.load(DEMO_ROQUET)
    frame = render.frame_for_loaded(loaded)
    # The same composer under CPython gives the same bytes as under MicroPython.
    field = LedField(BOARD)
    assert frame.leds == bytes(field.compose(loaded.game))
    assert len(frame.oled) == 1024 and any(frame.oled)


def _frame_after(pegs):
    g = Game()
    g.new(roquet, 2, 0)
    for p, points in pegs:
        g.apply(roquet.pack_peg(p, points))
    return render.Frame(BOARD, bytes(LedField(BOARD).compose(g)), bytes(1024), "t")


def test_svg_colours_the_lit_holes_from_the_led_bytes():
    frame = _frame_after([(0, 16)])
    text = render.svg(frame)
    assert text.count("<circle") >= 132
    # A's tally peg at 16: tally hole 15, LED 16, GRB (8, 63, 0), the brightest
    # channel of the frame: scale 255 / 63: R 255, G 8 * 255 / 63 = 32.4 -> 32.
    match = re.search(r'<circle [^>]*fill="(#[0-9a-f]{6})"[^>]*><title>player A tally hole 15 - LED 16 GRB 8,63,0',
                      text)
    assert match and match.group(1) == "#ff2000"
    # A dark hole keeps the wood's hole colour.
    assert re.search(r'fill="#301e10"[^>]*><title>player A tally hole 3 - LED 4 GRB 0,0,0', text)


def test_png_draws_the_peg_where_the_hole_is(tmp_path):
    frame = _frame_after([(0, 16)])
    out = tmp_path / "b.png"
    render.png(frame, out)
    image = Image.open(out).convert("RGB")
    assert image.size == (render.WIDTH, render.HEIGHT)
    hole = next(h for h in render.holes(BOARD) if h.player == 0 and h.row == "tally" and h.hole == 15)
    assert image.getpixel((round(hole.x), round(hole.y))) == (255, 32, 0)
    dark = next(h for h in render.holes(BOARD) if h.player == 0 and h.row == "tally" and h.hole == 3)
    assert image.getpixel((round(dark.x), round(dark.y))) == render.HOLE


@pytest.mark.emulator
def test_terminal_rendering_shows_pegs_and_the_oled():
    frame = render.frame_for_loaded(records.load(DEMO_ROQUET))
    console = Console(record=True, width=140, color_system="truecolor")
    console.print(render_terminal.terminal(frame))
    text = console.export_text()
    assert "LIVRET" in text and "●" in text and "█" in text
    console = Console(record=True, width=80)
    console.print(render_terminal.terminal(frame, braille=True))
    assert any("\u2800" < ch <= "\u28ff" for ch in console.export_text())


@pytest.mark.emulator
def test_show_command_writes_png_and_svg(tmp_path):
    png, svg = tmp_path / "b.png", tmp_path / "b.svg"
    result = CliRunner().invoke(main, ["show", str(DEMO_ROQUET), "--events", "41", "--png", str(png),
                                       "--svg", str(svg)])
    assert result.exit_code == 0, result.output
    assert Image.open(png).size == (render.WIDTH, render.HEIGHT)
    assert svg.read_text().startswith("<svg")


def test_show_command_refuses_bad_input_clearly(tmp_path):
    result = CliRunner().invoke(main, ["show", str(DEMO_ROQUET), "--events", "999"])
    assert result.exit_code != 0 and "the record has 45 events" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "tallyboard/1", "game": "roquet", "players": ["A", "B"],
                               "hands": [[[0, 100]]]}))
    result = CliRunner().invoke(main, ["show", str(bad)])
    assert result.exit_code != 0 and "points" in result.output
    result = CliRunner().invoke(main, ["show", str(DEMO_ROQUET), "--board", "nope"])
    assert result.exit_code != 0 and "board: no definition file" in result.output


# ---------------------------------------------------------------- issue 32, item 3

def _roquet_record(tmp_path, hands) -> Path:
    path = tmp_path / "roquet.json"
    path.write_text(json.dumps({"format": "tallyboard/1", "game": "roquet", "players": ["Ann", "Bob"],
                                "hands": hands}))
    return path


# Bob pegs 20 in hand 1, 20 in hand 2, Ann 5 in hand 3, then Bob 30 and 30 in hand 4: 100,
# and the first to 100 wins the moment he gets there (docs/rules.md RQ9), hand 4 still open
BOB_WINS_IN_HAND_4 = [[[1, 20]], [[1, 20]], [[0, 5]], {"open": True, "pegs": [[1, 30], [1, 30]]}]

# the big '*' (6 x 10 pixels): a bar and two crossing strokes, not the small font's x doubled
BIG_STAR = ["......",
            "......",
            "..##..",
            "#.##.#",
            ".####.",
            ".####.",
            "#.##.#",
            "..##..",
            "......",
            "......"]


def _big_cell(oled: bytes, col: int, y: int) -> list[str]:
    return ["".join("#" if render.oled_pixel(oled, 8 * col + x, y + row) else "." for x in range(6))
            for row in range(10)]


def _big_text(oled: bytes, y: int) -> str:
    """A big row read back: each glyph is a small one doubled (tallypanel.sheetview), '*' drawn apart."""
    from emu_fixtures import oled_text
    text = ""
    for col in range(16):
        cell = _big_cell(oled, col, y)
        if cell == BIG_STAR:
            text += "*"
            continue
        # halve it: the small glyph at its even pixels, read as a one-row OLED
        halved = bytearray(1024)
        for x in range(3):
            for j in range(5):
                if cell[2 * j][2 * x] == "#":
                    halved[x] |= 1 << j
        text += oled_text(bytes(halved), 0)[0]
    return text


@pytest.mark.emulator
def test_roquet_oled_names_bob_whole_and_stars_the_winner_with_an_asterisk(tmp_path):
    frame = render.frame_for_loaded(records.load(_roquet_record(tmp_path, BOB_WINS_IN_HAND_4)))
    y = screen.LAYOUTS[screen.TOTALS][2]   # the big row of the two totals
    # Ann 5 right-aligned to column 7, Bob's name at 9-11, his star just before his 100 (13-15)
    assert _big_text(frame.oled, y) == "ANN    5 BOB*100"
    assert _big_cell(frame.oled, 12, y) == BIG_STAR


@pytest.mark.emulator
def test_roquet_oled_heads_the_hand_the_game_ended_in(tmp_path):
    from emu_fixtures import oled_text
    path = _roquet_record(tmp_path, BOB_WINS_IN_HAND_4)
    sheet = CliRunner().invoke(main, ["sheet", str(path)])
    assert "hand 4 in progress" in " ".join(sheet.output.split())
    frame = render.frame_for_loaded(records.load(path))
    assert oled_text(frame.oled, 0, screen.TOTALS).startswith("ROQUET  HAND 4 ")
    # a game going on: three hands closed, the fourth in play, no pegs yet
    frame = render.frame_for_loaded(records.load(_roquet_record(tmp_path, BOB_WINS_IN_HAND_4[:3])))
    assert oled_text(frame.oled, 0, screen.TOTALS).startswith("ROQUET  HAND 4 ")


def test_png_caption_stays_inside_the_picture(tmp_path):
    title = ("/tmp/a-folder-with-a-rather-long-name/and-another-inside-it/roquet-evening.json: "
             "roquet, 45 of 45 events, hand 4 in progress")
    frame = _frame_after([(0, 16)])
    frame.title = title
    out = tmp_path / "c.png"
    render.png(frame, out)
    image = Image.open(out).convert("RGB")
    background = image.getpixel((render.WIDTH - 1, render.HEIGHT - 1))
    caption = [(x, y) for y in range(render.HEIGHT - 100, render.HEIGHT) for x in range(render.PANEL_X, render.WIDTH)
               if image.getpixel((x, y)) != background]
    assert caption, "no caption drawn"
    # every line of it ends 8 px or more short of the right edge
    assert max(x for x, _ in caption) < render.WIDTH - 8
    # and the whole caption is there: its lines are the title's words
    from PIL import ImageFont
    lines = render.caption_lines(title, render._font(ImageFont, 13).getlength)
    assert "".join(lines).replace(" ", "") == title.replace(" ", "")
