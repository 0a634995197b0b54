"""Numero on the host (docs/records.md, "Hands, game by game"): a hand is the cards each
player holds at its end. Options: first_dealer (default 0)."""
from __future__ import annotations

from typing import Any, Iterator

from tallycore import most_count

from . import fields, sheetparts
from .base import WINS_MOST_HANDS, GameProfile


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = fields.only(hand, {"cards"})
    for p, held in enumerate(fields.per_player(hand, "cards", players, most_count.PACK)):
        yield most_count.pack_count(p, held, most_count.PACK)
    yield most_count.END


PROFILE = GameProfile(
    name="numero",
    events=record_events,
    hand=fields.count_hand("cards", most_count.END),
    options=fields.dealer_only,
    options_document=fields.dealer_options_document("numero"),
    closes=None,
    sheet_json=sheetparts.short_json,
    sheet_table=sheetparts.short_table,
    wins=WINS_MOST_HANDS,
)
