"""The display and input checks of tests/mp (mprun.DISPLAY_MODULES) run under
the MicroPython unix port, where framebuf and micropython.heap_lock exist:
OLED goldens, the per-row redraw, no allocation per LED frame or sheet redraw,
the controls and the game switch. test_micropython_port.py runs the others."""
import pytest
import mprun

pytestmark = [pytest.mark.emulator]


def test_display_checks_pass_under_micropython():
    modules = mprun.DISPLAY_MODULES
    assert mprun.run(modules, timeout=120) == f"{mprun.test_functions(modules)} passed, 0 failed, 0 skipped"
