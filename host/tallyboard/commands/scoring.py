"""The commands that change or show the game on the board: status, new, undo,
redo, export, and each game's own (its profile's commands: hand, misdeal, peg, end). The ones that only act go through
link.scoring (connect, act, print the summary)."""
from __future__ import annotations

import difflib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click

from tallycore import game as core_game
from tallycore import games

from .. import games as profiles
from ..common import files
from ..scorebook import records
from ..common import names as board_names
from ..boardlink.client import Board
from ..common.errors import TallyboardError
from ..games.base import OptionFlag
from .archive import archive_option, before_new
from .reporting import reports_errors
from .connect import board_options, button_letters, change, connected, current_game, game_of_verb, note_what_the_record_leaves, note_unsigned, player_index, print_summary, print_why, scoring


@click.command("status")
@board_options
@reports_errors
def status_cmd(port: str | None, use_emulator: bool, timeout: float) -> None:
    """Show the board's firmware and the game in progress."""
    with connected(port, use_emulator, timeout) as board:
        h = board.hello_fields
        names = ", ".join(name for name, _, _ in board.games())
        chosen = board.cfg_get("board")
        later = f" ({chosen} from its next start)" if chosen != h.get("board") else ""
        click.echo(f"board {h.get('board')}{later} on {board.link.name}: firmware {h.get('fw')}, "
                   f"protocol {h.get('proto')}; games: {names}")
        chain = board.request("STATE").get("chain", "-")
        if chain != "-":
            click.echo(f"chain {chain}: its game's head, as the board's summary screen shows it "
                       "(docs/records.md, The chain)")
        print_summary(board, notes_in_full=True)


def _option_value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if text.isdigit():
        return int(text)
    return text


def _option_flags() -> dict[str, list[tuple[str, OptionFlag]]]:
    """Every game's `new` flags, by flag: (game, flag) for each game that has it."""
    found: dict[str, list[tuple[str, OptionFlag]]] = {}
    for profile in profiles.profiles():
        for flag in profile.flags:
            found.setdefault(flag.flag, []).append((profile.name, flag))
    return found


def _with_option_flags(command: Any) -> Any:
    """The games' option flags (games/<game>.py `flags`) as click options."""
    for name, owners in sorted(_option_flags().items(), reverse=True):
        flag = owners[0][1]
        dest = "flag_" + name.lstrip("-").replace("-", "_")
        if flag.value is None:
            kind: Any = click.Choice([str(c) for c in flag.choices]) if flag.choices else str
            command = click.option(name, dest, type=kind, help=flag.help)(command)
        else:
            command = click.option(name, dest, is_flag=True, help=flag.help)(command)
    return command


def _flag_options(game: str, given: dict[str, Any]) -> dict[str, Any]:
    """The record options the flags given set for this game; refuses a flag the
    game lacks, or two that cannot go together, in the flags' own words."""
    chosen: dict[str, OptionFlag] = {}
    for name, owners in _option_flags().items():
        value = given.get("flag_" + name.lstrip("-").replace("-", "_"))
        if value is None or value is False:
            continue
        mine = [flag for owner, flag in owners if owner == game]
        if not mine:
            takers = ", ".join(owner for owner, _ in owners)
            raise TallyboardError(f"{name}: {game} has no such option; only {takers} takes it")
        chosen[name] = mine[0]
    doc: dict[str, Any] = {}
    for name, flag in chosen.items():
        for other in flag.excludes:
            if other in chosen:
                raise TallyboardError(f"{name} cannot go with {other}: {flag.why}; leave {name} out")
        if flag.value is None:
            raw = given["flag_" + name.lstrip("-").replace("-", "_")]
            doc[flag.key] = _option_value(raw)
        else:
            doc[flag.key] = flag.value
    return doc


@click.command("new")
@click.argument("game")
@click.option("--players", "-n", type=int, help="How many players (default: the game's number).")
@click.option("--name", "names", multiple=True, metavar="NAME",
              help="A player's name, in seat order (repeat for each player).")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
              help="A game option as in docs/records.md, e.g. -o end=hand_end -o landmark_bonus=true.")
@click.option("--confirm", is_flag=True,
              help="Every hand waits for an opponent's accept on the board, whatever the board's "
                   "confirm setting (docs/rules.md CF).")
@click.option("--discard", is_flag=True, help="Drop the board's unfinished game even if it is not archived.")
@click.option("--archive-first", is_flag=True, help="Archive the board's unfinished game first, then start.")
@archive_option
@_with_option_flags
@board_options
@reports_errors
def new_cmd(game: str, players: int | None, names: tuple[str, ...], options: tuple[str, ...], confirm: bool,
            discard: bool, archive_first: bool, archive_path: str | None,
            port: str | None, use_emulator: bool, timeout: float, **flags: Any) -> None:
    """Start a new GAME on the board. An unfinished game on the board that is
    not in the archive is never dropped silently: asked about at a terminal,
    else --archive-first or --discard says what to do with it."""
    game, index = known_game(game)
    least, most = games.GAMES[index][1:3]
    takes = f"{game} takes {least} players" if least == most else f"{game} takes {least} to {most} players"
    if players is None:
        if least != most and not names:
            raise TallyboardError(f"{takes}: say how many with --players, e.g. tallyboard new {game} "
                                  f"--players {least}")
        players = len(names) if names else least
    if not least <= players <= most:
        given = f"--players {players}" if len(names) != players else f"{players} names"
        raise TallyboardError(f"{given}: {takes}")
    if names and len(names) != players:
        raise TallyboardError(f"{len(names)} names for {players} players: give one --name per player")
    check_names(names)
    option_doc: dict[str, Any] = {}
    for item in options:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise TallyboardError(f"--option {item!r}: write it as KEY=VALUE")
        option_doc[key] = _option_value(value)
    option_doc.update(_flag_options(game, flags))
    try:
        packed = profiles.profile(game).options(option_doc)
        # the board's own check, made here first (the same core): nothing is
        # sent, no name changed, when the board would refuse the game
        core_game.Game().check_new(index, players, packed)
    except ValueError as exc:
        raise TallyboardError(f"--option: {exc}" if option_doc else str(exc)) from None
    if confirm:
        packed |= core_game.CONFIRM
    with connected(port, use_emulator, timeout) as board:
        if option_doc:
            taken = board.game_options(index)
            missing = [key for key in option_doc if taken is None or key not in taken]
            if missing:
                raise TallyboardError(f"the board's firmware does not take the {game} option "
                                      f"{missing[0]}; update it with tallyboard deploy")
        before_new(board, archive_path, discard, archive_first)
        board.new(game, players, packed)
        for p, name in enumerate(names):
            board.cfg_set("name", name, p)
        print_summary(board)


def known_game(game: str) -> tuple[str, int]:
    """A game's name as the wire writes it and its index, from the name a user
    typed in any case; a misspelt one is refused with the likeliest game."""
    game = game.lower()   # as on the wire: game names are case-insensitive
    try:
        return game, games.index_of(game)
    except ValueError:
        close = difflib.get_close_matches(game, games.names(), n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise TallyboardError(f"unknown game {game!r}; {hint}known games: {', '.join(games.names())}") from None


def check_names(names: tuple[str, ...] | list[str]) -> None:
    """Names a command can tell apart: allowed characters, not a seat number,
    each its own (a command finds a player by name, in any case)."""
    seen: set[str] = set()
    for name in names:
        board_names.check_board_text("--name", name, 1, board_names.PLAYER_MAX)
        if name.isdigit():
            raise TallyboardError(f"--name {name!r}: a name cannot be only digits, which stand for seat "
                                  "numbers (tallyboard peg 0 5 is seat 0); add a letter")
        if name.lower() in seen:
            raise TallyboardError(f"--name {name!r} is given twice: each player needs a name of their own, "
                                  "so that tallyboard peg NAME knows whom to score")
        seen.add(name.lower())


@click.command("undo")
@scoring
def undo_cmd(board: Board) -> None:
    """Undo the last scoring on the board."""
    current_game(board)
    change(board, "UNDO")


@click.command("redo")
@scoring
def redo_cmd(board: Board) -> None:
    """Redo the scoring undone last."""
    current_game(board)
    change(board, "REDO")


@click.command("export")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True),
              help="Write the record to this file (default: stdout).")
@board_options
@reports_errors
def export_cmd(output: str | None, port: str | None, use_emulator: bool, timeout: float) -> None:
    """Print the board's game as a game record (JSON, see docs/records.md)."""
    with connected(port, use_emulator, timeout) as board:
        loaded = board.loaded_game(signed=True)
        doc = records.to_document(loaded.name, loaded.players, loaded.options, loaded.game, loaded.chain)
        letters = button_letters(board) if loaded.game.held else None
    note_what_the_record_leaves(loaded, letters)
    note_unsigned(loaded)
    text = json.dumps(doc, indent=1)
    if output:
        files.write_output(output, text + "\n")
    else:
        click.echo(text)


def live_sheet(port: str | None, use_emulator: bool, timeout: float) -> tuple[records.LoadedGame, str | None]:
    """The board's game for `tallyboard sheet` with no RECORD, and the letters
    beside its seat buttons."""
    with connected(port, use_emulator, timeout) as board:
        loaded = board.loaded_game()
        return loaded, button_letters(board) if loaded.game.held else None


def register(group: click.Group) -> None:
    for command in (status_cmd, new_cmd, undo_cmd, redo_cmd, export_cmd):
        group.add_command(command)
    # a game's own commands (Skicket's hand and misdeal, Roquet's peg and end:
    # its verbs), from its profile
    kit = command_kit()
    for profile in profiles.profiles():
        for command in profile.commands(kit):
            group.add_command(command)


def command_kit() -> SimpleNamespace:
    """What a game's own commands are made with (GameProfile.commands): the
    CLI's helpers, handed to the profile, which imports nothing of the CLI."""
    return SimpleNamespace(board_options=board_options, change=change, connected=connected,
                           game_of_verb=game_of_verb, player_index=player_index, print_summary=print_summary,
                           print_why=print_why,
                           scoring=scoring, reports_errors=reports_errors, TallyboardError=TallyboardError)
