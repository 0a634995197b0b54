"""The boards of an evening, side by side (tables.py): a round pushed to every
board, or every board read, a thread a board, at most MAX_AT_ONCE at a time;
and the store, called by one of those threads at a time whatever store it is."""
from __future__ import annotations

import concurrent.futures
import threading
from typing import Any, Callable, TypeVar

MAX_AT_ONCE = 16           # boards pushed a round, or read, at the same time (a thread each)

T = TypeVar("T")


class Serialized:
    """A store whose methods are called one at a time, from whichever thread:
    the boards are read and pushed side by side, and not every store (a table
    host's, the tests' stand-in) may be called from two threads at once."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._lock = threading.RLock()

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._store, name)
        if not callable(found):
            return found

        def called(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return found(*args, **kwargs)
        return called


class SideBySide:
    """A bounded pool of threads for the boards, made when first needed."""

    def __init__(self) -> None:
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None

    def run(self, tables: list[int], act: Callable[[int], T],
            expected: type[Exception] = Exception) -> dict[int, T | Exception]:
        """act(table) for each table, at most MAX_AT_ONCE at a time (one alone: in
        this thread): by table, what it returned or the `expected` error it raised;
        any other error is raised here once every table's act has ended."""
        out: dict[int, T | Exception] = {}
        if len(tables) > 1 and self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=MAX_AT_ONCE,
                                                               thread_name_prefix="evening-board")
        pool = self._pool if len(tables) > 1 else None
        futures = {table: pool.submit(act, table) for table in tables} if pool is not None else {}
        for table in tables:
            try:
                out[table] = futures[table].result() if pool is not None else act(table)
            except Exception as exc:
                out[table] = exc
        for outcome in out.values():
            if isinstance(outcome, Exception) and not isinstance(outcome, expected):
                raise outcome
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
