"""Log lines a stranger can cause are written once per source per minute, with a count (issue 40, finding
4; host/tallyboard/common/ratelog.py), on a clock the test moves."""
from __future__ import annotations

import logging

from tallyboard.common import ratelog


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_first_is_written_the_rest_counted_and_said_once_the_minute_is_over(caplog):
    clock = Clock()
    log = ratelog.RateLog(logging.getLogger("test.ratelog"), "refused", clock=clock)
    with caplog.at_level(logging.WARNING, "test.ratelog"):
        for n in range(900):                     # 900 junk messages from one table within a minute
            clock.now = 100.0 + n * 0.05         # 45 s in all
            log.note("t2", "refused %s: %s", "tallyboard/e/table/t2/hand", f"junk {n}")
        log.note("t3", "refused %s: %s", "tallyboard/e/table/t3/hand", "junk")     # another source: its own line
        clock.now = 170.0                         # past the minute: the next from t2 says the count first
        log.note("t2", "refused %s: %s", "tallyboard/e/table/t2/hand", "junk 900")
    assert [r.getMessage() for r in caplog.records] == [
        "refused tallyboard/e/table/t2/hand: junk 0",
        "refused tallyboard/e/table/t3/hand: junk",
        "refused: 899 more from t2 in the last 60 s (the last: refused tallyboard/e/table/t2/hand: junk 899)",
        "refused tallyboard/e/table/t2/hand: junk 900",
    ]


def test_flush_says_what_is_held_and_the_sources_are_bounded(caplog, monkeypatch):
    monkeypatch.setattr(ratelog, "MAX_SOURCES", 3)
    clock = Clock()
    log = ratelog.RateLog(logging.getLogger("test.ratelog2"), "refused", clock=clock)
    with caplog.at_level(logging.WARNING, "test.ratelog2"):
        for source in ("a", "a", "b", "c", "d"):   # a fourth source pushes the oldest (a, one held) out
            log.note(source, "from %s", source)
        clock.now += 5
        log.note("d", "from %s", "d")
        log.flush()
    assert [r.getMessage() for r in caplog.records] == [
        "from a", "from b", "from c",
        "refused: 1 more from a in the last 0 s (the last: from a)",
        "from d",
        "refused: 1 more from d in the last 5 s (the last: from d)",
    ]
