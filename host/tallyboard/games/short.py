"""The profile of a short game, as most are built: options are the first dealer
(and the game's own, given as `more_options`, see fields.dealer_options_document),
the sheet is the short games' (sheetparts.short_json / short_table) unless
the game has its own, and a record hand closes where the rules end a hand;
a game whose hand is several entries says how a hand in progress is written
(open_hand, open_events)."""
from __future__ import annotations

from typing import Any, Callable

from . import fields, sheetparts
from .base import GameProfile


def profile(name: str, events: Callable[..., Any], hand: Callable[..., Any], wins: str, example_hand: str, *,
            options: Callable[[dict], int] = fields.dealer_only,
            more_options: Callable[[int, int, dict], int] | None = None,
            closes: Callable[[int], bool] | None = None,
            open_hand: Callable[..., Any] | None = None,
            open_events: Callable[..., Any] | None = None,
            sheet_json: Callable[..., Any] = sheetparts.short_json,
            sheet_table: Callable[..., Any] = sheetparts.short_table) -> GameProfile:
    return GameProfile(name=name, events=events, hand=hand, options=options,
                       options_document=fields.dealer_options_document(name, more_options),
                       closes=closes, sheet_json=sheet_json, sheet_table=sheet_table, wins=wins,
                       example_hand=example_hand, open_hand=open_hand, open_events=open_events)
