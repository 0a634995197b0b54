"""Debian's headless Chromium for the tests marked `browser` (playwright drives it and never
downloads one): where it is and how it is started, in one place."""
from __future__ import annotations

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
NO_CHROMIUM = "no /usr/bin/chromium: install Debian's chromium (apt-get install chromium)"
