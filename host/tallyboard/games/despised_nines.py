"""Despised Nines on the host (docs/records.md, "Hands, game by game"): a hand is the
nines each player took. Options: first_dealer (default 0)."""
from __future__ import annotations

from typing import Any, Iterator

from tallycore import despised_nines

from . import fields, short
from .base import WINS_LOWEST


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = fields.only(hand, {"nines"})
    yield despised_nines.pack_hand(fields.per_player(hand, "nines", players, 4))


def record_hand(events: list[int]) -> Any:
    (event,) = events
    return {"nines": [despised_nines.nines_of(event, p) for p in range(despised_nines.players_of(event))]}


PROFILE = short.profile("despised_nines", record_events, record_hand, WINS_LOWEST,
                        '{"nines": [2, 0, 1, 1]}')
