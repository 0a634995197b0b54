"""The event record (docs/events.md): a whole club evening in one JSON
document, what `tallyboard event export` writes and `tallyboard event replay`
reads. Reading one scores every table's game with the club game's own core
(standings.table_sheet) and moves the players by tallycore.progressive; a
fault is refused whole, with the round, the table and the field."""
from __future__ import annotations

import json
from typing import Any, Callable

from ..common import files
from ..common.errors import RecordError
from ..scorebook import records
from . import corrections as corrections_mod, standings

FORMAT = "tallyboard-event/1"
READABLE_FORMATS = (FORMAT,)
KIND = "progressive"
_KEYS = {"format", "kind", "event", "planned_rounds", "finished", "players", "seating", "rounds", "options",
         "reseated", "ended_early", "corrections", "boards"}


class EventRecordError(RecordError):
    """An event record that cannot be read or breaks a rule."""


def load(path: str) -> tuple[list[str], list[standings.RoundPlay]]:
    return from_document(files.read_json(path, "event record"), path)


def loads(text: str | bytes, source: str) -> tuple[list[str], list[standings.RoundPlay]]:
    return from_document(files.parse_json(text, source, "event record"), source)


def _whole(value: Any) -> bool:
    return type(value) is int


def _check_seating(seating: Any, players: int, where: str, fail: Any) -> list[list[int]]:
    if not isinstance(seating, list) or not seating:
        raise fail(where, "must be a list of tables, each a list of four player numbers")
    seen: dict[int, str] = {}
    for t, table in enumerate(seating, 1):
        if not isinstance(table, list) or len(table) != 4:
            raise fail(f"{where}: table {t}", "must be a list of four player numbers, seat 0 first")
        for seat, player in enumerate(table):
            at = f"{where}: table {t}: seat {seat}"
            if not _whole(player):
                raise fail(at, f"must be a player number, not {json.dumps(player)}")
            if not 0 <= player < players:
                raise fail(at, f"unknown player {player}; players are 0 to {players - 1}")
            if player in seen:
                raise fail(at, f"player {player} is seated twice (also at {seen[player]})")
            seen[player] = f"table {t} seat {seat}"
    return [list(table) for table in seating]


def from_document(doc: Any, source: str) -> tuple[list[str], list[standings.RoundPlay]]:
    """The players' names and every round played, each table's game scored;
    EventRecordError ("SOURCE: round 2: table 1: hand 3: tricks: ...") for a
    fault anywhere."""
    fail = failing(source)
    names, hands, seating = _head(doc, fail)
    rounds = doc.get("rounds")
    if not isinstance(rounds, list):
        raise fail("rounds", "must be a list of rounds, each a list of tables' hands")
    reseated = doc.get("reseated", [None] * len(rounds))
    if not isinstance(reseated, list) or len(reseated) != len(rounds):
        raise fail("reseated", f"must be a list of {len(rounds)} entries, one a round (null: the movement's seating)")
    early = doc.get("ended_early", [])
    if not isinstance(early, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(_whole(v) for v in p) for p in early):
        raise fail("ended_early", "must be a list of [round, table] pairs")
    ended = {tuple(p) for p in early}

    plays: list[standings.RoundPlay] = []
    evening = standings.Standings(len(names))
    for r, tables in enumerate(rounds, 1):
        if reseated[r - 1] is not None:
            seating = _check_seating(reseated[r - 1], len(names), f"reseated: round {r}", fail)
        elif plays:
            seating = standings.next_seating(plays[-1], evening)
        play = _round_play(r, tables, seating, names, hands, ended, fail)
        plays.append(play)
        evening.add_round(play)
    for r, t in sorted(ended):
        if not (1 <= r <= len(plays) and 1 <= t <= len(plays[r - 1].tables)):
            raise fail("ended_early", f"there is no round {r} table {t}")
    _check_corrections(doc.get("corrections", []), plays, fail)
    for where, game in table_games(doc, names, plays, fail):
        try:
            records.from_document(game, where)     # the board's hands and its chain: their shape
        except RecordError as exc:
            raise fail("boards", str(exc)) from None
    return list(names), plays


def table_games(doc: dict[str, Any], names: list[str], plays: list[standings.RoundPlay],
                fail: Fail) -> list[tuple[str, dict[str, Any]]]:
    """Each table's game as its board kept it, with the board's signed chain
    (docs/records.md, The chain): the hands as counted with the director's
    corrections undone (corrections.board_hands), for `tallyboard verify`.
    ("round R table T", its game record), only the tables whose board signed."""
    boards = doc.get("boards", [])
    if not isinstance(boards, list) or len(boards) > len(plays) or not all(
            isinstance(tables, list) and len(tables) == len(plays[r].tables) for r, tables in enumerate(boards)):
        raise fail("boards", "must be a list of rounds, each a list with one board's chain (or null) a table")
    made = doc.get("corrections", [])
    games = []
    for r, tables in enumerate(boards, 1):
        play = plays[r - 1]
        for t, chain in enumerate(tables, 1):
            if chain is None:
                continue
            entries = [e for e in made if e["round"] == r and e["table"] == t]
            kept = corrections_mod.board_hands(doc["rounds"][r - 1][t - 1], entries)
            game = standings.club_record([names[p] for p in play.seating[t - 1]], kept, play.length)
            game["chain"] = chain
            games.append((f"round {r} table {t}", game))
    return games


def _check_corrections(made: Any, plays: list[standings.RoundPlay], fail: Fail) -> None:
    """The record's corrections: a list of entries of the shape docs/events.md gives, each of a table
    the record has (their signatures are `tallyboard verify`'s to check)."""
    if not isinstance(made, list):
        raise fail("corrections", "must be a list of the director's corrections, in the order made")
    for n, entry in enumerate(made, 1):
        where = f"corrections: {n}"
        if isinstance(entry, dict) and type(entry.get("round")) is int and type(entry.get("table")) is int:
            where = f"{where}: round {entry['round']}: table {entry['table']}"
        problem = corrections_mod.entry_problem(entry, len(plays))
        if problem is None and not 1 <= entry["table"] <= len(plays[entry["round"] - 1].tables):
            problem = ("table", f"round {entry['round']} has tables 1 to {len(plays[entry['round'] - 1].tables)}")
        if problem is not None:
            field, message = problem
            raise fail(f"{where}: {field}" if field else where, message)


Fail = Callable[[str, str], EventRecordError]


def failing(source: str) -> Fail:
    """The record's errors, each naming where in it (SOURCE: round 2: ...)."""
    return lambda where, message: EventRecordError(f"{source}: {where}: {message}")


def _head(doc: Any, fail: Fail) -> tuple[list[str], int | None, list[list[int]]]:
    """The record's fields before its rounds: the players' names, the game
    length chosen (options.hands; None: by the tables) and the first seating."""
    if not isinstance(doc, dict):
        raise fail("event record", "must be a JSON object")
    unknown = sorted(set(doc) - _KEYS)
    if unknown:
        raise fail(unknown[0], "unknown field")
    if doc.get("format") not in READABLE_FORMATS:
        raise fail("format", f"unsupported {json.dumps(doc.get('format'))}; this tallyboard reads "
                   f"{', '.join(READABLE_FORMATS)}")
    if doc.get("kind") != KIND:
        raise fail("kind", f"must be \"{KIND}\", not {json.dumps(doc.get('kind'))}")
    names = doc.get("players")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
        raise fail("players", "must be a list of player names")
    options = doc.get("options", {})
    if not isinstance(options, dict):
        raise fail("options", "must be an object")
    if set(options) - {"hands"}:
        raise fail(f"options: {sorted(set(options) - {'hands'})[0]}", "unknown field")
    if "event" in doc and not (isinstance(doc["event"], str) and doc["event"].strip()):
        raise fail("event", "must be the event's name")
    planned = doc.get("planned_rounds")
    if planned is not None and not (_whole(planned) and planned >= 1):
        raise fail("planned_rounds", f"must be a whole number of rounds, 1 or more, not {json.dumps(planned)}")
    if not isinstance(doc.get("finished", False), bool):
        raise fail("finished", f"must be true or false, not {json.dumps(doc.get('finished'))}")
    hands = options.get("hands")
    if hands is not None and hands not in (4, 6) or isinstance(hands, bool):
        raise fail("options: hands", f"must be 4 or 6, not {json.dumps(hands)}")
    return names, hands, _check_seating(doc.get("seating"), len(names), "seating", fail)


def _round_play(r: int, tables: Any, seating: list[list[int]], names: list[str], hands: int | None,
                ended: set[tuple[int, ...]], fail: Fail) -> standings.RoundPlay:
    """Round r's tables (a list of each table's hands), each game scored."""
    if not isinstance(tables, list) or len(tables) != len(seating):
        raise fail(f"round {r}", f"must be a list of {len(seating)} tables' hands, one a table")
    length = standings.game_length(len(seating), hands)
    play = standings.RoundPlay(seating, [], length)
    for t, table_hands in enumerate(tables, 1):
        where = f"round {r}: table {t}"
        if not isinstance(table_hands, list):
            raise fail(where, "must be a list of hands")
        seats = seating[t - 1]
        try:
            doc_sheet = standings.table_sheet([names[p] for p in seats], table_hands, length, "")
        except RecordError as exc:
            field, message = str(exc)[2:].split(": ", 1)   # ": hand 3: tricks: ..." from the source ""
            raise fail(f"{where}: {field}", _seat_words(message)) from None
        early_here = (r, t) in ended
        if not doc_sheet["complete"] and not early_here:
            played = len(doc_sheet["hands"])
            raise fail(f"{where}: hands", f"{played} hand{'s' if played != 1 else ''} played; a game at "
                       f"{len(seating)} table{'s' if len(seating) > 1 else ''} is {length} hands "
                       "(or list it in ended_early)")
        play.tables.append(standings.TablePlay(t, list(seats), doc_sheet, early_here,
                                               standings.table_why(table_hands, length)))
    return play


def _seat_words(message: str) -> str:
    # a record hand's player fields are seat numbers at the table here
    return message.replace("player ", "seat ") if "out of range" in message else message


def over(doc: dict[str, Any]) -> bool:
    """Whether the record's evening has no round after its last: finished,
    or every planned round played."""
    planned = doc.get("planned_rounds")
    return bool(doc.get("finished")) or (planned is not None and len(doc.get("rounds", [])) >= planned)


def replay(names: list[str], plays: list[standings.RoundPlay], first: list[list[int]],
           name: str | None = None, ended: bool = False) -> dict[str, Any]:
    """What `event replay --json` prints (docs/events.md); `ended`: the
    evening has no next round (`next_seating` is then null)."""
    evening = standings.evening_of(len(names), plays)
    following = standings.next_seating(plays[-1], evening) if plays else [list(t) for t in first]
    return {
        **({"event": name} if name else {}),
        "players": list(names),
        "rounds": [{"round": r, "seating": play.seating, "hands": play.length,
                    "scores": evening.game_scores[r - 1],
                    "tables": [{"table": t.table, "seats": t.seats, "scores": t.scores(),
                                "complete": bool(t.sheet and t.sheet["complete"]),
                                **({"ended_early": True} if t.ended_early else {})} for t in play.tables]}
                   for r, play in enumerate(plays, 1)],
        "next_seating": None if ended else following,
        "standings": [{"rank": rank, "player": p, "name": names[p], "total": evening.continuous[p],
                       "games": evening.games[p], "games_won": evening.games_won[p]}
                      for rank, p in standings.ranked(evening)],
        "winners": standings.winners(evening),
    }


def to_document(names: list[str], first: list[list[int]], rounds: list[list[list[Any]]],
                reseated: list[list[list[int]] | None], ended_early: list[tuple[int, int]],
                hands: int | None, event: str | None = None, planned_rounds: int | None = None,
                finished: bool = False, corrections: list[dict[str, Any]] | None = None,
                boards: list[list[dict[str, Any] | None]] | None = None) -> dict[str, Any]:
    """An event record; the optional keys only where they say something."""
    doc: dict[str, Any] = {"format": FORMAT, "kind": KIND}
    if event:
        doc["event"] = event
    if planned_rounds:
        doc["planned_rounds"] = planned_rounds
    if finished:
        doc["finished"] = True
    doc["players"] = list(names)
    doc["seating"] = [list(t) for t in first]
    if hands:
        doc["options"] = {"hands": hands}
    doc["rounds"] = rounds
    if any(s is not None for s in reseated):
        doc["reseated"] = reseated
    if ended_early:
        doc["ended_early"] = [list(p) for p in ended_early]
    if corrections:
        doc["corrections"] = [dict(c) for c in corrections]
    if boards and any(chain is not None for tables in boards for chain in tables):
        doc["boards"] = [list(tables) for tables in boards]
    return doc
