"""Parquet on the host: its records are Rummy's (games/rummy.py)."""
from __future__ import annotations

from . import fields, rummy, sheetparts
from .base import WINS_LOWEST, GameProfile

PROFILE = GameProfile(
    name="parquet",
    events=rummy.record_events,
    hand=rummy.record_hand,
    options=rummy.record_options,
    options_document=fields.dealer_options_document("parquet", rummy.faces_document),
    closes=None,
    sheet_json=sheetparts.short_json,
    sheet_table=sheetparts.short_table,
    wins=WINS_LOWEST,
)
