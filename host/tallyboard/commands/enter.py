"""`tallyboard enter HAND`: score one hand of any game on the board, written
as in docs/records.md ('{"bidder": 2, "bid": 3, "tricks": 4}', '{"winner": 1}',
'{"plays": [[0, "8"], [1, "3"], "go", ...]}'); after bad JSON it shows the
form of the game on the board (its profile's example_hand).

The hand becomes the game's core events through the same game profile
`tallyboard sheet` uses, is checked whole on a copy of the board's game
first (an impossible hand is refused with the field named and nothing is
sent), then goes to the board one event at a time over the protocol's `EV`
verb. A hand in progress ("open": true) sends its entries so far and
leaves the hand open on the board. Should the link fail part-way through a hand of several events, the
events already applied are undone, so the board never keeps half a hand."""
from __future__ import annotations

from typing import Any

import click

from tallycore import game as core_game

from ..common import files
from .. import games
from ..scorebook import records
from ..boardlink.client import Board
from ..boardlink.boardgame import options_document
from ..common.errors import TallyboardError, log_full
from .reporting import reports_errors
from .connect import board_options, change, connected, current_game, print_summary, print_why


def hand_events(board: Board, text: str | bytes) -> tuple[list[int], str]:
    """The events of one hand for the game on the board, checked on a copy of it."""
    current = current_game(board)
    assert current.game is not None and current.name is not None
    try:
        profile = games.profile(current.name)
    except ValueError:
        raise TallyboardError(f"the board plays {current.name}, which has no record form here: "
                              "upgrade this tallyboard") from None
    hand: Any = files.parse_json(text, "hand", "hand", hint="; write the hand as in docs/records.md, "
                                 f"e.g. '{profile.example_hand}'")
    game = current.game
    if game.complete():
        raise TallyboardError(f"{current.name}: the game is over; start a new one with tallyboard new")
    check = core_game.Game()
    check.new(game.index, game.players, game.options)
    for i in range(game.n):
        check.apply(game.log[i])
    events: list[int] = []
    try:
        for event in records.hand_events(profile, hand, game.players,
                                         options_document(current.name, game.options)):
            check.apply(event)
            events.append(event)
    except ValueError as exc:
        if check.n >= len(check.log):   # the hand is no fault of its own
            raise TallyboardError(log_full(len(check.log))) from None
        raise TallyboardError(f"hand {game.hands() + 1}: {exc}") from None
    return events, current.name


@click.command("enter")
@click.argument("hand")
@board_options
@reports_errors
def enter_cmd(hand: str, port: str | None, use_emulator: bool, timeout: float) -> None:
    """Score one HAND of the game on the board, written as a record hand
    (JSON as in docs/records.md; - reads it from stdin). Works for every game, e.g.
    tallyboard enter '{"bidder": 2, "bid": 3, "tricks": 4}'."""
    text = files.read_stdin() if hand == "-" else hand
    with connected(port, use_emulator, timeout, opening="OPEN") as board:
        events, _ = hand_events(board, text)
        start = current_game(board).n
        try:
            for event in events:
                change(board, "EV", event)
        except TallyboardError:
            if len(events) > 1:
                board.view = None
                _take_back(board, start)
            raise
        print_summary(board)
        print_why(board, start)


def _take_back(board: Board, start: int) -> None:
    """Undo the part of a hand the board applied before the link failed
    (counted on the board itself: a reply lost on the way is no guess)."""
    try:
        applied = board.reconnect().n - start
        for _ in range(applied):
            board.undo()
    except TallyboardError as exc:
        raise TallyboardError(f"the board may keep part of a hand ({exc}); check it with tallyboard "
                              "sheet and take it back with tallyboard undo") from None


def register(group: click.Group) -> None:
    group.add_command(enter_cmd)
