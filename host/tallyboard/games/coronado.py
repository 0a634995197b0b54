"""Coronado on the host (docs/records.md, "Hands, game by game"): a hand is the
non-dealer's mode and his tricks. Options: first_dealer (default 0)."""
from __future__ import annotations

import json
from typing import Any, Iterator

from tallycore import coronado

from . import fields, short
from .base import WINS_TARGET


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = fields.only(hand, {"mode", "tricks"})
    mode = hand.get("mode")
    if mode not in coronado.MODES:
        raise ValueError(f'mode: must be "stand", "refused" or "drew", not {json.dumps(mode)}')
    tricks = fields.read_int(hand, "tricks")
    if not 0 <= tricks <= 5:
        raise ValueError(f"tricks: must be 0 to 5, not {tricks}")
    yield coronado.pack_hand(coronado.MODES.index(mode), tricks)


def record_hand(events: list[int]) -> Any:
    (event,) = events
    return {"mode": coronado.MODES[coronado.mode_of(event)], "tricks": coronado.tricks_of(event)}


PROFILE = short.profile("coronado", record_events, record_hand, WINS_TARGET,
                        '{"mode": "stand", "tricks": 3}')
