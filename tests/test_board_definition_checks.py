"""Issue 10.4 (and 11.7): a board definition the board cannot run is refused
by CFG SET board, with the reason, and changes nothing; a definition that was
already set and is broken at boot is a note that `status` shows; `show
--emulator` draws with the board's own definition, and says "not valid" for a
broken one rather than "missing"; a definition for another chip is refused."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tallyboard.cli import main
from tallyboard.tooling.emulator import Emulator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "firmware"))
from tallypanel import boarddef  # noqa: E402


def run(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env)


def reference() -> dict:
    return json.loads((ROOT / "board" / "pico-reference.json").read_text())


@pytest.mark.emulator
@pytest.mark.process
def test_a_broken_or_wrong_definition_is_refused_and_a_broken_one_at_boot_is_a_note(tmp_path):
    flash = tmp_path / "flash"
    with Emulator(flash=flash) as emulator:
        (flash / "board" / "bad.json").write_text('{"name": "bad", "leds": ')
        wrong = reference()
        wrong["name"] = "wrong"
        wrong["leds"]["count"] = "many"
        (flash / "board" / "wrong.json").write_text(json.dumps(wrong))
        out = run("config", "set", "board", "bad", "-p", emulator.port)
        assert out.exit_code == 2
        assert "board: board/bad.json is not valid JSON; the setting is unchanged" in out.output, out.output
        out = run("config", "set", "board", "wrong", "-p", emulator.port)
        assert "board: leds.count must be a whole number" in out.output, out.output
        assert run("config", "get", "board", "-p", emulator.port).output == "pico-reference\n"
        assert "the board noted" not in run("status", "-p", emulator.port).output
    # a definition broken after it was set (a bad deploy, a damaged file):
    # the board starts without its display, and says why where people look
    (flash / "config.txt").write_text("board bad\n")
    home = tmp_path / "emu"
    env = dict(os.environ, TALLYBOARD_EMULATOR_HOME=str(home))
    proc = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "emulate", "--flash", str(flash)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = proc.stdout.readline().strip()
        assert port.startswith("/dev/"), proc.stderr.read() if proc.poll() is not None else port
        short = {"TALLYBOARD_EMULATOR_HOME": str(home)}
        status = run("status", "--emulator", env=short)
        assert status.exit_code == 0, status.output
        assert ("the board noted: board: board/bad.json is not valid JSON; "
                "set another with config set board NAME") in status.output, status.output
        new = run("new", "roquet", "--emulator", env=short)
        assert new.exit_code == 0
        assert "the board has noted 1 problem since it started: see tallyboard status" in new.output
        shown = run("show", "--emulator", "--png", str(tmp_path / "b.png"), env=short)
        assert shown.exit_code != 0
        assert "the board's own definition: board: " in shown.output and "not valid JSON" in shown.output
        assert "no definition" not in shown.output
        assert not (tmp_path / "b.png").exists()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise


def test_a_definition_for_another_chip_is_refused(tmp_path):
    other = reference()
    other["mcu"] = "rp2350"
    (tmp_path / "next.json").write_text(json.dumps(other))
    assert boarddef.find("next", str(tmp_path)).mcu == "rp2350"       # the emulator plays any chip
    with pytest.raises(ValueError) as info:
        boarddef.find("next", str(tmp_path), "rp2040")
    assert str(info.value) == "board: next.json is for an rp2350, and this board is an rp2040"
