"""`tallyboard event serve`'s server without a browser: the page's files,
/snapshot.json and the server-sent events, on a loopback port, from a source
the test changes (uvicorn in a thread; every wait bounded)."""
from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest

from event_snapshots import held_hand_confirmed, two_tables
from waiting import until
from tallyboard.evening import web


class Served:
    """The app on a free loopback port, in a thread, until stop()."""

    def __init__(self, source, poll=0.05, heartbeat=15.0, limits=None):
        self.app = web.create_app(source, poll, heartbeat)
        self.sock = web.listen("127.0.0.1", 0)
        self.port = self.sock.getsockname()[1]
        # the server `event serve` runs, with its limits (the defaults, or the test's)
        self.server = web.page_server(self.app, limits or web.Limits())
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        until(lambda: self.server.started, 60, "the server starting", every=0.02)

    def stop(self):
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
        assert not self.thread.is_alive(), "the server did not stop in 10 s"

    def get(self, path, method="GET", host=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        try:
            conn.request(method, path, headers={"Host": host} if host else {})
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()


class Stream:
    """A client of /events reading whole messages, each read bounded."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        self.buffer = b""
        head = self._until(b"\r\n\r\n", 5)
        assert head.startswith(b"HTTP/1.1 200"), head
        assert b"content-type: text/event-stream" in head.lower()

    def _until(self, mark, seconds):
        def arrived():
            if mark in self.buffer:
                return True
            self.sock.settimeout(0.2)       # recv returns the moment bytes come: a read, not a sleep
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return False
            if not chunk:
                raise ConnectionError("the server closed the stream")
            self.buffer += chunk
            return mark in self.buffer

        until(arrived, seconds, f"a part ending in {mark!r}", every=0,
              explain=lambda: f"read so far: {self.buffer[-300:]!r}")
        part, self.buffer = self.buffer.split(mark, 1)
        return part

    def message(self, seconds=5.0):
        """The next event's text without chunked-encoding lines: (event, data)."""
        lines = []
        while True:
            raw = self._until(b"\n\n", seconds).decode()
            lines = [line for line in raw.split("\n") if line and not _is_chunk_size(line)]
            if lines:
                break
        kind = next((line[6:].strip() for line in lines if line.startswith("event:")), "message")
        data = "\n".join(line[5:].strip() for line in lines if line.startswith("data:"))
        comment = [line for line in lines if line.startswith(":")]
        return kind, data, comment

    def close(self):
        self.sock.close()


def _is_chunk_size(line):
    text = line.strip()
    return bool(text) and all(c in "0123456789abcdefABCDEF" for c in text) and not text.startswith(":")


class FakeSource:
    """The store's snapshot() stand-in: the test sets what it returns."""

    def __init__(self, doc):
        self.doc = doc
        self.calls = 0
        self.threads = set()
        self.fail = None

    def __call__(self):
        self.calls += 1
        self.threads.add(threading.current_thread().name)
        if self.fail:
            raise RuntimeError(self.fail)
        return self.doc


@pytest.fixture
def served():
    started = []

    def start(source, **kw):
        server = Served(source, **kw)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def public_view(doc):
    """The snapshot as the public page is sent it: every table without its
    board's device path (the director's views show those)."""
    return {**doc, "tables": [{k: v for k, v in t.items() if k != "board"} for t in doc["tables"]]}


def wait_for(predicate, seconds, what):
    until(predicate, seconds, what, every=0.02)


def test_the_page_and_its_files_are_served_read_only(served):
    server = served(FakeSource(two_tables()))
    status, headers, body = server.get("/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b'src="/page.js"' in body and b'href="/page.css"' in body
    assert b"http" not in body.replace(b"http-equiv", b"")   # nothing from another site (no CDN)
    assert "default-src 'self'" in headers["content-security-policy"]
    for path, kind in (("/page.js", "text/javascript"), ("/page.css", "text/css")):
        status, headers, body = server.get(path)
        assert status == 200 and headers["content-type"].startswith(kind) and body
    # nothing on the server changes the evening
    for path in ("/", "/snapshot.json", "/events"):
        assert server.get(path, "POST")[0] == 405
    assert server.get("/director")[0] == 404


def test_snapshot_json_is_the_newest_snapshot(served):
    source = FakeSource(two_tables())
    server = served(source)
    wait_for(lambda: source.calls >= 1, 60, "the first read of the source")
    wait_for(lambda: server.get("/snapshot.json")[0] == 200, 60, "the first snapshot")
    status, headers, body = server.get("/snapshot.json")
    assert json.loads(body) == public_view(two_tables()) and headers["cache-control"] == "no-store"
    source.doc = held_hand_confirmed()
    wait_for(lambda: json.loads(server.get("/snapshot.json")[2]) == public_view(held_hand_confirmed()), 60, "the change")


def test_events_push_the_snapshot_on_every_change_to_every_client(served):
    source = FakeSource(two_tables())
    server = served(source)
    wait_for(lambda: server.get("/snapshot.json")[0] == 200, 60, "the first snapshot")
    first, second = Stream(server.port), Stream(server.port)
    try:
        for stream in (first, second):
            assert stream.message()[1] == ""                   # retry: only
            kind, data, _ = stream.message()
            assert kind == "message" and json.loads(data) == public_view(two_tables())
            assert stream.message() == ("problem", '{"problem": null}', [])
        wait_for(lambda: server.app.state.feed.clients == 2, 60, "two clients")
        started = time.monotonic()
        source.doc = held_hand_confirmed()
        for stream in (first, second):
            kind, data, _ = stream.message(2.0)
            assert json.loads(data) == public_view(held_hand_confirmed())
        assert time.monotonic() - started < 2.0
    finally:
        first.close()
        second.close()
    # a client that went away is dropped
    wait_for(lambda: server.app.state.feed.clients == 0, 60, "the clients dropped")


def test_a_quiet_stream_gets_a_heartbeat(served):
    server = served(FakeSource(two_tables()), heartbeat=0.2)
    wait_for(lambda: server.get("/snapshot.json")[0] == 200, 60, "the first snapshot")
    stream = Stream(server.port)
    try:
        for _ in range(3):
            stream.message()
        kind, data, comment = stream.message(2.0)
        assert comment == [": still here"] and data == ""
    finally:
        stream.close()


def test_the_source_runs_in_one_worker_thread_and_its_failure_is_said(served):
    source = FakeSource(two_tables())
    server = served(source)
    wait_for(lambda: source.calls >= 3, 60, "three reads")
    assert len(source.threads) == 1 and threading.main_thread().name not in source.threads
    stream = Stream(server.port)
    try:
        for _ in range(3):
            stream.message()
        source.fail = "the archive is locked"
        kind, data, _ = stream.message(2.0)
        if kind == "message":              # the snapshot is sent again with the problem
            kind, data, _ = stream.message(2.0)
        assert (kind, json.loads(data)) == ("problem", {"problem": "the archive is locked"})
        # the last snapshot is still served
        assert json.loads(server.get("/snapshot.json")[2]) == public_view(two_tables())
        source.fail = None
        kind, data, _ = stream.message(2.0)
        kind, data, _ = stream.message(2.0) if kind == "message" else (kind, data, _)
        assert json.loads(data) == {"problem": None}
    finally:
        stream.close()


def test_no_snapshot_yet_is_a_503_saying_why(served):
    source = FakeSource(two_tables())
    source.fail = "no event in progress"
    server = served(source)
    wait_for(lambda: source.calls >= 1, 60, "the first read")
    wait_for(lambda: server.get("/snapshot.json")[0] == 503, 60, "the 503")
    assert json.loads(server.get("/snapshot.json")[2]) == {"error": "no event in progress"}


def test_serve_says_a_port_in_use_or_a_bad_snapshot_in_one_line(tmp_path):
    from click.testing import CliRunner

    from tallyboard.cli import main

    snapshot = tmp_path / "s.json"
    snapshot.write_text(json.dumps(two_tables()), encoding="utf-8")
    taken = web.listen("127.0.0.1", 0)
    try:
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["event", "serve", "--snapshot", str(snapshot), "--port", str(port)])
    finally:
        taken.close()
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (f"tallyboard: cannot listen on 127.0.0.1 port {port} (Address already in use): "
                             "choose another with --port, or stop what uses it\n")
    snapshot.write_text('{"format": "tallyboard/1"}', encoding="utf-8")
    result = CliRunner().invoke(main, ["event", "serve", "--snapshot", str(snapshot), "--port", "0"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == f"tallyboard: {snapshot}: not a club evening's snapshot (its format should be tallyboard-event-view/1)\n"


def test_no_device_path_reaches_the_public_page(served):
    source = FakeSource(two_tables())
    assert "/dev/ttyACM0" in json.dumps(two_tables())    # the director's snapshot has them
    server = served(source)
    wait_for(lambda: server.get("/snapshot.json")[0] == 200, 60, "the first snapshot")
    for path in ("/", "/snapshot.json"):
        assert b"/dev/tty" not in server.get(path)[2], path


def test_the_first_html_carries_the_snapshot_even_before_the_first_read_ends(served):
    """The page's first request waits for the first snapshot (a slow board
    read) and carries it: the page is never drawn empty."""
    release = threading.Event()
    source = FakeSource(two_tables())

    def slow():
        assert release.wait(10), "the test never released the source"
        return source()

    server = served(slow)
    answers = []
    asking = threading.Thread(target=lambda: answers.append(server.get("/")), daemon=True)
    asking.start()
    wait_for(lambda: len(server.server.server_state.tasks) >= 1, 60, "the page's request at the server")
    assert not answers and server.app.state.feed.text is None   # it waits: no snapshot yet
    release.set()
    asking.join(10)
    status, _, body = answers[0]
    assert status == 200
    html = body.decode()
    block = html.split('<script type="application/json" id="snapshot">', 1)[1].split("</script>", 1)[0]
    assert json.loads(block) == public_view(two_tables())


def test_a_name_cannot_end_the_snapshot_block(served):
    doc = two_tables()
    doc["players"][0] = "</script><script>alert(1)</script>"
    server = served(FakeSource(doc))
    wait_for(lambda: server.get("/snapshot.json")[0] == 200, 60, "the first snapshot")
    html = server.get("/")[2].decode()
    assert html.count("</script>") == 2     # the data block's and page.js's own: no third from the name
    block = html.split('id="snapshot">', 1)[1].split("</script>", 1)[0]
    assert json.loads(block)["players"][0] == "</script><script>alert(1)</script>"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8000", "[::1]:8000", "localhost:8000", "192.168.1.20:8000",
                                  "tv.club.example"])
def test_the_page_answers_by_address_local_names_and_names_allowed(host):
    names = web.local_names() | {"tv.club.example"}
    assert web.allowed_host(host, names)


def test_a_rebound_name_is_refused_with_what_to_do(served):
    """DNS rebinding: another site's name pointing at this machine. The browser
    sends that name as Host; the server refuses it before any data."""
    server = served(FakeSource(two_tables()))
    wait_for(lambda: server.get("/snapshot.json")[0] == 200, 60, "the first snapshot")
    for path in ("/", "/snapshot.json", "/events"):
        status, _, body = server.get(path, host="attacker.example:8000")
        assert status == 400 and b"--allowed-host" in body and b"Ann" not in body, path
    assert server.get("/snapshot.json", host="localhost:8000")[0] == 200


def test_a_change_while_a_client_is_sent_the_last_one_is_never_missed(served):
    """The race that left the page empty: the snapshot published while the
    stream was handing the client the previous message. Every change must
    reach an open stream within a poll or two, not at the next heartbeat."""
    source = FakeSource(two_tables())
    server = served(source, poll=0.01, heartbeat=30.0)
    wait_for(lambda: server.get("/snapshot.json")[0] == 200, 60, "the first snapshot")
    stream = Stream(server.port)
    try:
        for turn in range(30):
            doc = two_tables()
            doc["updated"] = f"2026-11-25T06:{turn:02d}:00"
            source.doc = doc

            def reached(doc=doc):
                kind, data, _ = stream.message(2.0)      # a read of the stream, no sleep between
                return kind == "message" and data and json.loads(data)["updated"] == doc["updated"]

            until(reached, 60, f"change {turn} on the open stream", every=0)
    finally:
        stream.close()


def test_serve_for_one_laptop_starts_no_broker_unless_asked():
    """Issue 23: plain `event serve` printed an MQTT URL with the table
    password; a broker is started only for --club, --broker-listen or
    --broker-port, and --no-broker with one of them is a usage error."""
    import click

    from tallyboard.commands.evening_views import chosen_broker

    assert chosen_broker(None, False, None, None, None) is None
    assert chosen_broker(None, False, None, None, None, club=False) is None
    assert chosen_broker(None, False, None, None, 0).port == 0       # --broker-port 0: any free port
    club = chosen_broker(None, False, None, None, None, club=True)
    assert (club.url, club.listen, club.port) == (None, "127.0.0.1", 0)
    wide = chosen_broker(None, False, None, "0.0.0.0", None)
    assert (wide.url, wide.listen) == (None, "0.0.0.0")
    assert chosen_broker(None, False, None, None, 1883).port == 1883
    assert chosen_broker("mqtt://director:pw@broker.club:1883", False, None, None, None).url.startswith("mqtt://")
    with pytest.raises(click.UsageError, match="--no-broker with --broker, --club"):
        chosen_broker(None, True, None, None, None, club=True)

