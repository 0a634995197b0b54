"""The host's archive of games: one SQLite file of game records (docs/records.md).

A record is checked by the core (records.from_document) before it is stored,
so the archive never holds a game the rules refuse; each record is stored
once (by the SHA-256 of its canonical JSON); every write is one transaction,
so a crash or a power cut leaves the archive as it was or with the whole
game in it. A row damaged on disk (a column that is not JSON) is reported on
its own, as Unreadable, and every other game stays readable."""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ..common import database, files
from . import records, sheet
from ..common.errors import TallyboardError



class ArchiveError(TallyboardError):
    """The archive cannot be opened or does not hold what was asked for."""


def default_path() -> Path:
    """$TALLYBOARD_ARCHIVE, else $XDG_DATA_HOME/tallyboard/archive.sqlite3
    (~/.local/share by default)."""
    explicit = os.environ.get("TALLYBOARD_ARCHIVE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tallyboard" / "archive.sqlite3"


def own_folder(path: Path) -> bool:
    """Whether the archive's folder is tallyboard's own (tightened to 0700),
    not one the user chose (left as it is; the file itself is 0600)."""
    return path.parent.name == "tallyboard"


@dataclass(frozen=True)
class Entry:
    id: int
    game: str
    players: list[str]
    complete: bool
    totals: list[int]
    winners: list[int]
    result: str
    source: str
    archived_at: str


@dataclass(frozen=True)
class Unreadable:
    """A row the archive cannot read (damaged on disk or by another program);
    the other games are read as usual."""
    id: int
    reason: str


def _column(row: tuple[Any, ...], index: int, name: str, shape: str = "") -> Any:
    """A JSON column of a games row: a list of names (shape "names"), of whole
    numbers ("numbers"), or the record; ValueError says what is wrong with it."""
    try:
        value = files.loads(row[index], "game record")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the {name} column is not JSON ({exc})") from None
    if shape == "names" and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise ValueError(f"the {name} column is not a list of names")
    if shape == "numbers" and not (isinstance(value, list) and all(type(v) is int for v in value)):
        raise ValueError(f"the {name} column is not a list of whole numbers")
    return value


def canonical(doc: dict[str, Any]) -> str:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


def archived_id(loaded: records.LoadedGame, path: Path | str | None = None) -> int | None:
    """The id under which the archive at path (default_path() if None) holds
    this very game, or None; an archive that does not exist yet holds nothing
    (and is not created by asking)."""
    if not (Path(path) if path else default_path()).is_file():
        return None
    with Archive(path) as archive:
        return archive.holds(loaded)


class Archive:
    def __init__(self, path: Path | str | None = None) -> None:
        """The archive at path (its folder must exist), else at default_path()
        (its folders are made on first use)."""
        self.path = Path(path) if path else default_path()
        if path and not self.path.parent.is_dir():
            raise ArchiveError(f"cannot open the archive {self.path}: the folder {self.path.parent} does not "
                               "exist; create it or choose another --archive")
        try:
            self.db = database.open_file(self.path, database.ARCHIVE, own_folder(self.path))
        except database.DatabaseError as exc:
            raise ArchiveError(str(exc)) from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Archive":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add(self, loaded: records.LoadedGame, source: str) -> tuple[int, bool]:
        """Store a game the core has checked (records.load / from_document, or
        a board's game). Returns (id, new): a game already in the archive is
        not stored twice (its hands, event for event); one stored without its
        board's chain gets it when the same game comes with one."""
        held = self.holds(loaded)
        text = canonical(records.to_document(loaded.name, loaded.players, loaded.options, loaded.game,
                                             loaded.chain))
        if held is not None:
            if loaded.chain is not None and "chain" not in self.record(held):
                with database.write(self.db) as db:
                    db.execute("UPDATE games SET record = ? WHERE id = ?", (text, held))
            return held, False
        summary = sheet.sheet_json(loaded)
        with database.write(self.db) as db:
            cursor = db.execute(
                "INSERT INTO games (digest, game, players, complete, totals, winners, result, source, archived_at,"
                " record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (self._digest(loaded), loaded.name, json.dumps(loaded.players), int(summary["complete"]),
                 json.dumps(summary["totals"]), json.dumps(summary["winners"]),
                 sheet.winner_line(summary).plain, source,
                 datetime.now(timezone.utc).isoformat(timespec="seconds"), text))
        return int(cursor.lastrowid or 0), True

    @staticmethod
    def _digest(loaded: records.LoadedGame) -> str:
        """What a game is filed under: its record without the board's chain (the same
        game read from the board twice, or from a file without it, is one game)."""
        text = canonical(records.to_document(loaded.name, loaded.players, loaded.options, loaded.game))
        return hashlib.sha256(text.encode()).hexdigest()

    def holds(self, loaded: records.LoadedGame) -> int | None:
        """The id of the game in the archive whose record is this game's,
        event for event (the same digest add() files it under), else None."""
        row = self.db.execute("SELECT id FROM games WHERE digest = ?", (self._digest(loaded),)).fetchone()
        return row[0] if row else None

    def entries(self, game: str | None = None) -> Iterator[Entry | Unreadable]:
        """The games in the order they were archived; a row that cannot be
        read is an Unreadable in its place."""
        query = ("SELECT id, game, players, complete, totals, winners, result, source, archived_at, record"
                 " FROM games")
        args: tuple[Any, ...] = ()
        if game:
            query += " WHERE game = ?"
            args = (game,)
        for row in self.db.execute(query + " ORDER BY id", args):
            try:
                players = _column(row, 2, "players", "names")
                totals = _column(row, 4, "totals", "numbers")
                winners = _column(row, 5, "winners", "numbers")
                _column(row, 9, "record")
            except ValueError as exc:
                yield Unreadable(row[0], f"{exc}; tallyboard archive remove {row[0]} deletes it")
                continue
            yield Entry(row[0], row[1], players, bool(row[3]), totals, winners, row[6], row[7], row[8])

    def record(self, game_id: int) -> Any:
        """The record of game #game_id as stored (from_document checks it)."""
        row = self.db.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise ArchiveError(f"no game #{game_id} in the archive {self.path}; tallyboard archive list shows them")
        try:
            return _column(row, 0, "record")
        except ValueError as exc:
            raise ArchiveError(f"game #{game_id} in the archive {self.path} is unreadable: {exc}; "
                               f"tallyboard archive remove {game_id} deletes it") from None

    def remove(self, game_id: int) -> None:
        with database.write(self.db) as db:
            if db.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount == 0:
                raise ArchiveError(f"no game #{game_id} in the archive {self.path}; tallyboard archive list shows them")
