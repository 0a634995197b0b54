"""The suite's one way to wait: on a condition, never on the clock.

A test that needs something to happen (a board's state, a line on a pipe, a
file, a server answering) asks until() for it: the check is asked again and
again, and the test goes on the moment it holds. The bound in seconds is only
how long to wait before calling it a failure, never how long a test takes."""
from __future__ import annotations

import time
from typing import Callable, Optional, TypeVar

T = TypeVar("T")


class NotInTime(AssertionError):
    """What until() raises: the condition named did not come within its bound."""


def until(check: Callable[[], T], seconds: float = 10.0, what: str = "the condition",
          explain: Optional[Callable[[], object]] = None, every: float = 0.05) -> T:
    """check()'s first truthy value, asked at once and then every `every` seconds (the last
    time once the bound has passed). When seconds pass without one: AssertionError (NotInTime)
    naming what did not come within the bound, and explain()'s words on what was there instead."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            break
        time.sleep(every)
    message = f"{what} did not come within {seconds:g} s"
    if explain is not None:
        message += f"\n{explain()}"
    raise NotInTime(message)
