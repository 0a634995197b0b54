"""The profile of a game won by the first player out (Hoodoo, Ups and Downs:
one rule, tallycore.first_out, under two names; docs/records.md, "Hands,
game by game"): a hand is its winner. Options: first_dealer (default 0)."""
from __future__ import annotations

from . import fields, sheetparts
from .base import WINS_MOST_HANDS, GameProfile


def profile(name: str) -> GameProfile:
    return GameProfile(
        name=name,
        events=fields.winner_events,
        hand=fields.winner_hand,
        options=fields.dealer_only,
        options_document=fields.dealer_options_document(name),
        closes=None,
        sheet_json=sheetparts.short_json,
        sheet_table=sheetparts.short_table,
        wins=WINS_MOST_HANDS,
        example_hand='{"winner": 1}',
    )
