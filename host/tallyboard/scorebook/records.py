"""Game records (docs/records.md): JSON <-> the core's packed events.

Reading a record turns every hand into the core's events and applies them to
a `tallycore.game.Game`; every rule check is the core's own, and its error
("tricks: must be 0 to 13") is reported with the hand it came from. Writing a
record is the reverse walk over a game's event log. What a game's hands and
options look like is its profile's (games/)."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tallycore import game as core_game
from tallynet import tablestate
from tallyrun import chain as board_chain

from ..common import files, names
from .. import games
from ..common.errors import RecordError
from ..games.base import LoadedGame

FORMAT = tablestate.FORMAT
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


RECORD_FIELDS = ("format", "game", "players", "options", "hands", "chain")     # a record's fields (docs/records.md)
CHAIN_KEYS = ("head", "key", "tag", "hands")     # its chain's (docs/records.md, The chain)
SHORT_DIGITS = 2 * board_chain.SHORT     # a head's short form: as STATE's chain and the board's summary screen show it
_HEX = re.compile(r"[0-9a-f]*\Z")
_SHORT = re.compile(r"[0-9A-F]{%d}\Z" % SHORT_DIGITS)


def from_document(doc: Any, source: str = "record") -> LoadedGame:
    def fail(where: str, message: str) -> RecordError:
        return RecordError(f"{source}: {where}: {message}")

    if not isinstance(doc, dict):
        raise fail("record", "must be a JSON object")
    unknown = sorted(set(doc) - set(RECORD_FIELDS))
    if unknown:
        raise fail(unknown[0], "unknown field")
    if doc.get("format") not in READABLE_FORMATS:
        raise fail("format", f"unsupported {json.dumps(doc.get('format'))}; this tallyboard reads {', '.join(READABLE_FORMATS)}")
    name = doc.get("game")
    if name not in games.names():
        raise fail("game", f"unknown game {json.dumps(name)}; known games: {', '.join(games.names())}")
    profile = games.profile(name)
    problem = players_problem(doc.get("players"))
    if problem:
        raise fail("players", problem)
    players: list[str] = doc["players"]
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
            hand, who = split_accepted(hand, len(players))
            for event in hand_events(profile, hand, len(players), options, last=number == len(hands)):
                game.apply(event)
            if who is not None:
                game.mark_accepted(game.n - 1, who + 1)
        except ValueError as exc:
            raise fail(f"hand {number}", str(exc)) from None
    if "chain" in doc:
        try:
            loaded.chain = read_chain(doc["chain"], len(hands))
        except ValueError as exc:
            raise fail("chain", str(exc)) from None
    return loaded


def players_problem(players: Any) -> str | None:
    """Why a record's players are not a list of names it can hold, or None."""
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
        return "must be a list of player names"
    for player in players:
        bad = names.refused_character(player)
        if bad is not None:
            return (f"{player!r} holds U+{ord(bad):04X}: a name may not hold a control, bidi or other invisible "
                    "character (docs/host.md, Names)")
    return None


def read_chain(value: Any, hands: int) -> dict[str, Any]:
    """A record's chain object, its shape checked (not its truth: verify.check
    does that); ValueError naming the field."""
    if not isinstance(value, dict):
        raise ValueError("must be an object with head, key, tag and hands (the board's SIGN)")
    unknown = sorted(set(value) - set(CHAIN_KEYS))
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown field")
    for name, digits in (("head", 64), ("key", 64), ("tag", 128)):
        text = value.get(name)
        if not isinstance(text, str) or len(text) != digits or not _HEX.match(text):
            raise ValueError(f"{name}: must be {digits} lowercase hex digits")
    shorts = value.get("hands")
    if not isinstance(shorts, list) or not all(isinstance(s, str) and _SHORT.match(s) for s in shorts):
        raise ValueError(f"hands: must be a list of the head's short form after each hand "
                         f"({SHORT_DIGITS} uppercase hex digits each)")
    if len(shorts) != hands:
        raise ValueError(f"hands: {len(shorts)} heads for {hands} hands")
    return dict(value)


def split_accepted(hand: Any, players: int) -> tuple[Any, int | None]:
    """A record hand without its accepted_by, and that player (None: the hand
    was entered without a confirmation). ValueError naming the field."""
    if not isinstance(hand, dict) or "accepted_by" not in hand:
        return hand, None
    who = hand["accepted_by"]
    if isinstance(who, bool) or not isinstance(who, int) or not 0 <= who < players:
        raise ValueError(f"accepted_by: must be a player 0 to {players - 1}")
    if is_open(hand):
        raise ValueError("accepted_by: a hand in progress was accepted by nobody yet; leave it out")
    return {k: v for k, v in hand.items() if k != "accepted_by"}, who


def is_open(hand: Any) -> bool:
    """Whether a record hand is a hand in progress (it says "open")."""
    return isinstance(hand, dict) and "open" in hand


def hand_events(profile: games.GameProfile, hand: Any, players: int, options: dict,
                last: bool = True) -> list[int]:
    """The core's events of one record hand, finished or in progress
    ("open": true, only as the last hand: its events so far, none closing it).
    ValueError naming the field for a hand of the wrong shape; the rules are
    the core's, checked when the events are applied."""
    if not is_open(hand):
        return list(profile.events(hand, players, options))
    if hand["open"] is not True:
        raise ValueError('open: must be true; a finished hand leaves "open" out')
    if profile.open_events is None:
        raise ValueError(f"open: a {profile.name} hand is entered whole, so it is never in progress; "
                         'leave "open" out')
    if not last:
        raise ValueError("open: only the last hand can be in progress")
    events = list(profile.open_events({k: v for k, v in hand.items() if k != "open"}, players, options))
    if not events:
        raise ValueError("open: a hand in progress has something entered; leave an empty one out")
    return events


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
        counted.mark_accepted(i, game.accepted_by(i) + 1)
    return counted


def open_hand_note(loaded: LoadedGame) -> str | None:
    """What to tell the user when a game with a hand in progress is written as a record."""
    count = len(games.profile(loaded.name).hand_in_progress(without_pending(loaded.game)))
    if not count:
        return None
    return (f"hand {loaded.game.hands() + 1} is in progress ({count} event{'s' if count > 1 else ''}): "
            'the record keeps it as a hand in progress ("open": true)')


def hands_of(game: core_game.Game, name: str) -> list[Any]:
    """The record's hands for a game's applied events (the redo stack is not
    part of it); a hand not yet finished is the last, with "open": true."""
    profile = games.profile(name)
    groups = profile.record_hands(game)
    in_progress = profile.hand_in_progress(game)
    hands = []
    end = 0
    for events in groups[:len(groups) - bool(in_progress)]:
        end += len(events)
        hands.append(with_accepted(profile, profile.hand(events), game.accepted_by(end - 1)))
    if in_progress:
        assert profile.open_hand is not None, f"{name}: a hand in progress, but no open_hand"
        hands.append({"open": True, **profile.open_hand(in_progress, game.players)})
    return hands


def with_accepted(profile: games.GameProfile, hand: Any, who: int) -> Any:
    """A record hand with accepted_by, the player whose accept on the board
    made the event that closed it (docs/rules.md CF2), when one did (who >= 0).
    A hand written as a list (Roquet's) is written as its object then."""
    if who < 0:
        return hand
    if not isinstance(hand, dict) and profile.hand_object is not None:
        hand = profile.hand_object(hand)
    return {**hand, "accepted_by": who}


def to_document(name: str, players: list[str], options: dict, game: core_game.Game,
                chain: dict | None = None) -> dict:
    """A game's record; with its board's chain when the board signed it (verify.record_chain)."""
    doc = tablestate.record(name, players, options, hands_of(without_pending(game), name))
    if chain is not None:
        doc["chain"] = chain
    return doc
