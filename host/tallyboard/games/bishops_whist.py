"""Bishops Whist on the host (docs/records.md, "Hands, game by game"). Scored by sides:
the sheet's `sides` are [[0, 2], [1, 3]], and its `totals`, `winners` and each
hand's `scores` are per side. Options: first_dealer (default 0)."""
from __future__ import annotations

from typing import Any, Iterator

from rich.table import Table

from tallycore import bishops_whist, points

from . import fields, sheetparts, short
from .base import WINS_TARGET, GameProfile, LoadedGame


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    if isinstance(hand, dict) and hand.get("misdeal") is True:
        fields.only(hand, {"misdeal"})
        yield bishops_whist.MISDEAL
        return
    hand = fields.only(hand, {"tricks", "bishops", "bishop_turned", "exposed", "revokes", "misdeal"})
    if "misdeal" in hand and hand["misdeal"] is not False:
        raise ValueError("misdeal: must be true or false")
    yield bishops_whist.pack_hand(fields.read_pair(hand, "tricks", 13), fields.read_pair(hand, "bishops", 4),
                                  fields.read_bool(hand, "bishop_turned"),
                                  fields.read_pair(hand, "exposed", 7, optional=True),
                                  fields.read_pair(hand, "revokes", 7, optional=True))


def record_hand(events: list[int]) -> Any:
    (event,) = events
    if event == bishops_whist.MISDEAL:
        return {"misdeal": True}
    bw = bishops_whist
    return {"tricks": [bw.tricks_of(event, 0), bw.tricks_of(event, 1)],
            "bishops": [bw.bishops_of(event, 0), bw.bishops_of(event, 1)],
            "bishop_turned": bw.turned_of(event),
            "exposed": [bw.exposed_of(event, 0), bw.exposed_of(event, 1)],
            "revokes": [bw.revokes_of(event, 0), bw.revokes_of(event, 1)]}


def closes(event: int) -> bool:
    """Every event is one record hand, misdeals included."""
    return True


def sheet_json(profile: GameProfile, loaded: LoadedGame) -> dict[str, Any]:
    game = loaded.game
    first = game.options & points.DEALER_MASK
    scores = sheetparts.hand_scores(loaded)
    hands: list[dict[str, Any]] = []
    deal = 0
    misdeals = 0
    for events in profile.record_hands(game):
        (event,) = events
        if event == bishops_whist.MISDEAL:
            misdeals += 1
        else:
            entry: dict[str, Any] = {"hand": len(hands) + 1,
                                     "dealer": bishops_whist.dealer_of_deal(first, deal)}
            entry.update(record_hand(events))
            entry["scores"] = scores[len(hands)][:2]
            hands.append(entry)
        deal += 1
    winners = game.winners()
    doc: dict[str, Any] = {
        "game": loaded.name,
        "players": list(loaded.players),
        "sides": [[0, 2], [1, 3]],
        "hands": hands,
        "totals": [bishops_whist.side_total(game.state, s) for s in range(2)],
        "winners": [s for s in range(2) if winners >> s & 1],
        "complete": bool(game.complete()),
    }
    sheetparts.how_won(profile, loaded, doc)
    doc["misdeals"] = misdeals
    if not doc["complete"]:
        doc["next_dealer"] = bishops_whist.dealer(game.state)
    return sheetparts.ordered(doc)


def sheet_table(doc: dict[str, Any]) -> Table:
    players = doc["players"]
    sides = [f"{players[a]}+{players[b]}" for a, b in doc["sides"]]
    table = sheetparts.new_table(f"Bishops Whist — {' v '.join(sides)}")
    table.add_column("Hand", footer="Total", justify="right", no_wrap=True)
    table.add_column("Dealer", no_wrap=True)
    table.add_column("Tricks", no_wrap=True)
    table.add_column("Bishops", no_wrap=True)
    table.add_column("Penalties", no_wrap=True)
    for s, name in enumerate(sides):
        table.add_column(name, justify="right", footer=str(doc["totals"][s]), no_wrap=True)
    for row in doc["hands"]:
        penalties = []
        for s in range(2):
            if row["exposed"][s]:
                penalties.append(f"{sides[s]} exposed ×{row['exposed'][s]}")
            if row["revokes"][s]:
                penalties.append(f"{sides[s]} revoked ×{row['revokes'][s]}")
        bishops = "-".join(str(b) for b in row["bishops"]) + (" +cut" if row["bishop_turned"] else "")
        table.add_row(str(row["hand"]), players[row["dealer"]], "-".join(str(t) for t in row["tricks"]),
                      bishops, ", ".join(penalties), *(str(s) for s in row["scores"]))
    caption = "game 25, every hand played out"
    if doc["misdeals"]:
        caption += f"; {doc['misdeals']} misdeal{'s' if doc['misdeals'] > 1 else ''}"
    table.caption = caption + sheetparts.next_deal(doc)
    return table


PROFILE = short.profile("bishops_whist", record_events, record_hand, WINS_TARGET,
                        '{"tricks": [7, 6], "bishops": [3, 1]}',
                        closes=closes, sheet_json=sheet_json, sheet_table=sheet_table)
