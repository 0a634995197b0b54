"""Roquet on the host: its record hands (docs/records.md, "Roquet": each hand a list
of peggings [player, points]), options, sheet, simulation, its own verbs PEG
and END, and the pegs as text for `watch --plain`."""
from __future__ import annotations

import random
from typing import Any, Callable, Iterator

from rich.table import Table
from rich.text import Text

from tallycore import game as core_game
from tallycore import roquet

from . import fields, sheetparts
from .base import WINS_TARGET, GameProfile, LoadedGame, nothing_to_check

# ---------------------------------------------------------------- records


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    if isinstance(hand, dict):     # {"pegs": [...]}: a hand with room for its accepted_by (hand_object)
        hand = fields.only(hand, {"pegs"}).get("pegs")
    if not isinstance(hand, list):
        raise ValueError("must be a list of peggings [player, points], or {\"pegs\": that list}")
    for k, peg in enumerate(hand, 1):
        if (not isinstance(peg, list) or len(peg) != 2
                or any(isinstance(v, bool) or not isinstance(v, int) for v in peg)):
            raise ValueError(f"peg {k}: must be [player, points] with whole numbers")
        player, points = peg
        if not 0 <= player < players:
            raise ValueError(f"peg {k}: player {player} is out of range 0 to {players - 1}")
        try:
            yield roquet.pack_peg(player, points)
        except ValueError as exc:
            raise ValueError(f"peg {k}: {exc}") from None
    yield roquet.HAND_END


def record_hand(events: list[int]) -> Any:
    return [[roquet.peg_player(e), roquet.peg_points(e)] for e in events if e != roquet.HAND_END]


def open_hand(events: list[int], players: int) -> Any:
    """A hand not yet ended: {"pegs": its peggings so far} (a list cannot say "open")."""
    return {"pegs": record_hand(events)}


def hand_object(hand: Any) -> dict:
    """A finished hand with room for its accepted_by: {"pegs": its peggings}."""
    return {"pegs": hand}


def open_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = fields.only(hand, {"pegs"})
    if "pegs" not in hand:
        raise ValueError("pegs: missing; the peggings so far, each [player, points]")
    try:
        yield from list(record_events(hand["pegs"], players, options))[:-1]
    except ValueError as exc:
        raise ValueError(f"pegs: {exc}") from None


def record_options(options: dict) -> int:
    """end: "reach" (default) or "hand_end"; landmark_bonus: false (default) or true."""
    fields.only(options, {"end", "landmark_bonus"})
    packed = 0
    end = options.get("end", "reach")
    if end == "hand_end":
        packed |= roquet.OPT_END_AT_HAND_END
    elif end != "reach":
        raise ValueError('end: must be "reach" (default) or "hand_end"')
    bonus = options.get("landmark_bonus", False)
    if not isinstance(bonus, bool):
        raise ValueError("landmark_bonus: must be true or false")
    if bonus:
        packed |= roquet.OPT_LANDMARK_BONUS
    return packed


def options_document(packed: int) -> dict:
    doc: dict[str, Any] = {}
    if packed & roquet.OPT_END_AT_HAND_END:
        doc["end"] = "hand_end"
    if packed & roquet.OPT_LANDMARK_BONUS:
        doc["landmark_bonus"] = True
    if packed & ~(roquet.OPT_END_AT_HAND_END | roquet.OPT_LANDMARK_BONUS):
        raise ValueError(f"options: roquet has no option {packed}")
    return doc


# ---------------------------------------------------------------- sheet


def sheet_json(profile: GameProfile, loaded: LoadedGame) -> dict[str, Any]:
    state = loaded.game.state
    doc = sheetparts.common_fields(loaded)
    finished, so_far = sheetparts.scores_by_hand(loaded)
    doc["hands"] = [{"hand": i + 1, "scores": s} for i, s in enumerate(finished)]
    in_progress = profile.hand_in_progress(loaded.game)
    if in_progress:
        doc["hands"].append({"hand": len(doc["hands"]) + 1, "open": True, **open_hand(in_progress, 2),
                             "scores": so_far})
    doc["king"] = [roquet.king_total(state, p) for p in range(2)]
    doc["tally"] = [roquet.tally(state, p) for p in range(2)]
    return sheetparts.ordered(doc)


def sheet_table(doc: dict[str, Any]) -> Table:
    players = doc["players"]
    table = sheetparts.new_table(f"Roquet — {' v '.join(players)}", min_width=36)
    table.add_column("Hand", footer="Total", justify="right")
    for p, name in enumerate(players):
        table.add_column(name, justify="right", footer=str(doc["totals"][p]))
    for row in doc["hands"]:
        if not row.get("open"):   # the hand in progress is the "now" row
            table.add_row(str(row["hand"]), *(str(s) for s in row["scores"]))
    if any(doc["tally"]) or any(row.get("open") for row in doc["hands"]):
        table.add_row("now", *(f"+{t}" for t in doc["tally"]), style="italic")
    note = sheetparts.in_progress_note(doc).replace("…", "")
    table.caption = (f"{note}; " if note else "") + "game to 100; king pegs " + ", ".join(
        f"{k // 5 * 5}" + (f"+{k % 5}" if k % 5 else "") for k in doc["king"])
    return table


def peg_rows(game: core_game.Game, names: list[str]) -> Text:
    """Each player's tally row (single holes, outer and inner lanes) and king
    row as on Dana's board: ● the front peg, ○ the back peg."""
    out = Text()
    for p in range(game.players):
        position = roquet.tally(game.state, p)
        back = roquet.back_peg(game.state, p)
        holes = ["·"] * roquet.TALLY_HOLES
        if back and roquet.tally_hole(back) >= 0:
            holes[roquet.tally_hole(back)] = "○"
        if roquet.tally_hole(position) >= 0:
            holes[roquet.tally_hole(position)] = "●"
        king = roquet.king_total(game.state, p)
        kings = ["·"] * roquet.KING_HOLES
        if roquet.king_hole(king) >= 0:
            kings[roquet.king_hole(king)] = "●"
        lanes = " ".join("".join(holes[i:i + 15]) for i in (0, 15, 30))
        laps = roquet.tally_laps(position)
        out.append(f"{names[p]:>8} tally {lanes}  {position}" + (f" (lap {laps + 1})" if laps else "") + "\n")
        out.append(f"{'':>8} king  {''.join(kings)}  {king}"
                   + (f" (+{roquet.king_remainder(king)})" if roquet.king_remainder(king) else "") + "\n")
    return out


# ---------------------------------------------------------------- simulation, verbs


def candidate(rng: random.Random) -> int:
    if rng.random() < 0.15:
        return roquet.HAND_END
    points = rng.choice((1, 1, 2, 2, 2, 5, 5, 9, 10, rng.randint(1, 30)))
    return roquet.pack_peg(rng.randrange(2), points)


def simulation_options(rng: random.Random) -> int:
    return rng.choice((0, 0, roquet.OPT_END_AT_HAND_END, roquet.OPT_LANDMARK_BONUS,
                       roquet.OPT_END_AT_HAND_END | roquet.OPT_LANDMARK_BONUS))


def send(board: Any, event: int) -> tuple[str, Callable[[], dict[str, str]]]:
    """The event as PEG or END."""
    if event == roquet.HAND_END:
        return "END", lambda: board.game_verb("END")
    player, points = roquet.peg_player(event), roquet.peg_points(event)
    return f"PEG {player} {points}", lambda: board.game_verb("PEG", player, points)


def hand_line(hands: list[Any], players: list[str]) -> str:
    return f"hand {len(hands)}: " + ", ".join(f"{players[p]} +{pts}" for p, pts in hands[-1])


def commands(cli: Any) -> list[Any]:
    """`tallyboard peg` and `tallyboard end`: Roquet's verbs PEG and END, made
    with the CLI's helpers (cli: commands.scoring's kit)."""
    import click

    change, game_of_verb, player_index, scoring = cli.change, cli.game_of_verb, cli.player_index, cli.scoring

    @click.command("peg")
    @click.argument("player")
    @click.argument("points", type=click.IntRange(1, roquet.MAX_PEG))
    @scoring
    def peg_cmd(board: Any, player: str, points: int) -> None:
        """Roquet: peg POINTS (1 to 99) for PLAYER (name or number)."""
        current = game_of_verb(board, "PEG")
        change(board, "PEG", player_index(board, player, current.players), points)

    @click.command("end")
    @scoring
    def end_cmd(board: Any) -> None:
        """Roquet: end the hand (the tally pegs move to the king row)."""
        game_of_verb(board, "END")
        change(board, "END")

    return [peg_cmd, end_cmd]


PROFILE = GameProfile(
    name="roquet",
    events=record_events,
    hand=record_hand,
    options=record_options,
    options_document=options_document,
    closes=None,
    sheet_json=sheet_json,
    sheet_table=sheet_table,
    wins=WINS_TARGET,
    example_hand="[[0, 5], [1, 2]]",
    open_hand=open_hand,
    open_events=open_events,
    hand_object=hand_object,
    candidate=candidate,
    simulation_options=simulation_options,
    send=send,
    verbs={"PEG": nothing_to_check, "END": nothing_to_check},
    commands=commands,
    hand_line=hand_line,
    plain_view=peg_rows,
)
