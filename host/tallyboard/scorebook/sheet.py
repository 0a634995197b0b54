"""The score sheet: `tallyboard sheet` as JSON (docs/records.md) and as a table.

Every number here comes from the core (`tallycore`); each game's profile
(games/) lays its own sheet out, this module only picks it and says who wins."""
from __future__ import annotations

from typing import Any

from rich.text import Text

from ..common.console import Console
from .. import games
from ..games.base import LoadedGame


def sheet_json(loaded: LoadedGame) -> dict[str, Any]:
    doc = games.profile(loaded.name).sheet(loaded)
    game = loaded.game
    accepted: dict[int, int] = {}       # hand number: the player whose accept made the event that closed it
    for i in range(game.n):
        if game.rules.ends_hand(game.log[i]):
            accepted[len(accepted) + 1] = game.accepted_by(i)
    for hand in doc.get("hands", []):
        if isinstance(hand, dict) and not hand.get("open") and accepted.get(hand.get("hand", 0), -1) >= 0:
            hand["accepted_by"] = accepted[hand["hand"]]
    return doc


def winner_line(doc: dict[str, Any]) -> Text:
    names = [doc["players"][p] for p in doc["winners"]]
    if "sides" in doc and len(doc["totals"]) == len(doc["sides"]):  # totals per side, not per player
        names = ["+".join(doc["players"][p] for p in doc["sides"][s]) for s in doc["winners"]]
    if not names:
        return Text("No score yet.")
    verb = "wins" if doc["complete"] else "leads"
    if len(names) > 1:
        verb = "tie, winning" if doc["complete"] else "tie for the lead"
        return Text(f"{' and '.join(names)}: {verb} with {doc['totals'][doc['winners'][0]]}.", style="bold")
    return Text(f"{names[0]} {verb} with {doc['totals'][doc['winners'][0]]}.", style="bold")


def print_sheet(doc: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    console.print(games.profile(doc["game"]).sheet_table(doc))
    console.print(winner_line(doc))
