"""A stand-in for the evening's store (tallyboard.evening.EveningDatabase, another
part of issue 13) with the same methods, kept in a JSON file so that a host
process killed with kill -9 and the one that resumes after it share it. It is
an EveningStore (tallyboard/evening/evening_store.py), and behaves as
EveningDatabase does there: tests/test_event_store_interface.py holds it to both."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from tallyboard.evening.store import EveningError, canonical


@dataclass
class Evening:
    name: str
    players: list[str]
    id: int = 1
    created: str = "2026-11-23T19:00:00+00:00"
    state: str = "running"      # as the host's Evening: created, running, finished


@dataclass
class FakeStore:
    path: Path

    def __post_init__(self) -> None:
        self.path = Path(self.path)

    @classmethod
    def create(cls, path: Path, name: str, players: list[str], seating: list[list[int]]) -> "FakeStore":
        doc = {"event": {"name": name, "players": players}, "seatings": {"1": seating}, "games": {},
               "pending": {}, "boards": {}, "saves": 0}
        path.write_text(json.dumps(doc))
        return cls(path)

    def _read(self) -> dict:
        return json.loads(self.path.read_text())

    def _write(self, doc: dict) -> None:
        part = self.path.with_name(self.path.name + ".part")
        part.write_text(json.dumps(doc))
        os.replace(part, self.path)

    def event(self, name: str | None = None) -> Evening:
        doc = self._read()["event"]
        if name is not None and name != doc["name"]:
            raise EveningError(f"no event called {name!r} in {self.path} (events: {doc['name']!r})")
        return Evening(doc["name"], doc["players"])

    def names(self, event: Evening) -> list[str]:
        return list(self._read()["event"]["players"])

    def seating(self, event: Evening, round: int) -> list[list[int]]:
        seatings = self._read()["seatings"]
        if str(round) not in seatings:
            raise EveningError(f"the event has no round {round}")
        return seatings[str(round)]

    def save_table_game(self, event: Evening, round: int, table: int, record: dict, stamp: dict) -> bool:
        """As EveningDatabase: False when the record and the stamp are both what
        was stored. saves() counts the saves that changed the record (a new
        stamp alone, a hand held say, is stored but not counted)."""
        doc = self._read()
        key = f"{round}/{table}"
        before = doc["games"].get(key)
        if before is not None and (canonical(before["record"]), canonical(before["stamp"])) == (
                canonical(record), canonical(stamp)):
            return False
        doc["games"][key] = {"record": record, "stamp": stamp}
        if before is None or canonical(before["record"]) != canonical(record):
            doc["saves"] += 1
        self._write(doc)
        return True

    def table_game(self, event: Evening, round: int, table: int) -> dict | None:
        entry = self._read()["games"].get(f"{round}/{table}")
        return entry["record"] if entry else None

    def set_pending(self, event: Evening, round: int, table: int, pending: dict | None) -> None:
        doc = self._read()
        if pending is None:
            doc["pending"].pop(f"{round}/{table}", None)
        else:
            doc["pending"][f"{round}/{table}"] = pending
        self._write(doc)

    def pending(self, event: Evening, round: int, table: int) -> dict | None:
        return self._read()["pending"].get(f"{round}/{table}")

    def set_board(self, event: Evening, table: int, port: str, board_id: str) -> None:
        """As EveningDatabase: the board in place of the table's last, its status ok."""
        doc = self._read()
        doc["boards"][str(table)] = {"port": port, "board_id": board_id, "status": "ok"}
        self._write(doc)

    def boards(self, event: Evening) -> dict[int, dict]:
        return {int(t): dict(b) for t, b in sorted(self._read()["boards"].items(), key=lambda tb: int(tb[0]))}

    def set_table_status(self, event: Evening, table: int, status: str) -> None:
        """As EveningDatabase: a table with no board attached has no status to change."""
        doc = self._read()
        if str(table) in doc["boards"]:
            doc["boards"][str(table)]["status"] = status
            self._write(doc)

    def saves(self) -> int:
        return self._read()["saves"]
