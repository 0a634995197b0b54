"""The conformance tests' shared fixture (and its helpers): an emulated board that `tallyboard watch`
serves on its shared port (docs/protocol.md, Sharing the port)."""
from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import tbclient
from emu_fixtures import emulated_board, end_with_ctrl_c, until


class Terminal:
    """A pseudo-terminal for `watch` to draw on (a live view redraws on a terminal
    only); what it drew, its escape sequences taken out."""

    def __init__(self):
        self.master, self.slave = os.openpty()
        self.drawn = bytearray()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.drawn += chunk

    def lines(self):
        text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", bytes(self.drawn).decode(errors="replace"))
        return text.replace("\r", "\n").splitlines()

    def close(self):
        os.close(self.slave)
        os.close(self.master)
        self.reader.join(5)


def end_process(process):
    """SIGINT (a user's Ctrl-C); a process that does not end fails the test with its stacks."""
    end_with_ctrl_c(process, f"{' '.join(map(str, process.args[1:]))} (pid {process.pid})")


@contextlib.contextmanager
def watch_serving(tmp_path: Path):
    """An emulated board with `tallyboard watch` serving it: (emulator, watch, env, its terminal).
    XDG_RUNTIME_DIR is set for this process too while it lasts (the socket's rule reads it)."""
    run = tmp_path / "run"
    run.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_RUNTIME_DIR", str(run))
        env = dict(os.environ, XDG_RUNTIME_DIR=str(run), COLUMNS="100", LINES="60", TERM="xterm")
        with emulated_board(tmp_path / "flash") as (emulator, board):
            board.link.close()        # the port is watch's
            terminal = Terminal()
            watch = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "watch", "--plain", "--duration",
                                      "300", "-p", emulator.port], env=env, stdin=subprocess.DEVNULL,
                                     stdout=terminal.slave, stderr=terminal.slave)
            try:
                until(lambda: os.path.exists(tbclient.shared_socket_path(emulator.port))
                      or watch.poll() is not None, 20, "watch serving the port")
                assert watch.poll() is None, terminal.lines()
                # its first view drawn: it has opened its session and read the board
                until(lambda: any("No game on the board" in line for line in terminal.lines())
                      or watch.poll() is not None, 20, "watch's first view")
                assert watch.poll() is None, terminal.lines()
                yield emulator, watch, env, terminal
            finally:
                try:
                    end_process(watch)
                except AssertionError as exc:    # its stacks went to its terminal (stderr is the pty)
                    raise AssertionError(f"{exc}\nits terminal, last lines:\n" + "\n".join(terminal.lines()[-120:]))
                finally:
                    terminal.close()


@pytest.fixture
def watched(tmp_path):
    with watch_serving(tmp_path) as served:
        yield served


@pytest.fixture(scope="module")
def watched_all_along(tmp_path_factory):
    """One board and one watch for a whole module (the sixteen games in turn)."""
    with watch_serving(tmp_path_factory.mktemp("shared")) as served:
        yield served
