"""What tallyboard's servers on the club's network share: the evening's page
(evening/web.py) and the embedded MQTT broker (club/brokers.py) each log a run
of accept errors once, not at every retry, and each logs a crowd it turns
away once per burst, not once per connection (docs/security-findings.md,
issue 30's finding 4)."""
from __future__ import annotations

import asyncio
import time
from typing import Any


class AcceptErrors:
    """An asyncio loop's exception handler for a listening server: asyncio reports
    "socket.accept() out of system resource" (no file descriptor left: EMFILE) with a
    traceback at every retry of its listener, once a second for as long as it lasts;
    this logs the first of a run, and how many followed when the next run begins.
    Anything else goes to asyncio's own handler. `server` names it in the log lines
    ("the broker", "the page")."""

    QUIET_AFTER = 30.0       # seconds without one: the next one starts a new run, logged again

    def __init__(self, logger: Any, server: str) -> None:
        self.logger = logger
        self.server = server
        self.count = 0
        self.last = 0.0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if "out of system resource" not in str(context.get("message", "")):
            loop.default_exception_handler(context)
            return
        now = time.monotonic()
        if self.count and now - self.last > self.QUIET_AFTER:
            self.logger.warning("%s could accept again; %d more accept errors in that run", self.server,
                                self.count - 1)
            self.count = 0
        if not self.count:
            self.logger.error("%s cannot accept connections: %s (logged once until it can again)", self.server,
                              context.get("exception"))
        self.count += 1
        self.last = now
