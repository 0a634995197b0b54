"""A stand-in for the evening's store (tallyboard.event.EventStore, another
part of issue 13) with the same methods, kept in a JSON file so that a host
process killed with kill -9 and the one that resumes after it share it."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Event:
    name: str
    players: list[str]
    id: int = 1
    created: str = "2026-11-23T19:00:00+00:00"


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

    def event(self, name: str | None = None) -> Event:
        doc = self._read()["event"]
        if name is not None and name != doc["name"]:
            raise ValueError(f"no event {name}")
        return Event(doc["name"], doc["players"])

    def names(self, event: Event) -> list[str]:
        return list(self._read()["event"]["players"])

    def seating(self, event: Event, round: int) -> list[list[int]]:
        return self._read()["seatings"][str(round)]

    def save_table_game(self, event, round, table, record, stamp) -> bool:
        doc = self._read()
        key = f"{round}/{table}"
        if doc["games"].get(key, {}).get("record") == record:
            return False
        doc["games"][key] = {"record": record, "stamp": stamp}
        doc["saves"] += 1
        self._write(doc)
        return True

    def table_game(self, event, round, table):
        entry = self._read()["games"].get(f"{round}/{table}")
        return entry["record"] if entry else None

    def set_pending(self, event, round, table, pending) -> None:
        doc = self._read()
        doc["pending"][f"{round}/{table}"] = pending
        self._write(doc)

    def pending(self, round, table):
        return self._read()["pending"].get(f"{round}/{table}")

    def set_board(self, event, table, port, board_id) -> None:
        doc = self._read()
        doc["boards"].setdefault(str(table), {"status": ""}).update(port=port, board_id=board_id)
        self._write(doc)

    def boards(self, event) -> dict[int, dict]:
        return {int(t): dict(b) for t, b in self._read()["boards"].items()}

    def set_table_status(self, event, table, status) -> None:
        doc = self._read()
        doc["boards"].setdefault(str(table), {"port": "", "board_id": ""})["status"] = status
        self._write(doc)

    def saves(self) -> int:
        return self._read()["saves"]
