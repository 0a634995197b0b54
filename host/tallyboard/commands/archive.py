"""`tallyboard archive`: keep finished games in the host's SQLite archive."""
from __future__ import annotations

import dataclasses
import json
import sys

from pathlib import Path

import click
from rich import box
from rich.table import Table

from ..common.console import Console
from ..scorebook import records, sheet
from ..scorebook.archive import Archive, Unreadable, archived_id
from ..boardlink.client import Board
from ..common.errors import TallyboardError
from .reporting import reports_errors
from .connect import board_options, button_letters, connected, note_unsigned, note_what_the_record_leaves

archive_option = click.option("--archive", "archive_path", type=click.Path(dir_okay=False),
                              help="The archive file (default: $TALLYBOARD_ARCHIVE or "
                                   "~/.local/share/tallyboard/archive.sqlite3).")


def interactive() -> bool:
    """Whether a person at a terminal can answer a question."""
    return sys.stdin.isatty()


def before_new(board: Board, archive_path: str | None, discard: bool, archive_first: bool) -> None:
    """`tallyboard new` over the board's game: never drop a game, finished or
    not, that is not in the archive without a word. The archive holds it when
    it has this very record (Archive.holds). Otherwise archive it first
    (--archive-first, or `a` at the question), drop it (--discard, or `d`),
    or stop with nothing changed."""
    if discard and archive_first:
        raise click.UsageError("give --discard or --archive-first, not both")
    current = board.rebuild()
    game = current.game
    if game is None or game.n == 0:
        return
    finished = game.complete()
    loaded = board.loaded_game(current)
    if archived_id(loaded, archive_path) is not None:
        return
    totals = " ".join(str(t) for t in sheet.sheet_json(loaded)["totals"])
    what = (f"the board's {loaded.name} game ({' · '.join(loaded.players)}; totals {totals}) "
            f"is {'finished' if finished else 'not finished'} and not in the archive")
    if not (discard or archive_first):
        if not interactive():
            raise TallyboardError(f"{what}; nothing was changed: add --archive-first to archive it and then "
                                  "start the new game, or --discard to drop it")
        answer = click.prompt(f"{what}. Archive it first (a), discard it (d) or cancel (c)?",
                              type=click.Choice(["a", "d", "c"]), default="c", err=True)
        if answer == "c":
            raise TallyboardError("cancelled: the board keeps its game")
        archive_first = answer == "a"
    if archive_first:
        loaded = board.loaded_game(current, signed=True)
        with Archive(archive_path) as archive:
            game_id, _ = archive.add(loaded, source="board")
        click.echo(f"archived as #{game_id}: {loaded.name}, {' · '.join(loaded.players)} "
                   f"({'finished' if finished else 'in progress'})")


@click.group("archive")
def archive_group() -> None:
    """Keep games in the host's archive (SQLite): save, add, list, show, export, remove."""


@archive_group.command("save")
@archive_option
@board_options
@reports_errors
def save_cmd(archive_path: str | None, port: str | None, use_emulator: bool, timeout: float) -> None:
    """Copy the board's game into the archive (a game already there is not stored twice)."""
    with connected(port, use_emulator, timeout) as board:
        loaded = board.loaded_game(signed=True)
        note_what_the_record_leaves(loaded, button_letters(board) if loaded.game.held else None)
        note_unsigned(loaded)
        with Archive(archive_path) as archive:
            game_id, new = archive.add(loaded, source="board")
            state = "complete" if loaded.game.complete() else "in progress"
            click.echo(f"{'archived' if new else 'already archived'} as #{game_id}: {loaded.name}, "
                       f"{' · '.join(loaded.players)} ({state})")
        tell_kept(board, loaded)


def tell_kept(board: Board, loaded: records.LoadedGame) -> None:
    """KEPT: the board keeps with its game that the archive holds it, so that
    its own new game (the encoder held) does not warn; the archive has the game
    whatever the board answers."""
    try:
        board.kept(loaded.game)
    except TallyboardError as exc:
        click.echo(f"tallyboard: note: the board was not told that its game is archived ({exc}); "
                   "its own new game will warn that it is not", err=True)


@archive_group.command("add")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@archive_option
@reports_errors
def add_cmd(files: tuple[str, ...], archive_path: str | None) -> None:
    """Add game RECORD files (JSON, see docs/records.md); each is checked by the rules first."""
    loaded = [(name, records.load(name)) for name in files]   # every file checked before any is stored
    with Archive(archive_path) as archive:
        for name, game in loaded:
            game_id, new = archive.add(game, source=Path(name).name)
            click.echo(f"{name}: {'archived' if new else 'already archived'} as #{game_id}")


@archive_group.command("list")
@click.option("--game", help="Only this game (its name as tallyboard new takes it).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per game, one per line.")
@archive_option
@reports_errors
def list_cmd(game: str | None, as_json: bool, archive_path: str | None) -> None:
    """List the archived games."""
    with Archive(archive_path) as archive:
        rows = list(archive.entries(game))
        entries = [e for e in rows if not isinstance(e, Unreadable)]
        unreadable = [e for e in rows if isinstance(e, Unreadable)]
        if as_json:
            for e in entries:
                click.echo(json.dumps(dataclasses.asdict(e)))
            for bad in unreadable:
                click.echo(f"tallyboard: #{bad.id}: unreadable: {bad.reason}", err=True)
            return
        table = Table(title=f"Archive {archive.path}", title_style="bold", box=box.SIMPLE_HEAD,
                      pad_edge=False, collapse_padding=True)
    for column in ("#", "game", "players", "totals", "result", "archived", "from"):
        table.add_column(column, justify="right" if column == "#" else "left",
                         no_wrap=column in ("#", "game", "archived"))
    for e in entries:
        table.add_row(str(e.id), e.game, ", ".join(e.players), " ".join(map(str, e.totals)), e.result,
                      e.archived_at.replace("T", " ")[:16], e.source)
    console = Console()
    if entries or not unreadable:
        console.print(table if entries else "The archive is empty: tallyboard archive save --emulator (or add RECORD.json).")
    for bad in unreadable:
        click.echo(f"#{bad.id}: unreadable: {bad.reason}")


@archive_group.command("show")
@click.argument("game_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="The machine-readable sheet (docs/records.md).")
@archive_option
@reports_errors
def show_cmd(game_id: int, as_json: bool, archive_path: str | None) -> None:
    """Print the score sheet of archived game GAME_ID."""
    with Archive(archive_path) as archive:
        doc = sheet.sheet_json(records.from_document(archive.record(game_id), f"#{game_id}"))
    if as_json:
        click.echo(json.dumps(doc))
    else:
        sheet.print_sheet(doc)


@archive_group.command("export")
@click.argument("game_id", type=int)
@archive_option
@reports_errors
def export_cmd(game_id: int, archive_path: str | None) -> None:
    """Print archived game GAME_ID as a game record (JSON, see docs/records.md)."""
    with Archive(archive_path) as archive:
        click.echo(json.dumps(archive.record(game_id), indent=1))


@archive_group.command("remove")
@click.argument("game_id", type=int)
@archive_option
@reports_errors
def remove_cmd(game_id: int, archive_path: str | None) -> None:
    """Delete archived game GAME_ID."""
    with Archive(archive_path) as archive:
        archive.remove(game_id)
    click.echo(f"removed #{game_id}")


def register(group: click.Group) -> None:
    group.add_command(archive_group)
