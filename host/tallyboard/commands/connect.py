"""The link to a board, for every command that talks to one: --port PORT, or
--emulator, or the one board found on USB by itself (a Raspberry Pi Pico: USB
VID 0x2E8A); connecting (HELLO), naming players, the game's summary, and the
`ports` command. A port one tallyboard process serves (`watch`, `monitor`) is
shared with the others (portshare.py)."""
from __future__ import annotations

import contextlib
import functools
import sqlite3
from pathlib import Path
from typing import Any, Callable, Iterator

import click
from tallycore import game as core_game
from tallyrun import protocol
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..common.console import Console
from ..tooling import emulator as emu_mod
from .. import games as profiles
from ..boardlink import portshare
from ..scorebook import records
from ..scorebook import why as reasons
from ..boardlink import viewcache, wire
from ..boardlink.client import Board
from ..boardlink.boardgame import BoardGame, game_from_log, parse_held
from ..common.errors import BoardError, BoardNotFound, TallyboardError, TransportError
from .reporting import reply_timeout_option, reports_errors
from ..boardlink.transport import Transport, find_board_port, list_serial_ports

# ---------------------------------------------------------------- connecting


def evening_table(table: int) -> tuple[str, Path | None]:
    """Table `table`'s board at the evening in progress (made, or under way; not finished): its port now
    (an emulated board's, the one its emulator has now, after `event resume` too) and, for an emulated
    one, the flash folder it runs on (None: a board on USB). TallyboardError saying what to do for no evening in progress, or a table with no
    board here (none attached, one on a table host, an emulated one not running)."""
    from ..evening import FINISHED, EveningDatabase, table_emulators
    from ..evening.tables import REMOTE, event_folder

    with EveningDatabase() as store:
        event = store.event()
        boards = store.boards(event)
    if event.state == FINISHED:
        raise TallyboardError(f"table {table}: no evening is in progress (the last one, {event.name!r}, is "
                              "finished): start one with tallyboard event create NAME --player NAME ..., or "
                              "choose the board with --port")
    known = boards.get(table)
    if known is None:
        have = ", ".join(str(t) for t in sorted(boards)) or "none"
        raise TallyboardError(f"table {table}: the evening {event.name!r} has no board at that table (tables with "
                              f"boards: {have}); attach one with tallyboard event attach")
    port = str(known["port"])
    if port.startswith(REMOTE):
        raise TallyboardError(f"table {table}'s board is on the table host {port[len(REMOTE):]!r}: enter its hands "
                              "there, on that laptop or on the board")
    flash = table_emulators.emulated_flash(event_folder(event), table)
    if flash is not None:
        port = table_emulators.running_port(table, flash)
    return port, flash


def board_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--port, --table, --emulator and --timeout, shared by every board command: --table N is the board
    of table N at the evening in progress, wherever `event attach` or `event resume` put it (a command
    with a --table of its own, `wifi enrol`'s table to enrol as, keeps its own)."""
    if any(param.name == "table" for param in getattr(fn, "__click_params__", [])):
        return _port_options(fn)
    command = fn

    @functools.wraps(command)
    @reports_errors
    def at_table(*args: Any, table: int | None = None, **kwargs: Any) -> Any:
        if table is not None:
            if kwargs.get("port") or kwargs.get("use_emulator"):
                raise click.UsageError("--table, --port and --emulator each choose the board: give one of them")
            kwargs["port"] = evening_table(table)[0]
        return command(*args, **kwargs)

    return _port_options(click.option("--table", type=click.IntRange(1, protocol.MAX_TABLE), metavar="N",
                                      help="The board of table N at the evening in progress.")(at_table))


def _port_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = reply_timeout_option()(fn)
    fn = click.option("--emulator", "use_emulator", is_flag=True,
                      help="Use the emulator: the running `tallyboard emulate`, else one started for "
                           "this command on the emulator's flash folder.")(fn)
    fn = click.option("--port", "-p", metavar="PORT",
                      help="The board's serial port (default: the one board found on USB).")(fn)
    return fn


@contextlib.contextmanager
def open_link(port: str | None, use_emulator: bool,
              serve: bool = False) -> Iterator[tuple[Transport, emu_mod.Emulator | None]]:
    """The link to the chosen board (and the emulator started for it, if any);
    with serve, this process shares the port with other tallyboard processes."""
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
        try:
            port = find_board_port()
        except BoardNotFound as exc:
            raise BoardNotFound(f"{exc}{_evening_ports()}") from None
    try:
        link = portshare.open_link(port, serve)
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
              tap: Callable[[str, bytes], None] | None = None, serve: bool = False,
              opening: str = "HELLO") -> Iterator[Board]:
    """The board, its session opened: with HELLO (who it is), or for a command
    that changes the game with OPEN (the stamp that says whether this host's
    copy of the game is current: then the change is the only other request)."""
    with open_link(port, use_emulator, serve) as (link, emulator):
        link.tap = tap
        board = Board(link, timeout=timeout)
        # a board (or emulator) that has just booted may need a moment
        first_wait = max(timeout, 3.0) if emulator is not None else timeout
        link.drain()
        board.timeout = first_wait
        if opening == "OPEN":
            board.open()
        else:
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
    names = names_of(board, players)
    folded = [n.lower() for n in names]
    if value.lower() in folded:
        return folded.index(value.lower())
    raise TallyboardError(f"player {value!r}: not a player of this game ({', '.join(names)}); "
                          "give a name or a number 0 to " + str(players - 1) + _where_sits(value))


def _where_sits(name: str) -> str:
    """Where the evening in progress seats a player, in words ("; Bob sits at
    table 1: --port /dev/pts/0"), or "" (no evening, or no such player)."""
    for table, names, port in _evening_tables():
        if name.lower() in (n.lower() for n in names):
            return f"; {name} sits at table {table}" + (f": --port {port}" if port else "")
    return ""


def _evening_ports() -> str:
    """The boards of the evening in progress, in words, for a command that found no board on USB
    ("; the evening's tables: table 1 (Ann, Bob, Cy, Dee): --port /dev/pts/0; ..."), or ""."""
    tables = [f"table {table} ({', '.join(names)})" + (f": --port {port}" if port else ": no board attached")
              for table, names, port in _evening_tables()]
    return "; the evening's tables: " + "; ".join(tables) if tables else ""


def _evening_tables() -> list[tuple[int, list[str], str | None]]:
    """The evening in progress, table by table: its number, who sits there this round, and its
    board's port ([] when there is no evening running)."""
    try:
        from ..scorebook import archive
        from ..evening import EveningDatabase

        if not archive.default_path().exists():
            return []
        with EveningDatabase() as store:
            event = store.event(None)
            if event.state != "running":
                return []
            names = store.names(event)
            boards = store.boards(event)
            return [(table, [names[p] for p in seats], boards.get(table, {}).get("port"))
                    for table, seats in enumerate(store.seating(event, event.round), 1)]
    except (OSError, ValueError, LookupError, sqlite3.Error, TallyboardError):   # no evening: the message stands
        return []


def names_of(board: Board, players: int) -> list[str]:
    if board.view_names is not None and len(board.view_names) >= players:
        return board.view_names[:players]
    return board.player_names(players)


def current_game(board: Board) -> BoardGame:
    """The game in progress: this host's copy when OPEN's stamp says it is the
    board's (no request), else read from the board (and kept for next time)."""
    if board.view is None:
        board.view, board.view_names = _read_view(board)
    if board.view.name is None:
        raise TallyboardError("no game on the board: start one with tallyboard new GAME")
    return board.view


def _read_view(board: Board) -> tuple[BoardGame, list[str]]:
    fields = board.open_fields
    if fields:
        cached = viewcache.load(board.link.name, viewcache.stamp_of(fields))
        if cached is not None:
            log, names, accepted = cached
            name = fields["game"]
            players, options, n = int(fields["players"]), int(fields["options"]), int(fields["n"])
            if name in ("-", ""):
                return BoardGame(None, 0, 0, None, log, dict(fields), {}), names
            game = game_from_log(name, players, options, log, n, None, accepted)   # a copy is served only with held=-
            return BoardGame(name, players, options, game, log, dict(fields), {}), names
    current = board.rebuild()
    names = board.player_names(current.players) if current.name is not None else []
    if fields:
        _keep(board, current, names)
    return current, names


def _keep(board: Board, current: BoardGame, names: list[str]) -> None:
    stamp = viewcache.stamp_of(dict(current.state, ccrc=board.open_fields.get("ccrc", "")))
    if current.name is None:
        stamp["game"] = "-"
    accepted = None
    if current.game is not None:
        accepted = [who if who >= 0 else None for who in map(current.game.accepted_by, range(len(current.log)))]
    viewcache.save(board.link.name, stamp, current.log, names, accepted)


def change(board: Board, verb: str, *args: Any) -> dict[str, str]:
    """Send a change of the game in progress (current_game first) and keep this
    host's copy in step with the board's reply: its n, and the event applied."""
    current = board.view
    try:
        reply = board.request(verb, *args)
    except BoardError as exc:
        if exc.code == "RULE" and current is not None and current.game is not None and current.game.held:
            # refused while a hand waits: say which buttons answer it (the board's words name the players)
            names = names_of(board, current.players)
            raise BoardError(exc.code, exc.board_message,
                             f"{exc}\n{held_words(current.game, names, button_letters(board))}") from None
        raise
    if current is None or current.game is None:
        return reply
    game, log = current.game, list(current.log)
    held = parse_held(reply)
    try:
        if held is not None:
            game.hold(*held)     # waits for its confirmation on the board: nothing counted yet
        elif verb == "UNDO":
            game.undo()
        elif verb == "REDO":
            game.redo()
        elif reply.get("ev", "").isdigit():
            del log[game.n:]
            game.apply(int(reply["ev"]))
            log.append(int(reply["ev"]))
        else:
            raise ValueError("no ev in the reply (a retry's answer)")
        if str(game.n) != reply.get("n") or str(len(log)) != reply.get("top"):
            raise ValueError("the copy is not the board's")
    except ValueError:
        board.view = None       # read it again for the summary
        viewcache.forget(board.link.name)
        return reply
    state = dict(current.state, n=reply["n"], top=reply["top"], lcrc=f"{wire.log_crc(log):04X}",
                 held=reply.get("held", "-"))
    board.view = BoardGame(current.name, current.players, current.options, game, log, state, {})
    if board.open_fields and board.view_names is not None:
        _keep(board, board.view, board.view_names)
    return reply


def game_of_verb(board: Board, verb: str) -> BoardGame:
    """The game in progress, which must be the one whose verb this is (PEG: Roquet)."""
    current = current_game(board)
    owner = profiles.by_verb(verb)
    if current.name != owner.name:
        raise TallyboardError(f"{verb.lower()} is for {owner.name}, and the board plays {current.name}: "
                              f"use tallyboard enter for {current.name}, or start {owner.name} with "
                              f"tallyboard new {owner.name}")
    return current


def print_summary(board: Board, console: Console | None = None, notes_in_full: bool = False) -> None:
    """One line for the game in progress; and what the board found wrong when
    it started (in full, or a pointer to `status` on stderr)."""
    console = console or Console()
    current = board.view if board.view is not None else board.rebuild()
    notes = board.open_fields.get("notes") or current.state.get("notes", "")
    count = int(notes) if notes.isdigit() else 0
    if count and notes_in_full:
        for text in board.notes(count):
            click.echo(f"the board noted: {text}")
    elif count:
        click.echo(f"tallyboard: note: the board has noted {count} problem{'s' if count > 1 else ''} since it "
                   "started: see tallyboard status", err=True)
    if current.name is None or current.game is None:
        console.print("No game on the board.")
        return
    names = names_of(board, current.players)
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
    if g.held:
        console.print(held_words(g, names, button_letters(board)), soft_wrap=True)
        console.print(f"  it gives: {held_gives(g, names)}", soft_wrap=True)


def event_words(game: Any, index: int, names: list[str], board: Board | None = None) -> list[str]:
    """The reason of event index (0-based): asked of the board (WHY) when one is given and
    its firmware has WHY, else composed here from the game's own log."""
    if board is not None:
        try:
            return reasons.wire_lines(game, board.why_parts(index + 1), names)
        except BoardError as exc:
            if exc.code != "VERB":
                raise
    return reasons.event_lines(game, index, names)


def print_why(board: Board, start: int) -> None:
    """The reason of each event the board applied since it had start applied (hand, press, enter),
    or of the hand it holds for its confirmation: its rules' words, asked of the board (WHY) and
    composed by tallycore.why."""
    current = board.view if board.view is not None else board.rebuild()
    game = current.game
    if game is None or not reasons.explains(game):
        return
    names = names_of(board, current.players)
    if game.n <= start and game.held == core_game.HELD_APPLY:
        # WHY's default: the change held; it counts once accepted (rules.md CF1)
        click.echo(f"why (hand {game.held_hand()}, once accepted):")
        for line in event_words(game, game.n, names, board):
            click.echo(f"  {line}")
        return
    if game.n <= start:
        return
    hand = reasons.hand_of_event(game, game.n - 1)
    if (not any(game.rules.ends_hand(game.log[i]) for i in range(start, game.n)) and current.name is not None
            and not profiles.profile(current.name).hand_in_progress(game)):
        # it closed no hand and left none in progress: a deal that scores nothing (a misdeal) is no hand
        click.echo(f"why (no hand: hand {hand} is dealt again):")
    else:
        click.echo(f"why (hand {hand}):")
    for index in range(start, game.n):
        for line in event_words(game, index, names, board):
            click.echo(f"  {line}")


def button_letters(board: Board | None) -> str:
    """The letters printed beside the board's seat buttons, seat 0 first
    (fileset.button_letters: its board definition's, the letters its own OLED shows)."""
    from ..tooling import fileset

    name = None
    if board is not None:
        name = board.hello_fields.get("board")
        if name is None:
            with contextlib.suppress(TallyboardError):
                name = board.hello().get("board")
    return fileset.button_letters(name)


def _button_words(game: Any, player: int, letters: str) -> str:
    """" (button B)": the seat button that player presses for the held hand.
    The seats pivot during a Skicket game (rules.md SK5): the button is the
    seat the game's own mapping (tallycore.game.seat_of, the board's) puts the
    player in for that hand; letters: beside the seat buttons, seat 0 first."""
    seat = core_game.seat_of(game.rules, game.held_hand() - 1, player)
    if not 0 <= seat < len(letters):
        return " (no button on this board)"
    return f" (button {letters[seat]})"


def held_words(game: Any, names: list[str], letters: str | None = None) -> str:
    """The change a board holds for its confirmation, in words
    (docs/rules.md CF): which hand, and who may accept it, with the button
    each presses (letters: the board's, button_letters(); None: the default)."""
    if letters is None:
        letters = core_game.SEAT_LETTERS
    who = " or ".join(names[p] + _button_words(game, p, letters)
                      for p in range(game.players) if game.held_by >> p & 1)
    what = f"the undo of hand {game.held_hand()}" if game.held == core_game.HELD_UNDO else f"hand {game.held_hand()}"
    return f"{what} pending: waiting for {who} to accept on the board"


def note_what_the_record_leaves(loaded: Any, letters: str | None = None) -> None:
    """On stderr, what a record of the board's game (export, archive save)
    leaves out or keeps open: a hand pending its confirmation is left out
    (docs/records.md: a record holds the hands that count), a hand in
    progress is kept as an open hand. letters: the board's, button_letters()."""
    if loaded.game.held:
        click.echo(f"tallyboard: note: {held_words(loaded.game, loaded.players, letters)}; it is left out of "
                   "the record until it is accepted", err=True)
    note = records.open_hand_note(loaded)
    if note:
        click.echo(f"tallyboard: note: {note}", err=True)


def note_unsigned(loaded: Any) -> None:
    """On stderr, for a record of the board's game (export, archive save), that a game still going
    is not signed (docs/records.md, The chain)."""
    if not loaded.game.complete():
        click.echo("tallyboard: note: the game is not over, so its record is not signed: the board signs its "
                   "game's chain once it is over (docs/records.md, The chain)", err=True)


def held_gives(game: Any, names: list[str]) -> str:
    """What each player gets by the held change (the core's arithmetic)."""
    return "  ".join(f"{names[p]} {game.held_scores[p]:+d}" for p in range(game.players))


def scoring(act: Callable[..., None]) -> Callable[..., None]:
    """A command that changes the game on the board: connect, act(board, ...)
    with the command's own arguments, then print the game's summary."""
    @board_options
    @reports_errors
    @functools.wraps(act)
    def command(port: str | None, use_emulator: bool, timeout: float, **arguments: Any) -> None:
        with connected(port, use_emulator, timeout, opening="OPEN") as board:
            act(board, **arguments)
            try:
                print_summary(board)
            except TransportError as exc:
                raise TransportError(f"the board recorded the change, then: {exc}") from None
    return command


def progress_bar(console: Console) -> Progress:
    """The progress bar of long work (compiling, copying files to a board)."""
    return Progress(TextColumn("{task.description:<40}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, transient=False)


# ---------------------------------------------------------------- ports

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
    for column in ("port", "board", "description", "serial", "shared at"):
        table.add_column(column, overflow="fold")
    for p in found:
        table.add_row(p.device, "yes" if p.is_pico else "", p.description, p.serial_number or "", _shared(p.device))
    if running:
        table.add_row(running["port"], "emulator", f"tallyboard emulate (pid {running['pid']})", "",
                      _shared(running["port"]))
    Console().print(table)


def _shared(port: str) -> str:
    """Where a port is shared (docs/protocol.md, Sharing the port), and by whom; "" when it is not."""
    server = portshare.server_of(port)
    if server is None:
        return ""
    return f"{portshare.socket_path(port)} ({server.split(' (')[0]})"


def register(group: click.Group) -> None:
    group.add_command(ports_cmd)
