"""Watching does not block the other commands (issue: "watch in one terminal,
enter hands in another"): `watch` serves its board's port to the other
tallyboard processes, which reach the board through it; a port another
program holds is named in the error."""
from __future__ import annotations

import pytest
import os
import re
import subprocess
import sys
import threading

from click.testing import CliRunner
from emu_fixtures import emulated_board, end_with_ctrl_c, until

from tallyboard.cli import main

pytestmark = [pytest.mark.emulator, pytest.mark.process]


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")


def run(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env)


def test_watch_in_one_process_and_scoring_in_others(tmp_path):
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path / "run"), COLUMNS="100", PYTHONUNBUFFERED="1",
               TTY_COMPATIBLE="1", FORCE_COLOR="1", NO_COLOR="1")   # rich draws each update, as on a terminal
               # (TTY_COMPATIBLE since rich 14, FORCE_COLOR before; NO_COLOR: no colour codes)
    (tmp_path / "run").mkdir()
    with emulated_board(tmp_path / "flash") as (emulator, board):
        board.link.close()        # the commands open the port themselves
        port = emulator.port
        watch = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "watch", "--plain", "--duration", "60",
                                  "-p", port], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines: list[str] = []      # watch's output, its cursor moves taken out

        def read() -> None:
            for line in iter(watch.stdout.readline, ""):
                lines.append(ANSI.sub("", line))
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            home = {"XDG_RUNTIME_DIR": str(tmp_path / "run")}
            served = tmp_path / "run" / "tallyboard"

            def serving() -> bool:                        # watch has the port and serves it
                if list(served.glob("*.sock")):
                    return True
                assert watch.poll() is None, watch.communicate()
                return False

            until(serving, 60, "watch serving its port", every=0.2)
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
            # watch redraws on the board's events: the live sheet's totals row, Ann 5, Bob 3
            until(lambda: any(line.split()[-2:] == ["5", "3"] for line in list(lines) if "Total" in line),
                  20, "watch's sheet with the totals 5 3")
        finally:
            try:
                end_with_ctrl_c(watch, "tallyboard watch")
            finally:
                reader.join(timeout=5)
                errors = watch.stderr.read()
                watch.stderr.close()
        shown = "".join(lines)
        assert "Ann" in shown and "Bob" in shown, shown + errors
        # watch has stopped: the port is a plain port again
        out = run("status", "-p", port, env=home)
        assert out.exit_code == 0, out.output
