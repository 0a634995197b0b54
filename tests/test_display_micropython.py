"""The display and input checks of tests/mp run under the MicroPython unix
port, where framebuf and micropython.heap_lock exist: OLED goldens, the
per-row redraw, and no allocation per LED frame or sheet redraw."""
import subprocess
from pathlib import Path

from tallyboard.mpunix import micropython_binary

ROOT = Path(__file__).resolve().parent.parent
MODULES = ("test_sheetview", "test_ledfield", "test_menu", "test_boarddef", "test_view")


def test_display_checks_pass_under_micropython():
    result = subprocess.run(
        [micropython_binary(), str(ROOT / "tests" / "mp" / "run.py"), str(ROOT / "firmware"), *MODULES],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert last.endswith(" 0 failed") and int(last.split()[0]) >= 30, last
