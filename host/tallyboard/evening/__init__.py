"""A club evening of Progressive Skicket on many boards (docs/events.md):
the event record and its replay (record.py), the evening's arithmetic
(standings.py), the SQLite store in the archive file (store.py), each
table's game as it counts and the snapshot every view shows (play.py), and
the director's PIN and changes (director.py)."""
from __future__ import annotations

from .play import add_board_reader, add_new_round_pusher, on_new_round, read_boards, snapshot
from .store import CREATED, FINISHED, RUNNING, Evening, EveningError, EveningDatabase

__all__ = ["EveningDatabase", "Evening", "EveningError", "snapshot", "on_new_round", "add_new_round_pusher", "read_boards",
           "add_board_reader", "CREATED", "RUNNING", "FINISHED"]
