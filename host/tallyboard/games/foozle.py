"""Foozle on the host (docs/records.md, "Hands, game by game"): a hand is the bidder,
his bid and the tricks he took. Options: first_dealer (default 0)."""
from __future__ import annotations

from typing import Any, Iterator

from tallycore import foozle

from . import fields, short
from .base import WINS_TARGET


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = fields.only(hand, {"bidder", "bid", "tricks"})
    bidder = fields.read_player(hand, "bidder", players)
    bid = fields.read_int(hand, "bid")
    if not 1 <= bid <= 5:
        raise ValueError(f"bid: must be 1 to 5 tricks, not {bid}")
    tricks = fields.read_int(hand, "tricks")
    if not 0 <= tricks <= 5:
        raise ValueError(f"tricks: must be 0 to 5, not {tricks}")
    yield foozle.pack_hand(bidder, bid, tricks)


def record_hand(events: list[int]) -> Any:
    (event,) = events
    return {"bidder": foozle.bidder_of(event), "bid": foozle.bid_of(event), "tricks": foozle.tricks_of(event)}


PROFILE = short.profile("foozle", record_events, record_hand, WINS_TARGET,
                        '{"bidder": 2, "bid": 3, "tricks": 4}')
