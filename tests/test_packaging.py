"""A regular (non-editable) install carries everything the CLI needs: every
subpackage, the demo data, and the board's file set (main.py, boot.py, the
core's sources, the emulator's stand-ins, the board definitions)."""
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_carries_the_cli_and_the_boards_file_set(tmp_path):
    # build from a copy: pip builds in the source tree and leaves build/ behind
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(source)],
                   check=True, capture_output=True, timeout=600)
    (wheel,) = tmp_path.glob("tallyboard-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        "tallyboard/cli.py",
        "tallyboard/commands/__init__.py",
        "tallyboard/commands/scoring.py",
        "tallyboard/games/__init__.py",
        "tallyboard/games/skicket.py",
        "tallyboard/data/demo_skicket.json",
        "tallyboard/event/web.py",
        "tallyboard/event/watch.py",
        "tallyboard/event/page/index.html",
        "tallyboard/event/page/page.css",
        "tallyboard/event/page/page.js",
        "tallycore/game.py",
        "tallycore/skicket.py",
        "tallyrun/protocol.py",
        "tallypanel/boarddef.py",
        "tallyboard/firmware_files/main.py",
        "tallyboard/firmware_files/boot.py",
        "tallyboard/firmware_files/tallycore/game.py",
        "tallyboard/firmware_files/tallyrun/app.py",
        "tallyboard/firmware_files/tallypanel/view.py",
        "tallyboard/firmware_files/emu/machine.py",
        "tallyboard/firmware_files/board/pico-reference.json",
    }
    assert expected <= names, sorted(expected - names)
    # every firmware source is in the board's file set
    for package in ("tallycore", "tallyrun", "tallypanel"):
        for path in (ROOT / "firmware" / package).glob("*.py"):
            assert f"tallyboard/firmware_files/{package}/{path.name}" in names
