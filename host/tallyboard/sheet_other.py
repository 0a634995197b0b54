"""Score sheets of the fourteen short games (docs/records.md, "The other games").

Every number comes from the core: the game's totals, winners and
completeness, and each hand's scores as the change of the totals over that
hand's events (`Game.hand_scores`). This module only lays them out:
  --json  each hand with its dealer, the record's own facts and the scores;
          `totals`, `winners`, `complete`; how the game is won (`target` for
          first-to-N games, else `wins`: "lowest", "highest" or "most hands")
          and the next dealer while the game goes on.
  Bishops Whist is scored by sides: `sides` [[0, 2], [1, 3]], and `totals`,
  `winners` and each hand's `scores` are per side.
  Moosehead splits each hand's scores into `pegging` (15/20/25/30 and gos)
  and `fifteens` (2 per combination of a player's five cards counting 15).
"""
from __future__ import annotations

from typing import Any

from rich.table import Table

from tallycore import bishops_whist, game as core_game, jaimy, moosehead, points

from .adapters_other import OTHER_GAMES
from .records import LoadedGame
from .sheet import SHEET_JSON, SHEET_TABLE, _common, _hand_scores, _ordered, new_table

_WINS = {"hoodoo": "most hands", "ups_and_downs": "most hands", "numero": "most hands",
         "quatro": "most hands", "rummy": "lowest", "parquet": "lowest", "doolittle": "lowest",
         "despised_nines": "lowest"}


def _record_hands(loaded: LoadedGame) -> list[list[int]]:
    """The applied events grouped by the record hand they came from."""
    game = loaded.game
    adapter = OTHER_GAMES[loaded.name]
    closes = adapter.closes or game.rules.ends_hand
    groups: list[list[int]] = [[]]
    for i in range(game.n):
        groups[-1].append(game.log[i])
        if closes(game.log[i]):
            groups.append([])
    if not groups[-1]:
        groups.pop()
    return groups


def _how_won(loaded: LoadedGame, doc: dict[str, Any]) -> None:
    target = loaded.game.rules.TARGET
    if target:
        doc["target"] = target
    else:
        doc["wins"] = _WINS[loaded.name]


def _short_json(loaded: LoadedGame) -> dict[str, Any]:
    game = loaded.game
    adapter = OTHER_GAMES[loaded.name]
    scores = _hand_scores(loaded)
    hands = []
    for number, events in enumerate(g for g in _record_hands(loaded) if game.rules.ends_hand(g[-1])):
        entry: dict[str, Any] = {"hand": number + 1,
                                 "dealer": points.dealer(game.options, game.players, number)}
        entry.update(adapter.hand(events))
        entry["scores"] = scores[number]
        hands.append(entry)
    doc = _common(loaded)
    doc["hands"] = hands
    _how_won(loaded, doc)
    if loaded.name == "jaimy" and jaimy.partners(game.state):
        doc["sides"] = [list(range(0, game.players, 2)), list(range(1, game.players, 2))]
    if loaded.name == "moosehead":
        _moosehead_split(loaded, hands)
    if not doc["complete"]:
        doc["next_dealer"] = points.dealer(game.options, game.players, game.hands())
    return _ordered(doc)


def _moosehead_split(loaded: LoadedGame, hands: list[dict[str, Any]]) -> None:
    """Each hand's scores split at its closing event: pegging before, fifteens at it."""
    game = loaded.game
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


def _bishops_json(loaded: LoadedGame) -> dict[str, Any]:
    game = loaded.game
    first = game.options & points.DEALER_MASK
    scores = _hand_scores(loaded)
    hands: list[dict[str, Any]] = []
    deal = 0
    misdeals = 0
    for events in _record_hands(loaded):
        (event,) = events
        if event == bishops_whist.MISDEAL:
            misdeals += 1
        else:
            entry: dict[str, Any] = {"hand": len(hands) + 1,
                                     "dealer": bishops_whist.dealer_of_deal(first, deal)}
            entry.update(OTHER_GAMES["bishops_whist"].hand(events))
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
        "target": bishops_whist.TARGET,
        "misdeals": misdeals,
    }
    if not doc["complete"]:
        doc["next_dealer"] = bishops_whist.dealer(game.state)
    return _ordered(doc)


# ---------------------------------------------------------------- tables


def _caption(doc: dict[str, Any]) -> str:
    players = doc["players"]
    if "target" in doc:
        text = f"first to {doc['target']}"
        if doc["game"] == "moosehead":
            text = "score (pegging+fifteens); " + text
    elif doc["wins"] == "most hands":
        text = "one deal per player; most hands won wins"
    else:
        text = "one deal per player; fewest points wins (points are against)"
    if not doc["complete"] and "next_dealer" in doc:
        text += f"; next deal: {players[doc['next_dealer']]}"
    return text


def _short_table(doc: dict[str, Any]) -> Table:
    players = doc["players"]
    table = new_table(f"{doc['game'].replace('_', ' ').title()} — {' · '.join(players)}")
    table.add_column("Hand", footer="Total", justify="right", no_wrap=True)
    table.add_column("Dealer", no_wrap=True)
    for p, name in enumerate(players):
        table.add_column(name, justify="right", footer=str(doc["totals"][p]), no_wrap=True, min_width=4)
    for row in doc["hands"]:
        if "fifteens" in row:  # Moosehead: "score (pegging+fifteens)"
            cells = [f"{s} ({p}+{f})" for s, p, f in zip(row["scores"], row["pegging"], row["fifteens"])]
        else:
            cells = [str(s) for s in row["scores"]]
        table.add_row(str(row["hand"]), players[row["dealer"]], *cells)
    table.caption = _caption(doc)
    return table


def _bishops_table(doc: dict[str, Any]) -> Table:
    players = doc["players"]
    sides = [f"{players[a]}+{players[b]}" for a, b in doc["sides"]]
    table = new_table(f"Bishops Whist — {' v '.join(sides)}")
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
    if not doc["complete"]:
        caption += f"; next deal: {players[doc['next_dealer']]}"
    table.caption = caption
    return table


def bishops_winner_players(doc: dict[str, Any]) -> list[int]:
    """The player indices of the winning side(s), for a per-player winner line."""
    return [p for s in doc["winners"] for p in doc["sides"][s]]


for _name in OTHER_GAMES:
    SHEET_JSON[_name] = _short_json
    SHEET_TABLE[_name] = _short_table
SHEET_JSON["bishops_whist"] = _bishops_json
SHEET_TABLE["bishops_whist"] = _bishops_table

