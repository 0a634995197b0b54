"""Commands around the emulator: emulate (a board in the foreground), press
(its buttons), simulate (differential simulation) and play (the demo with no
hardware)."""
from __future__ import annotations

import contextlib
import json
import signal
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterator

import click

from tallycore import game as core_game
from tallyrun import protocol

from ..common.console import Console
from ..tooling import emulator as emu_mod
from .. import games
from ..scorebook import records, sheet
from ..common.files import loads as load_json
from ..boardlink.client import Board, EntryScreen
from ..boardlink.session import Event
from ..boardlink.boardgame import BoardGame, parse_held
from ..common.errors import TallyboardError
from .reporting import reply_timeout_option, reports_errors
from ..tooling.simulate import SIMULATED_GAMES, simulate
from ..boardlink.transport import SerialTransport
from .connect import button_letters, connected, evening_table, names_of, print_summary, print_why, progress_bar


# ---------------------------------------------------------------- emulate

@click.command("emulate")
@click.option("--flash", type=click.Path(file_okay=False), help="The flash folder (default: the emulator's own).")
@click.option("--fresh", is_flag=True, help="Start from an empty flash (erases the emulated board's game).")
@reports_errors
def emulate_cmd(flash: str | None, fresh: bool) -> None:
    """Run the firmware in the emulator (MicroPython unix port) with its serial
    port on a pseudo-terminal; print the port and run until Ctrl-C. Other
    commands reach it with --emulator (or --port PORT)."""
    emulator = emu_mod.Emulator(Path(flash) if flash else None)
    port = emulator.start(fresh=fresh)
    emu_mod.write_running(emulator)
    click.echo(port)
    click.echo(f"emulating a board on {port} (flash: {emulator.flash}, I/O: {emulator.io_dir}); "
               "use --emulator or --port with other commands; Ctrl-C stops it", err=True)
    # Ctrl-C / SIGTERM stop it and SIGHUP is the reset button (`tallyboard
    # deploy --emulator` sends it after installing new firmware on the flash).
    # The handlers only set flags, so a signal never lands half-way through a
    # restart: the loop acts on them between steps.
    stop: list[int] = []
    reset: list[int] = []
    boots = 0
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGHUP, lambda *_: reset.append(1))
    try:
        while not stop:
            if reset:
                reset.clear()
                emulator.restart()
                boots += 1
                emu_mod.write_running(emulator, boots)   # after the restart: a command waiting on it goes on
                click.echo("reset: the emulated board boots again", err=True)
            if not emulator.running:
                emu_mod.require_port_alive(emulator)   # raises, saying why it stopped
            time.sleep(0.1)
    finally:
        emu_mod.clear_running(emulator.flash)
        emulator.stop()


_KNOB = ("right", "left")   # the encoder turned one detent clockwise, counter-clockwise


def _running_emulator(flash_dir: str | None, table: int | None) -> dict[str, Any]:
    """The running emulator press reaches: table N's at the evening, the one on flash_dir, else the one."""
    if table is not None:
        if flash_dir:
            raise TallyboardError("--table and --flash each choose the board: give one of them")
        flash = evening_table(table)[1]
        if flash is None:
            raise TallyboardError(f"table {table}'s board is not an emulated one: press its own buttons")
        flash_dir = str(flash)
    if flash_dir:
        running = emu_mod.running_on(Path(flash_dir))
        if not running:
            raise TallyboardError(f"no emulator is running on {flash_dir}: start one with "
                                  f"tallyboard emulate --flash {flash_dir}")
    else:
        running = emu_mod.find_running()
    if not running:
        raise TallyboardError("no emulator is running: start one with tallyboard emulate")
    return running


@click.command("press")
@click.argument("button")
@click.option("--hold", type=click.FloatRange(0.02, 10), default=0.15, show_default=True,
              help="Seconds to hold it down (a long press is 0.6 s or more).")
@click.option("--times", type=click.IntRange(1, 200), default=1, show_default=True,
              help="How many presses, or detents of the knob.")
@click.option("--flash", "flash_dir", type=click.Path(file_okay=False),
              help="The emulator running on this flash folder (`emulate --flash`); default: the running "
                   "`tallyboard emulate`.")
@click.option("--table", type=click.IntRange(1, protocol.MAX_TABLE), metavar="N",
              help="The emulated board of table N at the evening in progress.")
@reports_errors
def press_cmd(button: str, hold: float, times: int, flash_dir: str | None, table: int | None) -> None:
    """Press a button of the running `tallyboard emulate`: seat0..seat3, undo,
    shift or push (the encoder's), pins as in its board definition; right or
    left turns the encoder one detent. Then say what the board did with it:
    accepted, rejected, refused and why, changed the game, or nothing."""
    running = _running_emulator(flash_dir, table)
    flash = Path(running["flash"])
    doc = board_definition(flash)
    pins = board_buttons(flash, doc)
    knob = doc.get("encoder", {})
    turns = isinstance(knob.get("a"), int) and isinstance(knob.get("b"), int)
    if button not in pins and not (turns and button in _KNOB):
        names = [*pins, *(_KNOB if turns else ())]
        raise TallyboardError(f"unknown button {button!r}; this board has: {', '.join(names)}")
    emulator = emu_mod.Emulator(flash=flash, io_dir=Path(running["io"]), install=False)

    def act() -> None:
        if button in _KNOB:
            detents = times if button == "right" else -times
            emulator.turn(knob["a"], knob["b"], detents, int(knob.get("steps_per_detent", 4)))
            click.echo(f"turned the knob {button} {times} detent{'s' if times > 1 else ''} on the emulated board")
            return
        emulator.tap(pins[button], hold, times)
        click.echo(f"pressed {button} (GPIO {pins[button]}) for {hold:g} s"
                   f"{f' {times} times' if times > 1 else ''} on the emulated board")

    with contextlib.ExitStack() as stack:
        try:
            board = stack.enter_context(connected(running["port"], False))
            before = board.state()
        except TallyboardError as exc:
            act()
            click.echo(f"what the board did with it is not known: its port cannot be read now ({exc})")
            return
        seat = int(button[4:]) if button.startswith("seat") and button[4:].isdigit() else None
        held = board.rebuild() if parse_held(before) else None
        entry_before = board.entry_screen()
        oled_before = emulator.oled()
        heard = len(board.events)
        act()
        # The press is handled by the time the emulator has played it (Emulator.play: the
        # release read twice, once after its gap); what it did was pushed then, before the
        # reply to this STATE: the events heard up to it are the press's answer.
        after = board.state()
        entry = board.entry_screen()
        outcome = press_outcome(board, board.events[heard:], before, after, held, seat, entry_before, entry)
        if outcome.startswith("nothing happened"):
            outcome = why_screen_outcome(emulator, oled_before) or outcome
        click.echo(outcome)
        if not outcome.startswith(("nothing happened", "the hand entry")):
            print_summary(board)
            print_why(board, int(before.get("n", "0")))


def press_outcome(board: Board, events: list[Event], before: dict[str, str], after: dict[str, str],
                  held: BoardGame | None, seat: int | None, entry_before: EntryScreen | None = None,
                  entry: EntryScreen | None = None) -> str:
    """What the board did with a press, from the events it pushed for it, its
    STATE after and the hand entry on its screen before and after (ENTRY,
    docs/protocol.md): accepted, rejected, refused and why, changed the game,
    moved the hand entry (what it shows now), or nothing happened."""
    said = [e for e in events if e.kind in ("ACCEPT", "REJECT", "NOTE") or e.fields.get("src") == "board"
            or e.kind == "NEW"]
    for event in said:
        if event.kind == "ACCEPT":
            return "accepted: " + _held_change(board, held, seat, "accepted", "; it counts now")
        if event.kind == "REJECT":
            reopens = held is not None and held.game is not None and held.game.held == core_game.HELD_APPLY
            return ("rejected: " + _held_change(board, held, seat, "rejected", "; it is dropped") +
                    ("; the board's hand entry reopens with its values, to correct" if reopens else ""))
        if event.kind == "NOTE":
            return "refused: " + event.fields.get("text", "").replace("_", " ")
    for event in said:
        if event.kind == "HELD":
            return "entered: a change now waits for its confirmation on the board"
        if event.kind == "NEW":
            return "started a new game on the board"
        if event.kind in ("EV", "UNDO", "REDO"):
            words = {"EV": "scored an event", "UNDO": "undid the last event", "REDO": "redid an event"}
            return f"changed the game: the board {words[event.kind]} (n={event.fields.get('n', '?')})"
    if after.get("eseq") == before.get("eseq") and after.get("n") == before.get("n"):
        return _unchanged_outcome(before, entry_before, entry)
    return "the board changed meanwhile, but not by this press: see tallyboard status"


def _unchanged_outcome(before: dict[str, str], entry_before: EntryScreen | None, entry: EntryScreen | None) -> str:
    """A press that changed no game: the hand entry on the board's screen, or nothing."""
    if entry is not None:
        moved = "opened" if entry_before is None else "shows" if entry == entry_before else "moved"
        return f"the hand entry {moved}{': it shows' if moved != 'shows' else ''} {entry.words()}; {_ENTRY_NEXT}"
    if entry_before is not None:
        return "the hand entry closed without scoring: nothing was entered"
    return (f"nothing happened: the board handled the press and changed nothing (no event since "
            f"{before.get('eseq', '?')})")


_ENTRY_NEXT = ("turn the knob (press right/left) to change the value, press push for the next step, "
               "push --hold 0.8 to go back")
_WHY_NEXT = "turn the knob (press right/left) for another hand, press push for its next page, any other control leaves it"
_SETTLED = 0.2                # s: the OLED read again this long after, and the same, is drawn whole
_WHY_HEADING = "WHY HAND "    # the why screen's heading (tallypanel/whyview.py): "WHY HAND 3 OF 6 1/2"
_DRAWN_WITHIN = 2.0           # seconds: the painter draws a turn of the knob once the host is quiet (25 ms)


def why_screen_outcome(emulator: Any, oled_before: bytes) -> str | None:
    """A press that changed no game, no entry: the why screen it opened, moved or left
    (docs/display.md), read from the OLED's text once the board has drawn it (within 2 s;
    another redraw, the sheet after a hand, may come first); None when neither it nor the
    screen before was the why screen."""
    from ..tooling import render
    from ..tooling.render_terminal import oled_rows

    def heading(oled: bytes) -> list[str] | None:
        rows = oled_rows(oled) if len(oled) == render.OLED_BYTES else None
        if rows is None or not rows[0][0].strip().startswith(_WHY_HEADING):
            return None
        return [text.rstrip() for text, _, _ in rows]

    deadline = time.monotonic() + _DRAWN_WITHIN
    was_open = heading(oled_before) is not None
    while True:
        oled = emulator.oled()
        shown = heading(oled)
        if (shown is not None and (not was_open or oled != oled_before)) or (was_open and shown is None):
            # opened or moved; or left: read once more until it holds still, as the painter draws the
            # screen's rows in pieces between requests (a read of its heading alone found later rows
            # still the old ones under load)
            time.sleep(_SETTLED)
            again = emulator.oled()
            if again == oled or time.monotonic() >= deadline:
                oled, shown = again, heading(again)
                break
            continue
        if time.monotonic() >= deadline:
            break
        time.sleep(0.02)
    if shown is not None:
        lines: list[str] = []
        for row in shown[1:]:
            if row.startswith(" ") and lines and row.strip():
                lines[-1] += row            # a row the screen wrapped: indented by one
            elif row.strip():
                lines.append(row)
        return f"the why screen: {shown[0].split('  ')[0].strip()}: {' / '.join(lines)}; {_WHY_NEXT}"
    if was_open:
        return "left the why screen: the board shows its sheet again"
    return None


def _held_change(board: Board, held: BoardGame | None, seat: int | None, did: str, tail: str) -> str:
    """"Cy (button B) accepted hand 3; it counts now": who pressed, and the held change."""
    if held is None or held.game is None:
        return f"the board {did} the change it held{tail}"
    game = held.game
    hand = game.held_hand()
    what = f"the undo of hand {hand}" if game.held == core_game.HELD_UNDO else f"hand {hand}"
    if seat is None:
        return f"the board {did} {what}{tail}"
    player = core_game.player_at(game.rules, hand - 1, seat)
    letters = button_letters(board)
    letter = letters[seat] if seat < len(letters) else str(seat)
    name = names_of(board, held.players)[player] if player < held.players else f"seat {seat}"
    return f"{name} (button {letter}) {did} {what}{tail}"


def board_definition(flash: Path) -> dict[str, Any]:
    """The board definition the emulated board uses (its config's board)."""
    default = next(row[5] for row in protocol.CONFIG_KEYS if row[0] == b"board")
    name = default.decode() if isinstance(default, bytes) else str(default)
    try:
        for line in (flash / "config.txt").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "board" and value.strip():
                name = value.strip()
    except OSError:
        pass
    try:
        return load_json((flash / "board" / f"{name}.json").read_text(encoding="utf-8"), "board definition")
    except (OSError, ValueError) as exc:       # too deep, too big a number: DocumentRefused, a ValueError
        raise TallyboardError(f"cannot read the board definition {name}: {exc}") from None


def board_buttons(flash: Path, doc: dict[str, Any] | None = None) -> dict[str, int]:
    """Button name -> GPIO, from the board definition the emulated board uses."""
    if doc is None:
        doc = board_definition(flash)
    buttons = doc.get("buttons", {})
    pins = {f"seat{i}": pin for i, pin in enumerate(buttons.get("seats", []))}
    for key in ("undo", "shift"):
        if isinstance(buttons.get(key), int):
            pins[key] = buttons[key]
    if isinstance(doc.get("encoder", {}).get("push"), int):
        pins["push"] = doc["encoder"]["push"]
    return pins


# ---------------------------------------------------------------- simulate and play

@contextlib.contextmanager
def private_board(port: str | None, timeout: float) -> Iterator[tuple[Board, emu_mod.Emulator | None]]:
    """A board for simulate/play: the given port, else a fresh emulator in a
    temporary flash folder (the user's emulated game is left alone)."""
    if port:
        with connected(port, False, timeout) as board:
            yield board, None
        return
    with tempfile.TemporaryDirectory(prefix="tallyboard-emu-") as tmp:
        with emu_mod.Emulator(flash=Path(tmp) / "flash") as emulator:
            link = SerialTransport(emulator.port)
            try:
                board = Board(link, timeout=max(timeout, 3.0))
                board.connect()
                board.timeout = timeout
                yield board, emulator
            finally:
                link.close()


@click.command("simulate")
@click.option("--game", "game_names", type=click.Choice(SIMULATED_GAMES + ("all",)), default="all",
              show_default=True, help="Which game to simulate.")
@click.option("--games", "count", type=click.IntRange(1), default=100, show_default=True,
              help="How many games (of each game).")
@click.option("--seed", type=int, default=1, show_default=True, help="Random seed (same seed, same games).")
@click.option("--first", type=click.IntRange(1), default=1, help="Number of the first game (to replay one).")
@click.option("--port", "-p", metavar="PORT",
              help="Run on this board (its game is replaced!) instead of a private emulator.")
@click.option("--emulator", "use_emulator", is_flag=True,
              help="Run on a private emulator in a temporary flash folder (the default).")
@reply_timeout_option(default=2.0)
@reports_errors
def simulate_cmd(game_names: str, count: int, seed: int, first: int, port: str | None, use_emulator: bool,
                 timeout: float) -> None:
    """Differential simulation: random legal games through the board and through
    the core on the host, compared after every step; stops at the first difference."""
    if port and use_emulator:
        raise click.UsageError("give either --port or --emulator, not both")
    names = SIMULATED_GAMES if game_names == "all" else (game_names,)
    console = Console(stderr=True)
    with private_board(port, timeout) as (board, _emulator):
        with progress_bar(console) as progress:
            task = progress.add_task("simulating", total=count * len(names))
            stats = simulate(board, names, count, seed, first=first,
                             progress=lambda name, number: progress.update(
                                 task, advance=1, description=f"{name} game {number}"))
    click.echo(f"{stats.games} games agree ({', '.join(f'{v} {k}' for k, v in stats.by_game.items())}; "
               f"{stats.events} events, {stats.undos} undos, {stats.redos} redos, {stats.probes} refused "
               f"probes, {stats.reconnects} reconnections; seed {seed})")


def demo_documents() -> list[dict[str, Any]]:
    """The bundled demo records (data/demo_<game>.json), in the games' order."""
    data = resources.files("tallyboard") / "data"
    files = [data / f"demo_{name}.json" for name in games.names()]
    return [json.loads(f.read_text(encoding="utf-8")) for f in files if f.is_file()]


def play_document(board: Board, doc: dict[str, Any], echo: Callable[[str], None] = lambda s: None,
                  pause: float = 0.0) -> None:
    """Play a game record through the board with the game's own verbs (EV
    for a game that has none)."""
    name = doc["game"]
    players = doc["players"]
    options = doc.get("options", {})
    records.from_document(doc, source="demo")   # checks the record before anything is sent
    profile = games.profile(name)
    for p, player in enumerate(players):
        board.cfg_set("name", player, p)
    board.new(name, len(players), profile.options(options))
    echo(f"NEW {name} " + " ".join(players))
    for number, hand in enumerate(doc["hands"], 1):
        for event in records.hand_events(profile, hand, len(players), options, last=number == len(doc["hands"])):
            if profile.send is not None:
                profile.send(board, event)[1]()
            else:
                board.event(event)
        if profile.hand_line is not None:
            echo(profile.hand_line(doc["hands"][:number], players))
        else:
            echo(f"hand {number}: {json.dumps(hand)}")
        if pause:
            time.sleep(pause)


@click.command("play")
@click.option("--port", "-p", metavar="PORT", help="Play on this board instead of a private emulator.")
@click.option("--emulator", "use_emulator", is_flag=True,
              help="Play on a private emulator in a temporary flash folder (the default).")
@click.option("--pause", type=float, default=0.0, help="Seconds between hands (to watch the board).")
@reports_errors
def play_cmd(port: str | None, use_emulator: bool, pause: float) -> None:
    """The demo with no hardware: start the emulator, play a short Skicket and a
    Roquet game through the wire protocol, and show the board's sheets."""
    if port and use_emulator:
        raise click.UsageError("give either --port or --emulator, not both")
    console = Console()
    with private_board(port, 2.0) as (board, emulator):
        h = board.hello_fields
        where = f"the emulator on {board.link.name}" if emulator else board.link.name
        # soft_wrap: a line is never cut at the console's width (piped: 80), mid-path or mid-word
        console.print(f"[bold]tallyboard[/] firmware {h.get('fw')} (protocol {h.get('proto')}, "
                      f"board {h.get('board')}) on {where}", soft_wrap=True)
        for doc in demo_documents():
            console.print()
            play_document(board, doc, echo=lambda s: console.print(f"  {s}", style="dim", soft_wrap=True),
                          pause=pause)
            loaded = board.loaded_game()
            expected = records.from_document(doc, source="demo")
            if sheet.sheet_json(loaded) != sheet.sheet_json(expected):
                raise TallyboardError(f"the board's {doc['game']} game differs from the demo record "
                                      "played into it: run tallyboard deploy, then tallyboard simulate")
            sheet.print_sheet(sheet.sheet_json(loaded), console)
        console.print()
        console.print(play_next(demo_documents()[0]), soft_wrap=True, highlight=False, markup=False)


def play_next(doc: dict[str, Any]) -> str:
    """What `play` suggests once its games are played: the README's first
    commands, with the first demo record's game, players and first hand."""
    names = " ".join(f"--name {name}" for name in doc["players"])
    return "\n".join([
        "Next, a board of your own, no hardware either:",
        "  tallyboard emulate              (another terminal) a board keeping its game",
        f"  tallyboard new {doc['game']} {names} --emulator",
        f"  tallyboard enter '{json.dumps(doc['hands'][0])}' --emulator",
        "  tallyboard watch --emulator     the sheet, the pegs and the OLED, live",
        "  tallyboard press seat1          its buttons and knob (push, right, left)",
        "tallyboard --help lists every command, each game's own too; README.md walks through them.",
    ])


def register(group: click.Group) -> None:
    for command in (emulate_cmd, press_cmd, simulate_cmd, play_cmd):
        group.add_command(command)
