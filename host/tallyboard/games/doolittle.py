"""Doolittle on the host (docs/records.md, "Hands, game by game"): a hand is the player
who took each trick, in order. Options: first_dealer (default 0), cards:
cards dealt to each player, 6 (default) to 13."""
from __future__ import annotations

import json
from typing import Any, Iterator

from tallycore import doolittle

from . import fields, short
from .base import WINS_LOWEST


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = fields.only(hand, {"takers"})
    takers = hand.get("takers")
    if not isinstance(takers, list):
        raise ValueError("takers: missing; the player who took each trick, in order")
    for k, taker in enumerate(takers, 1):
        if isinstance(taker, bool) or not isinstance(taker, int) or not 0 <= taker < players:
            raise ValueError(f"takers: trick {k}: {json.dumps(taker)} is not a player 0 to {players - 1}")
        yield taker
    yield doolittle.END


def record_hand(events: list[int]) -> Any:
    return {"takers": [e for e in events if e != doolittle.END]}


def record_options(options: dict) -> int:
    fields.only(options, {"first_dealer", "cards"})
    dealt = options.get("cards", doolittle.CARDS)
    if isinstance(dealt, bool) or not isinstance(dealt, int) or not doolittle.CARDS <= dealt <= 13:
        raise ValueError(f"cards: must be 6 to 13 cards each, not {json.dumps(dealt)}")
    return fields.first_dealer(options) | dealt << doolittle.OPT_CARDS_SHIFT


def cards_document(packed: int, rest: int, doc: dict) -> int:
    if doolittle.cards_dealt(packed) != doolittle.CARDS:
        doc["cards"] = doolittle.cards_dealt(packed)
    return 0


open_hand, open_events = fields.cut_short(record_events, record_hand)

PROFILE = short.profile("doolittle", record_events, record_hand, WINS_LOWEST,
                        '{"takers": [1, 1, 0, 2, 2, 2]}',
                        options=record_options, more_options=cards_document,
                        open_hand=open_hand, open_events=open_events)
