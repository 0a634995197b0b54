"""Output that cannot be written is one line, "cannot write PATH: reason" (or
"cannot write to standard output: reason"), and exit status 1, never a
traceback; an output file is written in place of what PATH names: through a
symlink onto its target, straight into a device or a FIFO, and a regular
file by write-then-rename so a failed write leaves the old file whole."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from tallyboard.common import files
from tallyboard.cli import main

pytestmark = [pytest.mark.emulator, pytest.mark.process]

ROOT = Path(__file__).resolve().parent.parent
DEMO_ROQUET = ROOT / "host" / "tallyboard" / "data" / "demo_roquet.json"
DEMO_SKICKET = ROOT / "host" / "tallyboard" / "data" / "demo_skicket.json"


def tallyboard(*args: str, stdout=None, env: dict | None = None) -> subprocess.CompletedProcess:
    """The CLI in its own process, so standard output can be /dev/full."""
    return subprocess.run([sys.executable, "-m", "tallyboard.cli", *args], stdout=stdout or subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=120, env=env)


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


# ---------------------------------------------------------------- standard output

@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("args", [(), ("--json",)], ids=["table", "json"])
def test_sheet_to_a_full_disk(args, unbuffered):
    env = dict(os.environ, PYTHONUNBUFFERED=unbuffered)
    with open("/dev/full", "w") as full:
        result = tallyboard("sheet", str(DEMO_SKICKET), *args, stdout=full, env=env)
    assert result.returncode == 1
    assert one_line(result.stderr) == "tallyboard: cannot write to standard output: No space left on device"


def test_archive_list_to_a_full_disk(tmp_path):
    archive = str(tmp_path / "a.sqlite3")
    assert tallyboard("archive", "add", str(DEMO_ROQUET), "--archive", archive).returncode == 0
    with open("/dev/full", "w") as full:
        result = tallyboard("archive", "export", "1", "--archive", archive, stdout=full)
    assert result.returncode == 1
    assert one_line(result.stderr) == "tallyboard: cannot write to standard output: No space left on device"


@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "unbuffered"])
def test_a_closed_pipe_ends_quietly(unbuffered):
    # `tallyboard sheet ... | head -1`: the reader left on purpose; exit 1, nothing said
    reader, writer = os.pipe()
    os.close(reader)
    with os.fdopen(writer, "w") as pipe:
        result = tallyboard("sheet", str(DEMO_SKICKET), stdout=pipe, env=dict(os.environ, PYTHONUNBUFFERED=unbuffered))
    assert (result.returncode, result.stderr) == (1, "")


# ---------------------------------------------------------------- show --png / --svg

def test_show_into_a_missing_folder(tmp_path):
    for option, path in (("--png", "/nonexistent/x.png"), ("--svg", "/proc/x.svg"),
                         ("--svg", str(tmp_path / "no" / "x.svg"))):
        result = CliRunner().invoke(main, ["show", str(DEMO_ROQUET), option, path])
        assert result.exit_code == 1, (option, path, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert result.stdout == ""
        assert one_line(result.stderr) == f"tallyboard: cannot write {path}: No such file or directory"


def test_show_writes_through_a_symlink(tmp_path):
    target = tmp_path / "pictures" / "board.svg"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "latest.svg"
    link.symlink_to(target)
    result = CliRunner().invoke(main, ["show", str(DEMO_ROQUET), "--svg", str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().startswith("<svg")
    assert sorted(p.name for p in target.parent.iterdir()) == ["board.svg"]   # no .part left behind


def test_show_png_into_a_fifo(tmp_path):
    fifo = tmp_path / "picture"
    os.mkfifo(fifo)
    got = read_fifo(fifo)
    result = CliRunner().invoke(main, ["show", str(DEMO_ROQUET), "--png", str(fifo)])
    assert stat.S_ISFIFO(fifo.lstat().st_mode)     # not renamed over
    assert result.exit_code == 0, result.output
    assert got()[:8] == b"\x89PNG\r\n\x1a\n"


def read_fifo(fifo: Path):
    """Read a FIFO in the background; the returned function waits for its bytes."""
    chunks: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as f:
            chunks.append(f.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()

    def wait() -> bytes:
        thread.join(30)
        assert not thread.is_alive(), "nothing was written into the FIFO"
        return chunks[0]

    return wait


# ---------------------------------------------------------------- the one helper

def test_write_output_replaces_a_regular_file_whole(tmp_path):
    path = tmp_path / "game.json"
    path.write_text("old")
    path.chmod(0o600)
    files.write_output(path, "new\n")
    assert path.read_text() == "new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600     # the file keeps its permissions
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_write_output_through_symlinks(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "game.json"
    target.write_text("old")
    link = tmp_path / "game.json"
    link.symlink_to(target)
    chain = tmp_path / "chain.json"
    chain.symlink_to(link)
    files.write_output(chain, b"new")
    assert chain.is_symlink() and link.is_symlink()
    assert target.read_text() == "new"
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["game.json"]
    # a dangling symlink: the file it names is created
    dangling = tmp_path / "later.json"
    dangling.symlink_to(tmp_path / "real" / "later.json")
    files.write_output(dangling, "x")
    assert dangling.is_symlink() and (tmp_path / "real" / "later.json").read_text() == "x"


def test_write_output_into_devices_and_fifos(tmp_path):
    files.write_output("/dev/null", "nothing")          # written into, not renamed over
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = read_fifo(fifo)
    files.write_output(fifo, "through the pipe")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert got() == b"through the pipe"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]


@pytest.mark.parametrize("path,reason", [
    ("/nonexistent/dir/x.json", "No such file or directory"),
    ("/dev/full", "No space left on device"),
])
def test_write_output_errors_name_the_path(path, reason):
    with pytest.raises(files.FileError) as caught:
        files.write_output(path, "{}")
    assert str(caught.value) == f"cannot write {path}: {reason}"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode) and stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_write_output_to_a_folder(tmp_path):
    with pytest.raises(files.FileError) as caught:
        files.write_output(tmp_path, "{}")
    assert str(caught.value) == f"cannot write {tmp_path}: Is a directory"


def test_write_output_leaves_the_old_file_when_the_write_fails(tmp_path, monkeypatch):
    path = tmp_path / "game.json"
    path.write_text("old")

    def fail(fd: int) -> None:
        raise OSError(28, os.strerror(28))

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(files.FileError) as caught:
        files.write_output(path, "new")
    assert str(caught.value) == f"cannot write {path}: No space left on device"
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


# ---------------------------------------------------------------- export (on the emulator)

@pytest.fixture(scope="module")
def emulator_env(tmp_path_factory):
    """An environment whose --emulator has a Roquet game in progress."""
    env = dict(os.environ, TALLYBOARD_EMULATOR_HOME=str(tmp_path_factory.mktemp("emu")))
    for args in (("new", "roquet", "--name", "Ann", "--name", "Bob"), ("peg", "Ann", "7")):
        result = tallyboard(*args, "--emulator", env=env)
        assert result.returncode == 0, result.stderr
    return env


def test_export_to_a_full_disk(emulator_env):
    with open("/dev/full", "w") as full:
        result = tallyboard("export", "--emulator", stdout=full, env=emulator_env)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert "Traceback" not in result.stderr
    assert lines[-1] == "tallyboard: cannot write to standard output: No space left on device", result.stderr


def test_export_into_a_missing_folder(emulator_env, tmp_path):
    path = str(tmp_path / "no" / "x.json")
    result = tallyboard("export", "--emulator", "-o", path, env=emulator_env)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == f"tallyboard: cannot write {path}: No such file or directory"
    assert "Traceback" not in result.stderr


def test_export_through_a_symlink(emulator_env, tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "game.json"
    target.write_text("old")
    link = tmp_path / "game.json"
    link.symlink_to(target)
    assert tallyboard("export", "--emulator", "-o", str(link), env=emulator_env).returncode == 0
    assert link.is_symlink() and json.loads(target.read_text())["players"] == ["Ann", "Bob"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json", "real"]
