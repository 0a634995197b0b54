"""A club director on a fresh evening, never started (no broker), whose link's
worker is driven by hand with Message stand-ins: for the tests of what the
director applies and shows (test_club_director_body, test_club_links)."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from click.testing import CliRunner

from tallyboard.cli import main
from tallyboard.evening import EveningDatabase
from tallyboard.evening import club as club_mod


@dataclass
class Message:          # what paho hands the worker
    topic: str
    payload: bytes
    qos: int = 0
    mid: int = 0


@contextlib.contextmanager
def unstarted_director(tmp_path: Path, monkeypatch, players: list[str]) -> Iterator[club_mod.Director]:
    """`event create` of a two-round evening of `players` in tmp_path's own folders, and its Director."""
    for key, where in (("TALLYBOARD_ARCHIVE", "archive.sqlite3"), ("XDG_STATE_HOME", "state"),
                       ("XDG_CACHE_HOME", "cache"), ("TALLYBOARD_EMULATOR_HOME", "emu")):
        monkeypatch.setenv(key, str(tmp_path / where))
    result = CliRunner().invoke(main, ["event", "create", "Club night", *[a for p in players for a in ("--player", p)],
                                       "--rounds", "2"])
    assert result.exit_code == 0, result.output
    store = EveningDatabase()
    made = club_mod.Director(store, store.event(), "mqtt://director:unused@127.0.0.1:9")    # never started: no broker
    try:
        yield made
    finally:
        made.link.stop()
        store.close()
