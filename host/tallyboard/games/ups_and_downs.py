"""Ups and Downs on the host (docs/records.md, "Hands, game by game"): a hand is its winner.
Options: first_dealer (default 0)."""
from __future__ import annotations

from . import fields, sheetparts
from .base import WINS_MOST_HANDS, GameProfile

PROFILE = GameProfile(
    name="ups_and_downs",
    events=fields.winner_events,
    hand=fields.winner_hand,
    options=fields.dealer_only,
    options_document=fields.dealer_options_document("ups_and_downs"),
    closes=None,
    sheet_json=sheetparts.short_json,
    sheet_table=sheetparts.short_table,
    wins=WINS_MOST_HANDS,
)
