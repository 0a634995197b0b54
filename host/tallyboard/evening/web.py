"""`tallyboard event serve`: the club evening as a web page, read-only.

A Starlette app (served by uvicorn): `GET /` the page (page/, plain HTML,
CSS and JS, no build step and nothing from another site), `GET
/snapshot.json` the newest snapshot, `GET /events` server-sent events: the
snapshot each time it changes. One background task asks the source for the
snapshot, in a thread of its own so the server never waits on the store or
the boards: at once when the source pushes (a PushedSource: the evening's,
whose boards push their events and whose club link applies the table hosts'
messages), else about every 0.3 s, and a source that pushes at least every
few seconds anyway (its `fallback`). Every client is sent the newest, a
slow one skips the versions it missed. A comment line every 15 s keeps proxies
from closing a quiet stream. Nothing on the page or the server changes the
evening: a director's changes are made at the host's command line.

The page is public: its first HTML carries the newest snapshot (so it is
never drawn empty), and the snapshot it is sent has no device paths (those
are for the director's own views, `event status` and `watch`). Every
request's `Host` must be this machine (an IP address, localhost, its host
name) or one given with --allowed-host: a page on another site cannot read
the standings through DNS rebinding.

Its connections are bounded (Limits, page_server): a request's line,
headers and body must all come within HEADER_SECONDS, an idle connection is closed
after IDLE_SECONDS, one address holds at most MAX_PER_ADDRESS connections
and the page at most a quarter of the process's file descriptors (raised as
far as the system allows), of which an address that has never sent a whole
request may use three quarters; a connection over a cap is answered 503 and
closed, and each cap reached and each run of accept errors is logged once. A stream of /events has no timer:
it lasts as long as its page is open."""
from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from collections import OrderedDict
from dataclasses import dataclass
from importlib import resources
from typing import Any, AsyncIterator, Callable

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from ..common.listeners import AcceptErrors
from .feed import POLL_SECONDS, Feed, public  # noqa: F401  (public: the snapshot as the page gets it)
FIRST_SNAPSHOT_SECONDS = 10.0   # how long the page's first request waits for a snapshot
HEARTBEAT_SECONDS = 15.0
RETRY_MS = 1000       # how soon a browser reconnects after the stream drops
PAGE_FILES = {"/": ("index.html", "text/html; charset=utf-8"),
              "/page.css": ("page.css", "text/css; charset=utf-8"),
              "/page.js": ("page.js", "text/javascript; charset=utf-8")}
# The page loads only its own files and reads only this server.
HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
           "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


def local_names() -> set[str]:
    """The host names this machine answers to (besides any IP address)."""
    names = {"localhost"}
    with contextlib.suppress(OSError):
        name = socket.gethostname().lower()
        names |= {name, name + ".local", name.split(".")[0]}
    with contextlib.suppress(OSError):
        names.add(socket.getfqdn().lower())
    return names


def allowed_host(host_header: str, names: set[str]) -> bool:
    """Whether a request's Host names this machine: an IP address (a browser
    sends a name, never an address, for a rebound one), or one of `names`
    (a leading "*." matches any subdomain)."""
    host = host_header.strip().lower()
    if host.startswith("["):
        host = host[1:host.find("]")] if "]" in host else host
    elif host.count(":") == 1:
        host = host.split(":")[0]
    with contextlib.suppress(ValueError):
        ipaddress.ip_address(host)
        return True
    host = host.rstrip(".")
    return host in names or any(n.startswith("*.") and host.endswith(n[1:]) for n in names)


class HostCheck:
    """Refuse (400) a request whose Host header is not this machine: the
    page's guard against DNS rebinding (like Starlette's TrustedHostMiddleware,
    with every IP address allowed)."""

    def __init__(self, app: Any, names: set[str]) -> None:
        self.app, self.names = app, names

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            host = Headers(scope=scope).get("host", "")
            if not allowed_host(host, self.names):
                response = PlainTextResponse(
                    f"This page is not served under the name {host!r}: open it by this machine's address, "
                    "or start `tallyboard event serve --allowed-host NAME`.", status_code=400)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def first_html(template: str, feed: "Feed") -> str:
    """index.html with the newest snapshot in it (a JSON data block, never
    run as a script; "<" escaped so no name can end the block)."""
    data = (feed.text or "null").replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    block = f'<script type="application/json" id="snapshot">{data}</script>\n'
    return template.replace("</head>", block + "</head>", 1)


def create_app(source: Callable[[], dict[str, Any]], poll: float = POLL_SECONDS,
               heartbeat: float = HEARTBEAT_SECONDS, allowed_hosts: tuple[str, ...] = ()) -> Starlette:
    """The app for one evening's source (a callable returning the newest
    snapshot document, asked every `poll` seconds; a PushedSource: whenever it
    pushes, and every its `fallback` seconds). `app.state.feed` is its Feed, once started;
    `allowed_hosts`: names besides this machine's the page may be opened by."""
    page = resources.files(__package__).joinpath("page")

    async def page_file(request: Request) -> Response:
        name, kind = PAGE_FILES[request.url.path]
        if name == "index.html":
            feed: Feed = request.app.state.feed
            await feed.first(FIRST_SNAPSHOT_SECONDS)
            html = first_html(page.joinpath(name).read_text(encoding="utf-8"), feed)
            return Response(html, media_type=kind, headers=HEADERS)
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
    names = local_names() | {h.strip().lower() for h in allowed_hosts if h.strip()}
    return Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(HostCheck, names=names)])


async def _stream(feed: Feed, heartbeat: float) -> AsyncIterator[str]:
    """One client's stream: what there is now, then the newest on every
    change, a comment when nothing changed for `heartbeat` seconds. Starlette
    ends it (and so drops the client) when the client goes away."""
    feed.clients += 1
    try:
        yield f"retry: {RETRY_MS}\n\n"
        seen = -1
        while not feed.closed:
            # the event to wait on is taken before yielding: a change while
            # the client is sent the last one is then never missed
            changed = feed.changed
            if seen != feed.version:
                seen = feed.version
                yield feed.message()
                continue
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


# --- the page's connections (docs/host.md, "serve": its limits; issue 30's finding 4) ----------------

# A crowd from a few dozen addresses must not keep the page from a club's members (issue 40, finding 3: 17
# addresses x 16 sockets, held open and reopened, got 503 for 127 of 129 page requests under caps of 16 and
# 256). One address holds what one browser opens to a host (6, its /events stream among them); the page
# holds a quarter of the process's file descriptors, which serve raises to what the system allows
# (raise_descriptor_limit), up to MAX_CONNECTIONS: a crowd then needs MAX_CONNECTIONS / 6 = 170 addresses.
# An address that has never sent a whole request may use only three quarters of it: the last quarter is
# kept for those that have (a page loaded before), so sockets that never finish a request cannot fill it.
HEADER_SECONDS = 5.0          # a request (line, headers, any body) must all come within this of its first byte
IDLE_SECONDS = 5              # a connection with no request this long after a response is closed (uvicorn's keep-alive)
MAX_HEADER_BYTES = 16 * 1024  # a request's line and headers (h11's limit; over it: 400 and closed)
MAX_PER_ADDRESS = 6           # one address's connections: what a browser opens to one host, each tab's /events among them
MAX_CONNECTIONS = 1024        # the whole page, and at most a quarter of the process's file descriptors
MIN_CONNECTIONS = 16          # ... but never fewer than this
KNOWN_ADDRESSES = 4096        # addresses remembered as having sent a whole request (the oldest forgotten first)


def raise_descriptor_limit(most: int = 4 * MAX_CONNECTIONS + 1024) -> int:
    """Raise this process's file-descriptor limit (RLIMIT_NOFILE's soft limit) towards `most`, as far as its
    hard limit lets it (many systems start a process at 1024 with a far higher hard limit); the limit then."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = most if hard == resource.RLIM_INFINITY else min(most, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return descriptor_limit()


def descriptor_limit() -> int:
    """How many files this process may have open (RLIMIT_NOFILE's soft limit; none: a large number)."""
    import resource

    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 1 << 20 if soft == resource.RLIM_INFINITY else int(soft)


@dataclass(frozen=True)
class Limits:
    """How much of the machine the page's clients may hold (tests shorten the times)."""
    header_seconds: float = HEADER_SECONDS
    idle_seconds: int = IDLE_SECONDS
    per_address: int = MAX_PER_ADDRESS
    total: int = MAX_CONNECTIONS
    descriptors: int = 0          # the file-descriptor limit `total` was taken from (0: not from one)

    @classmethod
    def for_this_process(cls, descriptors: int | None = None) -> "Limits":
        """The page's limits with `total` a quarter of the file descriptors this process may
        open (16 to MAX_CONNECTIONS): the other three quarters stay for the evening's store,
        the boards and, with --club, the embedded broker's connections, so that no crowd at
        the page keeps the director from applying a table's messages."""
        descriptors = descriptor_limit() if descriptors is None else descriptors
        return cls(total=max(MIN_CONNECTIONS, min(MAX_CONNECTIONS, descriptors // 4)), descriptors=descriptors)


class Crowd:
    """The page's open connections, by address and in all; a connection over a cap
    is answered 503 and closed at once. Each cap reached is logged once, and how
    many were turned away when it is over (an address: when it has no connection
    left; the page: when it is down to half), not a line per connection."""

    def __init__(self, limits: Limits, logger: logging.Logger) -> None:
        self.limits = limits
        self.logger = logger
        self.by_address: dict[str, int] = {}
        self.total = 0
        self.turned_away: dict[str, int] = {}      # an address, or "" for the page: closed since its log line
        self.known: OrderedDict[str, None] = OrderedDict()    # addresses that have sent a whole request

    def remember(self, address: str) -> None:
        """An address has sent a whole request: it may use the part of the page kept for those."""
        self.known[address] = None
        self.known.move_to_end(address)
        if len(self.known) > KNOWN_ADDRESSES:
            self.known.popitem(last=False)

    def admit(self, address: str) -> str | None:
        """None: the connection is counted, and must be let go (release) when it ends;
        else why it is refused, in the words the client is answered with."""
        known = address in self.known
        if self.total >= (self.limits.total if known else self.limits.total * 3 // 4):
            self._turn_away("", f"the page has {self.total} of its {self.limits.total} connections open"
                            + (f" (a quarter of the {self.limits.descriptors} files this process may open)"
                               if self.limits.descriptors else "") + "; closing new ones"
                            + ("" if known else " from addresses that have never sent a whole request"))
            return "The page has as many viewers as it can take: try again in a minute."
        if self.by_address.get(address, 0) >= self.limits.per_address:
            self._turn_away(address, f"{address} has {self.limits.per_address} connections to the page; "
                                     "closing new ones from it")
            return (f"This address has {self.limits.per_address} connections to the page open already: "
                    "close some of its tabs, then reload.")
        self.by_address[address] = self.by_address.get(address, 0) + 1
        self.total += 1
        return None

    def release(self, address: str) -> None:
        self.total -= 1
        left = self.by_address[address] - 1
        if left:
            self.by_address[address] = left
        else:
            del self.by_address[address]
            self._over(address, f"{address}: %d more connections were closed while it had "
                                f"{self.limits.per_address} open")
        if self.total <= self.limits.total // 2:
            self._over("", f"%d more connections were closed while the page had {self.limits.total}")

    def _turn_away(self, key: str, first: str) -> None:
        turned = self.turned_away.get(key, 0)
        if not turned:
            self.logger.warning("%s", first)
        self.turned_away[key] = turned + 1

    def _over(self, key: str, summary: str) -> None:
        turned = self.turned_away.pop(key, 0)
        if turned > 1:
            self.logger.warning(summary, turned - 1)


def _guarded_protocol(crowd: Crowd) -> type:
    """uvicorn's h11 protocol with the page's limits, for one server's `crowd`."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        """A connection over a cap is answered 503 and closed before uvicorn sees it; a
        request whose line, headers and body have not all come within header_seconds of
        its first byte (of the connection, for the first) is closed. Between requests
        uvicorn's keep-alive (idle_seconds) closes an idle connection. A request that has
        all come in (a page's /events stream, however long its answer) has no timer: only
        the caps bound it."""

        def connection_made(self, transport: asyncio.Transport) -> None:   # type: ignore[override]
            peer = transport.get_extra_info("peername")
            self.address = str(peer[0]) if peer else "?"
            self.header_timer: asyncio.TimerHandle | None = None
            refusal = crowd.admit(self.address)
            self.counted = refusal is None
            if refusal is not None:
                body = refusal.encode() + b"\n"
                transport.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                                b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
                transport.close()
                return
            super().connection_made(transport)
            self._time_the_header()

        def connection_lost(self, exc: Exception | None) -> None:
            if not self.counted:
                return
            self.counted = False
            self._stop_header_timer()
            crowd.release(self.address)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if not self.counted:
                return
            super().data_received(data)
            if self.conn.their_state is h11.DONE:
                crowd.remember(self.address)
            self._time_the_header()

        def _should_upgrade(self) -> bool:
            # the page speaks no WebSocket: an Upgrade header is answered as plain HTTP, unlogged, and the
            # connection never goes to another protocol (whose end the count above would not see)
            return False

        def _time_the_header(self) -> None:
            # the client's side is IDLE in h11 until a request's line and headers are all in, then SEND_BODY
            # until its body is (a GET has none: DONE at once)
            if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
                if self.header_timer is None:
                    self.header_timer = self.loop.call_later(crowd.limits.header_seconds, self._header_too_slow)
            else:
                self._stop_header_timer()

        def _stop_header_timer(self) -> None:
            if self.header_timer is not None:
                self.header_timer.cancel()
                self.header_timer = None

        def _header_too_slow(self) -> None:
            self.header_timer = None
            if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
                self.transport.close()

    # after a response, uvicorn's keep-alive closes the connection if no byte comes within idle_seconds; the
    # next request's header_seconds start with its first byte (data_received)
    return GuardedH11Protocol


def page_server(app: Starlette, limits: Limits | None = None) -> Any:
    """The uvicorn server for the page: h11 with the page's limits (`limits`, else
    Limits.for_this_process()), accept errors logged once per run, and every open
    stream ended at once when it is told to stop (Ctrl-C, SIGTERM), so it stops
    cleanly instead of cancelling them after its grace period with a traceback."""
    import uvicorn

    limits = limits or Limits.for_this_process()
    logger = logging.getLogger(__name__)
    crowd = Crowd(limits, logger)
    accept_errors = AcceptErrors(logger, "the page")

    class Server(uvicorn.Server):
        crowd: Crowd                  # its connections (tests read them)
        accept_errors: AcceptErrors   # its loop's handler of accept errors

        def handle_exit(self, sig: int, frame: Any) -> None:
            super().handle_exit(sig, frame)
            feed = getattr(app.state, "feed", None)
            if feed is not None and feed.loop is not None:
                feed.loop.call_soon_threadsafe(feed.close)   # a signal handler: not in the loop

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            asyncio.get_running_loop().set_exception_handler(accept_errors)
            await super().startup(sockets=sockets)

    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, lifespan="on",
                            loop="asyncio", http=_guarded_protocol(crowd), ws="none",
                            timeout_keep_alive=limits.idle_seconds,
                            h11_max_incomplete_event_size=MAX_HEADER_BYTES,
                            # asyncio accepts up to `backlog` connections in one go, each a file descriptor
                            # before any refused one is closed: a burst bigger than the process's limit
                            # ran out of them (EMFILE). Half the page's share a go leaves the rest room.
                            backlog=max(MIN_CONNECTIONS, limits.total // 2))
    server = Server(config)
    server.crowd, server.accept_errors = crowd, accept_errors
    return server


def serve(source: Callable[[], dict[str, Any]], sock: socket.socket, allowed_hosts: tuple[str, ...] = (),
          limits: Limits | None = None) -> None:
    """Serve on a bound socket until Ctrl-C (or SIGTERM), within `limits` (page_server)."""
    page_server(create_app(source, allowed_hosts=allowed_hosts), limits).run(sockets=[sock])
