"""Watching does not block the other commands (issue: "watch in one terminal,
enter hands in another"): `watch` serves its board's port to the other
tallyboard processes, which reach the board through it; a port another
program holds is named in the error."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from click.testing import CliRunner
from emu_fixtures import emulated_board

from tallyboard.cli import main


def run(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env)


def test_watch_in_one_process_and_scoring_in_others(tmp_path):
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path / "run"), COLUMNS="100")
    (tmp_path / "run").mkdir()
    with emulated_board(tmp_path / "flash") as (emulator, board):
        board.link.close()        # the commands open the port themselves
        port = emulator.port
        watch = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "watch", "--plain", "--duration", "60",
                                  "-p", port], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            home = {"XDG_RUNTIME_DIR": str(tmp_path / "run")}
            served = tmp_path / "run" / "tallyboard"
            deadline = time.monotonic() + 20
            while not list(served.glob("*.sock")):      # until watch has the port and serves it
                assert watch.poll() is None and time.monotonic() < deadline, watch.communicate()
                time.sleep(0.2)
            out = run("new", "roquet", "--name", "Ann", "--name", "Bob", "-p", port, env=home)
            assert out.exit_code == 0, out.output
            out = run("peg", "Ann", "5", "-p", port, env=home)
            assert out.exit_code == 0, out.output
            assert out.output == "roquet: Ann 5  Bob 0  (0 hands)\n"
            out = run("peg", "Bob", "3", "-p", port, env=home)
            assert out.output == "roquet: Ann 5  Bob 3  (0 hands)\n", out.output
            assert list(served.glob("*.sock")), "watch stopped serving its port"
            out = run("sheet", "--json", "-p", port, env=home)
            assert out.exit_code == 0, out.output
            assert '"totals": [\n  5,\n  3\n ]' in out.output or '"totals": [5, 3]' in out.output
            out = run("deploy", "-p", port, env=home)   # mpremote needs the port itself
            assert out.exit_code == 1
            assert f"is served to other commands by pid {watch.pid} (" in out.output, out.output
            time.sleep(1.0)             # watch redraws on the board's events
        finally:
            watch.send_signal(signal.SIGINT)
            try:
                shown, errors = watch.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                watch.kill()
                watch.communicate()
                raise
        assert "Ann" in shown and "Bob" in shown, shown + errors
        # the live sheet's totals row: Ann 5, Bob 3
        assert any(line.split()[-2:] == ["5", "3"] for line in shown.splitlines() if "Total" in line), shown
        # watch has stopped: the port is a plain port again
        out = run("status", "-p", port, env=home)
        assert out.exit_code == 0, out.output
