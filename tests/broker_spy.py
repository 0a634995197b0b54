"""mosquitto as a club runs it, plus a login of the test's own that reads the
evening's table messages. On mosquitto each login's client id is its user
name (brokers.CLIENT_ID_IS_LOGIN): a test's second connection as `director`
would take the director's own place, so a test that watches what the tables
send logs in as SPY_USER instead."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from tallyboard.club import brokers

SPY_USER, SPY_PASSWORD = "spy", "spy-secret"


class WatchedMosquitto(brokers.Mosquitto):
    def __init__(self, port: int, users: Mapping[str, str], persistence_dir: str | Path, **kwargs: Any) -> None:
        super().__init__(port, {**users, SPY_USER: SPY_PASSWORD}, persistence_dir, **kwargs)

    def write_config(self) -> None:
        super().write_config()
        acl = self.dir / "acl"
        brokers.write_private(acl, acl.read_text() + f"\nuser {SPY_USER}\ntopic read tallyboard/{self.event}/table/+/+\n")
