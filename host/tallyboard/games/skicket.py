"""Skicket on the host: its record hands (docs/records.md, "Skicket"), sheet,
simulation and its own verbs HAND and MISDEAL."""
from __future__ import annotations

import json
import random
from typing import Any, Callable, Iterator

from rich.table import Table

from tallycore import skicket

from . import fields, sheetparts
from .base import WINS_HIGHEST, GameProfile, LoadedGame, nothing_to_check

# ---------------------------------------------------------------- records


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    if isinstance(hand, dict) and hand.get("misdeal") is True:
        fields.only(hand, {"misdeal"})
        yield skicket.MISDEAL
        return
    hand = fields.only(hand, {"purchaser", "bid", "doubled_by", "redoubled_by", "lone", "tricks", "misdeal"})
    if "misdeal" in hand and hand["misdeal"] is not False:
        raise ValueError("misdeal: must be true or false")
    purchaser = fields.read_player(hand, "purchaser", players)
    bid = hand.get("bid")
    if not isinstance(bid, str):
        raise ValueError(f"bid: must be a string such as \"4H\", not {json.dumps(bid)}")
    level, strain = skicket.parse_bid(bid)
    yield skicket.pack_hand(
        purchaser, level, strain,
        fields.read_player(hand, "doubled_by", players, optional=True),
        fields.read_player(hand, "redoubled_by", players, optional=True),
        fields.read_bool(hand, "lone"),
        fields.read_int(hand, "tricks"),
    )


def _contract(event: int) -> dict[str, Any]:
    nobody = skicket.NOBODY
    doubler = skicket.doubled_by_of(event)
    redoubler = skicket.redoubled_by_of(event)
    return {
        "purchaser": skicket.purchaser_of(event),
        "bid": skicket.bid_text(skicket.level_of(event), skicket.strain_of(event)),
        "doubled_by": None if doubler == nobody else doubler,
        "redoubled_by": None if redoubler == nobody else redoubler,
        "lone": bool(skicket.lone_of(event)),
        "tricks": skicket.tricks_of(event),
    }


def record_hand(events: list[int]) -> Any:
    (event,) = events
    if event == skicket.MISDEAL:
        return {"misdeal": True}
    return _contract(event)


def closes(event: int) -> bool:
    """Every event is one record hand, misdeals included."""
    return True


# ---------------------------------------------------------------- sheet


def sheet_json(profile: GameProfile, loaded: LoadedGame) -> dict[str, Any]:
    game = loaded.game
    hands = []
    for hand, scores in enumerate(sheetparts.hand_scores(loaded)):
        event = skicket.hand_event(game.state, hand)
        entry: dict[str, Any] = {
            "hand": hand + 1,
            "dealer": skicket.dealer(hand),
            "seats": [skicket.seat_player(hand, s) for s in range(4)],
        }
        entry.update(_contract(event))
        entry["made"] = bool(skicket.made(event))
        entry["scores"] = scores
        hands.append(entry)
    doc = sheetparts.common_fields(loaded)
    doc["hands"] = hands
    doc["misdeals"] = skicket.misdeals(game.state)
    if not doc["complete"]:
        doc["next_dealer"] = skicket.dealer(skicket.hands(game.state))
    return sheetparts.ordered(doc)


def sheet_table(doc: dict[str, Any]) -> Table:
    players = doc["players"]
    table = sheetparts.new_table(f"Skicket — {' · '.join(players)}")
    table.add_column("#", footer="Total", justify="right", no_wrap=True)
    table.add_column("Dealer", no_wrap=True)
    table.add_column("Partners", no_wrap=True)
    table.add_column("Contract", no_wrap=True)
    table.add_column("Tricks", no_wrap=True)
    for p, name in enumerate(players):
        table.add_column(name, justify="right", footer=str(doc["totals"][p]), no_wrap=True, min_width=4)
    for row in doc["hands"]:
        seats = row["seats"]
        partners = f"{players[seats[0]]}+{players[seats[2]]}"
        contract = f"{players[row['purchaser']]} {row['bid']}"
        if row["lone"]:
            contract += " alone"
        if row["doubled_by"] is not None:
            contract += f" ×2{players[row['doubled_by']]}"
        if row["redoubled_by"] is not None:
            contract += f" ×4{players[row['redoubled_by']]}"
        result = f"{row['tricks']} {'made' if row['made'] else 'set'}"
        table.add_row(str(row["hand"]), players[row["dealer"]], partners, contract, result,
                      *(str(s) for s in row["scores"]))
    caption = f"×2 doubled by, ×4 redoubled by; {len(doc['hands'])} of 6 hands"
    if doc.get("misdeals"):
        caption += f", {doc['misdeals']} misdeal{'s' if doc['misdeals'] > 1 else ''}"
    table.caption = caption + sheetparts.next_deal(doc)
    return table


# ---------------------------------------------------------------- simulation, verbs


def candidate(rng: random.Random) -> int:
    if rng.random() < 0.06:
        return skicket.MISDEAL
    purchaser = rng.randrange(4)
    level = rng.choice((1, 1, 2, 2, 3, 3, 4, 5, 6, 7))
    strain = rng.randrange(6)
    doubled = rng.randrange(4) if rng.random() < 0.3 else None
    redoubled = rng.randrange(4) if doubled is not None and rng.random() < 0.4 else None
    lone = rng.random() < 0.15
    need = 6 + level
    tricks = max(0, min(13, need + rng.choice((-3, -2, -1, -1, 0, 0, 0, 1, 1, 2, 13))))
    return skicket.pack_hand(purchaser, level, strain, doubled, redoubled, lone, tricks)


def send(board: Any, event: int) -> tuple[str, Callable[[], dict[str, str]]]:
    """The event as HAND or MISDEAL."""
    if event == skicket.MISDEAL:
        return "MISDEAL", board.misdeal
    contract = _contract(event)
    args = (contract["purchaser"], contract["bid"], contract["doubled_by"], contract["redoubled_by"],
            contract["lone"], contract["tricks"])
    text = "HAND " + " ".join("-" if a is None else str(int(a) if isinstance(a, bool) else a) for a in args)
    return text, lambda: board.hand(*args)


def check_bid(bid: str) -> None:
    """HAND's bid word (e.g. 4H, 2NT, 1NK), any case; ValueError says what is wrong."""
    skicket.parse_bid(bid.upper())


def hand_line(number: int, hand: Any, players: list[str]) -> str:
    if hand.get("misdeal"):
        return f"deal {number}: misdeal"
    return f"deal {number}: {players[hand['purchaser']]} {hand['bid']}, {hand['tricks']} tricks"


PROFILE = GameProfile(
    name="skicket",
    events=record_events,
    hand=record_hand,
    options=fields.no_options,
    options_document=fields.no_options_document("skicket"),
    closes=closes,
    sheet_json=sheet_json,
    sheet_table=sheet_table,
    wins=WINS_HIGHEST,
    example_hand='{"purchaser": 0, "bid": "4H", "tricks": 10}',
    candidate=candidate,
    send=send,
    verbs={"HAND": check_bid, "MISDEAL": nothing_to_check},
    hand_line=hand_line,
)
