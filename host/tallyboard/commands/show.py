"""`tallyboard show`: the exact LED frame and OLED screen the board shows,
drawn as the physical board (PNG, SVG, or in the terminal)."""
from __future__ import annotations

import io
import time
from pathlib import Path

import click

from tallyrun import protocol

from ..common.console import Console
from ..tooling import emulator as emu_mod
from ..common import files
from .. import games
from ..scorebook import records
from ..tooling import render, render_terminal
from ..boardlink.client import Board
from ..common.errors import TallyboardError
from .reporting import reports_errors
from .connect import board_options, connected, open_link

# How long a freshly started emulator gets to draw its first frame.
_FIRST_FRAME_SECONDS = 5.0


@click.command("show")
@click.argument("record", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--png", "png_path", type=click.Path(dir_okay=False, writable=True), help="Write a PNG picture.")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False, writable=True), help="Write an SVG picture.")
@click.option("--events", "upto", type=click.IntRange(0), metavar="N",
              help="RECORD only: show the game after its first N events (a game in progress).")
@click.option("--board", "board_name", default="pico-reference", show_default=True, metavar="NAME",
              help="RECORD only: the board definition to draw (board/NAME.json).")
@click.option("--brightness", type=click.IntRange(0, 255), default=protocol.CONFIG_KEYS[protocol.CFG_BRIGHTNESS][5],
              show_default=True, help="RECORD only: the LED brightness setting.")
@click.option("--budget", "budget_ma", type=click.IntRange(100, 3000),
              default=protocol.CONFIG_KEYS[protocol.CFG_BUDGET][5], show_default=True,
              help="RECORD only: the current budget in mA.")
@click.option("--braille", is_flag=True, help="Terminal: draw the OLED in braille (half as wide).")
@board_options
@reports_errors
def show_cmd(record: str | None, png_path: str | None, svg_path: str | None, upto: int | None,
             board_name: str, brightness: int, budget_ma: int, braille: bool, port: str | None,
             use_emulator: bool, timeout: float) -> None:
    """Draw what the board shows: its LED peg field and OLED score sheet, laid
    out as the physical board. From a game RECORD (- reads stdin; computed by
    the firmware's own display code under the MicroPython unix port), from
    the emulator (--emulator: its last frame, byte for byte), or from the
    board on USB (its game and settings, drawn by the same firmware code).
    Without --png or --svg it draws in the terminal."""
    if record is not None:
        if port or use_emulator:
            raise click.UsageError("give a RECORD, or --port / --emulator, not both")
        frame = _from_record(record, upto, board_name, brightness, budget_ma)
    elif use_emulator:
        frame = _from_emulator(timeout)
    else:
        frame = _from_board(port, timeout)
    present(frame, png_path, svg_path, braille)


def present(frame: render.Frame, png_path: str | None, svg_path: str | None, braille: bool) -> None:
    """The picture of a frame as a PNG and/or an SVG file, else drawn in the terminal."""
    wrote = False
    if png_path:
        picture = io.BytesIO()
        render.png(frame, picture)
        files.write_output(png_path, picture.getvalue())
        click.echo(f"wrote {png_path}")
        wrote = True
    if svg_path:
        files.write_output(svg_path, render.svg(frame))
        click.echo(f"wrote {svg_path}")
        wrote = True
    if not wrote:
        Console().print(render_terminal.terminal(frame, braille=braille))


def _from_record(record: str, upto: int | None, board_name: str, brightness: int,
                 budget_ma: int) -> render.Frame:
    if record == "-":
        loaded = records.loads(files.read_stdin(), source="stdin")
        source = "stdin"
    else:
        loaded = records.load(record)
        source = Path(record).name
    game = loaded.game
    events = [game.log[i] for i in range(game.n)]
    if upto is not None:
        if upto > len(events):
            raise TallyboardError(f"--events {upto}: the record has {len(events)} events; give 0 to {len(events)}")
        events = events[:upto]
    title = f"{source}: {loaded.name}, {len(events)} of {game.n} events"
    if upto is None and games.profile(loaded.name).hand_in_progress(game):
        title += f", hand {game.hands() + 1} in progress"
    return render.frame_for_game(board_name, loaded.name, game.players, game.options, events, 0,
                                 [name[:16] for name in loaded.players], (), brightness, budget_ma, title,
                                 accepted=[game.accepted_by(i) for i in range(len(events))])   # in its chain head


def _from_emulator(timeout: float) -> render.Frame:
    running = emu_mod.find_running()
    if running:
        with connected(None, True, timeout) as board:
            name = board.hello_fields.get("board", "pico-reference")
        return render.frame_from_files(render.board_on_flash(Path(running["flash"]), name),
                                       Path(running["io"]), f"emulator {running['port']}")
    # no `tallyboard emulate` running: boot one on the emulator's flash for this picture
    with open_link(None, True) as (link, emulator):
        assert emulator is not None
        board = Board(link, timeout=max(timeout, 3.0))
        link.drain()
        board.hello()
        name = board.hello_fields.get("board", "pico-reference")
        definition = render.board_on_flash(emulator.flash, name)
        deadline = time.monotonic() + _FIRST_FRAME_SECONDS
        while not emulator.leds() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)  # let the first refresh finish
        return render.frame_from_files(definition, emulator.io_dir, f"emulator {emulator.flash}")


def _from_board(port: str | None, timeout: float) -> render.Frame:
    with connected(port, False, timeout) as board:
        return render.frame_for_board(board)


def register(group: click.Group) -> None:
    group.add_command(show_cmd)
