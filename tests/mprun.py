"""Running tests/mp under the real MicroPython unix port (tests/mp/run.py),
for test_micropython_port.py and test_display_micropython.py: each module runs
in exactly one of the two, and each run must pass every test function its
modules define, skipping none."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tallyboard.tooling.mpunix import micropython_binary

ROOT = Path(__file__).resolve().parent.parent
MP = ROOT / "tests" / "mp"
# the display and input checks: framebuf, the OLED goldens, the LED frame, the controls
DISPLAY_MODULES = ("test_sheetview", "test_sheet_chain", "test_ledfield", "test_menu", "test_entry", "test_boarddef", "test_view",
                   "test_inputs_idle", "test_game_switch", "test_confirm_panel", "test_confirm_rummy", "test_painter",
                   "test_whyview", "test_boardtest")


def all_modules() -> list[str]:
    return sorted(p.stem for p in MP.glob("test_*.py"))


def core_modules() -> list[str]:
    return [m for m in all_modules() if m not in DISPLAY_MODULES]


def test_functions(modules: list[str] | tuple[str, ...]) -> int:
    """How many test functions the modules define (run.py calls each once)."""
    return sum(len(re.findall(r"^def test_", (MP / f"{m}.py").read_text(), re.M)) for m in modules)


def run(modules: list[str] | tuple[str, ...], timeout: float = 300) -> str:
    """The closing line of run.py over the modules, after checking it passed."""
    result = subprocess.run([micropython_binary(), str(MP / "run.py"), str(ROOT / "firmware"), *modules],
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip().splitlines()[-1]
