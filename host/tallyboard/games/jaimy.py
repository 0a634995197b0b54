"""Jaimy on the host (docs/records.md, "Hands, game by game"): a hand is who claimed
three tricks, or who took all five, or nobody. Options: first_dealer
(default 0), partners: false (default) or true (4 or 6 players; sides 0, 2, 4
against 1, 3, 5; the sheet then has `sides`)."""
from __future__ import annotations

from typing import Any, Iterator

from tallycore import jaimy

from . import fields, sheetparts, short
from .base import WINS_TARGET, GameProfile, LoadedGame


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = fields.only(hand, {"claimed", "all"})
    if "claimed" in hand and "all" in hand:
        raise ValueError("all: a hand is claimed with three tricks or taken all five, not both")
    if "claimed" in hand:
        yield jaimy.pack_hand(jaimy.CLAIMED, fields.read_player(hand, "claimed", players))
    elif "all" in hand:
        yield jaimy.pack_hand(jaimy.ALL, fields.read_player(hand, "all", players))
    else:
        yield jaimy.pack_hand(jaimy.NOBODY_SCORED)


def record_hand(events: list[int]) -> Any:
    (event,) = events
    kind = jaimy.kind_of(event)
    if kind == jaimy.CLAIMED:
        return {"claimed": jaimy.player_of(event)}
    if kind == jaimy.ALL:
        return {"all": jaimy.player_of(event)}
    return {}


def record_options(options: dict) -> int:
    fields.only(options, {"first_dealer", "partners"})
    return fields.first_dealer(options) | (jaimy.OPT_PARTNERS if fields.read_bool(options, "partners") else 0)


def partners_document(packed: int, rest: int, doc: dict) -> int:
    if rest & jaimy.OPT_PARTNERS:
        doc["partners"] = True
        rest &= ~jaimy.OPT_PARTNERS
    return rest


def sides(loaded: LoadedGame, doc: dict[str, Any]) -> None:
    game = loaded.game
    if jaimy.partners(game.state):
        doc["sides"] = [list(range(0, game.players, 2)), list(range(1, game.players, 2))]


def sheet_json(profile: GameProfile, loaded: LoadedGame) -> dict[str, Any]:
    return sheetparts.short_json(profile, loaded, sides)


PROFILE = short.profile("jaimy", record_events, record_hand, WINS_TARGET, '{"claimed": 1}',
                        options=record_options, more_options=partners_document, sheet_json=sheet_json)
