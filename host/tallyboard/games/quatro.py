"""Quatro on the host (docs/records.md, "Hands, game by game"): a hand is the tricks
each player took. Options: first_dealer (default 0)."""
from __future__ import annotations

from typing import Any, Iterator

from tallycore import most_count

from . import fields, sheetparts
from .base import WINS_MOST_HANDS, GameProfile


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = fields.only(hand, {"tricks"})
    for p, tricks in enumerate(fields.per_player(hand, "tricks", players, most_count.TRICKS)):
        yield most_count.pack_count(p, tricks, most_count.TRICKS)
    yield most_count.END


PROFILE = GameProfile(
    name="quatro",
    events=record_events,
    hand=fields.count_hand("tricks", most_count.END),
    options=fields.dealer_only,
    options_document=fields.dealer_options_document("quatro"),
    closes=None,
    sheet_json=sheetparts.short_json,
    sheet_table=sheetparts.short_table,
    wins=WINS_MOST_HANDS,
)
