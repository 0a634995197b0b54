"""Pictures of the board (tallyboard.tooling.render, tallyboard show): the layout of
the physical board, the exact bytes the firmware composes, PNG/SVG/terminal."""
import pytest
import json
import re
from pathlib import Path

from click.testing import CliRunner
from PIL import Image
from rich.console import Console

from tallypanel import boarddef

from tallycore import roquet
from tallycore.game import Game
from tallypanel.ledfield import LedField
from tallyboard.scorebook import records
from tallyboard.tooling import render
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
    console.print(render.terminal(frame))
    text = console.export_text()
    assert "LIVRET" in text and "●" in text and "█" in text
    console = Console(record=True, width=80)
    console.print(render.terminal(frame, braille=True))
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
