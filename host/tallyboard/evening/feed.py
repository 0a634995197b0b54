"""The live page's feed (web.py): the newest snapshot of a source, asked in one
worker thread, at once when the source pushes (a PushedSource: the evening's,
whose boards push their events and whose club link applies the table hosts'
messages), else every POLL_SECONDS; clients wait on its `changed`."""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
from typing import Any, Callable, Protocol, runtime_checkable

from .watch import check

POLL_SECONDS = 0.3     # how often a source that does not push is asked


def public(doc: dict[str, Any]) -> dict[str, Any]:
    """The snapshot as the public page gets it: the boards' device paths left out."""
    tables = doc.get("tables")
    if not isinstance(tables, list):
        return doc
    return {**doc, "tables": [_public_table(t) if isinstance(t, dict) else t for t in tables]}


def _public_table(t: dict[str, Any]) -> dict[str, Any]:
    """A table without its board's device path (nor in its link, for a board on the director's USB)."""
    out = {k: v for k, v in t.items() if k != "board"}
    link = out.get("link")
    if isinstance(link, dict) and link.get("kind") == "usb":
        out["link"] = {k: v for k, v in link.items() if k != "via"}
    return out


@runtime_checkable
class PushedSource(Protocol):
    """A source that says when to ask it: subscribe(wake) hands it a function it
    calls, from any thread, when what it returns may have changed; it is asked
    at least every `fallback` seconds besides."""

    fallback: float

    def __call__(self) -> dict[str, Any]:
        ...

    def subscribe(self, wake: Callable[[], None]) -> None:
        ...


class Feed:
    """The newest snapshot and its version; clients wait on `changed`."""

    def __init__(self, source: Callable[[], dict[str, Any]], poll: float = POLL_SECONDS) -> None:
        self.source = source
        self.poll = source.fallback if isinstance(source, PushedSource) else poll
        self.woken: asyncio.Event | None = None   # set by wake(): ask the source now
        self.text: str | None = None      # the snapshot as sent
        self.problem: str | None = None   # why the source failed last, until it answers again
        self.version = 0
        self.clients = 0
        self.changed = asyncio.Event()
        self.closed = False
        self.loop: asyncio.AbstractEventLoop | None = None

    def close(self) -> None:
        """The server is stopping: every stream ends now (in the loop's thread)."""
        self.closed = True
        self.changed.set()

    def _publish(self, text: str | None, problem: str | None) -> None:
        if text == self.text and problem == self.problem:
            return
        if text is not None:
            self.text = text
        self.problem = problem
        self.version += 1
        self.changed.set()
        self.changed = asyncio.Event()

    async def first(self, seconds: float) -> None:
        """Wait (at most `seconds`) until there is a snapshot, or the source failed."""
        deadline = asyncio.get_running_loop().time() + seconds
        while self.text is None and self.problem is None and not self.closed:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                return
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    def wake(self) -> None:
        """The source pushed: ask it again now. Called from any thread (a board's
        event, a table host's message applied); it only sets a flag in the loop,
        and the one worker reads the source (however many pushes came meanwhile:
        once, after the last)."""
        loop, woken = self.loop, self.woken
        if loop is None or woken is None:
            return
        with contextlib.suppress(RuntimeError):      # the loop has stopped: the server is going
            loop.call_soon_threadsafe(woken.set)

    async def run(self) -> None:
        """Ask the source for the snapshot whenever it pushes, and every `poll`
        seconds, always in the same worker thread (a store's connection stays in
        its thread)."""
        loop = self.loop = asyncio.get_running_loop()
        woken = self.woken = asyncio.Event()
        with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="event-source") as worker:
            if isinstance(self.source, PushedSource):
                await loop.run_in_executor(worker, self.source.subscribe, self.wake)
            while True:
                woken.clear()          # a push while the source is read: read again after
                try:
                    doc = await loop.run_in_executor(worker, self.source)
                    self._publish(json.dumps(public(check(doc)), ensure_ascii=False, separators=(",", ":")), None)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:   # the page says it; the last snapshot stays shown
                    self._publish(None, str(exc) or type(exc).__name__)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(woken.wait(), self.poll)

    def message(self) -> str:
        """The server-sent event for the current state."""
        lines = []
        if self.text is not None:
            lines.append(f"data: {self.text}\n\n")
        lines.append("event: problem\ndata: " + json.dumps({"problem": self.problem}) + "\n\n")
        return "".join(lines)
