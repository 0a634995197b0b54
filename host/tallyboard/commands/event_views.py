"""The club evening's live views: `event watch` (the terminal) and `event
serve` (a read-only web page). Both show snapshot documents (docs/host.md, "The club evening's live views")
from a source: the evening in progress (evening_source) or a snapshot file
(file_source)."""
from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import click
from rich.console import Console

from ..errors import TallyboardError
from .reporting import reports_errors

Source = Callable[[], dict[str, Any]]


@contextlib.contextmanager
def evening_source(name: str | None) -> Iterator[Source]:
    """The newest snapshot of the event in progress (or the one named):
    every call reads each board once, stores what changed, and returns the
    snapshot computed from the store. The one place where the views meet
    the store (tallyboard.event) and the boards (tallyboard.event.tables)."""
    from ..event import EventStore, snapshot
    from ..event.tables import Tables

    store = EventStore()
    event = store.event(name)
    # the boards the evening has attached (tallyboard event attach): read on every call
    tables = Tables(store, event) if store.boards(event) else None

    def source() -> dict[str, Any]:
        if tables is not None:
            tables.sync()
        return snapshot(store, store.refresh(event))

    try:
        yield source
    finally:
        if tables is not None:
            tables.close()


def file_source(path: Path) -> Source:
    """A snapshot document from a file, read again on every call; while the
    file is being rewritten (not JSON for a moment) the last good one."""
    from ..event.watch import check

    last: list[dict[str, Any]] = []

    def source() -> dict[str, Any]:
        try:
            doc = check(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            if last:
                return last[0]
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise TallyboardError(f"{path}: {reason}") from None
        last[:] = [doc]
        return doc

    return source


@contextlib.contextmanager
def chosen_source(event_name: str | None, snapshot_file: Path | None) -> Iterator[Source]:
    if snapshot_file is not None:
        yield file_source(snapshot_file)
    else:
        with evening_source(event_name) as source:
            yield source


def _checked(source: Source) -> Source:
    """The source, its bad documents said in the user's words."""
    from ..event.watch import check

    def read() -> dict[str, Any]:
        try:
            return check(source())
        except ValueError as exc:
            raise TallyboardError(str(exc)) from None

    return read


def source_options(fn):  # type: ignore[no-untyped-def]
    fn = click.option("--snapshot", "snapshot_file", type=click.Path(dir_okay=False, path_type=Path),
                      help="Show this snapshot document (as `event status --json` writes it), "
                           "read again whenever it changes, instead of the event in progress.")(fn)
    fn = click.option("--event", "event_name", metavar="NAME",
                      help="The event to show (default: the one in progress, else the last one finished).")(fn)
    return fn


@click.command("watch")
@click.option("--once", is_flag=True, help="Print the view once and stop (for a log).")
@click.option("--json", "as_json", is_flag=True,
              help="The snapshot as JSON: once with --once, else one line for every change.")
@click.option("--duration", type=float, default=0, help="Stop after this many seconds (0: until Ctrl-C).")
@source_options
@reports_errors
def watch_cmd(once: bool, as_json: bool, duration: float, event_name: str | None,
              snapshot_file: Path | None) -> None:
    """The evening live in the terminal: the standings, each table's game (a
    held hand marked, with who must accept it) and who moves where next.
    When the tables do not fit, they are shown a page at a time."""
    from ..event import watch

    console = Console(highlight=False)
    with chosen_source(event_name, snapshot_file) as source:
        if once:
            watch.once(_checked(source), console, as_json)
            return
        with contextlib.suppress(KeyboardInterrupt):
            watch.live(_checked(source), console, as_json, duration)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; 0.0.0.0 lets a TV or the players' phones on the club's network in.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="The port to listen on (0: any free one).")
@source_options
@reports_errors
def serve_cmd(host: str, port: int, event_name: str | None, snapshot_file: Path | None) -> None:
    """The evening as a web page that follows it live (standings, each
    table's sheet, the next seating); read-only. Ctrl-C stops it."""
    from ..event import web

    with chosen_source(event_name, snapshot_file) as source:
        _checked(source)()   # a bad source is said here, before anyone opens the page
        try:
            sock = web.listen(host, port)
        except OSError as exc:
            raise TallyboardError(f"cannot listen on {host} port {port} ({exc.strerror or exc}): "
                                  "choose another with --port, or stop what uses it") from None
        url = web.url_of(sock)
        where = " (open it with this machine's address from the other screens)" if host in ("0.0.0.0", "::") else ""
        click.echo(f"The club evening's page: {url}{where}; Ctrl-C stops it.")
        sys.stdout.flush()
        try:
            with contextlib.suppress(KeyboardInterrupt):   # uvicorn stops, then raises Ctrl-C again
                web.serve(source, sock)
        finally:
            sock.close()
        click.echo("Stopped.")


def register(group: click.Group) -> None:
    group.add_command(watch_cmd)
    group.add_command(serve_cmd)
