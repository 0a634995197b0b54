"""Rummy on the host (docs/records.md, "Hands, game by game"): a hand is who went out
and every player's unplayed cards. Options: first_dealer (default 0), faces:
"rank" (default: J 11, Q 12, K 13) or "ten". Parquet's records are the same
(games/parquet.py uses these functions)."""
from __future__ import annotations

from typing import Any, Iterator

from tallycore import cards, rummy

from . import fields, short
from .base import WINS_LOWEST


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = fields.only(hand, {"out", "cards"})
    out = fields.read_player(hand, "out", players)
    held = hand.get("cards")
    if not isinstance(held, list) or len(held) != players:
        raise ValueError(f"cards: one list of unplayed cards per player ({players})")
    for p, unplayed in enumerate(held):
        if not isinstance(unplayed, list):
            raise ValueError(f"cards: player {p}: must be a list of cards")
        for text in unplayed:
            yield rummy.pack_card(p, fields.read_card(text, f"cards: player {p}"))
    yield rummy.pack_out(out)


def record_hand(events: list[int]) -> Any:
    held: dict[int, list[str]] = {}
    out = 0
    for event in events:
        if event & rummy.OUT:
            out = cards.player_of(event)
        else:
            held.setdefault(cards.player_of(event), []).append(cards.text(cards.card_of(event)))
    players = max([out, *held]) + 1
    return {"out": out, "cards": [held.get(p, []) for p in range(players)]}


def open_hand(events: list[int], players: int) -> Any:
    """The cards entered so far, one list per player; nobody out yet."""
    return {"cards": [[cards.text(cards.card_of(e)) for e in events if cards.player_of(e) == p]
                      for p in range(players)]}


def open_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = fields.only(hand, {"cards"})
    yield from list(record_events({"out": 0, **hand}, players, options))[:-1]


def record_options(options: dict) -> int:
    fields.only(options, {"first_dealer", "faces"})
    return fields.first_dealer(options) | (0 if fields.faces_rank(options, "rank") else rummy.OPT_FACES_TEN)


def faces_document(packed: int, rest: int, doc: dict) -> int:
    if rest & rummy.OPT_FACES_TEN:
        doc["faces"] = "ten"
        rest &= ~rummy.OPT_FACES_TEN
    return rest


PROFILE = short.profile("rummy", record_events, record_hand, WINS_LOWEST,
                        '{"out": 0, "cards": [[], ["10", "3", "4"], ["K"]]}',
                        options=record_options, more_options=faces_document,
                        open_hand=open_hand, open_events=open_events)
