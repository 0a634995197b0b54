"""The game a board holds, as the host reads it: the core game rebuilt from the
board's STATE and LOG (the same core the board runs), its held change, and
its check against the board's own SCORE."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tallycore import game as core_game
from tallycore import games

from ..common.errors import ProtocolError, RecordError
from ..scorebook import records


@dataclass
class BoardGame:
    """The game in progress on a board, rebuilt on the host with the core."""

    name: str | None           # None: no game on the board
    players: int
    options: int
    game: core_game.Game | None
    log: list[int]             # log[0:top]: applied events, then the redo stack
    state: dict[str, str]      # the board's STATE reply
    score: dict[str, str]      # the board's SCORE reply

    @property
    def n(self) -> int:
        return int(self.state["n"])

    @property
    def top(self) -> int:
        return int(self.state["top"])

    @property
    def held(self) -> tuple[int, int] | None:
        """The change waiting for its confirmation on the board (kind, event), or None."""
        return parse_held(self.state)


def parse_held(fields: dict[str, str]) -> tuple[int, int] | None:
    """A reply's or event's held=kind,event (docs/protocol.md): the change
    waiting for its confirmation on the board, or None (held=- or none)."""
    kind, comma, event = fields.get("held", "-").partition(",")
    if not comma:
        return None
    if not (kind.isdigit() and event.isdigit()):
        raise ProtocolError(f"the board's held={fields.get('held')} is not kind,event")
    return int(kind), int(event)


def game_from_log(name: str, players: int, options: int, log: list[int], n: int,
                  held: tuple[int, int] | None = None,
                  accepted: list[int | None] | None = None) -> core_game.Game:
    """The core game whose log[0:top] is log with n applied (the rest on the
    redo stack), holding the change the board holds for its confirmation;
    accepted: for each event, the player whose accept made it (None: nobody)."""
    try:
        index = games.index_of(name)
    except ValueError:
        raise ProtocolError(f"the board plays {name}, which this tallyboard does not know: "
                            "upgrade this tallyboard") from None
    game = core_game.Game()
    try:
        game.new(index, players, options)
        for event in log:
            game.apply(event)
        for _ in range(len(log) - n):
            game.undo()
        for i, who in enumerate(accepted or ()):
            game.mark_accepted(i, 0 if who is None else who + 1)
        if held is not None:
            game.hold(*held)
    except ValueError as exc:
        raise ProtocolError(f"the board's log breaks a rule on the host ({exc}): "
                            "the board and this tallyboard run different cores; run tallyboard deploy") from None
    return game


def score_mismatch(game: core_game.Game, score: dict[str, str]) -> str | None:
    """What differs between the board's SCORE reply and a game on the host (None: nothing)."""
    mine = {
        "hands": str(game.hands()),
        "totals": ",".join(str(game.total(p)) for p in range(game.players)),
        "winners": str(game.winners()),
        "complete": str(int(bool(game.complete()))),
    }
    for key, value in mine.items():
        if score.get(key) != value:
            return f"SCORE {key}: the board says {score.get(key)}, the host core {value}"
    return None


def options_document(name: str, packed: int) -> dict[str, Any]:
    """The record's `options` object (docs/records.md) for a game's packed options."""
    try:
        return records.options_document(name, packed & ~core_game.CONFIRM)   # the board's, not the record's
    except ValueError as exc:
        raise RecordError(f"{name}: {exc}") from None


@dataclass
class EntryScreen:
    """The hand entry open on the board's own screen (ENTRY), row by row as its
    OLED shows it: each row's text from its first column, spaces kept."""
    head: str       # the heading: the hand, its dealer
    step: str       # the step's name
    value: str      # the value row between the arrows, placed as drawn
    entered: str    # what the entry holds so far ("" for nothing yet)

    @classmethod
    def from_reply(cls, reply: dict[str, str]) -> "EntryScreen | None":
        rows = [reply.get(key, "-") for key in ("head", "step", "value", "entered")]
        if rows[0] == "-":
            return None
        return cls(*("" if row == "-" else row.replace("_", " ") for row in rows))

    def words(self) -> str:
        """The entry in the OLED's words: "<heading> – <step>: <value> (entered so far: ...)"."""
        so_far = f" (entered so far: {' '.join(self.entered.split())})" if self.entered.strip() else ""
        return f"{' '.join(self.head.split())} – {' '.join(self.step.split())}: {' '.join(self.value.split())}{so_far}"


def reply_int(reply: dict[str, str], key: str, base: int = 10) -> int:
    try:
        return int(reply[key], base)
    except (KeyError, ValueError):
        raise ProtocolError(f"the board's reply has no valid {key}= ({reply})") from None
