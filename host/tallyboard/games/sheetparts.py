"""The parts every score sheet shares (`tallyboard sheet`, docs/records.md): the
common fields of the JSON, each hand's scores, the key order, the table
style, and the sheet of a short game. Every number comes from the core: the
game's totals, winners and completeness, and each hand's scores as the
change of the totals over that hand's events (`Game.hand_scores`'s figures,
found for every hand in one replay of the log: a sheet's cost grows with the
game's length, not with its square)."""
from __future__ import annotations

from typing import Any, Callable

from rich import box
from rich.table import Table

from tallycore import game as core_game
from tallycore import points

from .base import WINS_MOST_HANDS, WINS_MOST_TRICKS, WINS_TARGET, GameProfile, LoadedGame

KEY_ORDER = ("game", "players", "hands")


def mask_to_list(mask: int, players: int) -> list[int]:
    return [p for p in range(players) if mask >> p & 1]


def common_fields(loaded: LoadedGame) -> dict[str, Any]:
    """game, players, totals, winners, complete."""
    game = loaded.game
    n = game.players
    return {
        "game": loaded.name,
        "players": list(loaded.players),
        "totals": [game.total(p) for p in range(n)],
        "winners": mask_to_list(game.winners(), n),
        "complete": bool(game.complete()),
    }


def _segments(game: core_game.Game) -> list[list[int]]:
    """The change of every total over each stretch of the log that an event ending a hand closes, and
    last over the stretch still open (zeros when none is): Game.hand_scores(k) for every k at once, in
    one replay of the log into a game of its own."""
    replay = core_game.Game(len(game.log))
    replay.new(game.index, game.players, game.options)
    players = range(game.players)
    start = [replay.total(p) for p in players]
    rows = []
    for i in range(game.n):
        event = game.log[i]
        replay.apply_checked(event)
        if game.rules.ends_hand(event):
            now = [replay.total(p) for p in players]
            rows.append([now[p] - start[p] for p in players])
            start = now
    rows.append([replay.total(p) - start[p] for p in players])
    return rows


def hand_scores(loaded: LoadedGame) -> list[list[int]]:
    """Each finished hand's scores, one per player."""
    return scores_by_hand(loaded)[0]


def scores_by_hand(loaded: LoadedGame) -> tuple[list[list[int]], list[int]]:
    """Each finished hand's scores, and the hand in progress's so far (zeros when none is), one per player:
    both from one replay."""
    game = loaded.game
    segments = _segments(game)
    so_far = segments[game.hands()] if game.hands() < len(segments) else [0] * game.players
    return segments[:game.hands()], so_far


def ordered(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with game, players and hands first."""
    first = {k: doc[k] for k in KEY_ORDER if k in doc}
    first.update((k, v) for k, v in doc.items() if k not in first)
    return first


def new_table(title: str, **kwargs: Any) -> Table:
    """A score-sheet table: bold title, totals in the footer, compact borders."""
    return Table(title=title, title_style="bold", show_footer=True, box=box.SIMPLE_HEAD,
                 pad_edge=False, collapse_padding=True, **kwargs)


def game_title(name: str) -> str:
    return name.replace("_", " ").title()


def next_deal(doc: dict[str, Any]) -> str:
    """"; next deal: NAME" while the game goes on."""
    if doc["complete"] or "next_dealer" not in doc:
        return ""
    return f"; next deal: {doc['players'][doc['next_dealer']]}"


# ---------------------------------------------------------------- short games

def how_won(profile: GameProfile, loaded: LoadedGame, doc: dict[str, Any]) -> None:
    """`target` for first-to-N games (the rules' own TARGET), else `wins`."""
    if profile.wins == WINS_TARGET:
        doc["target"] = loaded.game.rules.TARGET
    else:
        doc["wins"] = profile.wins


def short_json(profile: GameProfile, loaded: LoadedGame,
               more: Callable[[LoadedGame, dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """A short game's sheet: each hand with its dealer, the record's own facts
    and the scores; totals, winners, complete; how the game is won; the next
    dealer while the game goes on. `more(loaded, doc)` adds the game's own."""
    game = loaded.game
    scores, so_far = scores_by_hand(loaded)
    hands = []
    finished = (g for g in profile.record_hands(game) if game.rules.ends_hand(g[-1]))
    for number, events in enumerate(finished):
        entry: dict[str, Any] = {"hand": number + 1,
                                 "dealer": points.dealer(game.options, game.players, number)}
        entry.update(profile.hand(events))
        entry["scores"] = scores[number]
        hands.append(entry)
    in_progress = profile.hand_in_progress(game)
    if in_progress:
        assert profile.open_hand is not None
        number = len(hands)
        entry = {"hand": number + 1, "dealer": points.dealer(game.options, game.players, number), "open": True}
        entry.update(profile.open_hand(in_progress, game.players))
        entry["scores"] = so_far
        hands.append(entry)
    doc = common_fields(loaded)
    doc["hands"] = hands
    how_won(profile, loaded, doc)
    if more is not None:
        more(loaded, doc)
    if not doc["complete"]:
        doc["next_dealer"] = points.dealer(game.options, game.players, game.hands())
    return ordered(doc)


def in_progress_note(doc: dict[str, Any]) -> str:
    """"hand N in progress, scores so far" when the sheet's last hand is open."""
    if doc["hands"] and doc["hands"][-1].get("open"):
        return f"hand {doc['hands'][-1]['hand']}… in progress: its scores so far"
    return ""


def short_caption(doc: dict[str, Any], note: str = "") -> str:
    """How the game is won (after `note`), and the next deal."""
    if "target" in doc:
        text = f"first to {doc['target']}"
    elif doc["wins"] == WINS_MOST_HANDS:
        text = "one deal per player; most hands won wins"
    elif doc["wins"] == WINS_MOST_TRICKS:
        text = "one deal per player; most tricks wins"
    else:
        text = "one deal per player; fewest points wins (points are against)"
    if note:
        text = f"{note}; {text}"
    if in_progress_note(doc):
        text = f"{in_progress_note(doc)}; {text}"
    return text + next_deal(doc)


def score_cells(row: dict[str, Any]) -> list[str]:
    return [str(s) for s in row["scores"]]


def short_table(doc: dict[str, Any], cells: Callable[[dict[str, Any]], list[str]] = score_cells,
                note: str = "") -> Table:
    """A short game's table: hand, dealer, one column per player; `cells`
    writes a hand's scores, `note` leads the caption."""
    players = doc["players"]
    table = new_table(f"{game_title(doc['game'])} — {' · '.join(players)}")
    table.add_column("Hand", footer="Total", justify="right", no_wrap=True)
    table.add_column("Dealer", no_wrap=True)
    for p, name in enumerate(players):
        table.add_column(name, justify="right", footer=str(doc["totals"][p]), no_wrap=True, min_width=4)
    for row in doc["hands"]:
        if row.get("open"):
            table.add_row(f"{row['hand']}…", players[row["dealer"]], *cells(row), style="italic")
        else:
            table.add_row(str(row["hand"]), players[row["dealer"]], *cells(row))
    table.caption = short_caption(doc, note)
    return table
