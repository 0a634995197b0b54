"""The score sheet: `tallyboard sheet` as JSON (docs/records.md) and as a table.

Every number here comes from the core (`tallycore`); this module only lays
them out."""
from __future__ import annotations

from array import array
from typing import Any, Callable

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tallycore import roquet, skicket

from .records import LoadedGame


def _mask_to_list(mask: int, players: int) -> list[int]:
    return [p for p in range(players) if mask >> p & 1]


def _common(loaded: LoadedGame) -> dict[str, Any]:
    game = loaded.game
    n = game.players
    return {
        "game": loaded.name,
        "players": list(loaded.players),
        "totals": [game.total(p) for p in range(n)],
        "winners": _mask_to_list(game.winners(), n),
        "complete": bool(game.complete()),
    }


def _hand_scores(loaded: LoadedGame) -> list[list[int]]:
    game = loaded.game
    out = array("i", [0] * game.players)
    rows = []
    for hand in range(game.hands()):
        game.hand_scores(hand, out)
        rows.append(list(out))
    return rows


def _skicket_json(loaded: LoadedGame) -> dict[str, Any]:
    game = loaded.game
    hands = []
    for hand, scores in enumerate(_hand_scores(loaded)):
        event = skicket.hand_event(game.state, hand)
        doubler = skicket.doubled_by_of(event)
        redoubler = skicket.redoubled_by_of(event)
        hands.append({
            "hand": hand + 1,
            "dealer": skicket.dealer(hand),
            "seats": [skicket.seat_player(hand, s) for s in range(4)],
            "purchaser": skicket.purchaser_of(event),
            "bid": skicket.bid_text(skicket.level_of(event), skicket.strain_of(event)),
            "doubled_by": None if doubler == skicket.NOBODY else doubler,
            "redoubled_by": None if redoubler == skicket.NOBODY else redoubler,
            "lone": bool(skicket.lone_of(event)),
            "tricks": skicket.tricks_of(event),
            "made": bool(skicket.made(event)),
            "scores": scores,
        })
    doc = _common(loaded)
    doc["hands"] = hands
    doc["misdeals"] = skicket.misdeals(game.state)
    if not doc["complete"]:
        doc["next_dealer"] = skicket.dealer(skicket.hands(game.state))
    return _ordered(doc)


def _roquet_json(loaded: LoadedGame) -> dict[str, Any]:
    state = loaded.game.state
    doc = _common(loaded)
    doc["hands"] = [{"hand": i + 1, "scores": s} for i, s in enumerate(_hand_scores(loaded))]
    doc["king"] = [roquet.king_total(state, p) for p in range(2)]
    doc["tally"] = [roquet.tally(state, p) for p in range(2)]
    return _ordered(doc)


def _generic_json(loaded: LoadedGame) -> dict[str, Any]:
    doc = _common(loaded)
    doc["hands"] = [{"hand": i + 1, "scores": s} for i, s in enumerate(_hand_scores(loaded))]
    return _ordered(doc)


_KEY_ORDER = ("game", "players", "hands")


def _ordered(doc: dict[str, Any]) -> dict[str, Any]:
    first = {k: doc[k] for k in _KEY_ORDER if k in doc}
    first.update((k, v) for k, v in doc.items() if k not in first)
    return first


SHEET_JSON: dict[str, Callable[[LoadedGame], dict[str, Any]]] = {
    "skicket": _skicket_json,
    "roquet": _roquet_json,
}


def sheet_json(loaded: LoadedGame) -> dict[str, Any]:
    return SHEET_JSON.get(loaded.name, _generic_json)(loaded)


# ---------------------------------------------------------------- tables

def winner_line(doc: dict[str, Any]) -> Text:
    names = [doc["players"][p] for p in doc["winners"]]
    if "sides" in doc and len(doc["totals"]) == len(doc["sides"]):  # totals per side (Bishops Whist)
        names = ["+".join(doc["players"][p] for p in doc["sides"][s]) for s in doc["winners"]]
    if not names:
        return Text("No score yet.")
    verb = "wins" if doc["complete"] else "leads"
    if len(names) > 1:
        verb = "tie, winning" if doc["complete"] else "tie for the lead"
        return Text(f"{' and '.join(names)}: {verb} with {doc['totals'][doc['winners'][0]]}.", style="bold")
    return Text(f"{names[0]} {verb} with {doc['totals'][doc['winners'][0]]}.", style="bold")


def new_table(title: str, **kwargs: Any) -> Table:
    """A score-sheet table: bold title, totals in the footer, compact borders."""
    return Table(title=title, title_style="bold", show_footer=True, box=box.SIMPLE_HEAD,
                 pad_edge=False, collapse_padding=True, **kwargs)


def _skicket_table(doc: dict[str, Any]) -> Table:
    players = doc["players"]
    table = new_table(f"Skicket — {' · '.join(players)}")
    table.add_column("#", footer="Tot", justify="right", no_wrap=True)
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
    if not doc["complete"]:
        caption += f"; next deal: {players[doc['next_dealer']]}"
    table.caption = caption
    return table


def _roquet_table(doc: dict[str, Any]) -> Table:
    players = doc["players"]
    table = new_table(f"Roquet — {' v '.join(players)}", min_width=36)
    table.add_column("Hand", footer="Total", justify="right")
    for p, name in enumerate(players):
        table.add_column(name, justify="right", footer=str(doc["totals"][p]))
    for row in doc["hands"]:
        table.add_row(str(row["hand"]), *(str(s) for s in row["scores"]))
    if any(doc["tally"]):
        table.add_row("now", *(f"+{t}" for t in doc["tally"]), style="italic")
    table.caption = "game to 100; king pegs " + ", ".join(
        f"{k // 5 * 5}" + (f"+{k % 5}" if k % 5 else "") for k in doc["king"])
    return table


def _generic_table(doc: dict[str, Any]) -> Table:
    players = doc["players"]
    table = new_table(f"{doc['game'].replace('_', ' ').title()} — {' · '.join(players)}")
    table.add_column("Hand", footer="Total", justify="right")
    for p, name in enumerate(players):
        table.add_column(name, justify="right", footer=str(doc["totals"][p]))
    for row in doc["hands"]:
        table.add_row(str(row["hand"]), *(str(s) for s in row["scores"]))
    return table


SHEET_TABLE: dict[str, Callable[[dict[str, Any]], Table]] = {
    "skicket": _skicket_table,
    "roquet": _roquet_table,
}


def print_sheet(doc: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    console.print(SHEET_TABLE.get(doc["game"], _generic_table)(doc))
    console.print(winner_line(doc))


# The fourteen short games register their sheets here (docs/records.md, "The other games").
from . import sheet_other  # noqa: E402,F401
