"""What the club evening's end-to-end tests share (tests/test_club_evening.py
with table hosts, tests/test_wifi_evening.py with boards on Wi-Fi): the
evening created in the director's archive with its players, each host's own
folders, the tallyboard processes started for it (their output collected as
it comes), the director's store read back, and everything stopped after."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

from click.testing import CliRunner

from emu_fixtures import until
from tallyboard.cli import main
from tallyboard.evening import EveningDatabase, snapshot
from tallyboard.evening import club as club_mod

WAIT = 45.0      # a step of the evening (a hand to the director, a process's line) comes within this


class Proc:
    """A tallyboard process whose output lines are collected as they come."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.args, self.env, self.log = args, env, log
        self.lines: list[str] = []
        self.start()

    def start(self) -> None:
        self.lines.clear()
        self.proc = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", *self.args], env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True)
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen) -> None:
        with open(self.log, "a") as log:
            for line in proc.stdout:
                self.lines.append(line.rstrip("\n"))
                log.write(line)
                log.flush()

    def wait_line(self, pattern: str, seconds: float = WAIT) -> re.Match:
        def found():
            if self.proc.poll() is not None and not any(re.search(pattern, line) for line in self.lines):
                raise AssertionError(f"{self.args[1]} ended ({self.proc.returncode}): " + "\n".join(self.lines[-15:]))
            return next((m for m in (re.search(pattern, line) for line in list(self.lines)) if m), None)
        return until(found, seconds, f"{pattern!r} from {' '.join(self.args[:2])}")

    def kill9(self) -> None:
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def stop_emulators(folder: Path) -> None:
    """Every emulator a process under folder started (its *.running.json), stopped."""
    for record in folder.rglob("*.running.json"):
        try:
            pid = int(json.loads(record.read_text())["pid"])
            os.kill(pid, signal.SIGTERM)
        except (OSError, ValueError, KeyError):
            continue


class Evening:
    """The evening's folders and processes: the director's archive and state (this process's too,
    through monkeypatch), each host's own, the processes started, the event created with its players
    and rounds, each table's join code and the broker's users."""

    def __init__(self, tmp: Path, monkeypatch, players: list[str], rounds: int = 2) -> None:
        self.tmp = tmp
        self.procs: list[Proc] = []
        self.director_env = self.env("director")
        for key in ("TALLYBOARD_ARCHIVE", "XDG_STATE_HOME", "XDG_CACHE_HOME", "TALLYBOARD_EMULATOR_HOME"):
            monkeypatch.setenv(key, self.director_env[key])
        for key in ("TALLYBOARD_BROKER", "TALLYBOARD_JOIN", "TALLYBOARD_BROKER_PASSWORD", "TALLYBOARD_WIFI_PASSWORD"):
            monkeypatch.delenv(key, raising=False)
        self.created = self.cli("event", "create", "Club night", *[a for p in players for a in ("--player", p)],
                                "--rounds", str(rounds))
        tables = len(players) // 4
        assert f"{len(players)} players at {tables} tables, {rounds} rounds of 4-hand games" in self.created, \
            self.created
        # each table host has the code of its table: its key, no other table's
        self.codes = {t: self.cli("event", "join-code", "--table", str(t)).strip() for t in range(1, tables + 1)}
        with EveningDatabase() as store:
            self.event_id = club_mod.club_id(store.event())
            # the broker's users: the director and each table as itself (what `event broker-files` writes)
            self.users = club_mod.broker_users(store, store.event())

    def env(self, who: str) -> dict[str, str]:
        home = self.tmp / who
        home.mkdir(exist_ok=True)
        return dict(os.environ, TALLYBOARD_ARCHIVE=str(self.tmp / "director" / "archive.sqlite3"),
                    XDG_STATE_HOME=str(home / "state"), XDG_CACHE_HOME=str(home / "cache"),
                    TALLYBOARD_EMULATOR_HOME=str(home / "emu"), PYTHONUNBUFFERED="1")

    def cli(self, *args: str) -> str:
        result = CliRunner().invoke(main, list(args))
        assert result.exit_code == 0, (args, result.output, result.exception)
        return result.output

    def spawn(self, who: str, *args: str, **env: str) -> Proc:
        """`tallyboard ARGS` as `who` (the director, or a host in its own folders), env added."""
        base = self.director_env if who == "director" else self.env(who)
        proc = Proc(list(args), {**base, **env}, self.tmp / f"{who}.log")
        self.procs.append(proc)
        return proc

    # ---- the director's store
    def doc(self) -> dict:
        with EveningDatabase() as store:
            return snapshot(store, store.event())

    def director_hands(self) -> list[int]:
        return [len(t["hands"]) for t in self.doc()["tables"]]

    def board(self, table: int) -> dict:
        """What table's board holds: round, names, hands, totals (each evening reads its boards its way)."""
        raise NotImplementedError

    def same_as_boards(self) -> dict:
        """The director's tables as the boards hold them, hand for hand and point for point."""
        doc = self.doc()
        for t in doc["tables"]:
            board = self.board(t["table"])
            assert board["round"] == doc["round"], (t["table"], board)
            assert board["names"] == t["names"], (t["table"], board)
            assert (len(t["hands"]), t["totals"]) == (board["hands"], board["totals"]), (t, board)
        return doc

    def close(self) -> None:
        for proc in self.procs:
            proc.stop()
        stop_emulators(self.tmp)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
