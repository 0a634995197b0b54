"""The live views: `watch` (the sheet and the board as it looks, on the
board's events) and `monitor` (the raw protocol traffic). Each serves its
board's port to the other tallyboard commands while it runs (portshare.py),
so hands can be entered in another terminal."""
from __future__ import annotations

import contextlib
import io
import sys
import time
from typing import Any, Callable

import click
from rich.console import Console, Group
from rich.text import Text

from .. import wire

from .. import games as profiles
from .. import sheet
from ..client import Board, BoardGame
from ..errors import BoardError, TallyboardError, TransportError
from .reporting import reports_errors
from .link import board_options, connected

# ---------------------------------------------------------------- watch


def render_board(board: Board, width: int = 100, plain: bool = False) -> Group:
    """The sheet, then the board as it looks (the LED field and the OLED,
    composed by the firmware's own display code: render.py), or with plain
    the Roquet pegs as text. Above it, what the board found wrong when it started."""
    current = board.rebuild()
    notes = board.notes(int(current.state["notes"])) if current.state.get("notes", "").isdigit() else []
    warnings = [Text(f"the board found when it started: {text}", style="yellow") for text in notes]
    return Group(*warnings, _board_view(board, current, width, plain))


def _board_view(board: Board, current: BoardGame, width: int, plain: bool) -> Group:
    if current.name is None:
        return Group(Text("No game on the board: start one with tallyboard new GAME."))
    loaded = board.loaded_game(current)
    buffer = io.StringIO()
    sheet.print_sheet(sheet.sheet_json(loaded), Console(file=buffer, force_terminal=True, width=width))
    parts: list[Any] = [Text.from_ansi(buffer.getvalue())]
    picture = None
    if not plain:
        from .. import render   # the firmware's display code, run by the unix port

        try:
            picture = render.terminal(render.frame_for_board(board), braille=width < 140)
        except TallyboardError as exc:
            parts.append(Text(f"(no picture of the board: {exc})", style="dim"))
    if picture is not None:
        parts.append(picture)
    elif current.game is not None and profiles.profile(current.name).plain_view is not None:
        parts.append(profiles.profile(current.name).plain_view(current.game, loaded.players))
    if current.top > current.n:
        parts.append(Text(f"{current.top - current.n} undone (redo brings back)", style="dim"))
    return _unended(parts)


def _unended(parts: list[Any]) -> Group:
    """The parts as one view whose last line has no newline (the sheet's
    text ends with one): watch ends the view's last line itself, once."""
    last = parts[-1]
    if isinstance(last, Text) and last.plain.endswith("\n"):
        last.right_crop(1)
    return Group(*parts)


@click.command("watch")
@click.option("--duration", type=float, default=0, help="Stop after this many seconds (0: until Ctrl-C).")
@click.option("--plain", is_flag=True, help="The sheet and the Roquet pegs as plain text, no picture of the board.")
@board_options
@reports_errors
def watch_cmd(duration: float, plain: bool, port: str | None, use_emulator: bool, timeout: float) -> None:
    """A live view of the sheet and the board (its pegs and screen), updated
    on the board's events (also its own buttons). Survives a pulled cable: it
    reconnects."""
    console = Console()
    deadline = time.monotonic() + duration if duration > 0 else None

    def view() -> Group:
        return render_board(board, console.width, plain)

    with connected(port, use_emulator, timeout, serve=True) as board:
        board.keep_events = False
        from rich.live import Live

        try:
            with Live(view(), console=console, auto_refresh=False) as live, \
                    contextlib.suppress(KeyboardInterrupt):
                while deadline is None or time.monotonic() < deadline:
                    try:
                        events = board.poll_events(0.2)
                        if events or board.gap:
                            live.update(view(), refresh=True)
                    except TransportError as exc:
                        live.update(Text(f"{exc}\nreconnecting…", style="yellow"), refresh=True)
                        _reconnect_until(board, deadline)
                        live.update(view(), refresh=True)
        finally:
            if not console.is_terminal:
                console.line()   # rich ends the live view's last line on a terminal only


def _reconnect_until(board: Board, deadline: float | None) -> None:
    while deadline is None or time.monotonic() < deadline:
        try:
            board.reconnect()
            return
        except TransportError:
            time.sleep(0.5)
    raise TransportError(f"the board on {board.link.name} did not come back")


# ---------------------------------------------------------------- monitor

@click.command("monitor")
@click.option("--send", "-s", "requests", multiple=True, metavar="REQUEST",
              help='A request to send, e.g. -s STATE -s "PEG 0 5" (seq and checksum are added).')
@click.option("--duration", type=float, default=0,
              help="Stop after this many seconds (0: until Ctrl-C, or at once after --send).")
@board_options
@reports_errors
def monitor_cmd(requests: tuple[str, ...], duration: float, port: str | None, use_emulator: bool,
                timeout: float) -> None:
    """Show the raw protocol traffic both ways, with timestamps; type requests
    (e.g. PEG 0 5) on stdin to send them (seq and checksum are added)."""
    start = time.monotonic()

    def tap(direction: str, data: bytes) -> None:
        for line in data.splitlines():
            stamp = f"{time.monotonic() - start:9.3f}"
            mark = ""
            if direction == "<" and line.strip():
                try:
                    wire.check_frame(line)
                except ValueError as exc:
                    mark = f"   <- {exc}"
            click.echo(f"{stamp} {direction} {line.decode('ascii', errors='backslashreplace')}{mark}")

    with connected(port, use_emulator, timeout, tap=tap, serve=True) as board:
        for text in requests:
            _monitor_send(board, text)
        interactive = not requests and sys.stdin.isatty()
        end = time.monotonic() + duration if duration > 0 else None
        if requests and end is None:
            return
        reader = _stdin_lines() if not requests else None
        with contextlib.suppress(KeyboardInterrupt):
            _monitor_loop(board, reader, end, interactive)


def _monitor_loop(board: Board, reader: Callable[[], str | None] | None, end: float | None,
                  interactive: bool) -> None:
    while end is None or time.monotonic() < end:
        board.poll_events(0.1)
        if reader is not None:
            line = reader()
            if line is None:
                if not interactive:
                    board.poll_events(0.3)
                    return
            elif line.strip():
                _monitor_send(board, line.strip())


def _monitor_send(board: Board, text: str) -> None:
    verb, _, rest = text.partition(" ")
    try:
        seq, frame = board.encode(verb, *rest.split())
        board.send_frame(seq, frame)
    except BoardError:
        pass          # the ERR line is on screen already
    except ValueError as exc:
        click.echo(f"not sent: {exc}", err=True)


def _stdin_lines() -> Callable[[], str | None]:
    """A non-blocking reader of stdin lines: '' when nothing is there yet, None at EOF."""
    import queue
    import threading

    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for line in sys.stdin:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()

    def read() -> str | None:
        try:
            return lines.get_nowait()
        except queue.Empty:
            return ""

    return read


def register(group: click.Group) -> None:
    group.add_command(watch_cmd)
    group.add_command(monitor_cmd)
