"""tallyboard.common.database: every SQLite file the host writes, versioned and
migrated with its data kept, private to its owner (issue 22, items 3 and 6).
Today's files are built here with the schemas as tallyboard wrote them before
the files had versions (copied below as they were), then opened."""
from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from tallyboard.common import database
from tallyboard.scorebook.archive import Archive, ArchiveError
from tallyboard.club.outbox import Outbox
from tallyboard.evening.store import EveningDatabase

# ---------------------------------------------------------------- the files as they were

# archive.py (user_version 1), then evening/store.py's tables beside it (no version of their own)
ARCHIVE_V1 = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, digest TEXT NOT NULL UNIQUE, game TEXT NOT NULL, players TEXT NOT NULL,
    complete INTEGER NOT NULL, totals TEXT NOT NULL, winners TEXT NOT NULL, result TEXT NOT NULL,
    source TEXT NOT NULL, archived_at TEXT NOT NULL, record TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS games_by_game ON games (game);
PRAGMA user_version = 1;
"""
EVENING_TABLES = """
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
"""
# evening/club.py's _DIRECTOR_SCHEMA and club/mqtt_link.py's DirectorLink.SCHEMA, in one file (no version)
DIRECTOR_V0 = """
CREATE TABLE IF NOT EXISTS club (id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL,
                                 director TEXT NOT NULL, tables TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS applied (board TEXT PRIMARY KEY, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS refused (id INTEGER PRIMARY KEY, at TEXT NOT NULL, board TEXT, topic TEXT NOT NULL,
                                    reason TEXT NOT NULL, text TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sent (topic TEXT PRIMARY KEY, seq INTEGER NOT NULL, payload BLOB NOT NULL);
"""
# club/outbox.py's _SCHEMA and evening/club.py's _HOST_SCHEMA, in one file (no version)
TABLE_HOST_V0 = """
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT, board TEXT NOT NULL, seq INTEGER NOT NULL, topic TEXT NOT NULL,
    payload BLOB NOT NULL, added_at REAL NOT NULL, acked_at REAL, UNIQUE (board, seq));
CREATE TABLE IF NOT EXISTS numbered (board TEXT PRIMARY KEY, last INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS confirmed (board TEXT PRIMARY KEY, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS received (sender TEXT PRIMARY KEY, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS club_round (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS club_last (board TEXT NOT NULL, round INTEGER NOT NULL, body TEXT NOT NULL,
                                      PRIMARY KEY (board, round));
"""

RECORD = '{"format":"tallyboard/1","game":"roquet","hands":[],"players":["Ann","Bob"]}'


def build(path: Path, script: str, rows: list[tuple[str, tuple]]) -> Path:
    db = sqlite3.connect(path)
    db.executescript(script)
    with db:
        for statement, args in rows:
            db.execute(statement, args)
    db.close()
    os.chmod(path, 0o644)        # as they were made: the umask's
    return path


def version(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()


GAME_ROW = ("INSERT INTO games VALUES (1, 'd1', 'roquet', '[\"Ann\", \"Bob\"]', 0, '[5, 3]', '[]', 'in progress',"
            " 'test', '2026-11-01T20:00:00+00:00', ?)", (RECORD,))
EVENT_ROWS = [
    ("INSERT INTO event_events VALUES (1, 'Tuesday club', 'running', 1, 3, NULL, 't0', 't0')", ()),
    *[("INSERT INTO event_players (event, number, name) VALUES (1, ?, ?)", (n, name))
      for n, name in enumerate(["Ann", "Bob", "Cy", "Dee"])],
    ("INSERT INTO event_rounds VALUES (1, 1, '[[0, 1, 2, 3]]', 'given', '[]')", ()),
    ("INSERT INTO event_director VALUES (1, 'scrypt$16384$8$1$00$00', 't0')", ()),
]


@pytest.mark.parametrize("with_evening", [False, True])
def test_an_archive_of_today_is_migrated_with_its_games_and_evening_kept(tmp_path, with_evening):
    path = build(tmp_path / "archive.sqlite3", ARCHIVE_V1 + (EVENING_TABLES if with_evening else ""),
                 [GAME_ROW] + (EVENT_ROWS if with_evening else []))
    assert version(path) == 1
    with Archive(path) as archive:
        (entry,) = list(archive.entries())
        assert (entry.id, entry.players, entry.totals, entry.result) == (1, ["Ann", "Bob"], [5, 3], "in progress")
    assert version(path) == database.ARCHIVE.version == 6
    with EveningDatabase(path) as store:
        if with_evening:
            event = store.event("Tuesday club")
            assert (event.round, event.rounds, store.names(event)) == (1, 3, ["Ann", "Bob", "Cy", "Dee"])
            assert store.director_pin() == "scrypt$16384$8$1$00$00"
        else:
            assert store.director_pin() is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_directors_file_of_today_is_migrated_with_its_secret_and_refusals_kept(tmp_path):
    path = build(tmp_path / "club-director.sqlite3", DIRECTOR_V0, [
        ("INSERT INTO club VALUES (1, ?, 'dpw', 'tpw')", (b"s" * 32,)),
        ("INSERT INTO applied VALUES ('b1', 7)", ()),
        ("INSERT INTO refused (at, board, topic, reason, text) VALUES ('t', 'b2', 'x/y', 'replay', 'old')", ()),
        ("INSERT INTO sent VALUES ('x/director/round', 3, ?)", (b"{}",))])
    db = database.open_file(path, database.DIRECTOR)
    try:
        assert database.version_of(db) == database.DIRECTOR.version == 4
        assert db.execute("SELECT secret, director, tables FROM club").fetchone() == (b"s" * 32, "dpw", "tpw")
        # version 3 says when each board was last applied: not known for what came before
        assert db.execute("SELECT board, seq, at FROM applied").fetchall() == [("b1", 7, None)]
        assert db.execute("SELECT count(*) FROM clients").fetchone() == (0,)
        # version 2 counts repeats: a refusal of before counts once
        assert db.execute("SELECT board, reason, text, count FROM refused").fetchall() == [("b2", "replay", "old", 1)]
        assert db.execute("SELECT topic, seq FROM sent").fetchall() == [("x/director/round", 3)]
    finally:
        db.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_table_hosts_outbox_of_today_is_migrated_with_its_messages_kept(tmp_path):
    path = build(tmp_path / "ev-host.sqlite3", TABLE_HOST_V0, [
        ("INSERT INTO outbox (board, seq, topic, payload, added_at) VALUES ('b1', 1, 't/b1/hand', ?, 1.0)", (b"m1",)),
        ("INSERT INTO outbox (board, seq, topic, payload, added_at) VALUES ('b1', 2, 't/b1/state', ?, 2.0)", (b"m2",)),
        ("INSERT INTO numbered VALUES ('b1', 2)", ()),
        ("INSERT INTO club_round VALUES (1, '{\"round\": 1}')", ()),
        ("INSERT INTO club_last VALUES ('b1', 1, '{}')", ())])
    box = Outbox(path, "ev", b"k" * 32)
    try:
        assert box.pending() == 2
        assert box.add("b1", "hand", {"n": 3}) == 3          # numbering carries on after 2
    finally:
        box.close()
    db = database.open_file(path, database.TABLE_HOST)
    try:
        assert database.version_of(db) == database.TABLE_HOST.version == 1
        assert db.execute("SELECT body FROM club_round").fetchone() == ('{"round": 1}',)
        assert [r[0] for r in db.execute("SELECT seq FROM outbox ORDER BY seq")] == [1, 2, 3]
    finally:
        db.close()


@pytest.mark.parametrize("kind", database.KINDS, ids=lambda k: k.name)
def test_a_file_from_a_newer_tallyboard_is_refused_and_left_alone(tmp_path, kind):
    path = tmp_path / "newer.sqlite3"
    database.open_file(path, kind).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {kind.version + 1}")
    db.close()
    with pytest.raises(database.DatabaseError, match="written by a newer tallyboard"):
        database.open_file(path, kind)
    assert version(path) == kind.version + 1


def test_a_file_that_is_not_sqlite_is_named_and_refused(tmp_path):
    path = tmp_path / "archive.sqlite3"
    path.write_text("not a database " * 100)
    with pytest.raises(ArchiveError, match=r"cannot open the archive .*choose another with --archive"):
        Archive(path)


def test_new_files_are_private_and_an_open_folder_of_its_own_is_tightened_once(tmp_path, capsys):
    folder = tmp_path / "data" / "tallyboard"
    database.open_file(folder / "archive.sqlite3", database.ARCHIVE).close()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "archive.sqlite3").stat().st_mode) == 0o600
    assert capsys.readouterr().err == ""                  # nothing to say about new files
    os.chmod(folder, 0o755)
    os.chmod(folder / "archive.sqlite3", 0o644)
    Archive(folder / "archive.sqlite3").close()
    said = capsys.readouterr().err
    assert f"the folder {folder} was open to other users (0755); it is now 0700" in said
    assert f"the file {folder / 'archive.sqlite3'} was open to other users (0644); it is now 0600" in said
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "archive.sqlite3").stat().st_mode) == 0o600
    Archive(folder / "archive.sqlite3").close()
    assert capsys.readouterr().err == ""                  # said once: it is private now


def test_a_folder_the_user_chose_is_left_as_it_is_and_the_file_made_private(tmp_path):
    chosen = tmp_path / "my-files"
    chosen.mkdir(mode=0o755)
    os.chmod(chosen, 0o755)
    Archive(chosen / "games.sqlite3").close()
    assert stat.S_IMODE(chosen.stat().st_mode) == 0o755
    assert stat.S_IMODE((chosen / "games.sqlite3").stat().st_mode) == 0o600


def test_a_write_is_one_transaction(tmp_path):
    db = database.open_file(tmp_path / "d.sqlite3", database.DIRECTOR)
    try:
        with pytest.raises(RuntimeError):
            with database.write(db):
                db.execute("INSERT INTO applied (board, seq) VALUES ('b1', 1)")
                raise RuntimeError("cut")
        assert db.execute("SELECT count(*) FROM applied").fetchone() == (0,)
        with database.write(db):
            db.execute("INSERT INTO applied (board, seq) VALUES ('b1', 1)")
        assert db.execute("SELECT count(*) FROM applied").fetchone() == (1,)
    finally:
        db.close()


def test_every_sqlite_file_is_opened_and_written_through_the_database_module():
    """No other module of the host connects to SQLite, creates tables or
    begins and ends a transaction itself (database.write does)."""
    host = Path(database.__file__).parent
    for source in host.rglob("*.py"):
        if source.name == "database.py":
            continue
        text = source.read_text()
        for word in ("sqlite3.connect(", "CREATE TABLE", "ALTER TABLE", 'execute("BEGIN', 'execute("COMMIT',
                     'execute("ROLLBACK")', "executescript("):
            assert word not in text, (source, word)


def test_an_evening_made_at_the_command_line_is_private_to_its_owner(tmp_path, monkeypatch):
    """Finding 6 through the command line as it was before the database module:
    under the usual umask (022) the archive, which holds the PIN's hash, was
    0644 in a 0755 folder. `event create` and `event pin set` at the default
    place ($XDG_DATA_HOME/tallyboard) leave the folder 0700 and every file 0600."""
    from click.testing import CliRunner
    from tallyboard.cli import main

    monkeypatch.delenv("TALLYBOARD_ARCHIVE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    usual = os.umask(0o022)
    try:
        made = CliRunner().invoke(main, ["event", "create", "Tuesday", *[a for n in ("Ann", "Bob", "Cy", "Dee")
                                                                         for a in ("--player", n)]])
        pin = CliRunner().invoke(main, ["event", "pin", "set", "--new-pin", "4711"])
    finally:
        os.umask(usual)
    assert made.exit_code == 0, made.output
    assert pin.exit_code == 0, pin.output
    folder = tmp_path / "data" / "tallyboard"
    files = sorted(folder.iterdir())
    assert folder / "archive.sqlite3" in files
    assert f"{stat.S_IMODE(folder.stat().st_mode):04o}" == "0700"
    assert {f.name: f"{stat.S_IMODE(f.stat().st_mode):04o}" for f in files} == {f.name: "0600" for f in files}
