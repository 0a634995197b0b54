"""Game records (docs/records.md): JSON <-> the core's packed events.

Reading a record turns every hand into the core's events and applies them to
a `tallycore.game.Game`; every rule check is the core's own, and its error
("tricks: must be 0 to 13") is reported with the hand it came from. Writing a
record is the reverse walk over a game's event log. What a game's hands and
options look like is its profile's (games/)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tallycore import game as core_game

from . import files, games
from .errors import RecordError
from .games.base import LoadedGame

FORMAT = "tallyboard/1"
READABLE_FORMATS = (FORMAT,)


def options_document(name: str, packed: int) -> dict:
    """The docs/records.md `options` object for a game's packed options (defaults
    left out); ValueError for bits the game does not know."""
    return games.profile(name).options_document(packed)


# ---------------------------------------------------------------- reading

def load(path: str | Path) -> LoadedGame:
    return from_document(files.read_json(path, "record"), str(path))


def loads(text: str | bytes, source: str = "record") -> LoadedGame:
    return from_document(files.parse_json(text, source, "record"), source)


def from_document(doc: Any, source: str = "record") -> LoadedGame:
    def fail(where: str, message: str) -> RecordError:
        return RecordError(f"{source}: {where}: {message}")

    if not isinstance(doc, dict):
        raise fail("record", "must be a JSON object")
    unknown = sorted(set(doc) - {"format", "game", "players", "options", "hands"})
    if unknown:
        raise fail(unknown[0], "unknown field")
    if doc.get("format") not in READABLE_FORMATS:
        raise fail("format", f"unsupported {json.dumps(doc.get('format'))}; this tallyboard reads {', '.join(READABLE_FORMATS)}")
    name = doc.get("game")
    if name not in games.names():
        raise fail("game", f"unknown game {json.dumps(name)}; known games: {', '.join(games.names())}")
    profile = games.profile(name)
    players = doc.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
        raise fail("players", "must be a list of player names")
    options = doc.get("options", {})
    if not isinstance(options, dict):
        raise fail("options", "must be an object")
    try:
        packed_options = profile.options(options)
    except ValueError as exc:
        raise fail("options", str(exc)) from None
    game = core_game.Game()
    try:
        game.new(profile.index, len(players), packed_options)
    except ValueError as exc:
        field, _, message = str(exc).partition(": ")
        if field != "players":  # an option the game refuses for this many players
            raise fail("options", str(exc)) from None
        raise fail("players", message) from None
    hands = doc.get("hands")
    if not isinstance(hands, list):
        raise fail("hands", "must be a list")
    loaded = LoadedGame(name, players, options, game)
    for number, hand in enumerate(hands, 1):
        try:
            for event in profile.events(hand, len(players), options):
                game.apply(event)
        except ValueError as exc:
            raise fail(f"hand {number}", str(exc)) from None
    return loaded


# ---------------------------------------------------------------- writing

def without_pending(game: core_game.Game) -> core_game.Game:
    """The game as a record holds it: a hand waiting for its confirmation on
    the board (docs/rules.md CF1) counts whole or not at all, so the events of
    it already applied are left out with it (the core's open_hand)."""
    if game.held != core_game.HELD_APPLY or not game.open_hand():
        return game
    counted = core_game.Game()
    counted.new(game.index, game.players, game.options)
    for i in range(game.n - game.open_hand()):
        counted.apply(game.log[i])
    return counted


def open_hand_events(game: core_game.Game, name: str) -> int:
    """How many applied events belong to a hand not yet finished (0: none).
    A record's hands are finished hands: reading one back finishes that hand."""
    game = without_pending(game)
    closes = games.profile(name).closes_hand(game)
    count = 0
    for i in range(game.n):
        count = 0 if closes(game.log[i]) else count + 1
    return count


def open_hand_warning(loaded: LoadedGame) -> str | None:
    """What to tell the user when a game with a hand in progress is written as a record."""
    count = open_hand_events(loaded.game, loaded.name)
    if not count:
        return None
    return (f"the hand in progress ({count} event{'s' if count > 1 else ''}) is written as a finished hand, "
            "as a record holds finished hands; finish the hand on the board first to keep the two in step")


def hands_of(game: core_game.Game, name: str) -> list[Any]:
    """The record's hands for a game's applied events (the redo stack is not part of it)."""
    profile = games.profile(name)
    return [profile.hand(events) for events in profile.record_hands(game)]


def to_document(name: str, players: list[str], options: dict, game: core_game.Game) -> dict:
    doc: dict[str, Any] = {"format": FORMAT, "game": name, "players": list(players)}
    if options:
        doc["options"] = dict(options)
    doc["hands"] = hands_of(without_pending(game), name)
    return doc
