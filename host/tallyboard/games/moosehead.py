"""Moosehead on the host (docs/records.md, "Hands, game by game"): a hand is every card
played, in order, as [player, "card"], and "go". Options: first_dealer
(default 0), faces: "ten" (default, as in cribbage) or "rank" (11, 12, 13).
The sheet splits each hand's scores into `pegging` (15/20/25/30 and gos) and
`fifteens` (2 per combination of a player's five cards counting 15)."""
from __future__ import annotations

import json
from typing import Any, Iterator

from rich.table import Table

from tallycore import cards, moosehead
from tallycore import game as core_game

from . import fields, sheetparts, short
from .base import WINS_TARGET, GameProfile, LoadedGame


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = fields.only(hand, {"plays"})
    plays = hand.get("plays")
    if not isinstance(plays, list):
        raise ValueError('plays: missing; every card played, in order, as [player, "card"], and "go"')
    for k, play in enumerate(plays, 1):
        if play == "go":
            yield moosehead.GO
            continue
        if (not isinstance(play, list) or len(play) != 2 or isinstance(play[0], bool)
                or not isinstance(play[0], int)):
            raise ValueError(f'plays: play {k}: must be [player, "card"] or "go", not {json.dumps(play)}')
        if not 0 <= play[0] < players:
            raise ValueError(f"plays: play {k}: player {play[0]} is out of range 0 to {players - 1}")
        yield moosehead.pack_play(play[0], fields.read_card(play[1], f"plays: play {k}"))
    yield moosehead.END


def record_hand(events: list[int]) -> Any:
    plays: list[Any] = []
    for event in events:
        if event == moosehead.GO:
            plays.append("go")
        elif event != moosehead.END:
            plays.append([cards.player_of(event), cards.text(cards.card_of(event))])
    return {"plays": plays}


def record_options(options: dict) -> int:
    fields.only(options, {"first_dealer", "faces"})
    return fields.first_dealer(options) | (moosehead.OPT_FACES_RANK if fields.faces_rank(options, "ten") else 0)


def faces_document(packed: int, rest: int, doc: dict) -> int:
    if rest & moosehead.OPT_FACES_RANK:
        doc["faces"] = "rank"
        rest &= ~moosehead.OPT_FACES_RANK
    return rest


def split_scores(loaded: LoadedGame, doc: dict[str, Any]) -> None:
    """Each hand's scores split at its closing event: pegging before, fifteens at it."""
    game = loaded.game
    hands = doc["hands"]
    replay = core_game.Game()
    replay.new(game.index, game.players, game.options)
    n = game.players
    hand = 0
    start = [0] * n
    for i in range(game.n):
        event = game.log[i]
        if event == moosehead.END:
            before = [replay.total(p) for p in range(n)]
            hands[hand]["pegging"] = [before[p] - start[p] for p in range(n)]
        replay.apply(event)
        if event == moosehead.END:
            after = [replay.total(p) for p in range(n)]
            hands[hand]["fifteens"] = [after[p] - before[p] for p in range(n)]
            start = after
            hand += 1
    if hand < len(hands):   # the hand in progress: its pegging so far, fifteens at its end
        hands[hand]["pegging"] = [replay.total(p) - start[p] for p in range(n)]
        hands[hand]["fifteens"] = [0] * n


def sheet_json(profile: GameProfile, loaded: LoadedGame) -> dict[str, Any]:
    return sheetparts.short_json(profile, loaded, split_scores)


def split_cells(row: dict[str, Any]) -> list[str]:
    """"score (pegging+fifteens)" per player."""
    return [f"{s} ({p}+{f})" for s, p, f in zip(row["scores"], row["pegging"], row["fifteens"])]


def sheet_table(doc: dict[str, Any]) -> Table:
    return sheetparts.short_table(doc, split_cells, note="score (pegging+fifteens)")


open_hand, open_events = fields.cut_short(record_events, record_hand)

PROFILE = short.profile("moosehead", record_events, record_hand, WINS_TARGET,
                        '{"plays": [[1, "K"], [0, "5"], [1, "4"], [0, "A"], [1, "3"], [0, "4"], [1, "2"], '
                        '[1, "A"], [0, "2"], [0, "3"], "go"]}',
                        options=record_options, more_options=faces_document, sheet_json=sheet_json,
                        sheet_table=sheet_table, open_hand=open_hand, open_events=open_events)
