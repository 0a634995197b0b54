"""`tallyboard why [HAND]`: why a hand scored what it did, in the words of
the rules that scored it (the rule book's clauses), for the game on the
board (its WHY verb gives the parts, the same tallycore.why composes them)
or in a record (--record FILE)."""
from __future__ import annotations

from typing import Any

import click

from ..boardlink.client import Board
from ..common.errors import TallyboardError

from ..scorebook import records
from ..scorebook import why as reasons
from tallycore import game as core_game
from tallycore import why as core_why
from .connect import board_options, connected, event_words
from .reporting import reports_errors


@click.command("why")
@click.argument("hand", type=int, required=False)
@click.option("--record", "record", type=click.Path(dir_okay=False, allow_dash=True), metavar="FILE",
              help="A game record (docs/records.md; - reads stdin) instead of the board's game.")
@board_options
@reports_errors
def why_cmd(hand: int | None, record: str | None, port: str | None, use_emulator: bool, timeout: float) -> None:
    """Say why HAND (as the sheet numbers it; default the last) scored what it
    did: each part a player got and the rule (its clause of the rule book) that
    gave it, from the rules that scored it."""
    if record is not None:
        from ..common import files

        loaded = records.loads(files.read_stdin(), source="stdin") if record == "-" else records.load(record)
        for line in hand_words(loaded.game, hand, loaded.players):
            click.echo(line)
        return
    with connected(port, use_emulator, timeout) as board:
        loaded = board.loaded_game()
        for line in hand_words(loaded.game, hand, loaded.players, board):
            click.echo(line)


def hand_words(game: Any, hand: int | None, names: list[str], board: Board | None = None) -> list[str]:
    """"hand 3:" and its reason's lines, indented; from the board's WHY when a board is given."""
    try:
        core_why.reasons(game)
    except ValueError as exc:
        raise TallyboardError(str(exc)) from None
    groups = reasons.hand_events(game)
    if game.held == core_game.HELD_APPLY and hand in (None, game.held_hand()):
        # the hand held for its confirmation (rules.md CF1): what it will score once accepted
        return ([f"hand {game.held_hand()} (held: it counts once accepted):"]
                + ["  " + line for line in event_words(game, game.n, names, board)])
    if not groups:
        raise TallyboardError(f"{game.name()}: nothing is scored yet; why explains a hand once one is entered")
    number = len(groups) if hand is None else hand
    if not 1 <= number <= len(groups):
        raise TallyboardError(f"hand: must be 1 to {len(groups)} (the hands entered so far)")
    lines = []
    for index in groups[number - 1]:
        lines.extend(event_words(game, index, names, board))
    in_progress = not game.rules.ends_hand(game.log[groups[number - 1][-1]])
    return [f"hand {number}{' (in progress)' if in_progress else ''}:"] + ["  " + line for line in lines]


def register(group: click.Group) -> None:
    group.add_command(why_cmd)
