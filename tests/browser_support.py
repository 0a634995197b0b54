"""Debian's headless Chromium for the tests marked `browser` (playwright drives it and never
downloads one): where it is and how it is started, in one place."""
from __future__ import annotations

from pathlib import Path

from machine import find, needs

CHROMIUM = Path(find("chromium").program)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
# how long a page may take to show what a test waits for: a guard against a hang, never the time a test
# takes (the wait ends as soon as the page shows it), generous for a machine ten times busier than a quiet one
WAIT_MS = 60_000
NEEDS_CHROMIUM = needs("chromium")     # a browser test's mark: skipped, saying why, where Chromium does not run
