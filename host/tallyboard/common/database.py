"""Every SQLite file the host writes, opened here and only here (in the
manner of datasette's database.py): the archive (the games and the club
evening's tables beside them), the director's club file and a table host's
outbox. Each kind of file has a versioned schema: a list of migrations, the
file's `PRAGMA user_version` saying how many it has had. Opening a file
brings it up to date in one transaction, so an old file is migrated with
its data kept, and a file written by a newer tallyboard is refused.

The files hold secrets (the director's PIN's hash, the evening's signing
secret, signed messages): each is created readable by its owner only (0600)
in a folder of its owner only (0700); an existing file or folder open to
others is tightened once, and said so.

Writes go through one path: `write(connection)`, one BEGIN IMMEDIATE ...
COMMIT (ROLLBACK on any error) on an autocommit connection."""
from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator


class DatabaseError(Exception):
    """A file that cannot be opened as the kind of file asked for: the message says which and why."""


@dataclass(frozen=True)
class Kind:
    """One kind of SQLite file: its name in messages, its migrations (each
    a script of statements; the file's version is how many it has had), and
    whether it is opened as the club's files are (WAL, synchronous=FULL)."""
    name: str
    migrations: tuple[str, ...]
    wal: bool = False
    hint: str = ""          # what to do about a file that is not one, for the message

    @property
    def version(self) -> int:
        return len(self.migrations)


# ---------------------------------------------------------------- the schemas

# The archive: version 1 is the games table as tallyboard shipped it; the club
# evening's tables (docs/events.md, "The store") were added beside it without a
# version, so migration 2 creates them where they are missing; 3 keeps the
# wrong PINs given (docs/events.md, "The director"); 4 the club's register and seasons; 5 its guests;
# 6 the director's corrections as signed entries.
ARCHIVE = Kind("archive", (
    """
    CREATE TABLE IF NOT EXISTS games (
        id          INTEGER PRIMARY KEY,
        digest      TEXT NOT NULL UNIQUE,
        game        TEXT NOT NULL,
        players     TEXT NOT NULL,
        complete    INTEGER NOT NULL,
        totals      TEXT NOT NULL,
        winners     TEXT NOT NULL,
        result      TEXT NOT NULL,
        source      TEXT NOT NULL,
        archived_at TEXT NOT NULL,
        record      TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS games_by_game ON games (game);
    """,
    """
    CREATE TABLE IF NOT EXISTS event_events (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, state TEXT NOT NULL, round INTEGER NOT NULL,
        rounds INTEGER NOT NULL, hands INTEGER, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS event_players (
        event INTEGER NOT NULL, number INTEGER NOT NULL, name TEXT NOT NULL, withdrawn INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (event, number));
    CREATE TABLE IF NOT EXISTS event_rounds (
        event INTEGER NOT NULL, round INTEGER NOT NULL, seating TEXT NOT NULL, how TEXT NOT NULL,
        ended_early TEXT NOT NULL DEFAULT '[]', PRIMARY KEY (event, round));
    CREATE TABLE IF NOT EXISTS event_games (
        event INTEGER NOT NULL, round INTEGER NOT NULL, tableno INTEGER NOT NULL, record TEXT NOT NULL,
        stamp TEXT NOT NULL, saved_at TEXT NOT NULL, PRIMARY KEY (event, round, tableno));
    CREATE TABLE IF NOT EXISTS event_corrections (
        event INTEGER NOT NULL, round INTEGER NOT NULL, tableno INTEGER NOT NULL, hands TEXT NOT NULL,
        whole TEXT, PRIMARY KEY (event, round, tableno));
    CREATE TABLE IF NOT EXISTS event_pending (
        event INTEGER NOT NULL, round INTEGER NOT NULL, tableno INTEGER NOT NULL, pending TEXT NOT NULL,
        PRIMARY KEY (event, round, tableno));
    CREATE TABLE IF NOT EXISTS event_boards (
        event INTEGER NOT NULL, tableno INTEGER NOT NULL, port TEXT NOT NULL, board_id TEXT NOT NULL,
        status TEXT NOT NULL, PRIMARY KEY (event, tableno));
    CREATE TABLE IF NOT EXISTS event_log (
        id INTEGER PRIMARY KEY, event INTEGER NOT NULL, at TEXT NOT NULL, action TEXT NOT NULL,
        what TEXT NOT NULL, before TEXT NOT NULL, after TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS event_director (
        id INTEGER PRIMARY KEY CHECK (id = 1), pin TEXT NOT NULL, set_at TEXT NOT NULL);
    """,
    """
    CREATE TABLE event_wrong_pins (
        id INTEGER PRIMARY KEY CHECK (id = 1), failures INTEGER NOT NULL, last_at REAL NOT NULL,
        locked_until REAL NOT NULL);
    """,
    # 4: the club's register of players (each evening's player joined to one: `register`, NULL until
    # tallyboard.season.register joins it, so the evenings already in the file join on first use), its
    # log, and the seasons (docs/host.md, "A club's season")
    """
    CREATE TABLE register_players (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL, key TEXT NOT NULL, merged_into INTEGER,
        added_at TEXT NOT NULL);
    CREATE INDEX register_by_key ON register_players (key);
    CREATE TABLE register_log (
        id INTEGER PRIMARY KEY, at TEXT NOT NULL, action TEXT NOT NULL, what TEXT NOT NULL,
        before TEXT NOT NULL, after TEXT NOT NULL);
    ALTER TABLE event_players ADD COLUMN register INTEGER;
    CREATE TABLE seasons (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, rule TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE TABLE season_evenings (
        season INTEGER NOT NULL, event INTEGER NOT NULL, added_at TEXT NOT NULL, PRIMARY KEY (season, event));
    """,
    # 5: a register entry may be a guest, who plays evenings and is not ranked in seasons (issue 44;
    # docs/host.md, "A club's season"): every entry of an older archive is a member
    """
    ALTER TABLE register_players ADD COLUMN guest INTEGER NOT NULL DEFAULT 0;
    """,
    # 6: the director's corrections as entries of their own, in the order made, never edited (issue 44;
    # docs/events.md, "Corrections and the boards"; tallyboard.evening.corrections). An older archive's
    # corrections (one row a table: its corrected hands, or the whole game) become entries marked unsigned
    # ("key" and "tag" null): "before" the board's hand (or game) stored, "by" the director, "at" when
    # the table's last correction was logged (else the evening's last change)
    """
    CREATE TABLE event_correction_entries (
        id INTEGER PRIMARY KEY, event INTEGER NOT NULL, round INTEGER NOT NULL, tableno INTEGER NOT NULL,
        entry TEXT NOT NULL);
    CREATE INDEX event_correction_entries_by_table ON event_correction_entries (event, round, tableno);
    INSERT INTO event_correction_entries (event, round, tableno, entry)
        SELECT c.event, c.round, c.tableno, json_object(
            'round', c.round, 'table', c.tableno, 'whole', json('true'),
            'before', json(COALESCE(json_extract(g.record, '$.hands'), '[]')), 'after', json(c.whole),
            'by', 'director',
            'at', COALESCE((SELECT MAX(l.at) FROM event_log l WHERE l.event = c.event AND l.action = 'rescore'
                            AND l.what LIKE 'round ' || c.round || ' table ' || c.tableno || ':%'), e.updated_at),
            'key', NULL, 'tag', NULL)
        FROM event_corrections c JOIN event_events e ON e.id = c.event
        LEFT JOIN event_games g ON g.event = c.event AND g.round = c.round AND g.tableno = c.tableno
        WHERE c.whole IS NOT NULL
        ORDER BY c.event, c.round, c.tableno;
    INSERT INTO event_correction_entries (event, round, tableno, entry)
        SELECT c.event, c.round, c.tableno, json_object(
            'round', c.round, 'table', c.tableno, 'hand', CAST(h.key AS INTEGER),
            'before', json(json_extract(g.record, '$.hands[' || (CAST(h.key AS INTEGER) - 1) || ']')),
            'after', json(h.value),
            'by', 'director',
            'at', COALESCE((SELECT MAX(l.at) FROM event_log l WHERE l.event = c.event AND l.action = 'correct'
                            AND l.what LIKE 'round ' || c.round || ' table ' || c.tableno || ' hand %'), e.updated_at),
            'key', NULL, 'tag', NULL)
        FROM event_corrections c JOIN json_each(c.hands) h JOIN event_events e ON e.id = c.event
        LEFT JOIN event_games g ON g.event = c.event AND g.round = c.round AND g.tableno = c.tableno
        WHERE c.whole IS NULL
        ORDER BY c.event, c.round, c.tableno, CAST(h.key AS INTEGER);
    DROP TABLE event_corrections;
    """,
), hint="choose another with --archive")

# The director's club file of an evening: its secret and broker passwords,
# what it applied, refused (each kind of refusal once, counted) and sent
# (tallyboard.evening.club, tallyboard.club.mqtt_link).
DIRECTOR = Kind("director's club file", (
    """
    CREATE TABLE IF NOT EXISTS club (id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL,
                                     director TEXT NOT NULL, tables TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS applied (board TEXT PRIMARY KEY, seq INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS refused (id INTEGER PRIMARY KEY, at TEXT NOT NULL, board TEXT, topic TEXT NOT NULL,
                                        reason TEXT NOT NULL, text TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS sent (topic TEXT PRIMARY KEY, seq INTEGER NOT NULL, payload BLOB NOT NULL);
    """,
    # a refusal repeated counts in its row (issue 22.2: `refused` bounded under a flood)
    """
    ALTER TABLE refused ADD COLUMN count INTEGER NOT NULL DEFAULT 1;
    """,
    # each table's link at the director (issue 24.5): when a board's message was last applied, and
    # each client's (a table host's or a wireless board's) last status: online or not, its boards
    """
    ALTER TABLE applied ADD COLUMN at TEXT;
    CREATE TABLE IF NOT EXISTS clients (client TEXT PRIMARY KEY, online INTEGER NOT NULL, at TEXT NOT NULL,
                                        boards TEXT NOT NULL);
    """,
    # each board's health (issue 43, docs/club-mqtt.md "Each board's health"): its latest report as it came
    # (checked), when it came, and the reset count of the first one this evening (resets grown since)
    """
    CREATE TABLE IF NOT EXISTS health (board TEXT PRIMARY KEY, body TEXT NOT NULL, at TEXT NOT NULL,
                                       first_resets INTEGER, first_at TEXT NOT NULL);
    """,
), wal=True)

# A table host's outbox file: the messages for the director until it has them
# (tallyboard.club.outbox), and the round it was given and what it last sent
# of each table (tallyboard.evening.club).
TABLE_HOST = Kind("table host's outbox", (
    """
    CREATE TABLE IF NOT EXISTS outbox (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        board        TEXT NOT NULL,
        seq          INTEGER NOT NULL,
        topic        TEXT NOT NULL,
        payload      BLOB NOT NULL,
        added_at     REAL NOT NULL,
        acked_at     REAL,
        UNIQUE (board, seq)
    );
    CREATE TABLE IF NOT EXISTS numbered (board TEXT PRIMARY KEY, last INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS confirmed (board TEXT PRIMARY KEY, seq INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS received (sender TEXT PRIMARY KEY, seq INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS club_round (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS club_last (board TEXT NOT NULL, round INTEGER NOT NULL, body TEXT NOT NULL,
                                          PRIMARY KEY (board, round));
    """,
), wal=True)

KINDS = (ARCHIVE, DIRECTOR, TABLE_HOST)


# ---------------------------------------------------------------- private files

_said: set[str] = set()


def _say_once(text: str) -> None:
    if text not in _said:
        _said.add(text)
        print(f"tallyboard: {text}", file=sys.stderr)


def private_folder(folder: Path, tighten: bool = True) -> None:
    """Make folder (and its missing parents) readable by its owner only;
    an existing one open to others is tightened (tighten) and said so."""
    if not folder.is_dir():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)      # whatever the umask
        return
    if tighten:
        _tighten(folder, 0o700, "folder")


def private_file(path: Path) -> None:
    """Tighten the file at path (and SQLite's -wal and -shm beside it) to 0600."""
    for one in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if one.exists():
            _tighten(one, 0o600, "file")


def _tighten(path: Path, mode: int, what: str) -> None:
    try:
        info = path.stat()
    except OSError:
        return
    if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077 == 0:
        return
    try:
        os.chmod(path, mode)
    except OSError as exc:
        _say_once(f"{path} is open to other users ({stat.S_IMODE(info.st_mode):04o}) and cannot be made "
                  f"private ({exc.strerror}): chmod {mode:o} it")
        return
    _say_once(f"the {what} {path} was open to other users ({stat.S_IMODE(info.st_mode):04o}); it is now "
              f"{mode:04o} (tallyboard's files hold the director's PIN hash and the club's secrets)")


# ---------------------------------------------------------------- opening

def open_file(path: Path | str, kind: Kind, tighten_folder: bool = True) -> sqlite3.Connection:
    """The connection to the file of this kind at path, created (0600, in a
    0700 folder; an existing folder is tightened when tighten_folder: a
    folder tallyboard made, not one the user chose) and migrated as needed: autocommit (write() begins each
    transaction), usable from any thread (the caller holds its own lock).
    DatabaseError says what is wrong (not SQLite, newer, unwritable)."""
    path = Path(path)
    try:
        private_folder(path.parent, tighten_folder)
        if not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        private_file(path)
        connection = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
    except OSError as exc:
        raise DatabaseError(f"{path}: cannot create the {kind.name} ({exc.strerror})") from None
    try:
        if kind.wal:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
        migrate(connection, kind, path)
        private_file(path)
    except sqlite3.DatabaseError as exc:
        connection.close()
        raise DatabaseError(f"{path}: cannot open the {kind.name} ({exc}); is it a tallyboard {kind.name}? "
                            f"{kind.hint}".rstrip()) from None
    except BaseException:
        connection.close()
        raise
    return connection


def version_of(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA user_version").fetchone()[0])


def migrate(connection: sqlite3.Connection, kind: Kind, path: Path | str = "") -> int:
    """Bring the file up to kind's version, every missing migration in one
    transaction; the version it had. DatabaseError for a newer file."""
    if version_of(connection) == kind.version:
        return kind.version        # up to date: no write lock taken (another process may hold one)
    with write(connection) as db:
        had = version_of(db)
        if had > kind.version:
            raise DatabaseError(f"{path}: written by a newer tallyboard ({kind.name} version {had}; this one "
                                f"knows {kind.version}); upgrade tallyboard to read it")
        for script in kind.migrations[had:]:
            for statement in script.split(";"):
                if statement.strip():
                    db.execute(statement)
        if had != kind.version:
            db.execute(f"PRAGMA user_version = {kind.version}")
    return had


@contextlib.contextmanager
def write(connection: sqlite3.Connection, begin: str = "BEGIN IMMEDIATE") -> Iterator[sqlite3.Connection]:
    """The one write path: a transaction on an autocommit connection,
    committed when the block ends, rolled back when it raises."""
    connection.execute(begin)
    try:
        yield connection
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
