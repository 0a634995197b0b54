"""The evening as the store holds it: each table's game as it counts (the
board's record with the director's corrections on top), the snapshot every
view shows, the next round, the end, and the event record written from the
store. The arithmetic is standings.py's; the rules are tallycore's."""
from __future__ import annotations

from typing import Any, Callable

from . import corrections, record, standings
from .store import FINISHED, Evening, EveningError, EveningDatabase

VIEW_FORMAT = "tallyboard-event-view/1"

# What pushes a new round (or a new seating of the current one) to the boards
# of an evening; the boards' part of tallyboard event adds its pusher here.
_new_round_pushers: list[Callable[[EveningDatabase, Evening, int], None]] = []


def add_new_round_pusher(push: Callable[[EveningDatabase, Evening, int], None]) -> None:
    if push not in _new_round_pushers:
        _new_round_pushers.append(push)


# What reads the attached boards into the store (the boards' part adds its
# reader): `next` and `finish` call it first, so a hand confirmed at a table
# counts even when no view was running to read it.
_board_readers: list[Callable[[EveningDatabase, Evening], None]] = []


def add_board_reader(read: Callable[[EveningDatabase, Evening], None]) -> None:
    if read not in _board_readers:
        _board_readers.append(read)


def read_boards(store: EveningDatabase, event: Evening) -> None:
    """When boards are attached: read each once and store what changed."""
    if not store.boards(event):
        return
    for read in list(_board_readers):
        read(store, event)


def on_new_round(store: EveningDatabase, event: Evening, round: int) -> None:
    """Called once the store holds round `round` (or its new seating): when
    boards are attached, each pusher sends the round to them."""
    if not store.boards(event):
        return
    for push in list(_new_round_pushers):
        push(store, event, round)


# ---------------------------------------------------------------- each table's game as it counts

def counted_hands(store: EveningDatabase, event: Evening, round: int, table: int) -> list[Any] | None:
    """The hands of a table's game as they count: the board's with the
    director's corrections applied in the order made (corrections.counted: a
    hand's last correction wins, a rescore replaces the whole game). None:
    nothing stored for the table."""
    stored = store.table_game(event, round, table)
    return corrections.counted(None if stored is None else list(stored.get("hands", [])),
                               store.corrections(event, round, table))


def table_length(event: Evening, seating: list[list[int]]) -> int:
    return standings.game_length(len(seating), event.hands)


def round_play(store: EveningDatabase, event: Evening, round: int, names: list[str],
               info: dict[str, Any]) -> standings.RoundPlay:
    seating = info["seating"]
    length = table_length(event, seating)
    play = standings.RoundPlay(seating, [], length)
    for t, seats in enumerate(seating, 1):
        hands = counted_hands(store, event, round, t)
        doc = None
        why: list[list[str]] = []
        if hands is not None:
            seated = [names[p] for p in seats]
            doc = standings.table_sheet(seated, hands, length, f"round {round} table {t}")
            why = standings.table_why(hands, length)
        play.tables.append(standings.TablePlay(t, list(seats), doc, t in info["ended_early"], why))
    return play


def plays(store: EveningDatabase, event: Evening) -> tuple[list[str], list[standings.RoundPlay]]:
    names = store.names(event)
    return names, [round_play(store, event, info["round"], names, info) for info in store.rounds(event)]


def played_entries(names: list[str], hands: list[Any], length: int) -> list[int]:
    """The indexes in `hands` of the hands played (a misdeal is an entry of
    the record but not one of the game's hands, docs/records.md)."""
    out = []
    counted = 0
    for i in range(len(hands)):
        now = len(standings.table_sheet(names, hands[:i + 1], length, "")["hands"])
        if now > counted:
            out.append(i)
        counted = now
    return out


# ---------------------------------------------------------------- the snapshot

def _links(event: Evening, boards: dict[int, dict]) -> dict[int, dict[str, Any]]:
    from . import club     # the club transport's files: only read, and only when the evening has them
    return club.links(event, boards)


def snapshot(store: EveningDatabase, event: Evening) -> dict[str, Any]:
    """The document every view shows (docs/events.md, "The snapshot"), from
    the store only."""
    with store.reading():
        return _snapshot(store, event)


def _snapshot(store: EveningDatabase, event: Evening) -> dict[str, Any]:
    event = store.refresh(event)
    players = store.players(event)
    names, rounds = plays(store, event)
    evening = standings.evening_of(len(names), rounds)
    current = rounds[-1]
    sits = {p: t.table for t in current.tables for p in t.seats}
    boards = store.boards(event)
    links = _links(event, boards)
    tables = []
    for t in current.tables:
        board = boards.get(t.table, {})
        hands = []
        for i, row in enumerate(t.sheet["hands"] if t.sheet else []):
            hands.append({"hand": row["hand"], "dealer": t.seats[row["dealer"]],
                          "seats": [t.seats[p] for p in row["seats"]], "scores": row["scores"],
                          "why": standings.why_words(t.why[i], [names[p] for p in t.seats]) if i < len(t.why)
                          else []})
        tables.append({"table": t.table, "round": event.round, "board": board.get("port"),
                       "status": board.get("status"), "link": links.get(t.table), "seats": t.seats, "names": [names[p] for p in t.seats],
                       "hands": hands, "totals": t.scores(), "complete": bool(t.sheet and t.sheet["complete"]),
                       "length": current.length, "ended_early": t.ended_early,
                       "corrected": bool(store.corrections(event, event.round, t.table)),
                       "pending": store.pending(event, event.round, t.table)})
    # no next round in the last one, nor after finish: nothing moves any more
    last = event.state == FINISHED or event.round >= event.rounds
    moves = [] if last else standings.moves(current, evening)
    return {
        "format": VIEW_FORMAT, "event": event.name, "state": event.state, "round": event.round,
        "rounds": event.rounds, "hands": current.length, "updated": event.updated_at,
        "players": names,
        "standings": [{"rank": rank, "player": p, "name": names[p], "continuous": evening.continuous[p],
                       "games": evening.games[p], "games_won": evening.games_won[p], "table": sits.get(p),
                       **({"withdrawn": True} if players[p]["withdrawn"] else {})}
                      for rank, p in standings.ranked(evening)],
        "tables": tables,
        "moves": [{"player": p, "name": names[p], "from": frm, "to": to, "seat": seat}
                  for p, frm, to, seat in moves],
        "moves_final": current.over(),
        "last_round": last,
        "next_seating": [] if last else standings.next_seating(current, evening),
        "log": store.log(event),
        **_boards_health(store, event),
    }


def _boards_health(store: EveningDatabase, event: Evening) -> dict[str, Any]:
    """The snapshot's `boards`, each board's health (board_health.py), when a board has reported it
    or should have; else nothing."""
    from . import board_health
    found = board_health.evening_rows(store, event)
    return {"boards": board_health.document(found)} if found else {}


# ---------------------------------------------------------------- the next round and the end

def unfinished(play: standings.RoundPlay) -> list[str]:
    """The tables whose game is not over, in words: "table 2 (3 of 4 hands)"."""
    return [f"table {t.table} ({t.hands_in()} of {play.length} hands)" for t in play.tables if not t.over]


def next_seating(store: EveningDatabase, event: Evening) -> tuple[list[list[int]], standings.RoundPlay]:
    names, rounds = plays(store, event)
    evening = standings.evening_of(len(names), rounds)
    return standings.next_seating(rounds[-1], evening), rounds[-1]


def advance(store: EveningDatabase, event: Evening, forced: bool = False) -> Evening:
    """Store the next round, seated by the movement (SK19), once every
    table's game is over; `forced` (the director's PIN checked by the
    caller) closes the unfinished games short and logs it. Then the boards
    are told (on_new_round): the store first, so a push that fails loses
    nothing."""
    event = store.refresh(event)
    if event.state == FINISHED:
        raise EveningError(f"the event {event.name!r} is finished; nothing was changed")
    if event.round >= event.rounds:
        raise EveningError(f"all {event.rounds} rounds of {event.name!r} are played: tallyboard event finish ends "
                         "the evening")
    seating, current = next_seating(store, event)
    open_tables = unfinished(current)
    log = None
    early: list[int] = []
    if open_tables and not forced:
        raise EveningError(f"round {event.round} is not over: {', '.join(open_tables)}; finish those games, or "
                         "tallyboard event next --force with the director's PIN")
    if open_tables:
        early = [t.table for t in current.tables if not t.over]
        log = ("next", f"round {event.round + 1} started before round {event.round} was over; "
               f"those games count as they stand", ", ".join(open_tables), f"round {event.round + 1}: {seating}")
    event = store.start_round(event, event.round + 1, seating, "movement", early, log)
    on_new_round(store, event, event.round)
    return event


def finish(store: EveningDatabase, event: Evening, forced: bool = False) -> Evening:
    event = store.refresh(event)
    if event.state == FINISHED:
        raise EveningError(f"the event {event.name!r} is finished already")
    _, rounds = plays(store, event)
    open_tables = unfinished(rounds[-1])
    if open_tables and not forced:
        raise EveningError(f"round {event.round} is not over: {', '.join(open_tables)}; finish those games, or "
                         "tallyboard event finish --force with the director's PIN")
    early = [t.table for t in rounds[-1].tables if not t.over]
    log = None
    if open_tables:
        log = ("finish", f"the evening ended before round {event.round} was over; those games count as they "
               "stand", ", ".join(open_tables), "finished")
    return store.finish(event, early, log)


# ---------------------------------------------------------------- the event record from the store

def export(store: EveningDatabase, event: Evening) -> tuple[dict[str, Any], str | None]:
    """The event record (docs/events.md) of every round that is over, and a
    note for the user when the round in play is left out."""
    event = store.refresh(event)
    names, rounds = plays(store, event)
    note = None
    if rounds and not rounds[-1].over():
        note = (f"round {event.round} is in progress ({', '.join(unfinished(rounds[-1]))}): it is left out of "
                "the record until every table's game is over")
        rounds = rounds[:-1]
    evening = standings.Standings(len(names))
    reseated: list[list[list[int]] | None] = []
    for r, play in enumerate(rounds):
        moved = standings.next_seating(rounds[r - 1], evening) if r else None
        reseated.append(None if r == 0 or moved == play.seating else play.seating)
        evening.add_round(play)
    first = store.seating(event, 1)
    hands = [[counted_hands(store, event, r, t.table) or [] for t in play.tables] for r, play in enumerate(rounds, 1)]
    early = [(r, t.table) for r, play in enumerate(rounds, 1) for t in play.tables if t.ended_early]
    made = [c for c in store.corrections(event) if c["round"] <= len(rounds)]
    # each table's board's signed chain of its game (docs/records.md, The chain), as the board sent it
    boards = [[(store.table_game(event, r, t.table) or {}).get("chain") for t in play.tables]
              for r, play in enumerate(rounds, 1)]
    return record.to_document(names, first, hands, reseated, early, event.hands, event.name, event.rounds,
                              event.state == FINISHED, made, boards), note

