"""`tallyboard event`: a club evening of Progressive Skicket (docs/events.md):
create, status, next, finish, export, replay, log, the director's PIN and
changes. The boards' commands (start, attach, resume) and the live views
(watch, serve) are the other parts of the group, each in its own module
with a `register(group)` (EVENING_PARTS)."""
from __future__ import annotations

import importlib
import importlib.util
import json
import random
import sys
from pathlib import Path
from typing import Any, Callable

import click
from tallyrun.protocol import MAX_TABLE
from rich import box
from rich.table import Table
from rich.text import Text

from ..common.console import Console
from ..common import files, secretfile
from ..common.names import shown
from ..evening import director, play, record, standings
from ..evening.store import FINISHED, Evening, EveningError, EveningDatabase
from ..evening.watch import link_words
from ..season import register as club_register
from .evening_views import with_seasons
from .reporting import reports_errors

# the other parts of `tallyboard event`, each a module here with register(group)
EVENING_PARTS = ("evening_boards", "evening_views", "evening_club", "evening_update", "evening_corrections")

archive_option = click.option("--archive", "archive_path", type=click.Path(dir_okay=False),
                              help="The archive file the evening is kept in (default: $TALLYBOARD_ARCHIVE or "
                                   "~/.local/share/tallyboard/archive.sqlite3).")
event_option = click.option("--event", "event_name", metavar="NAME",
                            help="The event (default: the one in progress, else the last one finished).")


def pin_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--pin-file FILE, $TALLYBOARD_DIRECTOR_PIN, else the prompt (when the
    command needs it); --pin still works, shown in `ps`."""
    fn = secretfile.file_option("--pin-file", "TALLYBOARD_DIRECTOR_PIN_FILE", "the director's PIN", "pin")(fn)
    return click.option("--pin", envvar="TALLYBOARD_DIRECTOR_PIN", metavar="PIN",
                        help=f"The director's PIN; {secretfile.IN_PS} --pin-file, $TALLYBOARD_DIRECTOR_PIN or "
                             "the prompt a terminal gets.")(fn)


@click.group("event")
def event_group() -> None:
    """A club evening: Progressive Skicket at many tables, one board a table (docs/events.md)."""


def _open(archive_path: str | None, event_name: str | None) -> tuple[EveningDatabase, Evening]:
    store = EveningDatabase(archive_path)
    try:
        return store, store.event(event_name)
    except BaseException:
        store.close()
        raise


def _pin(pin: str | None) -> str | None:
    """The PIN given, else asked for (hidden) when a person is at the terminal."""
    if pin is None and sys.stdin.isatty():
        pin = click.prompt("Director's PIN", hide_input=True, default="", show_default=False, err=True) or None
    return pin


def _director(store: EveningDatabase, pin: str | None, what: str, event: Evening | None) -> None:
    director.check_pin(store, _pin(pin), what, event)


# ---------------------------------------------------------------- create

def _names(players: tuple[str, ...], players_file: str | None) -> list[str]:
    names = [p.strip() for p in players]
    if players_file:
        try:
            text = Path(players_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise EveningError(f"{players_file}: cannot read the players ({getattr(exc, 'strerror', exc)})") from None
        names += [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return names


def first_seating(names: list[str], tables: int | None, how: str, seed: int | None) -> list[list[int]]:
    """Round 1's seating: `given`, the players in the order given fill table
    1 seats 0 to 3, then table 2...; `draw`, that order shuffled by the seed."""
    if not names:
        raise EveningError("an evening needs players: --player NAME for each (or --players-file FILE)")
    if len(names) % 4:
        raise EveningError(f"{len(names)} players: an evening seats four at every table, so the players must be a "
                         "multiple of four")
    for n in names:
        if not n or names.count(n) > 1:
            raise EveningError(f"{n!r}: every player needs a name of his own (the commands name players by it)")
    if tables is not None and tables * 4 != len(names):
        raise EveningError(f"{tables} tables seat {tables * 4} players, and {len(names)} are given")
    order = list(range(len(names)))
    if how == "draw":
        random.Random(seed).shuffle(order)
    return [order[i:i + 4] for i in range(0, len(order), 4)]


@event_group.command("create")
@click.argument("name")
@click.option("--player", "players", multiple=True, metavar="NAME", help="A player (repeat, in seating order).")
@click.option("--players-file", type=click.Path(dir_okay=False), help="The players, one name a line.")
@click.option("--tables", type=click.IntRange(1, MAX_TABLE), help="The number of tables (a check: players / 4).")
@click.option("--seating", type=click.Choice(["given", "draw"]), default="given", show_default=True,
              help="given: in the order given, table 1 seats 0-3 first; draw: shuffled (--seed).")
@click.option("--seed", type=int, help="With --seating draw: the draw's seed (printed when left out).")
@click.option("--rounds", type=click.IntRange(1), default=3, show_default=True, help="Rounds (games) in the evening.")
@click.option("--hands", type=click.Choice(["4", "6"]), help="Hands a game (default: 4 with more than two tables, "
                                                             "else 6; rules.md SK19).")
@click.option("--new-player", "new_players", multiple=True, metavar="NAME",
              help="NAME (given with --player too) is new to the club's register: added to it on purpose.")
@click.option("--guest", "guests", multiple=True, metavar="NAME",
              help="A visitor (repeat): plays and scores tonight, not ranked in seasons; seated after the "
                   "players unless given with --player too; added to the club's register as a guest when new.")
@archive_option
@reports_errors
def create_cmd(name: str, players: tuple[str, ...], players_file: str | None, tables: int | None, seating: str,
               seed: int | None, rounds: int, hands: str | None, new_players: tuple[str, ...],
               guests: tuple[str, ...], archive_path: str | None) -> None:
    """Create the event NAME with its players, matched to the club's register, and the first round's seating."""
    names = club_register.with_guests(_names(players, players_file), guests)
    if seating == "draw" and seed is None:
        seed = random.SystemRandom().randrange(1, 10 ** 6)
    with EveningDatabase(archive_path) as store:
        names, fresh = club_register.match(store, names, list(new_players), guests)
        first = first_seating(names, tables, seating, seed)
        event = store.create(name, names, first, rounds, int(hands) if hands else None)
        club_register.join(store, guests)
        seated_guests = club_register.guests_at(store, event)
    length = standings.game_length(len(first), event.hands)
    click.echo(f"created {name!r}: {len(names)} players at {len(first)} tables, {rounds} rounds of "
               f"{length}-hand games" + (f" (seating drawn with --seed {seed})" if seating == "draw" else ""))
    for t, table in enumerate(first, 1):
        click.echo(shown(f"  table {t}: " + ", ".join(f"{s}:{names[p]}" for s, p in enumerate(table))))
    if [n for n in fresh if n not in seated_guests]:
        click.echo(shown("new in the club's register: " + ", ".join(n for n in fresh if n not in seated_guests)))
    if seated_guests:
        click.echo(shown("guests tonight (they play and score, and are not ranked in seasons): " + ", ".join(
            n + (" (new in the club's register)" if n in fresh else "") for n in seated_guests)))


# ---------------------------------------------------------------- status

def _seating_text(seating: list[list[int]], names: list[str]) -> str:
    return "; ".join(f"table {t}: " + ", ".join(names[p] for p in table) for t, table in enumerate(seating, 1))


def print_snapshot(doc: dict[str, Any], console: Console) -> None:
    names = doc["players"]
    console.print(f"[bold]{doc['event']}[/bold] — {doc['state']}, round {doc['round']} of {doc['rounds']}, "
                  f"{doc['hands']}-hand games")
    ranks = Table(title="Standings (continuous score, rules.md SK20)", box=box.SIMPLE_HEAD, title_style="bold")
    for column, justify in (("#", "right"), ("player", "left"), ("score", "right"), ("games", "right"),
                            ("won", "right"), ("table", "right")):
        ranks.add_column(column, justify=justify)  # type: ignore[arg-type]
    for row in doc["standings"]:
        ranks.add_row(str(row["rank"]), row["name"] + (" (withdrawn)" if row.get("withdrawn") else ""),
                      str(row["continuous"]), str(row["games"]), str(row["games_won"]),
                      "" if row["table"] is None else str(row["table"]))
    console.print(ranks)
    tables = Table(title=f"Round {doc['round']}", box=box.SIMPLE_HEAD, title_style="bold")
    for column in ("table", "players (score)", "hands", "board"):
        tables.add_column(column)
    for t in doc["tables"]:
        hands = f"{len(t['hands'])}/{t['length']}" + (" done" if t["complete"] else "")
        if t["ended_early"]:
            hands += " ended early"
        if t["corrected"]:
            hands += " corrected"
        if t["pending"]:
            hands += f", hand {t['pending'].get('hand')} waiting"
        link = t.get("link")
        remote = isinstance(link, dict) and link.get("kind") not in (None, "usb")
        board = "—" if t["board"] is None else f"{link_words(link) if remote else t['board']} ({t['status']})"
        tables.add_row(str(t["table"]), ", ".join(f"{n} {s}" for n, s in zip(t["names"], t["totals"])), hands, board)
    console.print(tables)
    if doc["moves"] and doc["state"] != "finished":
        word = "moves" if doc["moves_final"] else "moves so far (provisional)"
        console.print(f"[bold]{word.capitalize()}:[/bold] " + "; ".join(
            f"{m['name']} table {m['from']} → {m['to']} seat {m['seat']}" for m in doc["moves"]))
        console.print(f"[bold]Next seating:[/bold] {_seating_text(doc['next_seating'], names)}")


def print_results(doc: dict[str, Any]) -> None:
    """Each table's game of the snapshot's round: its players' scores, best first."""
    click.echo(shown(f"Round {doc['round']}'s results"))
    for t in doc["tables"]:
        scored = sorted(zip(t["names"], t["totals"]), key=lambda pair: -pair[1])
        note = " (ended early)" if t["ended_early"] else "" if t["complete"] else " (not over)"
        click.echo(shown(f"  table {t['table']}: " + ", ".join(f"{n} {s}" for n, s in scored) + note))


def print_moves(doc: dict[str, Any]) -> None:
    """Who moves where and why (rules.md SK19), from the snapshot's moves."""
    if not doc["moves"]:
        return
    click.echo("The movement (rules.md SK19)")
    tables = len(doc["tables"])
    for m in doc["moves"]:
        why = (f"the head table's loser goes to the foot (table {tables})" if m["from"] == 1
               else f"won table {m['from']}: goes up one table")
        click.echo(shown(f"  {m['name']}: table {m['from']} → table {m['to']}, seat {m['seat']} ({why})"))


def print_standings(doc: dict[str, Any]) -> None:
    click.echo("Standings (continuous score, rules.md SK20)")
    for row in doc["standings"]:
        click.echo(shown(f"  {row['rank']:>2}. {row['name']} {row['continuous']}"
                         + (" (withdrawn)" if row.get("withdrawn") else "")))


@event_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="The snapshot as JSON (docs/events.md).")
@click.option("--stored", is_flag=True, help="The evening as stored, without reading the boards first.")
@event_option
@archive_option
@reports_errors
def status_cmd(as_json: bool, stored: bool, event_name: str | None, archive_path: str | None) -> None:
    """The evening now: the boards read first (as `next` does), then the
    standings, each table's game, who moves where next."""
    store, event = _open(archive_path, event_name)
    with store:
        if not stored and event.state != FINISHED:
            play.read_boards(store, event)
        doc = with_seasons(store, event, play.snapshot(store, event))
    if as_json:
        click.echo(json.dumps(doc))
    else:
        print_snapshot(doc, Console())


# ---------------------------------------------------------------- next, finish

@event_group.command("next")
@click.option("--force", is_flag=True, help="Start the next round with games unfinished (the director's PIN).")
@pin_option
@event_option
@archive_option
@reports_errors
def next_cmd(force: bool, pin: str | None, event_name: str | None, archive_path: str | None) -> None:
    """Seat the next round by the movement (rules.md SK19) once every table's game is over."""
    store, event = _open(archive_path, event_name)
    with store:
        if force:
            _director(store, pin, "tallyboard event next --force", event)
        play.read_boards(store, event)
        before = play.snapshot(store, event)
        event = play.advance(store, event, forced=force)
        names = store.names(event)
        after = play.snapshot(store, event)
        seating = store.seating(event, event.round)
    print_results(before)
    print_moves(before)
    print_standings(after)
    click.echo(shown(f"Round {event.round} of {event.rounds}: {_seating_text(seating, names)}"))


@event_group.command("finish")
@click.option("--force", is_flag=True, help="End the evening with games unfinished (the director's PIN).")
@pin_option
@event_option
@archive_option
@reports_errors
def finish_cmd(force: bool, pin: str | None, event_name: str | None, archive_path: str | None) -> None:
    """End the evening once the round's games are over; print the winner (rules.md SK20)."""
    store, event = _open(archive_path, event_name)
    with store:
        if force:
            _director(store, pin, "tallyboard event finish --force", event)
        play.read_boards(store, event)
        event = play.finish(store, event, forced=force)
        doc = play.snapshot(store, event)
    print_results(doc)
    print_standings(doc)
    best = [row for row in doc["standings"] if row["rank"] == 1]
    click.echo(shown(f"{event.name!r} is finished. Winner{'s' if len(best) > 1 else ''}: "
                     + ", ".join(f"{row['name']} ({row['continuous']})" for row in best)))


# ---------------------------------------------------------------- export, replay

@event_group.command("export")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True), required=False)
@event_option
@archive_option
@reports_errors
def export_cmd(file: str | None, event_name: str | None, archive_path: str | None) -> None:
    """Write the event record (docs/events.md) to FILE, or print it."""
    store, event = _open(archive_path, event_name)
    with store:
        doc, note = play.export(store, event)
    if note:
        click.echo(f"tallyboard: note: {note}", err=True)
    text = json.dumps(doc, indent=1) + "\n"
    if file and file != "-":
        files.write_output(file, text)
    else:
        click.echo(text, nl=False)


def print_replay(doc: dict[str, Any], console: Console) -> None:
    names = doc["players"]
    if doc.get("event"):
        console.print(Text(shown(doc["event"]), style="bold"))
    for r in doc["rounds"]:
        table = Table(title=f"Round {r['round']} ({r['hands']}-hand games)", box=box.SIMPLE_HEAD, title_style="bold")
        table.add_column("table", justify="right")
        for s in range(4):
            table.add_column(f"seat {s}")
        for t in r["tables"]:
            cells = [f"{names[p]} {score}" for p, score in zip(t["seats"], t["scores"])]
            table.add_row(str(t["table"]) + (" (ended early)" if t.get("ended_early") else ""), *cells)
        console.print(table)
    ranks = Table(title="Standings (continuous score, rules.md SK20)", box=box.SIMPLE_HEAD, title_style="bold")
    for column, justify in (("#", "right"), ("player", "left"), ("total", "right"), ("games", "right"),
                            ("won", "right")):
        ranks.add_column(column, justify=justify)  # type: ignore[arg-type]
    for row in doc["standings"]:
        ranks.add_row(str(row["rank"]), row["name"], str(row["total"]), str(row["games"]), str(row["games_won"]))
    console.print(ranks)
    if doc["next_seating"] is not None:
        console.print(f"[bold]Next seating:[/bold] {_seating_text(doc['next_seating'], names)}")
    if doc["rounds"]:
        won = " and ".join(names[p] for p in doc["winners"])
        console.print(f"[bold]{won} {'win' if len(doc['winners']) > 1 else 'wins'} with "
                      f"{doc['standings'][0]['total']}.[/bold]")


@event_group.command("replay")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="The result as JSON (docs/events.md).")
@reports_errors
def replay_cmd(file: str, as_json: bool) -> None:
    """Score an event record (docs/events.md; - reads stdin): each round, the standings, the next seating."""
    if file == "-":
        doc = files.parse_json(files.read_stdin(), "stdin", "event record")
        source = "stdin"
    else:
        doc = files.read_json(file, "event record")
        source = file
    names, plays = record.from_document(doc, source)
    result = record.replay(names, plays, doc["seating"], doc.get("event"), record.over(doc))
    if as_json:
        click.echo(json.dumps(result))
    else:
        print_replay(result, Console())


# ---------------------------------------------------------------- the director

@event_group.command("log")
@click.option("--json", "as_json", is_flag=True, help="One JSON list of the entries.")
@event_option
@archive_option
@reports_errors
def log_cmd(as_json: bool, event_name: str | None, archive_path: str | None) -> None:
    """The director's changes: when, what, before, after."""
    store, event = _open(archive_path, event_name)
    with store:
        entries = store.log(event)
    if as_json:
        click.echo(json.dumps(entries))
        return
    if not entries:
        click.echo(f"{event.name!r}: the director has changed nothing.")
        return
    print_change_log(f"{event.name}: the director's log", entries)


def print_change_log(title: str, entries: list[dict[str, str]]) -> None:
    """A log of changes (the director's, the register's) as a table: when, action, what, before, after."""
    table = Table(title=title, box=box.SIMPLE_HEAD, title_style="bold")
    for column in ("when", "action", "what", "before", "after"):
        table.add_column(column, overflow="fold")
    for e in entries:
        table.add_row(e["at"].replace("T", " ")[:19], e["action"], e["what"], e["before"], e["after"])
    Console().print(table)


@event_group.group("pin")
def pin_group() -> None:
    """The director's PIN (kept on this host as a salted hash)."""


@pin_group.command("set")
@click.option("--new-pin", metavar="PIN",
              help=f"The new PIN (else asked for twice, hidden); {secretfile.IN_PS} --new-pin-file or the prompt.")
@secretfile.file_option("--new-pin-file", "TALLYBOARD_NEW_PIN_FILE", "the new PIN", "new_pin")
@pin_option
@archive_option
@reports_errors
def pin_set_cmd(new_pin: str | None, pin: str | None, archive_path: str | None) -> None:
    """Set the director's PIN; changing it needs the old one (--pin-file, $TALLYBOARD_DIRECTOR_PIN or the prompt)."""
    with EveningDatabase(archive_path) as store:
        if store.director_pin() is not None:
            pin = _pin(pin)
        if new_pin is None:
            if not sys.stdin.isatty():
                raise director.DirectorError("give the new PIN with --new-pin-file FILE (or run this at a "
                                             "terminal); nothing was changed")
            new_pin = click.prompt("New director's PIN", hide_input=True, confirmation_prompt=True, err=True)
        try:
            event: Evening | None = store.event(None)      # the wrong PINs are logged in its log
        except EveningError:
            event = None
        first = director.set_pin(store, new_pin, pin, event)
    click.echo("the director's PIN is set" if first else "the director's PIN is changed")


def director_command(what: str) -> Callable[[Callable[..., dict[str, Any]]], Callable[..., None]]:
    """A director's command: the PIN checked before anything, the change
    made and logged, the log entry printed."""
    def wrap(fn: Callable[..., dict[str, Any]]) -> Callable[..., None]:
        import functools

        @functools.wraps(fn)
        def run(*args: Any, pin: str | None, event_name: str | None, archive_path: str | None,
                **kwargs: Any) -> None:
            store, event = _open(archive_path, event_name)
            with store:
                _director(store, pin, what, event)
                entry = fn(store, event, *args, **kwargs)
            click.echo(shown(f"{entry['action']}: {entry['what']}\n  before: {entry['before']}\n"
                             f"  after:  {entry['after']}"))
        return archive_option(event_option(pin_option(reports_errors(run))))
    return wrap


@event_group.command("move")
@click.argument("player")
@click.option("--table", type=int, required=True, help="The table, from 1 (the head).")
@click.option("--seat", type=int, required=True, help="The seat, 0 to 3.")
@director_command("tallyboard event move")
def move_cmd(store: EveningDatabase, event: Evening, player: str, table: int, seat: int) -> dict[str, Any]:
    """Seat PLAYER (name or number) at TABLE/SEAT for the coming round; whoever sat there takes his
    seat. Between rounds only. Director's PIN."""
    return director.move(store, event, player, table, seat)


@event_group.command("withdraw")
@click.argument("players", nargs=-1, required=True)
@click.option("--substitute", "substitutes", multiple=True, metavar="NAME",
              help="A new player in the seat of each withdrawn one (in order).")
@director_command("tallyboard event withdraw")
def withdraw_cmd(store: EveningDatabase, event: Evening, players: tuple[str, ...],
                 substitutes: tuple[str, ...]) -> dict[str, Any]:
    """Withdraw PLAYERS before the round: each replaced by a --substitute, or, in fours, the foot
    table's other players take their seats. Between rounds only. Director's PIN."""
    return director.withdraw(store, event, list(players), list(substitutes))


@event_group.command("add")
@click.argument("players", nargs=-1, required=True)
@director_command("tallyboard event add")
def add_cmd(store: EveningDatabase, event: Evening, players: tuple[str, ...]) -> dict[str, Any]:
    """Add PLAYERS in fours, each four a new table at the foot. Between rounds only. Director's PIN."""
    return director.add(store, event, list(players))


def register(group: click.Group) -> None:
    for part in EVENING_PARTS:
        if importlib.util.find_spec(f"{__package__}.{part}") is not None:
            importlib.import_module(f"{__package__}.{part}").register(event_group)
    group.add_command(event_group)
