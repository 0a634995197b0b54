"""`tallyboard board`: a board definition checked, and the builder's pictures
drawn from it (the drilling template and the wiring diagram, buildplans)."""
from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from tallypanel import boarddef
from tallypanel.wiring import BoardDef

from ..common import files
from ..common.console import Console
from ..tooling import bringup, buildplans, fileset, guided
from ..common.errors import TallyboardError
from .connect import board_options, connected
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


class TerminalBuilder:
    """The builder at the terminal: the guided self-test's questions and words (tooling.guided.Builder),
    and the LED walk's pictures of the expected hole lit (guided.ShowsPictures)."""

    def __init__(self) -> None:
        self.console = Console(highlight=False)

    def ask(self, text: str) -> str:
        return str(click.prompt(text, default="", show_default=False, prompt_suffix=" "))

    def say(self, text: str) -> None:
        click.echo(text)

    def show(self, picture: Any) -> None:
        """The picture on a terminal; elsewhere (a pipe, a file) its one line that holds the lit hole."""
        if sys.stdout.isatty():
            self.console.print(picture)
        else:
            click.echo(lit_line(picture))


def lit_line(picture: Any) -> str:
    """The line of a hole picture (guided.HolePictures) that holds its lit hole (●), as plain text; a
    line saying so when none is lit (an LED beside a button)."""
    plain = Console(file=io.StringIO(), width=100, color_system=None, highlight=False)
    with plain.capture() as captured:
        plain.print(picture)
    lit = [line.rstrip() for line in captured.get().splitlines() if "●" in line]
    return lit[0] if lit else "(no hole lit)"


def _definition_file(definition: str | None, running: str) -> Path:
    """The definition the board is tested against: given (NAME or FILE), else the one the board runs
    (HELLO's board) in this checkout's board/."""
    name = definition or running
    if name.endswith(".json") or "/" in name:
        return Path(name)
    where = fileset.board_dir()
    if where is None:
        raise TallyboardError("no board/ folder in this checkout: give the definition's file with "
                              "--definition my-board.json")
    return Path(where) / f"{name}.json"


@board_group.command("test")
@click.option("--definition", metavar="NAME|FILE",
              help="The definition to test against (default: the one the board runs, from board/).")
@click.option("--fix", is_flag=True, help="Write the fix into the definition's file (the old one kept as .bak).")
@click.option("--wait", "wait_s", type=click.FloatRange(0.1, 120), default=10.0, show_default=True,
              help="Seconds to wait for each button press, each of the knob's turns and its push.")
@board_options
def test_cmd(definition: str | None, fix: bool, wait_s: float, port: str | None, use_emulator: bool,
             timeout: float) -> None:
    """The builder's self-test: walk the LED chain hole by hole (a picture of the expected hole lit on
    the terminal), press each seat button, turn the knob each way and push it as asked, find the
    display and check its test patterns; then say what is wrong and the change to board/NAME.json that
    fixes what the definition (not the solder) has wrong. The game in play is not touched."""
    run_test(definition, fix, wait_s, port, use_emulator, timeout, TerminalBuilder())


def run_test(definition: str | None, fix: bool, wait_s: float, port: str | None, use_emulator: bool,
             timeout: float, builder: guided.Builder) -> bringup.Report:
    """test_cmd's work with its builder given (a test's answers its questions)."""
    with connected(port, use_emulator, timeout) as board:
        path = _definition_file(definition, board.hello_fields.get("board", ""))
        try:
            wanted: dict[str, Any] = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise TallyboardError(f"cannot read the board definition {path} ({exc}): give it with "
                                  "--definition NAME|FILE") from None
        seen = guided.run(board, wanted, builder, wait_s)
    report = bringup.examine(wanted, seen)
    if report.passed:
        click.echo(f"Passed: the board is built as {path.name} says.")
        return report
    click.echo("Faults found:")
    for fault in report.faults:
        click.echo(f"  - {fault}")
    if report.fix is None:
        click.echo("Nothing to change in the definition: fix the build, then test again.")
        return report
    click.echo(f"The change to {path} that fixes what the definition has wrong:")
    click.echo(json.dumps(report.fix, indent=2))
    if fix:
        backup = path.with_name(path.name + ".bak")
        shutil.copyfile(path, backup)
        files.write_output(path, json.dumps(bringup.fixed(wanted, report.fix), indent=2) + "\n")
        click.echo(f"wrote {path} (the old one kept as {backup}); check it: tallyboard board check {path}")
    else:
        click.echo("Run again with --fix to write it (the old file kept as .bak).")
    return report


def register(group: click.Group) -> None:
    group.add_command(board_group)
