"""An update over the air at the board's power-up (firmware/tallyboot.py, main.py; issue 43): main.py
asks for tallyboot's state file by name before importing it, so the two names are one."""
from __future__ import annotations

from pathlib import Path

import tallyboot

ROOT = Path(__file__).resolve().parent.parent


def test_main_asks_for_tallyboots_own_state_file():
    main = (ROOT / "firmware" / "main.py").read_text()
    assert f'stat("{tallyboot.STATE}")' in main
    assert f'== "{tallyboot.TRIAL}"' in main
