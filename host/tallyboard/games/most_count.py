"""The profile of a game whose hand goes to the most of a count (Numero: cards
held, Quatro: tricks of four; one rule, tallycore.most_count, under two names
with another cap; docs/records.md, "Hands, game by game"): a hand is each
player's count. Options: first_dealer (default 0); Quatro also hands_won
(default false: the totals are tricks; true: hands won, docs/rules.md QU3)."""
from __future__ import annotations

import json
from typing import Any, Callable, Iterator

from tallycore import most_count, points

from . import fields, sheetparts, short
from .base import WINS_MOST_HANDS, WINS_MOST_TRICKS, GameProfile, LoadedGame


def count_events(key: str, cap: int) -> Callable[[Any, int, dict], Iterator[int]]:
    def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
        hand = fields.only(hand, {key})
        for p, count in enumerate(fields.per_player(hand, key, players, cap)):
            yield most_count.pack_count(p, count, cap)
        yield most_count.END
    return record_events


def open_counts(key: str) -> Callable[[list[int], int], Any]:
    """A hand in progress: the counts entered so far, null for a player not counted yet."""
    def open_hand(events: list[int], players: int) -> Any:
        counts: dict[int, int] = {points.count_player(e): points.count_of(e) for e in events}
        return {key: [counts.get(p) for p in range(players)]}
    return open_hand


def open_count_events(key: str, cap: int) -> Callable[[Any, int, dict], Iterator[int]]:
    def open_events(hand: Any, players: int, options: dict) -> Iterator[int]:
        hand = fields.only(hand, {key})
        values = hand.get(key)
        if not isinstance(values, list) or len(values) != players:
            raise ValueError(f"{key}: one count per player, null for a player not counted yet")
        for p, count in enumerate(values):
            if count is None:
                continue
            if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= cap:
                raise ValueError(f"{key}: {json.dumps(count)} is not a count 0 to {cap} or null")
            yield most_count.pack_count(p, count, cap)
    return open_events


def hands_won_options(options: dict) -> int:
    """Quatro's options: first_dealer, and hands_won (bit 3) when true."""
    fields.only(options, {"first_dealer", "hands_won"})
    hands_won = most_count.OPT_HANDS_WON if fields.read_bool(options, "hands_won") else 0
    return fields.first_dealer(options) | hands_won


def hands_won_document(packed: int, rest: int, doc: dict) -> int:
    if rest & most_count.OPT_HANDS_WON:
        doc["hands_won"] = True
        rest &= ~most_count.OPT_HANDS_WON
    return rest


def how_won(loaded: LoadedGame, doc: dict[str, Any]) -> None:
    """What the totals count, as the core keeps them: hands won, or tricks."""
    doc["wins"] = WINS_MOST_HANDS if most_count.hands_won(loaded.game.state) else WINS_MOST_TRICKS


def sheet_json(profile: GameProfile, loaded: LoadedGame) -> dict[str, Any]:
    return sheetparts.short_json(profile, loaded, how_won)


def profile(name: str, key: str, cap: int, example_hand: str, wins: str = WINS_MOST_HANDS, *,
            options: Callable[[dict], int] = fields.dealer_only,
            more_options: Callable[[int, int, dict], int] | None = None) -> GameProfile:
    """wins: how the game is won with its default options."""
    return short.profile(name, count_events(key, cap), fields.count_hand(key, most_count.END), wins,
                         example_hand, options=options, more_options=more_options, sheet_json=sheet_json,
                         open_hand=open_counts(key), open_events=open_count_events(key, cap))
