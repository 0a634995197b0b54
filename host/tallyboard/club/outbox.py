"""A table host's outbox: every message for the director, in SQLite, until
the director has applied it (docs/club-mqtt.md).

A message is numbered (per board: 1, 2, 3, ...), signed and stored in one
transaction, with the caller's own state if the caller gives its connection
(add_in), so a hand is either scored and queued or neither. The publisher
(club.mqtt_link.TableLink) sends the rows in order with QoS 1 and marks a row
`acked` on the broker's PUBACK; the row stays until the director's
`applied` message confirms its seq, and every row not confirmed is sent
again after a reconnect, after a restart of the process (a kill -9
included), and when the director has not confirmed it in time. The director
refuses what it applied already, so a resend is harmless.

The file (tallyboard.common.database.TABLE_HOST) is opened in WAL mode with
synchronous=FULL: a row is on disk when add() returns."""
from __future__ import annotations

import logging
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..common import database
from . import envelope, kinds

log = logging.getLogger(__name__)

def _of(boards: Sequence[str] | None) -> tuple[str, tuple[str, ...]]:
    """The SQL condition (after WHERE ...) and its arguments for the rows of `boards`; all without."""
    if boards is None:
        return "", ()
    return f" AND board IN ({', '.join('?' * len(boards))})", tuple(boards)


@dataclass(frozen=True)
class Row:
    id: int
    board: str
    seq: int
    topic: str
    payload: bytes


class Outbox:
    """The outbox file at `path` of one table host in evening `event`. With
    `board_keys` ({board: key}, from its join code) each board's messages are
    signed with that board's key, and the director's messages are checked by
    that board's tag (envelope.seal_director), with that key too: the join
    code holds no key of the director's. Without, `key` signs and checks
    everything (one key for all)."""

    def __init__(self, path: str | Path, event: str, key: bytes | None,
                 board_keys: Mapping[str, bytes] | None = None) -> None:
        if key is None and board_keys is None:
            raise ValueError("an outbox signs with its boards' keys or with one key")
        self.event = envelope.check_name("event", event)
        self.key = key
        self.board_keys = dict(board_keys) if board_keys is not None else None
        self.path = Path(path)
        self._db = database.open_file(self.path, database.TABLE_HOST)
        self._lock = threading.RLock()
        self.changed = threading.Condition()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- adding -----------------------------------------------------------

    def add(self, board: str, kind: str, body: Mapping[str, Any]) -> int:
        """Queue one message about `board`; its seq. Durable when it returns."""
        with self._lock:
            with database.write(self._db) as db:
                seq = self.add_in(db, board, kind, body)
        self.notify()
        return seq

    def add_in(self, connection: sqlite3.Connection, board: str, kind: str, body: Mapping[str, Any]) -> int:
        """Queue one message inside the caller's open transaction on a
        connection to this same file (the caller's own tables beside it);
        the caller commits, then calls notify(). Its seq."""
        envelope.check_name("board", board)
        if kinds.KINDS.get(kind) not in kinds.QUEUED:
            raise ValueError("a table host queues " + " or ".join(k.name for k in kinds.QUEUED) + f" messages, "
                             f"not {kind!r}")
        row = connection.execute("SELECT last FROM numbered WHERE board = ?", (board,)).fetchone()
        seq = (row[0] if row else 0) + 1
        payload = envelope.seal(self.signing_key(board), self.event, board, seq, kind, body)
        topic = kinds.KINDS[kind].topic(self.event, board)
        connection.execute("INSERT INTO numbered (board, last) VALUES (?, ?) "
                           "ON CONFLICT (board) DO UPDATE SET last = excluded.last", (board, seq))
        connection.execute("INSERT INTO outbox (board, seq, topic, payload, added_at) VALUES (?, ?, ?, ?, ?)",
                           (board, seq, topic, payload, time.time()))
        return seq

    def signing_key(self, board: str) -> bytes:
        """The key `board`'s messages are signed with; ValueError if this host has none for it."""
        if self.board_keys is None:
            assert self.key is not None
            return self.key
        if board not in self.board_keys:
            raise ValueError(f"this table host has no key for board {board}: its join code is for boards "
                             + ", ".join(sorted(self.board_keys)))
        return self.board_keys[board]

    def notify(self) -> None:
        """Wake the publisher (after a commit of add_in)."""
        with self.changed:
            self.changed.notify_all()

    # --- the publisher's side ---------------------------------------------

    def next_unacked(self, boards: Sequence[str] | None = None) -> Row | None:
        """The oldest row the broker has not acknowledged (of `boards`' only, if given:
        a link per table sends its own table's)."""
        where, args = _of(boards)
        with self._lock:
            found = self._db.execute("SELECT id, board, seq, topic, payload FROM outbox WHERE acked_at IS NULL"
                                     f"{where} ORDER BY id LIMIT 1", args).fetchone()
        return Row(found[0], found[1], found[2], found[3], bytes(found[4])) if found else None

    def mark_acked(self, row_id: int) -> None:
        with self._lock:
            self._db.execute("UPDATE outbox SET acked_at = ? WHERE id = ?", (time.time(), row_id))

    def resend_all(self, boards: Sequence[str] | None = None) -> int:
        """Mark every row (of `boards`) the director has not confirmed to be sent again; how many."""
        where, args = _of(boards)
        with self._lock:
            return self._db.execute(f"UPDATE outbox SET acked_at = NULL WHERE acked_at IS NOT NULL{where}",
                                    args).rowcount

    def oldest_unconfirmed_ack(self, boards: Sequence[str] | None = None) -> float | None:
        """When the broker acknowledged the oldest row (of `boards`) the director has not confirmed."""
        where, args = _of(boards)
        with self._lock:
            return self._db.execute(f"SELECT min(acked_at) FROM outbox WHERE 1{where}", args).fetchone()[0]

    def confirm(self, board: str, seq: int) -> bool:
        """The director has applied every message of `board` up to `seq`:
        drop those rows. False (and nothing dropped) if `seq` is beyond what
        this outbox numbered: this is not the outbox that board's messages
        came from, and its rows must not be taken as applied."""
        with self._lock:
            with database.write(self._db) as db:
                row = db.execute("SELECT last FROM numbered WHERE board = ?", (board,)).fetchone()
                if row is None or seq > row[0]:     # nothing written: the transaction ends empty
                    log.error("the director applied %s messages of board %s, this outbox numbered %s: "
                              "is this the table host that board was on?", seq, board, row[0] if row else 0)
                    return False
                db.execute("DELETE FROM outbox WHERE board = ? AND seq <= ?", (board, seq))
                db.execute("INSERT INTO confirmed (board, seq) VALUES (?, ?) ON CONFLICT (board) "
                           "DO UPDATE SET seq = max(seq, excluded.seq)", (board, seq))
        self.notify()
        return True

    # --- what the director sent -------------------------------------------

    def received(self, sender: str) -> int:
        """The last seq applied from `sender` (the director)."""
        with self._lock:
            row = self._db.execute("SELECT seq FROM received WHERE sender = ?", (sender,)).fetchone()
        return row[0] if row else 0

    def forget_received(self, sender: str) -> int:
        """Forget the last seq applied from `sender`, so its next message is taken whatever its
        number (`event table --take-next-round`: a table host away while the director changed
        the round more than envelope.ROUND_AHEAD times); the seq forgotten."""
        with self._lock:
            with database.write(self._db) as db:
                row = db.execute("SELECT seq FROM received WHERE sender = ?", (sender,)).fetchone()
                db.execute("DELETE FROM received WHERE sender = ?", (sender,))
        return row[0] if row else 0

    def apply_received(self, sender: str, seq: int, apply: Any, message: Mapping[str, Any]) -> bool:
        """apply(connection, message) and record `seq` as applied, in one transaction,
        unless a seq as high was applied meanwhile (a host's links per table each get
        the director's round: the first applies it); whether it was applied."""
        with self._lock:
            with database.write(self._db) as db:
                row = db.execute("SELECT seq FROM received WHERE sender = ?", (sender,)).fetchone()
                if row is not None and row[0] >= seq:      # nothing written: the transaction ends empty
                    return False
                apply(db, message)
                db.execute("INSERT INTO received (sender, seq) VALUES (?, ?) ON CONFLICT (sender) "
                           "DO UPDATE SET seq = excluded.seq", (sender, seq))
        return True

    # --- for the screen and the tests -------------------------------------

    def pending(self) -> int:
        """Messages the director has not confirmed yet."""
        with self._lock:
            return self._db.execute("SELECT count(*) FROM outbox").fetchone()[0]

    def numbered(self, board: str) -> int:
        with self._lock:
            row = self._db.execute("SELECT last FROM numbered WHERE board = ?", (board,)).fetchone()
        return row[0] if row else 0
