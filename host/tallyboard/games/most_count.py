"""The profile of a game whose hand goes to the most of a count (Numero: cards
held, Quatro: tricks of four; one rule, tallycore.most_count, under two names
with another cap; docs/records.md, "Hands, game by game"): a hand is each
player's count. Options: first_dealer (default 0)."""
from __future__ import annotations

from typing import Any, Callable, Iterator

from tallycore import most_count

from . import fields, sheetparts
from .base import WINS_MOST_HANDS, GameProfile


def count_events(key: str, cap: int) -> Callable[[Any, int, dict], Iterator[int]]:
    def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
        hand = fields.only(hand, {key})
        for p, count in enumerate(fields.per_player(hand, key, players, cap)):
            yield most_count.pack_count(p, count, cap)
        yield most_count.END
    return record_events


def profile(name: str, key: str, cap: int) -> GameProfile:
    return GameProfile(
        name=name,
        events=count_events(key, cap),
        hand=fields.count_hand(key, most_count.END),
        options=fields.dealer_only,
        options_document=fields.dealer_options_document(name),
        closes=None,
        sheet_json=sheetparts.short_json,
        sheet_table=sheetparts.short_table,
        wins=WINS_MOST_HANDS,
    )
