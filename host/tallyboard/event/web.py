"""`tallyboard event serve`: the club evening as a web page, read-only.

A Starlette app (served by uvicorn): `GET /` the page (page/, plain HTML,
CSS and JS, no build step and nothing from another site), `GET
/snapshot.json` the newest snapshot, `GET /events` server-sent events: the
snapshot each time it changes. One background task asks the source for the
snapshot about every 0.3 s, in a thread of its own so the server never
waits on the store or the boards; every client is sent the newest, a slow
one skips the versions it missed. A comment line every 15 s keeps proxies
from closing a quiet stream. Nothing on the page or the server changes the
evening: a director's changes are made at the host's command line."""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import socket
from importlib import resources
from typing import Any, AsyncIterator, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from .watch import check

POLL_SECONDS = 0.3
HEARTBEAT_SECONDS = 15.0
RETRY_MS = 1000       # how soon a browser reconnects after the stream drops
PAGE_FILES = {"/": ("index.html", "text/html; charset=utf-8"),
              "/page.css": ("page.css", "text/css; charset=utf-8"),
              "/page.js": ("page.js", "text/javascript; charset=utf-8")}
# The page loads only its own files and reads only this server.
HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
           "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


class Feed:
    """The newest snapshot and its version; clients wait on `changed`."""

    def __init__(self, source: Callable[[], dict[str, Any]], poll: float = POLL_SECONDS) -> None:
        self.source = source
        self.poll = poll
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

    async def run(self) -> None:
        """Ask the source for the snapshot every `poll` seconds, always in the
        same worker thread (a store's connection stays in its thread)."""
        loop = self.loop = asyncio.get_running_loop()
        with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="event-source") as worker:
            while True:
                try:
                    doc = await loop.run_in_executor(worker, self.source)
                    self._publish(json.dumps(check(doc), ensure_ascii=False, separators=(",", ":")), None)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:   # the page says it; the last snapshot stays shown
                    self._publish(None, str(exc) or type(exc).__name__)
                await asyncio.sleep(self.poll)

    def message(self) -> str:
        """The server-sent event for the current state."""
        lines = []
        if self.text is not None:
            lines.append(f"data: {self.text}\n\n")
        lines.append("event: problem\ndata: " + json.dumps({"problem": self.problem}) + "\n\n")
        return "".join(lines)


def create_app(source: Callable[[], dict[str, Any]], poll: float = POLL_SECONDS,
               heartbeat: float = HEARTBEAT_SECONDS) -> Starlette:
    """The app for one evening's source (a callable returning the newest
    snapshot document). `app.state.feed` is its Feed, once started."""
    page = resources.files(__package__).joinpath("page")

    async def page_file(request: Request) -> Response:
        name, kind = PAGE_FILES[request.url.path]
        return Response(page.joinpath(name).read_bytes(), media_type=kind, headers=HEADERS)

    async def snapshot_json(request: Request) -> Response:
        feed: Feed = request.app.state.feed
        if feed.text is None:
            return JSONResponse({"error": feed.problem or "no snapshot yet: try again in a moment"},
                                status_code=503, headers=HEADERS)
        return Response(feed.text, media_type="application/json", headers=HEADERS)

    async def events(request: Request) -> Response:
        feed: Feed = request.app.state.feed
        return StreamingResponse(_stream(feed, heartbeat), media_type="text/event-stream",
                                 headers={**HEADERS, "X-Accel-Buffering": "no"})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.feed = Feed(source, poll)
        task = asyncio.create_task(app.state.feed.run())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    routes = [Route(path, page_file, methods=["GET"]) for path in PAGE_FILES]
    routes += [Route("/snapshot.json", snapshot_json, methods=["GET"]),
               Route("/events", events, methods=["GET"])]
    return Starlette(routes=routes, lifespan=lifespan)


async def _stream(feed: Feed, heartbeat: float) -> AsyncIterator[str]:
    """One client's stream: what there is now, then the newest on every
    change, a comment when nothing changed for `heartbeat` seconds. Starlette
    ends it (and so drops the client) when the client goes away."""
    feed.clients += 1
    try:
        yield f"retry: {RETRY_MS}\n\n"
        seen = -1
        while not feed.closed:
            if seen != feed.version:
                seen = feed.version
                yield feed.message()
            changed = feed.changed
            try:
                await asyncio.wait_for(changed.wait(), heartbeat)
            except asyncio.TimeoutError:
                yield ": still here\n\n"
    finally:
        feed.clients -= 1


def listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound before the server starts, so a port in use
    is one clear error (OSError) rather than a log line."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def serve(source: Callable[[], dict[str, Any]], sock: socket.socket) -> None:
    """Serve on a bound socket until Ctrl-C (or SIGTERM). The open streams
    (a page left open) end at once, so the server stops cleanly instead of
    cancelling them after its grace period with a traceback."""
    import uvicorn

    app = create_app(source)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            super().handle_exit(sig, frame)
            feed = getattr(app.state, "feed", None)
            if feed is not None and feed.loop is not None:
                feed.loop.call_soon_threadsafe(feed.close)   # a signal handler: not in the loop

    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, lifespan="on")
    Server(config).run(sockets=[sock])
