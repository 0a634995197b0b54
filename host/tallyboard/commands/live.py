"""The long-running commands: `watch` (the sheet and the board as it looks, on
the board's events), `monitor` (the raw protocol traffic) and `share` (the port
served, nothing shown). Each serves its board's port on a local socket while it
runs (portshare.py, docs/protocol.md "Sharing the port"), so hands can be
entered in another terminal and other programs can use the board beside them."""
from __future__ import annotations

import contextlib
import io
import signal
import sys
import threading
import time
from typing import Any, Callable

import click
from rich.console import Group
from rich.text import Text

from ..common.console import Console
from ..boardlink import portshare, wire

from .. import games as profiles
from ..scorebook import sheet
from ..boardlink.client import Board, EntryScreen
from ..boardlink.boardgame import BoardGame
from ..common.errors import BoardError, TallyboardError, TransportError
from ..boardlink.transport import MAX_LINE, take_lines
from .reporting import reports_errors
from .connect import board_options, button_letters, connected, held_gives, held_words

# ---------------------------------------------------------------- watch


def render_board(board: Board, width: int = 100, plain: bool = False, seen: list[Any] | None = None) -> Group:
    """The sheet, then the board as it looks (the LED field and the OLED,
    composed by the firmware's own display code: render.py; a hand entry open
    on the board's screen drawn as it shows it), or with plain the Roquet pegs
    as text. Above it, what the board has noted since it started (at boot, or a
    part that stopped answering while it ran). seen[0]: the entry drawn."""
    current = board.rebuild_settled()
    notes = board.notes(int(current.state["notes"])) if current.state.get("notes", "").isdigit() else []
    warnings = [Text(f"the board noted: {text}", style="yellow") for text in notes]
    entry = board.entry_screen()
    if seen is not None:
        seen[0] = entry
    return Group(*warnings, _board_view(board, current, width, plain, entry))


def _board_view(board: Board, current: BoardGame, width: int, plain: bool, entry: EntryScreen | None = None) -> Group:
    if current.name is None:
        return Group(Text("No game on the board: start one with tallyboard new GAME."))
    loaded = board.loaded_game(current)
    buffer = io.StringIO()
    sheet.print_sheet(sheet.sheet_json(loaded), Console(file=buffer, force_terminal=True, width=width))
    parts: list[Any] = [Text.from_ansi(buffer.getvalue())]
    picture = None
    if not plain:
        from ..tooling import render, render_terminal   # the firmware's display code, run by the unix port

        try:
            picture = render_terminal.terminal(render.frame_for_board(board, entry=entry), as_text=True)
        except TallyboardError as exc:
            parts.append(Text(f"(no picture of the board: {exc})", style="dim"))
    plain_view = profiles.profile(current.name).plain_view if current.game is not None else None
    if picture is not None:
        parts.append(picture)
    elif plain_view is not None and current.game is not None:
        parts.append(plain_view(current.game, loaded.players))
    if entry is not None:
        parts.append(Text(f"the board's hand entry: {entry.words()}", style="bold cyan"))
    if current.top > current.n:
        parts.append(Text(f"{current.top - current.n} undone (redo brings back)", style="dim"))
    if current.game is not None and current.game.held:
        parts.append(Text(f"{held_words(current.game, loaded.players, button_letters(board))}\n  it gives: "
                          f"{held_gives(current.game, loaded.players)}", style="bold yellow"))
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

    seen: list[Any] = [None]    # the hand entry drawn last: moving through one pushes no event

    def view() -> Group:
        return render_board(board, console.width, plain, seen)

    def entry_moved() -> bool:
        return board.entry_screen() != seen[0]

    with connected(port, use_emulator, timeout, serve=True) as board, CtrlC() as ctrl_c:
        board.keep_events = False
        if not console.is_terminal:
            _watch_to_pipe(board, console, view, deadline, ctrl_c, entry_moved)
            return
        from rich.live import Live

        try:
            with Live(view(), console=console, auto_refresh=False) as live, \
                    contextlib.suppress(KeyboardInterrupt):
                drawn = board.events_heard
                while ctrl_c.running(deadline):
                    try:
                        events = board.poll_events(0.2)
                        # an event heard while the last view was read (another
                        # program's change, through the shared port) is drawn too
                        if events or board.gap or board.events_heard != drawn or entry_moved():
                            drawn = board.events_heard
                            live.update(view(), refresh=True)
                    except TransportError as exc:
                        live.update(Text(f"{exc}\nreconnecting…", style="yellow"), refresh=True)
                        _reconnect_until(board, deadline, ctrl_c)
                        drawn = -1    # drawn on the next turn, where a failure reconnects again
        finally:
            if not console.is_terminal:
                console.line()   # rich ends the live view's last line on a terminal only


def _watch_to_pipe(board: Board, console: Console, view: Any, deadline: float | None, ctrl_c: "CtrlC",
                   entry_moved: Callable[[], bool] = lambda: False) -> None:
    """`watch > file`, `watch | tee`: a redrawn screen writes nothing a file
    keeps, so each change is one whole plain-text snapshot, with its time."""
    def show(what: Any) -> None:
        with console.capture() as captured:
            console.print(what, soft_wrap=True)   # a file's lines are not cut at a width
        console.file.write(f"--- {time.strftime('%H:%M:%S')}\n{captured.get()}")
        console.file.flush()

    show(view())
    with contextlib.suppress(KeyboardInterrupt):
        while ctrl_c.running(deadline):
            try:
                events = board.poll_events(0.2)
                if events or board.gap or entry_moved():
                    show(view())
            except TransportError as exc:
                show(Text(f"{exc}\nreconnecting…"))
                _reconnect_until(board, deadline, ctrl_c)
                show(view())


RECONNECT_EVERY_S = 0.5


def _reconnect_until(board: Board, deadline: float | None, ctrl_c: "CtrlC") -> None:
    while ctrl_c.running(deadline):
        try:
            board.reconnect()
            return
        except TransportError:
            if ctrl_c.heard.wait(RECONNECT_EVERY_S):
                break
    if ctrl_c.heard.is_set():
        raise KeyboardInterrupt
    raise TransportError(f"the board on {board.link.name} did not come back")


class CtrlC:
    """Ctrl-C for a command that runs until it (watch, share, monitor): raised as Python
    raises it, and also noted in `heard`, which the command's loops ask, because a
    KeyboardInterrupt raised inside a finalizer is dropped without a word. io.IOBase's
    clears what its close() raised, and pyserial's Serial runs its close() there each time a
    port fails to open: a Ctrl-C that landed then, while watch waited for an unplugged
    board, was lost (issue 39's loaded run 4). Where Ctrl-C was ignored when the command
    started (nohup), it stays ignored."""

    def __init__(self) -> None:
        self.heard = threading.Event()
        self._before: Any = None

    def running(self, deadline: float | None) -> bool:
        """Whether the loop goes on: no Ctrl-C heard, and its deadline (if any) not passed."""
        return not self.heard.is_set() and (deadline is None or time.monotonic() < deadline)

    def _hear(self, signum: int, frame: Any) -> None:
        self.heard.set()
        raise KeyboardInterrupt

    def __enter__(self) -> "CtrlC":
        if threading.current_thread() is threading.main_thread():
            before = signal.getsignal(signal.SIGINT)
            if before is not signal.SIG_IGN:
                self._before = signal.signal(signal.SIGINT, self._hear)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._before is not None:
            signal.signal(signal.SIGINT, self._before)
            self._before = None


# ---------------------------------------------------------------- share

@click.command("share")
@click.option("--duration", type=float, default=0, help="Stop after this many seconds (0: until Ctrl-C).")
@board_options
@reports_errors
def share_cmd(duration: float, port: str | None, use_emulator: bool, timeout: float) -> None:
    """Serve the board's port on a local socket, for other programs and the other
    tallyboard commands, until Ctrl-C (docs/protocol.md, Sharing the port). Survives
    a pulled cable: it serves the board again when it is back."""
    deadline = time.monotonic() + duration if duration > 0 else None
    with connected(port, use_emulator, timeout, serve=True) as board, CtrlC() as ctrl_c:
        board.keep_events = False
        if not isinstance(board.link, portshare.HubTransport):
            click.echo(f"the board on {board.link.name} is shared already, by "
                       f"{portshare.server_of(board.link.name) or 'another process'}, at "
                       f"{portshare.socket_path(board.link.name)}", err=True)
            return
        click.echo(f"sharing the board on {board.link.name} at {portshare.socket_path(board.link.name)}; "
                   "Ctrl-C stops", err=True)
        with contextlib.suppress(KeyboardInterrupt):
            while ctrl_c.running(deadline):
                try:
                    board.poll_events(0.5)
                except TransportError as exc:
                    click.echo(f"{exc}; serving it again when it is back", err=True)
                    _reconnect_until(board, deadline, ctrl_c)
                    click.echo(f"sharing the board on {board.link.name} again", err=True)


# ---------------------------------------------------------------- monitor

@click.command("monitor")
@click.option("--send", "-s", "requests", multiple=True, metavar="REQUEST",
              help='A request to send, e.g. -s STATE -s "EV 40" (seq and checksum are added).')
@click.option("--duration", type=float, default=0,
              help="Stop after this many seconds (0: until Ctrl-C, or at once after --send).")
@board_options
@reports_errors
def monitor_cmd(requests: tuple[str, ...], duration: float, port: str | None, use_emulator: bool,
                timeout: float) -> None:
    """Show the raw protocol traffic both ways, with timestamps; type requests
    (e.g. PEG 0 5) on stdin to send them (seq and checksum are added). Through
    the port's sharer (its own, or a running watch's or share's) it shows every
    program's traffic on the port, as the board sees it (the sharer's seqs)."""
    tap = TrafficLines()
    wire_tap: portshare.WireTap | None = None
    try:
        with connected(port, use_emulator, timeout, tap=tap, serve=True) as board:
            link = getattr(board, "link", None)
            if isinstance(link, portshare.SocketTransport):
                # the sharer's wire tap: every connection's lines, this one's included, so not twice
                wire_tap = portshare.WireTap(link.port)
                link.tap = None
            for text in requests:
                _monitor_send(board, text)
            interactive = not requests and sys.stdin.isatty()
            end = time.monotonic() + duration if duration > 0 else None
            if requests and end is None:
                _show_wire(wire_tap, tap, quiet=0.3)
                return
            reader = _stdin_lines() if not requests else None
            with CtrlC() as ctrl_c, contextlib.suppress(KeyboardInterrupt):
                _monitor_loop(board, tap, reader, end, ctrl_c, interactive, wire_tap)
    finally:
        if wire_tap is not None:
            wire_tap.close()
        tap.finish()    # a part line still waiting for its end is shown, marked


def _show_wire(wire_tap: "portshare.WireTap | None", tap: "TrafficLines", quiet: float) -> None:
    """What the sharer's wire tap has, until it is quiet for `quiet` seconds."""
    while wire_tap is not None:
        found = wire_tap.lines(quiet)
        if not found:
            return
        for direction, data in found:
            tap(direction, data)


class TrafficLines:
    """The monitor's tap (transport.Tap): the bytes each way put back into
    lines before they are checked and shown. A link hands over bytes in the
    pieces it got them in (a Pico's USB full-speed CDC sends 64-byte packets),
    so one reply can come in several pieces; each direction keeps its part
    line until the rest arrives, and a frame is checked and shown once, whole.

    A part line is shown all the same, marked incomplete, when no more of it
    came for wait_for_end seconds (looked at whenever bytes pass and on every
    turn of the monitor loop), when it grows to transport.MAX_LINE bytes, and
    when the monitor stops (finish): MicroPython's REPL prompt, say, never
    ends its line."""

    def __init__(self, show: Callable[[str], None] = click.echo,
                 clock: Callable[[], float] = time.monotonic, wait_for_end: float = 0.5) -> None:
        self.show = show
        self.clock = clock
        self.wait_for_end = wait_for_end
        self.start = clock()
        self._part = {">": bytearray(), "<": bytearray()}
        self._last_byte_at = {">": self.start, "<": self.start}

    def __call__(self, direction: str, data: bytes) -> None:
        self.show_stale()
        now = self.clock()
        part = self._part[direction]
        part += data
        self._last_byte_at[direction] = now
        for line in take_lines(part):
            self._show(direction, line, now)
        if len(part) >= MAX_LINE:
            self._show(direction, bytes(part), now,
                       f"incomplete: {len(part)} bytes and no end of line")
            part.clear()

    def show_stale(self) -> None:
        """Show the part lines that waited too long for their end."""
        now = self.clock()
        for direction, part in self._part.items():
            if part and now - self._last_byte_at[direction] >= self.wait_for_end:
                self._show(direction, bytes(part), self._last_byte_at[direction],
                           f"incomplete: no end of line within {self.wait_for_end:g} s")
                part.clear()

    def finish(self) -> None:
        """Show what is left of a line each way (the monitor is stopping)."""
        for direction, part in self._part.items():
            if part:
                self._show(direction, bytes(part), self._last_byte_at[direction],
                           "incomplete: no end of line before the monitor stopped")
                part.clear()

    def _show(self, direction: str, line: bytes, at: float, incomplete: str = "") -> None:
        mark = f"   <- {incomplete}" if incomplete else ""
        if direction == "<" and line.strip() and not incomplete:
            try:
                wire.check_frame(line)
            except ValueError as exc:
                mark = f"   <- {exc}"
        self.show(f"{at - self.start:9.3f} {direction} {_visible(line)}{mark}")


def _visible(line: bytes) -> str:
    """The line as text, every byte that is no printable ASCII as \\xNN (a
    stray carriage return would overwrite the line on a terminal)."""
    return "".join(chr(b) if 32 <= b < 127 else f"\\x{b:02x}" for b in line)


def _monitor_loop(board: Board, tap: TrafficLines, reader: Callable[[], str | None] | None,
                  end: float | None, ctrl_c: CtrlC, interactive: bool,
                  wire_tap: "portshare.WireTap | None" = None) -> None:
    while ctrl_c.running(end):
        board.poll_events(0.05 if wire_tap is not None else 0.1)
        if wire_tap is not None:
            for direction, data in wire_tap.lines(0.05):
                tap(direction, data)
        tap.show_stale()
        if reader is not None:
            line = reader()
            if line is None:
                if not interactive:
                    board.poll_events(0.3)
                    _show_wire(wire_tap, tap, quiet=0.3)
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
    group.add_command(share_cmd)
