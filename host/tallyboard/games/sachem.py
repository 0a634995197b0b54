"""Sachem on the host (docs/records.md, "Hands, game by game"): a hand is who captured
each of the scoring cards (or null). Options: first_dealer (default 0)."""
from __future__ import annotations

from typing import Any, Iterator

from tallycore import sachem

from . import fields, short
from .base import WINS_TARGET


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = fields.only(hand, set(sachem.FIELDS))
    who = []
    for key in sachem.FIELDS:
        if key not in hand:
            raise ValueError(f"{key}: missing (the player who captured it, or null)")
        who.append(fields.read_player(hand, key, players, optional=True))
    yield sachem.pack_hand(*who)


def record_hand(events: list[int]) -> Any:
    (event,) = events
    out = {}
    for field, key in enumerate(sachem.FIELDS):
        who = sachem.captor(event, field)
        out[key] = None if who == sachem.NO_CAPTOR else who
    return out


PROFILE = short.profile("sachem", record_events, record_hand, WINS_TARGET,
                        '{"first_trump": 0, "last_trump": 2, "nine": 1, "sachem": 0}')
