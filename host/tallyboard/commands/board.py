"""Commands that talk to a board (or the emulator) over the wire protocol:
ports, status, new, hand, misdeal, peg, end, undo, redo, config, export,
watch, monitor, deploy (emulate, press, simulate and play: emulation.py).

Every board command takes --port PORT, or --emulator, or finds the one board
on USB by itself (a Raspberry Pi Pico: USB VID 0x2E8A)."""
from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import click
from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from tallycore import games, roquet, skicket


from tallyrun import protocol
from .. import deploy as deploy_mod
from .. import emulator as emu_mod
from .. import fileset, records, sheet
from ..client import Board, BoardGame
from ..errors import BoardError, TallyboardError, TransportError, reports_errors
from ..transport import SerialTransport, find_board_port, list_serial_ports

# ---------------------------------------------------------------- connecting


def board_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--port, --emulator and --timeout, shared by every board command."""
    fn = click.option("--timeout", type=click.FloatRange(0.05, 60), default=1.0, show_default=True,
                      help="Seconds to wait for each reply before sending the request again.")(fn)
    fn = click.option("--emulator", "use_emulator", is_flag=True,
                      help="Use the emulator: the running `tallyboard emulate`, else one started for "
                           "this command on the emulator's flash folder.")(fn)
    fn = click.option("--port", "-p", metavar="PORT",
                      help="The board's serial port (default: the one board found on USB).")(fn)
    return fn


@contextlib.contextmanager
def open_link(port: str | None, use_emulator: bool) -> Iterator[tuple[SerialTransport, emu_mod.Emulator | None]]:
    """The serial link to the chosen board (and the emulator started for it, if any)."""
    if port and use_emulator:
        raise click.UsageError("give either --port or --emulator, not both")
    emulator = None
    if use_emulator:
        running = emu_mod.find_running()
        if running:
            port = running["port"]
        else:
            emulator = emu_mod.Emulator()
            port = emulator.start()
    elif not port:
        port = find_board_port()
    try:
        link = SerialTransport(port)
        try:
            yield link, emulator
        except TransportError:
            if emulator is not None:
                emu_mod.require_port_alive(emulator)   # a crashed firmware: say why
            raise
        finally:
            link.close()
    finally:
        if emulator is not None:
            emulator.stop()


@contextlib.contextmanager
def connected(port: str | None, use_emulator: bool, timeout: float = 1.0,
              tap: Callable[[str, bytes], None] | None = None) -> Iterator[Board]:
    with open_link(port, use_emulator) as (link, emulator):
        link.tap = tap
        board = Board(link, timeout=timeout)
        # a board (or emulator) that has just booted may need a moment
        first_wait = max(timeout, 3.0) if emulator is not None else timeout
        link.drain()
        board.timeout = first_wait
        board.hello()
        board.timeout = timeout
        yield board


def player_index(board: Board, value: str, players: int) -> int:
    """A player given as an index (0-based, as on the sheet) or by name."""
    if value.isdigit():
        index = int(value)
        if index >= players:
            raise TallyboardError(f"player {index}: this game has players 0 to {players - 1}")
        return index
    names = board.player_names(players)
    folded = [n.lower() for n in names]
    if value.lower() in folded:
        return folded.index(value.lower())
    raise TallyboardError(f"player {value!r}: not a player of this game ({', '.join(names)}); "
                          "give a name or a number 0 to " + str(players - 1))


def current_game(board: Board) -> BoardGame:
    current = board.rebuild()
    if current.name is None:
        raise TallyboardError("no game on the board: start one with tallyboard new GAME")
    return current


def print_summary(board: Board, console: Console | None = None) -> None:
    console = console or Console()
    current = board.rebuild()
    if current.name is None or current.game is None:
        console.print("No game on the board.")
        return
    names = board.player_names(current.players)
    g = current.game
    totals = "  ".join(f"{names[p]} {g.total(p)}" for p in range(current.players))
    winners = [names[p] for p in range(current.players) if g.winners() >> p & 1]
    line = f"{current.name}: {totals}  ({g.hands()} hand{'s' if g.hands() != 1 else ''}"
    if current.top > current.n:
        line += f", {current.top - current.n} to redo"
    line += ")"
    if g.complete():
        line += f"  game over: {' and '.join(winners)} {'win' if len(winners) > 1 else 'wins'}"
    console.print(line)


# ---------------------------------------------------------------- commands

@click.command("ports")
@reports_errors
def ports_cmd() -> None:
    """List serial ports; boards (Raspberry Pi Pico, USB VID 0x2E8A) are marked."""
    found = list_serial_ports()
    running = emu_mod.find_running()
    if not found and not running:
        click.echo("no serial ports found; plug in the board, or use --emulator")
        return
    table = Table(box=None, pad_edge=False)
    for column in ("port", "board", "description", "serial"):
        table.add_column(column)
    for p in found:
        table.add_row(p.device, "yes" if p.is_pico else "", p.description, p.serial_number or "")
    if running:
        table.add_row(running["port"], "emulator", f"tallyboard emulate (pid {running['pid']})", "")
    Console().print(table)


@click.command("status")
@board_options
@reports_errors
def status_cmd(port: str | None, use_emulator: bool, timeout: float) -> None:
    """Show the board's firmware and the game in progress."""
    with connected(port, use_emulator, timeout) as board:
        h = board.hello_fields
        names = ", ".join(name for name, _, _ in board.games())
        click.echo(f"board {h.get('board')} on {board.link.name}: firmware {h.get('fw')}, "
                   f"protocol {h.get('proto')}; games: {names}")
        print_summary(board)


def _option_value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if text.isdigit():
        return int(text)
    return text


@click.command("new")
@click.argument("game")
@click.option("--players", "-n", type=int, help="How many players (default: the game's number).")
@click.option("--name", "names", multiple=True, metavar="NAME",
              help="A player's name, in seat order (repeat for each player).")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
              help="A game option as in RECORDS.md, e.g. -o end=hand_end -o landmark_bonus=true.")
@board_options
@reports_errors
def new_cmd(game: str, players: int | None, names: tuple[str, ...], options: tuple[str, ...],
            port: str | None, use_emulator: bool, timeout: float) -> None:
    """Start a new GAME on the board (the game in progress is dropped)."""
    try:
        least, most = games.GAMES[games.index_of(game)][1:3]
    except ValueError:
        raise TallyboardError(f"unknown game {game!r}; known games: {', '.join(games.names())}") from None
    if players is None:
        if least != most and not names:
            raise TallyboardError(f"{game} takes {least} to {most} players: "
                                  "say how many with --players")
        players = len(names) if names else least
    if names and len(names) != players:
        raise TallyboardError(f"{len(names)} names for {players} players: give one --name per player")
    allowed = protocol.NAME_CHARS.decode()
    for name in names:
        # checked here too, so a bad third name does not leave two names changed
        if not 1 <= len(name) <= protocol.MAX_NAME or any(c not in allowed for c in name):
            raise TallyboardError(f"--name {name!r}: 1 to {protocol.MAX_NAME} letters, digits, _ - or .")
    option_doc: dict[str, Any] = {}
    for item in options:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise TallyboardError(f"--option {item!r}: write it as KEY=VALUE")
        option_doc[key] = _option_value(value)
    adapter = records.ADAPTERS.get(game)
    try:
        packed = adapter.options(option_doc) if adapter else 0
    except ValueError as exc:
        raise TallyboardError(f"--option: {exc}") from None
    with connected(port, use_emulator, timeout) as board:
        for p, name in enumerate(names):
            board.cfg_set("name", name, p)
        board.new(game, players, packed)
        print_summary(board)


@click.command("hand")
@click.argument("purchaser")
@click.argument("bid")
@click.argument("tricks", type=click.IntRange(0, 13))
@click.option("--doubled-by", "-d", metavar="PLAYER", help="The adversary who doubled.")
@click.option("--redoubled-by", "-r", metavar="PLAYER", help="Who redoubled (the purchaser or partner).")
@click.option("--lone", is_flag=True, help="The purchaser played a lone hand.")
@board_options
@reports_errors
def hand_cmd(purchaser: str, bid: str, tricks: int, doubled_by: str | None, redoubled_by: str | None,
             lone: bool, port: str | None, use_emulator: bool, timeout: float) -> None:
    """Skicket: score one hand. PURCHASER (name or number) bid BID (e.g. 4H, 2NT, 1NK)
    and his side took TRICKS tricks."""
    try:
        skicket.parse_bid(bid.upper())
    except ValueError as exc:
        raise TallyboardError(str(exc)) from None
    with connected(port, use_emulator, timeout) as board:
        current = current_game(board)
        if current.name != "skicket":
            raise TallyboardError(f"the board plays {current.name}, not skicket")
        def who(value: str | None) -> int | None:
            return None if value is None else player_index(board, value, current.players)

        board.hand(player_index(board, purchaser, current.players), bid.upper(), who(doubled_by),
                   who(redoubled_by), lone, tricks)
        print_summary(board)


@click.command("misdeal")
@board_options
@reports_errors
def misdeal_cmd(port: str | None, use_emulator: bool, timeout: float) -> None:
    """Skicket: record a misdeal (the same dealer deals again; nobody scores)."""
    with connected(port, use_emulator, timeout) as board:
        board.misdeal()
        print_summary(board)


@click.command("peg")
@click.argument("player")
@click.argument("points", type=click.IntRange(1, 99))
@board_options
@reports_errors
def peg_cmd(player: str, points: int, port: str | None, use_emulator: bool, timeout: float) -> None:
    """Roquet: peg POINTS (1 to 99) for PLAYER (name or number)."""
    with connected(port, use_emulator, timeout) as board:
        current = current_game(board)
        board.peg(player_index(board, player, current.players), points)
        print_summary(board)


@click.command("end")
@board_options
@reports_errors
def end_cmd(port: str | None, use_emulator: bool, timeout: float) -> None:
    """Roquet: end the hand (the tally pegs move to the king row)."""
    with connected(port, use_emulator, timeout) as board:
        board.end()
        print_summary(board)


@click.command("undo")
@board_options
@reports_errors
def undo_cmd(port: str | None, use_emulator: bool, timeout: float) -> None:
    """Undo the last scoring on the board."""
    with connected(port, use_emulator, timeout) as board:
        board.undo()
        print_summary(board)


@click.command("redo")
@board_options
@reports_errors
def redo_cmd(port: str | None, use_emulator: bool, timeout: float) -> None:
    """Redo the scoring undone last."""
    with connected(port, use_emulator, timeout) as board:
        board.redo()
        print_summary(board)


@click.group("config")
def config_group() -> None:
    """Read or change the board's settings (brightness, budget_ma, name, colour, board)."""


def _config_keys() -> dict[str, bool]:
    return {row[0].decode(): row[4] for row in protocol.CONFIG_KEYS}


def _check_key(key: str, player: int | None) -> None:
    keys = _config_keys()
    if key not in keys:
        raise TallyboardError(f"unknown setting {key!r}; the board has: {', '.join(keys)}")
    if keys[key] and player is None:
        raise TallyboardError(f"{key} is set per player: add --player N")
    if not keys[key] and player is not None:
        raise TallyboardError(f"{key} is not a per-player setting: leave out --player")


@config_group.command("get")
@click.argument("key", required=False)
@click.option("--player", type=click.IntRange(0, protocol.MAX_PLAYERS - 1), help="For per-player keys.")
@board_options
@reports_errors
def config_get_cmd(key: str | None, player: int | None, port: str | None, use_emulator: bool,
                   timeout: float) -> None:
    """Print a setting (KEY), or every setting."""
    if key is not None:
        _check_key(key, player)
    with connected(port, use_emulator, timeout) as board:
        if key is not None:
            click.echo(board.cfg_get(key, player))
            return
        for name, per_player in _config_keys().items():
            if per_player:
                for p in range(protocol.MAX_PLAYERS):
                    click.echo(f"{name}.{p} {board.cfg_get(name, p)}")
            else:
                click.echo(f"{name} {board.cfg_get(name)}")


@config_group.command("set")
@click.argument("key")
@click.argument("value")
@click.option("--player", type=click.IntRange(0, protocol.MAX_PLAYERS - 1), help="For per-player keys.")
@board_options
@reports_errors
def config_set_cmd(key: str, value: str, player: int | None, port: str | None, use_emulator: bool,
                   timeout: float) -> None:
    """Change a setting: KEY VALUE (the board checks the range and keeps it across power cuts)."""
    _check_key(key, player)
    with connected(port, use_emulator, timeout) as board:
        click.echo(board.cfg_set(key, value, player))


@click.command("export")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True),
              help="Write the record to this file (default: stdout).")
@board_options
@reports_errors
def export_cmd(output: str | None, port: str | None, use_emulator: bool, timeout: float) -> None:
    """Print the board's game as a game record (RECORDS.md JSON)."""
    with connected(port, use_emulator, timeout) as board:
        loaded = board.loaded_game()
        doc = records.to_document(loaded.name, loaded.players, loaded.options, loaded.game)
    warning = records.open_hand_warning(loaded)
    if warning:
        click.echo(f"tallyboard: note: {warning}", err=True)
    text = json.dumps(doc, indent=1)
    if output:
        partial = Path(output + ".part")
        partial.write_text(text + "\n", encoding="utf-8")
        partial.replace(output)
    else:
        click.echo(text)


def live_sheet(port: str | None, use_emulator: bool, timeout: float) -> records.LoadedGame:
    """The board's game for `tallyboard sheet` with no RECORD."""
    with connected(port, use_emulator, timeout) as board:
        return board.loaded_game()


# ---------------------------------------------------------------- watch

def peg_rows(current: BoardGame, names: list[str]) -> Text:
    """Roquet: each player's tally row (single holes, outer and inner lanes)
    and king row as on Dana's board: ● the front peg, ○ the back peg."""
    out = Text()
    game = current.game
    assert game is not None
    for p in range(current.players):
        position = roquet.tally(game.state, p)
        back = roquet.back_peg(game.state, p)
        holes = ["·"] * roquet.TALLY_HOLES
        if back and roquet.tally_hole(back) >= 0:
            holes[roquet.tally_hole(back)] = "○"
        if roquet.tally_hole(position) >= 0:
            holes[roquet.tally_hole(position)] = "●"
        king = roquet.king_total(game.state, p)
        kings = ["·"] * roquet.KING_HOLES
        if roquet.king_hole(king) >= 0:
            kings[roquet.king_hole(king)] = "●"
        lanes = " ".join("".join(holes[i:i + 15]) for i in (0, 15, 30))
        laps = roquet.tally_laps(position)
        out.append(f"{names[p]:>8} tally {lanes}  {position}" + (f" (lap {laps + 1})" if laps else "") + "\n")
        out.append(f"{'':>8} king  {''.join(kings)}  {king}"
                   + (f" (+{roquet.king_remainder(king)})" if roquet.king_remainder(king) else "") + "\n")
    return out


def render_board(board: Board, width: int = 100, plain: bool = False) -> Group:
    """The sheet, then the board as it looks (the LED field and the OLED,
    composed by the firmware's own display code: render.py), or with plain
    the Roquet pegs as text."""
    current = board.rebuild()
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
    elif current.name == "roquet":
        parts.append(peg_rows(current, loaded.players))
    if current.top > current.n:
        parts.append(Text(f"{current.top - current.n} undone (redo brings back)", style="dim"))
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

    with connected(port, use_emulator, timeout) as board:
        board.keep_events = False
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
                    protocol.check_frame(line)
                except ValueError as exc:
                    mark = f"   <- {exc}"
            click.echo(f"{stamp} {direction} {line.decode('ascii', errors='backslashreplace')}{mark}")

    with connected(port, use_emulator, timeout, tap=tap) as board:
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


# ---------------------------------------------------------------- deploy

@click.command("deploy")
@click.option("--port", "-p", metavar="PORT", help="The board's serial port (default: the one board on USB).")
@click.option("--emulator", "use_emulator", is_flag=True, help="Install on the emulator's flash folder instead.")
@reports_errors
def deploy_cmd(port: str | None, use_emulator: bool) -> None:
    """Compile the firmware with mpy-cross and copy it to the board with mpremote."""
    console = Console(stderr=True)
    sources = [s for package in fileset.PACKAGES for s in (emu_mod.FIRMWARE_DIR / package).glob("*.py")]
    with _progress(console) as progress:
        task = progress.add_task("compiling with mpy-cross", total=len(sources))
        files = fileset.build(progress=lambda name: progress.update(task, advance=1, description=f"compiled {name}"))
    if use_emulator:
        if port:
            raise click.UsageError("give either --port or --emulator, not both")
        running = emu_mod.find_running()
        flash = Path(running["flash"]) if running else emu_mod.state_home() / "flash"
        changed = fileset.install(files, flash)
        if not running:
            click.echo(f"installed {len(files)} files on the emulator's flash {flash} ({changed} changed); "
                       "the next command with --emulator boots them")
            return
        os.kill(int(running["pid"]), signal.SIGHUP)   # `tallyboard emulate` resets its board
        board = _wait_for_board(running["port"])
        click.echo(f"installed {len(files)} files on the emulator's flash {flash} ({changed} changed) and "
                   f"reset it; it runs firmware {board.get('fw')} (protocol {board.get('proto')})")
        return
    rediscover = port is None
    port = port or find_board_port()
    with _progress(console) as progress:
        task = progress.add_task(f"deploying to {port}", total=len(files) + 2)
        total = deploy_mod.deploy(port, files, progress=lambda step: progress.update(
            task, advance=1, description=step))
    board = _wait_for_board(port, rediscover=rediscover)
    click.echo(f"deployed {len(files)} files ({total} bytes) to {port}; the board runs firmware "
               f"{board.get('fw')} (protocol {board.get('proto')})")


def _progress(console: Console) -> Progress:
    return Progress(TextColumn("{task.description:<40}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, transient=False)


def _wait_for_board(port: str, seconds: float = 15.0, rediscover: bool = False) -> dict[str, str]:
    """After a reset the Pico re-enumerates (found again by its USB id when
    rediscover: it may come back on another port); HELLO once it is back."""
    deadline = time.monotonic() + seconds
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            if rediscover:
                port = find_board_port()
            link = SerialTransport(port)
        except TallyboardError as exc:     # not back yet: no such port, no board on USB
            last = exc
            time.sleep(0.5)
            continue
        try:
            board = Board(link, timeout=1.0)
            link.drain()
            return board.hello()
        except TallyboardError as exc:
            last = exc
            time.sleep(0.5)
        finally:
            link.close()
    raise TransportError(f"the board on {port} did not answer after the deploy ({last}); "
                         "unplug it and plug it in again, then run tallyboard status")


def register(group: click.Group) -> None:
    for command in (ports_cmd, status_cmd, new_cmd, hand_cmd, misdeal_cmd, peg_cmd, end_cmd, undo_cmd,
                    redo_cmd, config_group, export_cmd, watch_cmd, monitor_cmd, deploy_cmd):
        group.add_command(command)
