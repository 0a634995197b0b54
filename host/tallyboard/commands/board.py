"""`tallyboard board`: a board definition checked, and the builder's pictures
drawn from it (the drilling template and the wiring diagram, buildplans)."""
from __future__ import annotations

from pathlib import Path

import click

from tallypanel import boarddef
from tallypanel.wiring import BoardDef

from ..common import files
from ..tooling import buildplans, fileset
from ..common.errors import TallyboardError
from .reporting import reports_errors


@click.group("board")
def board_group() -> None:
    """Board definitions (board/NAME.json): check one, draw its wiring and
    drilling template."""


def load(definition: str) -> BoardDef:
    """A definition by NAME (board/NAME.json in the checkout) or by the path
    of its file, checked; a fault is an error naming the field."""
    if definition.endswith(".json") or "/" in definition:
        path = Path(definition)
        name, folder = path.stem, path.parent
    else:
        name, where = definition, fileset.board_dir()
        if where is None:
            raise TallyboardError("no board/ folder in this checkout: give the definition's file, "
                                  "e.g. tallyboard board check my-board.json")
        folder = where
    path = Path(folder) / f"{name}.json"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in Path(folder).glob("*.json"))) or "none"
        raise TallyboardError(f"board: no definition file {path}; the definitions there: {known}")
    try:
        board = boarddef.find(name, str(folder))
    except ValueError as exc:
        raise TallyboardError(f"{exc}; fix {path} (board/README.md says what each field takes)") from None
    if board.name != name:
        raise TallyboardError(f"board: name is {board.name!r} in {name}.json: make it {name!r}, the file's "
                              "name (tallyboard config set board NAME looks for NAME.json)")
    buildplans.connections(board)   # every pin on the Pico's header
    return board


@board_group.command("check")
@click.argument("definition", metavar="NAME|FILE")
@reports_errors
def check_cmd(definition: str) -> None:
    """Check a board definition: print its name and what it wires, or what
    is wrong with it (exit status 1)."""
    board = load(definition)
    pins = ", ".join(f"{what} GP{gpio}" for _field, what, gpio, _pin in buildplans.connections(board))
    click.echo(f"{board.name}: a valid definition for a {buildplans.pico_model(board)} ({board.mcu}), "
               f"{board.led_count} LEDs; {pins}")


@board_group.command("draw")
@click.argument("definition", metavar="NAME|FILE")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=".", show_default=True,
              help="The folder the pictures go into.")
@reports_errors
def draw_cmd(definition: str, out_dir: str) -> None:
    """Draw what a builder needs from a board definition: NAME-template.svg,
    the drilling and LED template at true size (print it at 100 % on A3,
    then measure its 100 mm line), the same on two A4 sheets
    (NAME-template-a4-1.svg and -2.svg), and NAME-wiring.svg, the wiring
    diagram (A4)."""
    board = load(definition)
    folder = Path(out_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TallyboardError(f"cannot make the folder {folder}: {exc.strerror}; give another with --out") from None
    pictures = [("template", buildplans.template_svg(board))]
    pictures += [(f"template-a4-{number}", sheet)
                 for number, sheet in enumerate(buildplans.template_sheets(board), 1)]
    pictures.append(("wiring", buildplans.wiring_svg(board)))
    for kind, picture in pictures:
        path = folder / f"{board.name}-{kind}.svg"
        files.write_output(path, picture)
        click.echo(f"wrote {path}")


def register(group: click.Group) -> None:
    group.add_command(board_group)
