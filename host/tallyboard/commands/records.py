"""Commands that work on game records with no board: sheet, demo."""
from __future__ import annotations

import json
from importlib import resources

import click

from tallycore import game as core_game

from ..common.console import Console
from ..common import files
from ..scorebook import records, sheet
from .reporting import reports_errors


@click.command("sheet")
@click.argument("record", type=click.Path(dir_okay=False, allow_dash=True), required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the machine-readable sheet (docs/records.md).")
@click.option("--why", "with_why", is_flag=True,
              help="Say under the sheet why each hand scored what it did (the rules' clauses; tallyboard why).")
@click.option("--port", "-p", metavar="PORT", help="With no RECORD: the board on this port.")
@click.option("--emulator", "use_emulator", is_flag=True, help="With no RECORD: the emulator.")
@reports_errors
def sheet_cmd(record: str | None, as_json: bool, with_why: bool, port: str | None, use_emulator: bool) -> None:
    """Print the score sheet of a game RECORD (a JSON file, see docs/records.md; - reads stdin),
    or with no RECORD of the game on the board (--port/--emulator, or the one on USB)."""
    letters: str | None = None   # beside the board's seat buttons
    if record is None:
        from .scoring import live_sheet

        loaded, letters = live_sheet(port, use_emulator, 1.0)
    elif record == "-":
        loaded = records.loads(files.read_stdin(), source="stdin")
    else:
        loaded = records.load(record)
    doc = sheet.sheet_json(loaded)
    held = loaded.game.held if record is None else 0
    if held:
        # docs/records.md: the hand waiting for an opponent's accept is on no sheet yet
        doc["pending"] = pending(loaded)
    if with_why:
        from ..scorebook import why as reasons

        doc["why"] = [{"hand": number, "lines": lines} for number, lines in enumerate(reasons.sheet_lines(loaded), 1)]
    if as_json:
        click.echo(json.dumps(doc))
    else:
        sheet.print_sheet(doc)
        for row in doc.get("why", []):
            click.echo(f"hand {row['hand']}:")
            for line in row["lines"]:
                click.echo(f"  {line}")
        if held:
            from .connect import held_words

            click.echo(f"{held_words(loaded.game, loaded.players, letters)}: not on the sheet until accepted")


def pending(loaded: records.LoadedGame) -> dict[str, object]:
    """The change waiting for its confirmation on the board (docs/rules.md CF1), for --json."""
    game = loaded.game
    doc: dict[str, object] = {"hand": game.held_hand(),
                              "waiting_for": [loaded.players[p] for p in range(game.players)
                                              if game.held_by >> p & 1]}
    if game.held == core_game.HELD_UNDO:
        doc["undo"] = True
    return doc


def demo_records() -> list[str]:
    data = resources.files("tallyboard") / "data"
    return sorted(p.name for p in data.iterdir() if p.name.startswith("demo_") and p.name.endswith(".json"))


@click.command("demo")
@reports_errors
def demo_cmd() -> None:
    """Print the score sheets of the bundled demo games (no board needed)."""
    console = Console()
    for name in demo_records():
        text = (resources.files("tallyboard") / "data" / name).read_text(encoding="utf-8")
        sheet.print_sheet(sheet.sheet_json(records.loads(text, source=name)), console)
        console.print()


def register(group: click.Group) -> None:
    group.add_command(sheet_cmd)
    group.add_command(demo_cmd)
