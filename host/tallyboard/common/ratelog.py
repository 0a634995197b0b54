"""Log lines a stranger can cause, written once per source per interval with a count (issue 40, finding 4:
a flood of 900 junk messages wrote 793 lines of the director's log for the attacker).

    refusals = RateLog(logging.getLogger(__name__), "refused")
    refusals.note("t2", "refused %s: %s", topic, why)   # the first from t2 in a minute: logged as it is
    ...                                                 # the next ones: counted
    # the next note from t2 after the minute, or flush(), writes "refused: 57 more from t2 in the last
    # 60 s (the last: refused ...: ...)", then the new one

Sources are bounded (MAX_SOURCES; past them, the oldest's count is written and it is forgotten), so a
stranger with many addresses cannot grow the table either. Thread-safe: paho's thread and the server's
loop may both refuse."""
from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from typing import Any, Callable

INTERVAL_S = 60.0
MAX_SOURCES = 256


class RateLog:
    def __init__(self, logger: logging.Logger, what: str, interval: float = INTERVAL_S,
                 level: int = logging.WARNING, clock: Callable[[], float] = time.monotonic) -> None:
        self.logger, self.what, self.interval, self.level, self.clock = logger, what, interval, level, clock
        self._sources: OrderedDict[str, list[Any]] = OrderedDict()   # source: [since, count held, last text]
        self._lock = threading.Lock()

    def note(self, source: str, message: str, *args: Any) -> None:
        """One refusal (or the like) from `source`: logged if it is the first of its interval, else counted."""
        now = self.clock()
        with self._lock:
            entry = self._sources.get(source)
            if entry is not None and now - entry[0] < self.interval:
                entry[1] += 1
                entry[2] = (message, args)
                return
            if entry is not None:
                self._summary(source, entry, now)
            self._sources[source] = [now, 0, None]
            self._sources.move_to_end(source)
            while len(self._sources) > MAX_SOURCES:
                oldest, old_entry = self._sources.popitem(last=False)
                self._summary(oldest, old_entry, now)
        self.logger.log(self.level, message, *args)

    def flush(self) -> None:
        """Write every source's count still held (at the end of a run)."""
        now = self.clock()
        with self._lock:
            for source, entry in self._sources.items():
                self._summary(source, entry, now)
            self._sources.clear()

    def _summary(self, source: str, entry: list[Any], now: float) -> None:
        since, count, last = entry
        if count:
            text = last[0] % last[1] if last[1] else last[0]
            self.logger.log(self.level, "%s: %d more from %s in the last %.0f s (the last: %s)", self.what, count,
                            source, min(now - since, self.interval), text[:300])
