"""`tallyboard event` commands for the evening's boards: attach (USB ports or
emulated boards), start (round 1 pushed to every board) and resume (after the
host went away), boards (each board's health), and the hook the next round
calls (on_new_round)."""
from __future__ import annotations

import json
from typing import Any

import click
from tallyrun.protocol import MAX_TABLE

from ..common import names
from ..common.errors import TallyboardError
from ..evening.evening_store import EventT, EveningStore
from ..evening.store import FINISHED
from ..evening.tables import Tables, event_folder
from ..evening.watch import link_words
from .reporting import reply_timeout_option, reports_errors

event_option = click.option("--event", "event_name", metavar="NAME",
                            help="The evening (default: the one in progress, else the last one finished).")
timeout_option = reply_timeout_option(what="each board's")


def open_store() -> Any:
    """The host's event store (tallyboard.evening.EveningDatabase, in the archive file)."""
    from .. import evening
    store_class = getattr(evening, "EveningDatabase", None)
    if store_class is None:
        raise TallyboardError("this tallyboard has no event store: upgrade it")
    return store_class()


@click.command("attach")
@click.option("--port", "-p", "ports", multiple=True, metavar="PORT",
              help="A table's board (repeat: table 1 first, then 2, ...).")
@click.option("--emulators", type=click.IntRange(1, MAX_TABLE), metavar="N",
              help="Start N emulated boards, one per table (they run until `event stop-boards`).")
@event_option
@timeout_option
@reports_errors
def attach_cmd(ports: tuple[str, ...], emulators: int | None, event_name: str | None, timeout: float) -> None:
    """Attach the evening's boards, one per table: each is told its table."""
    if bool(ports) == bool(emulators):
        raise click.UsageError("give --port for each table's board, or --emulators N, not both")
    store = open_store()
    event = store.event(event_name)
    tables = Tables(store, event, timeout)
    try:
        if emulators:
            tables.attach_emulators(emulators)
        else:
            tables.attach_ports(list(ports))
        # every table of the evening with its link: the boards attached here, and those that come
        # through a table host or over Wi-Fi by themselves (docs/club-wifi.md)
        from ..evening import club
        boards = store.boards(event)
        links = club.links(event, boards)
        for table, known in sorted(boards.items()):
            link = links.get(table)
            remote = link is not None and link["kind"] != club.USB
            # the board's id as it came (from its HELLO, a table host, an older archive): never raw on the terminal
            where = link_words(link) if remote else known["port"]
            folder = f", folder {event_folder(event) / f'table-{table}'}" if emulators and not remote else ""
            click.echo(f"table {table}: {names.shown(where)} ({names.shown(known['board_id'])}){folder}")
        if emulators:
            click.echo("press a table's buttons with: tallyboard press seat0 --flash FOLDER (the table's folder above)")
    finally:
        tables.close()


@click.command("start")
@event_option
@timeout_option
@reports_errors
def start_cmd(event_name: str | None, timeout: float) -> None:
    """Push round 1 to every board: the game, its length, confirmation on, the names, the round."""
    push(event_name, 1, timeout)


def push(event_name: str | None, round: int, timeout: float = 1.0) -> None:
    from ..evening import CREATED, RUNNING

    store = open_store()
    event = store.event(event_name)
    if not store.boards(event):
        raise TallyboardError("no boards are attached to this evening: attach them first with "
                              "tallyboard event attach --port PORT ... or --emulators N")
    if event.state == CREATED:
        store.set_state(event, RUNNING)
    tables = Tables(store, event, timeout)
    try:
        tables.push_round(round)
    finally:
        tables.close()
    click.echo(f"round {round} is on every board ({len(tables.boards)} tables)")


def on_new_round(store: EveningStore[EventT], event: EventT, round: int, timeout: float = 1.0) -> None:
    """The hook the next round calls: every board gets the round's game, names and number."""
    tables = Tables(store, event, timeout)
    try:
        tables.push_round(round)
    finally:
        tables.close()


def read_boards(store: EveningStore[EventT], event: EventT, timeout: float = 1.0) -> None:
    """The hook `next` and `finish` call first: every board read once, what
    changed stored (a board that does not answer is marked so; the round's
    check then names its table)."""
    tables = Tables(store, event, timeout)
    try:
        tables.sync()
    finally:
        tables.close()


@click.command("resume")
@event_option
@timeout_option
@reports_errors
def resume_cmd(event_name: str | None, timeout: float) -> None:
    """Carry on after the host went away: start again the emulated boards that
    stopped, reopen every board, check that each is its table's, read them all
    and say what came in meanwhile."""
    store = open_store()
    event = store.event(event_name)
    if event.state == FINISHED:
        store.close()
        raise TallyboardError(f"evening {event.name!r} is finished: there is nothing to resume (its results: "
                              "tallyboard event status; its emulated boards stop with tallyboard event stop-boards)")
    tables = Tables(store, event, timeout)
    try:
        for table in tables.restart_emulators():
            click.echo(f"table {table}: its emulated board was not running; started again on its flash")
        tables.identify()
        before = {table: _hands(store, event, tables, table) for table in tables.boards}
        tables.sync()
        for table in sorted(tables.boards):
            if table in tables.messages:
                click.echo(tables.messages[table])
                continue
            came = _hands(store, event, tables, table) - before[table]
            click.echo(f"table {table}: {came} hand{'s' if came != 1 else ''} since the host went away")
    finally:
        tables.close()
    if tables.messages:
        raise TallyboardError(f"{len(tables.messages)} of {len(tables.boards)} boards could not be read; "
                              "the others are up to date")


def _hands(store: EveningStore[EventT], event: EventT, tables: Tables, table: int) -> int:
    round = tables.round_of(table)
    if not round:
        return 0
    record = store.table_game(event, round, table)
    return len(record["hands"]) if record else 0


@click.command("stop-boards")
@event_option
@reports_errors
def stop_boards_cmd(event_name: str | None) -> None:
    """Stop the evening's emulated boards (their games stay on their flash)."""
    store = open_store()
    event = store.event(event_name)
    tables = Tables(store, event)
    count = len(tables.emulator_pids())
    tables.stop_emulators()
    click.echo(f"stopped {count} emulated board{'s' if count != 1 else ''}")


NO_REPORTS = ("no board of evening {name!r} has reported its health yet. Boards on the club's Wi-Fi report it "
              "once they are linked to the director's broker (docs/club-mqtt.md, \"Each board's health\"): "
              "start the director with tallyboard event serve --club (or --broker URL) and enrol the boards "
              "(tallyboard wifi enrol); boards on USB or behind a table host report none.")


@click.command("boards")
@click.option("--json", "as_json", is_flag=True, help="The rows as JSON (docs/club-mqtt.md, "
                                                      "\"The director's view of the boards\").")
@event_option
@reports_errors
def boards_cmd(as_json: bool, event_name: str | None) -> None:
    """Each board's health: its release, uptime, resets, heap, Wi-Fi, journal and supply as it last
    reported them, with warnings (old firmware, weak signal, frequent resets, heap low, silent,
    supply low) and what to do about each."""
    from rich import box
    from rich.table import Table

    from ..common.console import Console
    from ..evening import board_health

    store = open_store()
    try:
        event = store.event(event_name)
        rows = board_health.evening_rows(store, event)
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps({"event": event.name, **board_health.document(rows)}))
        return
    if not rows:
        click.echo(NO_REPORTS.format(name=event.name))
        return
    table = Table(title=f"The boards of {event.name}", box=box.SIMPLE_HEAD, title_style="bold")
    for key, head in board_health.COLUMNS:
        table.add_column(head, justify="right" if key in ("table", "uptime", "rssi", "reconnects") else "left",
                         style="bold red" if key == "warnings" else None)
    for row in rows:
        cells = dict(row["shown"])
        cells["warnings"] = ", ".join(w["warning"] for w in row["warnings"]) or "ok"
        table.add_row(*(cells[key] for key, _ in board_health.COLUMNS))
    console = Console()
    console.print(table)
    for row in rows:
        for warning in row["warnings"]:
            console.print(f"table {row['table']} ({row['board']}): {warning['text']}", markup=False, highlight=False)


def register(group: click.Group) -> None:
    from ..evening import add_board_reader, add_new_round_pusher

    for command in (attach_cmd, start_cmd, resume_cmd, stop_boards_cmd, boards_cmd):
        group.add_command(command)
    add_new_round_pusher(on_new_round)
    add_board_reader(read_boards)
