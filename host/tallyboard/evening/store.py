"""The club evening in the host's SQLite archive file (docs/events.md, "The
store"): events, players, each round's seating, each table's game as the
board last reported it (record + stamp) with the director's corrections kept
beside it, board attachments, held hands and the director's log. The tables
are beside the archive's `games`, in the archive's versioned schema
(tallyboard.common.database.ARCHIVE); the archive's own are never touched. Every
write is one transaction (database.write); a game is stored by
replacing the table's row (the board's own state), never by adding to it, so
saving the same game again changes nothing."""
from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from ..scorebook import archive
from ..scorebook.records import RECORD_FIELDS
from ..common import database
from ..common import names as tallyboard_names
from ..common.errors import RecordError, TallyboardError
from . import standings

CREATED, RUNNING, FINISHED = "created", "running", "finished"


class EveningError(TallyboardError):
    """An event that is not there, or a change the evening cannot take now."""


PIN_RIGHT, PIN_WRONG, PIN_LOCKED = "right", "wrong", "locked"


@dataclass(frozen=True)
class PinAttempt:
    """What one PIN given to a director's command came to (EveningDatabase.try_director_pin)."""
    outcome: str            # PIN_RIGHT, PIN_WRONG, or PIN_LOCKED (refused without being checked)
    failures: int           # wrong PINs in a row, this one counted
    locked_until: float     # the time.time() until which the PIN is locked; 0: not locked


@dataclass(frozen=True)
class Evening:
    id: int
    name: str
    state: str          # created, running, finished
    round: int          # the round in play (from 1)
    rounds: int         # the rounds planned
    hands: int | None   # the game length the organiser chose; None: by the tables (SK19)
    created_at: str
    updated_at: str


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class EveningDatabase:
    """One per process; every method may be called from any thread (one lock,
    one connection). Another process (a second command) may use the same
    file at the same time: SQLite locks it for each transaction."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path else archive.default_path()
        if path and not self.path.parent.is_dir():
            raise EveningError(f"cannot open the archive {self.path}: the folder {self.path.parent} does not "
                             "exist; create it or choose another --archive")
        self._lock = threading.RLock()
        try:
            # autocommit: every write is one explicit BEGIN IMMEDIATE ... COMMIT (_Transaction)
            self.db = database.open_file(self.path, database.ARCHIVE, archive.own_folder(self.path))
        except database.DatabaseError as exc:
            raise EveningError(str(exc)) from None

    def close(self) -> None:
        with self._lock:
            self.db.close()

    def __enter__(self) -> "EveningDatabase":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _rows(self, query: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self.db.execute(query, args).fetchall()

    def _write(self) -> Any:
        """One transaction (use as `with self._write() as db:`)."""
        return _Transaction(self)

    def reading(self) -> Any:
        """One consistent view for several reads (`with store.reading():`):
        a write of this process or of another waits until it ends."""
        return _Transaction(self, "BEGIN")

    # ---------------------------------------------------------------- events

    def create(self, name: str, players: list[str], seating: list[list[int]], rounds: int,
               hands: int | None = None) -> Evening:
        if not name.strip():
            raise EveningError("the event needs a name: tallyboard event create NAME --player ...")
        tallyboard_names.check("the event's name", name, tallyboard_names.EVENT_MAX)
        for player in players:
            tallyboard_names.check("player", player, tallyboard_names.PLAYER_MAX)
        stamp = now()
        with self._write() as db:
            if db.execute("SELECT 1 FROM event_events WHERE name = ?", (name,)).fetchone():
                raise EveningError(f"there is already an event called {name!r}; choose another name "
                                 "(tallyboard event status --event NAME shows it)")
            cursor = db.execute("INSERT INTO event_events (name, state, round, rounds, hands, created_at, updated_at)"
                                " VALUES (?, ?, 1, ?, ?, ?, ?)", (name, CREATED, rounds, hands, stamp, stamp))
            event_id = int(cursor.lastrowid or 0)
            db.executemany("INSERT INTO event_players (event, number, name) VALUES (?, ?, ?)",
                           [(event_id, n, p) for n, p in enumerate(players)])
            db.execute("INSERT INTO event_rounds (event, round, seating, how) VALUES (?, 1, ?, 'first')",
                       (event_id, json.dumps(seating)))
        return self.event(name)

    def events(self) -> list[Evening]:
        return [Evening(*row) for row in self._rows(
            "SELECT id, name, state, round, rounds, hands, created_at, updated_at FROM event_events ORDER BY id")]

    def event(self, name: str | None = None) -> Evening:
        """The event called name; with None the one event not finished, or, when
        every event is finished, the last one created."""
        every = self.events()
        if name is not None:
            for event in every:
                if event.name == name:
                    return event
            known = ", ".join(repr(e.name) for e in every) or "none yet"
            raise EveningError(f"no event called {name!r} in {self.path} (events: {known})")
        going = [e for e in every if e.state != FINISHED]
        if not going and every:
            return every[-1]     # all finished: the last one (its export, replay, stop-boards after finish)
        if not going:
            raise EveningError("no event in progress: start one with tallyboard event create NAME --player NAME ...")
        if len(going) > 1:
            raise EveningError(f"several events are in progress ({', '.join(repr(e.name) for e in going)}): "
                             "choose one with --event NAME")
        return going[0]

    def refresh(self, event: Evening) -> Evening:
        row = self._rows("SELECT id, name, state, round, rounds, hands, created_at, updated_at FROM event_events"
                         " WHERE id = ?", (event.id,))
        if not row:
            raise EveningError(f"the event {event.name!r} is no longer in {self.path}")
        return Evening(*row[0])

    def set_state(self, event: Evening, state: str) -> None:
        with self._write() as db:
            db.execute("UPDATE event_events SET state = ?, updated_at = ? WHERE id = ?", (state, now(), event.id))

    # ---------------------------------------------------------------- players and rounds

    def players(self, event: Evening) -> list[dict[str, Any]]:
        return [{"number": n, "name": name, "withdrawn": bool(w)} for n, name, w in self._rows(
            "SELECT number, name, withdrawn FROM event_players WHERE event = ? ORDER BY number", (event.id,))]

    def names(self, event: Evening) -> list[str]:
        return [p["name"] for p in self.players(event)]

    def seating(self, event: Evening, round: int) -> list[list[int]]:
        row = self._rows("SELECT seating FROM event_rounds WHERE event = ? AND round = ?", (event.id, round))
        if not row:
            raise EveningError(f"the event {event.name!r} has no round {round} (it is in round {event.round})")
        return json.loads(row[0][0])

    def rounds(self, event: Evening) -> list[dict[str, Any]]:
        """Every round so far: round, seating, how it was seated, tables ended early."""
        return [{"round": r, "seating": json.loads(s), "how": how, "ended_early": json.loads(e)}
                for r, s, how, e in self._rows("SELECT round, seating, how, ended_early FROM event_rounds"
                                               " WHERE event = ? ORDER BY round", (event.id,))]

    def start_round(self, event: Evening, round: int, seating: list[list[int]], how: str,
                    ended_early: Sequence[int] = (), log: tuple[str, str, str, str] | None = None) -> Evening:
        """Store round `round` (the one after the current) and make it current;
        the current round's tables in ended_early are closed short; a log
        entry with it when the director forced it. One transaction."""
        with self._write() as db:
            current = db.execute("SELECT round FROM event_events WHERE id = ?", (event.id,)).fetchone()[0]
            if current != round - 1:
                raise EveningError(f"the event is in round {current} now, not {round - 1}; run the command again")
            if ended_early:
                db.execute("UPDATE event_rounds SET ended_early = ? WHERE event = ? AND round = ?",
                           (json.dumps(sorted(ended_early)), event.id, current))
            db.execute("INSERT INTO event_rounds (event, round, seating, how) VALUES (?, ?, ?, ?)",
                       (event.id, round, json.dumps(seating), how))
            db.execute("UPDATE event_events SET round = ?, state = ?, updated_at = ? WHERE id = ?",
                       (round, RUNNING, now(), event.id))
            if log:
                self._log(db, event, *log)
        return self.refresh(event)

    def finish(self, event: Evening, ended_early: Sequence[int] = (),
               log: tuple[str, str, str, str] | None = None) -> Evening:
        with self._write() as db:
            if ended_early:
                db.execute("UPDATE event_rounds SET ended_early = ? WHERE event = ? AND round = ?",
                           (json.dumps(sorted(ended_early)), event.id, event.round))
            db.execute("UPDATE event_events SET state = ?, updated_at = ? WHERE id = ?", (FINISHED, now(), event.id))
            if log:
                self._log(db, event, *log)
        return self.refresh(event)

    def reseat(self, event: Evening, seating: list[list[int]], log: tuple[str, str, str, str],
               names: dict[int, str] | None = None, withdrawn: Sequence[int] = ()) -> None:
        """The director's new seating for the current round (before it has
        begun), new players and withdrawals with it, logged. One transaction."""
        for name in (names or {}).values():
            tallyboard_names.check("player", name, tallyboard_names.PLAYER_MAX)
        with self._write() as db:
            db.execute("UPDATE event_rounds SET seating = ?, how = 'director' WHERE event = ? AND round = ?",
                       (json.dumps(seating), event.id, event.round))
            for number, name in (names or {}).items():
                db.execute("INSERT INTO event_players (event, number, name) VALUES (?, ?, ?)",
                           (event.id, number, name))
            for number in withdrawn:
                db.execute("UPDATE event_players SET withdrawn = 1 WHERE event = ? AND number = ?",
                           (event.id, number))
            db.execute("UPDATE event_events SET updated_at = ? WHERE id = ?", (now(), event.id))
            self._log(db, event, *log)

    # ---------------------------------------------------------------- the tables' games

    def save_table_game(self, event: Evening, round: int, table: int, record: dict, stamp: dict) -> bool:
        """Store the board's game of a table (its whole record: the four names
        by seat at the round's start, the confirmed hands) in place of what
        was stored; False when it is what was stored already."""
        self.check_table_record(event, round, table, record)
        record_text, stamp_text = canonical(record), canonical(stamp)
        with self._write() as db:
            row = db.execute("SELECT record, stamp FROM event_games WHERE event = ? AND round = ? AND tableno = ?",
                             (event.id, round, table)).fetchone()
            if row == (record_text, stamp_text):
                return False
            db.execute("INSERT OR REPLACE INTO event_games (event, round, tableno, record, stamp, saved_at)"
                       " VALUES (?, ?, ?, ?, ?, ?)", (event.id, round, table, record_text, stamp_text, now()))
            db.execute("UPDATE event_events SET updated_at = ?, state = CASE state WHEN ? THEN ? ELSE state END"
                       " WHERE id = ?", (now(), CREATED, RUNNING, event.id))
        return True

    def check_table_record(self, event: Evening, round: int, table: int, record: Any) -> None:
        """A table's game record: the club game of the evening's length, the
        round's four names in their seats, hands the rules take; EveningError
        saying what does not fit (a board that answers for another table)."""
        seating = self.seating(event, round)
        if not 1 <= table <= len(seating):
            raise EveningError(f"round {round} has no table {table} (tables 1 to {len(seating)})")
        names = [self.names(event)[p] for p in seating[table - 1]]
        length = standings.game_length(len(seating), event.hands)
        want = standings.club_record(names, [], length)
        if not isinstance(record, dict) or not isinstance(record.get("hands"), list):
            raise EveningError(f"round {round} table {table}: not a game record")
        unknown = sorted(str(field)[:40] for field in set(record) - set(RECORD_FIELDS))
        if unknown:
            raise EveningError(f"round {round} table {table}: the record has a field no record has: {unknown[0]!r}")
        if record.get("players") != names:
            raise EveningError(f"round {round} table {table}: the game is for {', '.join(map(str, record.get('players') or []))}"
                             f" but the table seats {', '.join(names)}; is it another table's board?")
        if record.get("format") != want["format"] or record.get("game") != want["game"] or record.get("options", {}) != want.get("options", {}):
            raise EveningError(f"round {round} table {table}: the game is not the evening's game of {length} hands")
        try:
            standings.table_sheet(names, record["hands"], length, f"round {round} table {table}")
        except RecordError as exc:
            raise EveningError(str(exc)) from None

    def table_game(self, event: Evening, round: int, table: int) -> dict | None:
        """The table's game as the board last reported it (corrections aside)."""
        row = self._rows("SELECT record FROM event_games WHERE event = ? AND round = ? AND tableno = ?",
                         (event.id, round, table))
        return json.loads(row[0][0]) if row else None

    def table_stamp(self, event: Evening, round: int, table: int) -> dict | None:
        row = self._rows("SELECT stamp FROM event_games WHERE event = ? AND round = ? AND tableno = ?",
                         (event.id, round, table))
        return json.loads(row[0][0]) if row else None

    def corrections(self, event: Evening, round: int | None = None, table: int | None = None) -> list[dict[str, Any]]:
        """The director's corrections (tallyboard.evening.corrections: each a
        signed entry, never edited) in the order made: the event's, or one
        round's, or one table's of a round."""
        query = "SELECT entry FROM event_correction_entries WHERE event = ?"
        args: tuple[Any, ...] = (event.id,)
        if round is not None:
            query, args = query + " AND round = ?", args + (round,)
        if table is not None:
            query, args = query + " AND tableno = ?", args + (table,)
        return [json.loads(text) for text, in self._rows(query + " ORDER BY id", args)]

    def add_correction(self, event: Evening, entry: dict[str, Any], log: tuple[str, str, str, str]) -> None:
        """Append a correction's entry (made and signed by the caller) and its log line; one transaction."""
        with self._write() as db:
            db.execute("INSERT INTO event_correction_entries (event, round, tableno, entry) VALUES (?, ?, ?, ?)",
                       (event.id, entry["round"], entry["table"], json.dumps(entry, ensure_ascii=False)))
            db.execute("UPDATE event_events SET updated_at = ? WHERE id = ?", (now(), event.id))
            self._log(db, event, *log)

    def set_pending(self, event: Evening, round: int, table: int, pending: dict | None) -> None:
        with self._write() as db:
            if pending is None:
                db.execute("DELETE FROM event_pending WHERE event = ? AND round = ? AND tableno = ?",
                           (event.id, round, table))
            else:
                db.execute("INSERT OR REPLACE INTO event_pending (event, round, tableno, pending) VALUES (?, ?, ?, ?)",
                           (event.id, round, table, canonical(pending)))

    def pending(self, event: Evening, round: int, table: int) -> dict | None:
        row = self._rows("SELECT pending FROM event_pending WHERE event = ? AND round = ? AND tableno = ?",
                         (event.id, round, table))
        return json.loads(row[0][0]) if row else None

    # ---------------------------------------------------------------- boards

    def set_board(self, event: Evening, table: int, port: str, board_id: str) -> None:
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO event_boards (event, tableno, port, board_id, status)"
                       " VALUES (?, ?, ?, ?, 'ok')", (event.id, table, port, board_id))

    def boards(self, event: Evening) -> dict[int, dict]:
        return {t: {"port": port, "board_id": board_id, "status": status} for t, port, board_id, status in self._rows(
            "SELECT tableno, port, board_id, status FROM event_boards WHERE event = ? ORDER BY tableno", (event.id,))}

    def set_table_status(self, event: Evening, table: int, status: str) -> None:
        with self._write() as db:
            db.execute("UPDATE event_boards SET status = ? WHERE event = ? AND tableno = ?", (status, event.id, table))

    # ---------------------------------------------------------------- the director

    def _log(self, db: sqlite3.Connection, event: Evening, action: str, what: str, before: str, after: str) -> None:
        db.execute("INSERT INTO event_log (event, at, action, what, before, after) VALUES (?, ?, ?, ?, ?, ?)",
                   (event.id, now(), action, what, before, after))

    def log(self, event: Evening) -> list[dict[str, str]]:
        return [{"at": at, "action": action, "what": what, "before": before, "after": after}
                for at, action, what, before, after in self._rows(
                    "SELECT at, action, what, before, after FROM event_log WHERE event = ? ORDER BY id", (event.id,))]

    def director_pin(self) -> str | None:
        row = self._rows("SELECT pin FROM event_director WHERE id = 1")
        return row[0][0] if row else None

    def wrong_pins(self) -> tuple[int, float]:
        """(wrong PINs in a row, the time.time() until which the PIN is locked; 0: not locked)."""
        row = self._rows("SELECT failures, locked_until FROM event_wrong_pins WHERE id = 1")
        return (int(row[0][0]), float(row[0][1])) if row else (0, 0.0)

    def try_director_pin(self, matches: Callable[[str], bool], event: Evening | None, what: str, at: float,
                         lock_after: int, lock_for: float) -> PinAttempt:
        """One PIN given to `what` at time `at`, checked in the same transaction as the
        count of wrong ones, so that PINs guessed at once (threads, processes) are checked
        one after another and none gets past the lock: while the PIN is locked it is
        refused unchecked (LOCKED, in the event's log); else `matches(stored hash)`
        decides: RIGHT clears the count, WRONG counts one more (in the event's log), and
        the lock_after-th wrong one in a row locks the PIN for lock_for seconds. The
        check (scrypt, about 50 ms) holds the archive's write lock meanwhile."""
        with self._write() as db:
            row = db.execute("SELECT failures, locked_until FROM event_wrong_pins WHERE id = 1").fetchone()
            failures, locked_until = (int(row[0]), float(row[1])) if row else (0, 0.0)
            if locked_until > at:
                if event is not None:
                    self._log(db, event, "PIN locked", what, "", "refused without checking the PIN")
                return PinAttempt(PIN_LOCKED, failures, locked_until)
            stored = db.execute("SELECT pin FROM event_director WHERE id = 1").fetchone()
            if stored is not None and matches(stored[0]):
                if row is not None:
                    db.execute("DELETE FROM event_wrong_pins")
                return PinAttempt(PIN_RIGHT, 0, 0.0)
            failures += 1
            locked_until = at + lock_for if failures >= lock_after else 0.0
            db.execute("INSERT OR REPLACE INTO event_wrong_pins (id, failures, last_at, locked_until) "
                       "VALUES (1, ?, ?, ?)", (failures, at, locked_until))
            if event is not None:
                until = (f"; the PIN is locked until {datetime.fromtimestamp(locked_until).strftime('%H:%M')}"
                         if locked_until else "")
                self._log(db, event, "wrong PIN", what, "", f"{failures} wrong in a row{until}")
        return PinAttempt(PIN_WRONG, failures, locked_until)

    def set_director_pin(self, hashed: str, expected: str | None) -> None:
        """Store the PIN's hash, if the stored one is still `expected` (None:
        none was set)."""
        with self._write() as db:
            row = db.execute("SELECT pin FROM event_director WHERE id = 1").fetchone()
            if (row[0] if row else None) != expected:
                raise EveningError("the director's PIN changed meanwhile; nothing was changed, run the command again")
            db.execute("INSERT OR REPLACE INTO event_director (id, pin, set_at) VALUES (1, ?, ?)", (hashed, now()))


class _Transaction:
    """database.write on the store's connection, under the store's lock."""

    def __init__(self, store: EveningDatabase, begin: str = "BEGIN IMMEDIATE") -> None:
        self.store = store
        self.begin = begin
        self._write: Any = None

    def __enter__(self) -> sqlite3.Connection:
        self.store._lock.acquire()
        try:
            self._write = database.write(self.store.db, self.begin)
            return self._write.__enter__()
        except BaseException:
            self.store._lock.release()
            raise

    def __exit__(self, *exc: Any) -> None:
        try:
            self._write.__exit__(*exc)
        finally:
            self.store._lock.release()
