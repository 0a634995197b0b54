"""Game records (RECORDS.md): JSON <-> the core's packed events.

Reading a record turns every hand into the core's events and applies them to
a `tallycore.game.Game`; every rule check is the core's own, and its error
("tricks: must be 0 to 13") is reported with the hand it came from. Writing a
record is the reverse walk over a game's event log."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from tallycore import game as core_game
from tallycore import games, roquet, skicket

from . import files
from .errors import RecordError

FORMAT = "tallyboard/1"
READABLE_FORMATS = (FORMAT,)


@dataclass
class LoadedGame:
    """A record applied to the core: the game plus what the record named."""

    name: str
    players: list[str]
    options: dict[str, Any]
    game: core_game.Game


# ---------------------------------------------------------------- field reading

def _int(hand: dict, key: str, *, optional: bool = False, default: Any = None) -> Any:
    if key not in hand or (optional and hand[key] is None):
        if optional:
            return default
        raise ValueError(f"{key}: missing")
    value = hand[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key}: must be a whole number, not {json.dumps(value)}")
    return value


def _bool(hand: dict, key: str) -> bool:
    value = hand.get(key, False)
    if not isinstance(value, bool):
        raise ValueError(f"{key}: must be true or false, not {json.dumps(value)}")
    return value


def _player(hand: dict, key: str, players: int, *, optional: bool = False) -> int | None:
    value = _int(hand, key, optional=optional)
    if value is not None and not 0 <= value < players:
        raise ValueError(f"{key}: player {value} is out of range 0 to {players - 1}")
    return value


def _only(hand: Any, allowed: set[str]) -> dict:
    if not isinstance(hand, dict):
        raise ValueError("must be an object")
    unknown = sorted(set(hand) - allowed)
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown field")
    return hand


# ---------------------------------------------------------------- per game

def _skicket_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    if isinstance(hand, dict) and hand.get("misdeal") is True:
        _only(hand, {"misdeal"})
        yield skicket.MISDEAL
        return
    hand = _only(hand, {"purchaser", "bid", "doubled_by", "redoubled_by", "lone", "tricks", "misdeal"})
    if "misdeal" in hand and hand["misdeal"] is not False:
        raise ValueError("misdeal: must be true or false")
    purchaser = _player(hand, "purchaser", players)
    bid = hand.get("bid")
    if not isinstance(bid, str):
        raise ValueError(f"bid: must be a string such as \"4H\", not {json.dumps(bid)}")
    level, strain = skicket.parse_bid(bid)
    yield skicket.pack_hand(
        purchaser, level, strain,
        _player(hand, "doubled_by", players, optional=True),
        _player(hand, "redoubled_by", players, optional=True),
        _bool(hand, "lone"),
        _int(hand, "tricks"),
    )


def _skicket_hand(events: list[int]) -> Any:
    (event,) = events
    if event == skicket.MISDEAL:
        return {"misdeal": True}
    nobody = skicket.NOBODY
    doubler = skicket.doubled_by_of(event)
    redoubler = skicket.redoubled_by_of(event)
    return {
        "purchaser": skicket.purchaser_of(event),
        "bid": skicket.bid_text(skicket.level_of(event), skicket.strain_of(event)),
        "doubled_by": None if doubler == nobody else doubler,
        "redoubled_by": None if redoubler == nobody else redoubler,
        "lone": bool(skicket.lone_of(event)),
        "tricks": skicket.tricks_of(event),
    }


def _roquet_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    if not isinstance(hand, list):
        raise ValueError("must be a list of peggings [player, points]")
    for k, peg in enumerate(hand, 1):
        if (not isinstance(peg, list) or len(peg) != 2
                or any(isinstance(v, bool) or not isinstance(v, int) for v in peg)):
            raise ValueError(f"peg {k}: must be [player, points] with whole numbers")
        player, points = peg
        if not 0 <= player < players:
            raise ValueError(f"peg {k}: player {player} is out of range 0 to {players - 1}")
        try:
            yield roquet.pack_peg(player, points)
        except ValueError as exc:
            raise ValueError(f"peg {k}: {exc}") from None
    yield roquet.HAND_END


def _roquet_hand(events: list[int]) -> Any:
    return [[roquet.peg_player(e), roquet.peg_points(e)] for e in events if e != roquet.HAND_END]


def _roquet_options(options: dict) -> int:
    _only(options, {"end", "landmark_bonus"})
    packed = 0
    end = options.get("end", "reach")
    if end == "hand_end":
        packed |= roquet.OPT_END_AT_HAND_END
    elif end != "reach":
        raise ValueError('end: must be "reach" (default) or "hand_end"')
    bonus = options.get("landmark_bonus", False)
    if not isinstance(bonus, bool):
        raise ValueError("landmark_bonus: must be true or false")
    if bonus:
        packed |= roquet.OPT_LANDMARK_BONUS
    return packed


def _roquet_options_document(packed: int) -> dict:
    doc: dict[str, Any] = {}
    if packed & roquet.OPT_END_AT_HAND_END:
        doc["end"] = "hand_end"
    if packed & roquet.OPT_LANDMARK_BONUS:
        doc["landmark_bonus"] = True
    if packed & ~(roquet.OPT_END_AT_HAND_END | roquet.OPT_LANDMARK_BONUS):
        raise ValueError(f"options: roquet has no option {packed}")
    return doc


def _no_options(options: dict) -> int:
    _only(options, set())
    return 0


def options_document(name: str, packed: int) -> dict:
    """The RECORDS.md `options` object for a game's packed options."""
    adapter = ADAPTERS[name]
    if adapter.options_document is not None:
        return adapter.options_document(packed)
    if packed:
        raise ValueError(f"options: {name} has no option {packed}")
    return {}


@dataclass(frozen=True)
class Adapter:
    """How one game's record hands map onto the core's events."""

    events: Callable[[Any, int, dict], Iterator[int]]
    hand: Callable[[list[int]], Any]
    options: Callable[[dict], int]
    # the reverse of `options`: packed options -> the record's `options` object
    # (defaults left out); raises ValueError for bits it does not know
    options_document: Callable[[int], dict] | None = None
    # whether an event is the last of one record hand (Skicket: every event,
    # misdeals included; by default the core's own end of hand)
    closes: Callable[[int], bool] | None = None


ADAPTERS: dict[str, Adapter] = {
    "skicket": Adapter(_skicket_events, _skicket_hand, _no_options, closes=lambda event: True),
    "roquet": Adapter(_roquet_events, _roquet_hand, _roquet_options, _roquet_options_document),
}


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
    adapter = ADAPTERS.get(name) if isinstance(name, str) else None
    if adapter is None:
        raise fail("game", f"unknown game {json.dumps(name)}; known games: {', '.join(ADAPTERS)}")
    rules = games.by_name(name)
    players = doc.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
        raise fail("players", "must be a list of player names")
    options = doc.get("options", {})
    if not isinstance(options, dict):
        raise fail("options", "must be an object")
    try:
        packed_options = adapter.options(options)
    except ValueError as exc:
        raise fail("options", str(exc)) from None
    game = core_game.Game()
    try:
        game.new(rules, len(players), packed_options)
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
            for event in adapter.events(hand, len(players), options):
                game.apply(event)
        except ValueError as exc:
            raise fail(f"hand {number}", str(exc)) from None
    return loaded


# ---------------------------------------------------------------- writing

def _closes_hand(game: core_game.Game, name: str) -> Callable[[int], bool]:
    """Whether an event is the last of one record hand, for this game."""
    return ADAPTERS[name].closes or game.rules.ends_hand


def open_hand_events(game: core_game.Game, name: str) -> int:
    """How many applied events belong to a hand not yet finished (0: none).
    A record's hands are finished hands: reading one back finishes that hand."""
    closes = _closes_hand(game, name)
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
    adapter = ADAPTERS[name]
    closes = _closes_hand(game, name)
    out: list[Any] = []
    pending: list[int] = []
    for i in range(game.n):
        event = game.log[i]
        pending.append(event)
        if closes(event):
            out.append(adapter.hand(pending))
            pending = []
    if pending:
        out.append(adapter.hand(pending))
    return out


def to_document(name: str, players: list[str], options: dict, game: core_game.Game) -> dict:
    doc: dict[str, Any] = {"format": FORMAT, "game": name, "players": list(players)}
    if options:
        doc["options"] = dict(options)
    doc["hands"] = hands_of(game, name)
    return doc


# The fourteen short games register their adapters here (RECORDS.md "The other games").
from . import adapters_other  # noqa: E402,F401
