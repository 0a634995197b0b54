"""The hub: the one owner of a board's serial port, serving it to every client
on a Unix socket (portshare.py says what it does for them; portsocket.py its
limits and paths)."""
from __future__ import annotations


import collections
import contextlib
import os
import selectors
import socket
import threading
import time

from tallyrun import protocol

from . import repl, wire
from ..common.errors import TransportError
from .portsocket import (CHUNK, TOO_LONG, Client, Request, check_request, listen, open_serial, peer_uid, socket_path,
                         wire_path)
from .transport import MAX_LINE, take_lines

# How long the board is kept for one client's request before the next client's goes out.
REPLY_WAIT_S = 5.0
GARBLED_WAIT_S = 0.25        # after `0 ERR` (a line the board could not trust), as client.py waits
QUEUE_PER_CLIENT = 8         # requests a client may have waiting; then its socket is not read
OUTBOX_LIMIT = 256 * 1024    # bytes waiting for a client that does not read; then it is closed
TAP_PART_WAIT_S = 0.5        # a part line on the port waits this long for its end, then goes to the wire tap
PROMPT_WAIT_S = 0.3          # the REPL's prompt after a request: no reply is coming; ask the REPL this soon
SAFE_MODE_ANSWER = ("safe mode: %s: the board's app is not running; power-cycle it without holding a button, "
                    "or stop the sharer and use mpremote to repair it")
_RECENT_WIRE = 256           # unanswered wire seqs remembered, to route a late reply
_READS = {row[0] for row in protocol.VERBS if not row[4]}   # the verbs that change nothing


def _may_change(text: bytes) -> bool:
    """Whether a request may be journaled as the board's last change (every verb but the reads)."""
    return text.split(b" ", 1)[0].upper() not in _READS


class Hub:
    """Owns the serial port and serves it on a Unix socket (see the module's text).
    One thread moves every byte; `local` is the owner's own connection."""

    def __init__(self, port: str) -> None:
        self.port = port
        self.serial = open_serial(port)
        self.failure: str | None = None
        self.closing = False
        try:
            board_fd = self.serial.fileno()
            if board_fd is None:
                raise TransportError(f"{port} cannot be shared on this system (no pollable descriptor)")
            self.path = socket_path(port)
            self.wire_path = wire_path(port)
            self.wire_listener, self.wire_inode = listen(self.wire_path)
            self.listener, self.path_inode = listen(self.path)
        except BaseException:
            with contextlib.suppress(AttributeError, OSError):
                self.wire_listener.close()
            self.serial.close()
            raise
        self.selector = selectors.DefaultSelector()
        self.clients: list[Client] = []
        self.turn = 0
        self.in_flight: Request | None = None
        self.recent: collections.OrderedDict[int, Request] = collections.OrderedDict()   # unanswered, by wire seq
        self.last_sent: Request | None = None      # the board's last request (its retry cache's)
        self.last_change: Request | None = None    # the last change it journaled, as far as the hub saw
        self.board_buffer = bytearray()
        self.safe_mode: str | None = None    # why, once the REPL said so (main.py's marker)
        self.watchers: list[Client] = []
        self._tap_part = {b">": bytearray(), b"<": bytearray()}
        self._tap_part_at = {b">": 0.0, b"<": 0.0}
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self.selector.register(self._wake_r, selectors.EVENT_READ, "wake")
        self.selector.register(self.listener, selectors.EVENT_READ, "listener")
        self.selector.register(self.wire_listener, selectors.EVENT_READ, "wire listener")
        self.selector.register(board_fd, selectors.EVENT_READ, "board")
        ours, theirs = socket.socketpair()
        self._add_client(ours)
        self.local = theirs
        self.thread = threading.Thread(target=self._run, daemon=True, name=f"sharing {port}")
        self.thread.start()

    # ------------------------------------------------------------ the loop
    def _run(self) -> None:
        try:
            while not self.closing:
                wait = None
                if self.in_flight is not None:
                    wait = max(0.0, self.in_flight.deadline - time.monotonic())
                parts = [at for direction, at in self._tap_part_at.items() if self._tap_part[direction]]
                if parts:
                    due = max(0.0, min(parts) + TAP_PART_WAIT_S - time.monotonic())
                    wait = due if wait is None else min(wait, due)
                for key, mask in self.selector.select(wait):
                    if key.data == "wake":
                        with contextlib.suppress(OSError, KeyError, ValueError):
                            self._wake_r.recv(64)
                    elif key.data == "listener":
                        self._accept()
                    elif key.data == "wire listener":
                        self._accept(watcher=True)
                    elif key.data == "board":
                        self._read_board()
                    else:
                        client = key.data
                        if mask & selectors.EVENT_WRITE:
                            self._flush(client)
                        if mask & selectors.EVENT_READ and not client.gone:
                            self._read_client(client)
                if self.in_flight is not None and time.monotonic() >= self.in_flight.deadline:
                    self._give_up_in_flight()
                self._tap_stale_parts()
                self._send_next()
        except TransportError as exc:
            self.failure = str(exc)
        except Exception as exc:   # a bug here must not leave clients waiting on an open socket
            self.failure = f"the tallyboard process sharing {self.port} failed ({type(exc).__name__}: {exc})"
        finally:
            self._stop_listening()
            for client in list(self.clients) + list(self.watchers):
                self._drop(client, shut=True)
            self.selector.close()
            self.serial.close()
            self._wake_r.close()

    def _accept(self, watcher: bool = False) -> None:
        try:
            sock, _ = (self.wire_listener if watcher else self.listener).accept()
        except (BlockingIOError, InterruptedError):
            return
        if peer_uid(sock) not in (None, os.getuid()):
            sock.close()           # the folder is ours alone; a socket passed on is not
            return
        self._add_client(sock, watcher)

    def _add_client(self, sock: socket.socket, watcher: bool = False) -> None:
        client = Client(sock)
        client.watcher = watcher
        (self.watchers if watcher else self.clients).append(client)
        self._interest(client)

    def _drop(self, client: Client, shut: bool = False) -> None:
        """A client gone or closed: its waiting requests with it; one in flight
        finishes on the board and its reply is dropped."""
        if client.gone:
            return
        client.gone = True
        client.queue.clear()
        if client.events:
            with contextlib.suppress(OSError, KeyError, ValueError):
                self.selector.unregister(client.sock)
        if shut:
            with contextlib.suppress(OSError, KeyError, ValueError):
                client.sock.shutdown(socket.SHUT_RDWR)
        client.sock.close()
        if client in self.clients:
            self.clients.remove(client)
        if client in self.watchers:
            self.watchers.remove(client)

    def _interest(self, client: Client) -> None:
        """Read a client while its queue has room; write to it while it has an outbox."""
        if client.gone:
            return
        events = 0
        if len(client.queue) < QUEUE_PER_CLIENT:
            events |= selectors.EVENT_READ     # a watcher: read to see it go (what it sends is dropped)
        if client.outbox:
            events |= selectors.EVENT_WRITE
        if events == client.events:
            return
        if client.events:
            self.selector.unregister(client.sock)
        if events:
            self.selector.register(client.sock, events, client)
        client.events = events

    # ------------------------------------------------------------ clients -> board
    def _read_client(self, client: Client) -> None:
        try:
            data = client.sock.recv(CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._drop(client)
            return
        if client.watcher:
            return                  # the wire tap is read-only
        client.partial += data
        self._take_lines(client)

    def _take_lines(self, client: Client) -> None:
        """The client's whole lines, while its queue has room (the rest wait in
        its buffer, and its socket is not read meanwhile)."""
        while not client.gone and len(client.queue) < QUEUE_PER_CLIENT:
            end = client.partial.find(b"\n")
            if end < 0:
                if len(client.partial) >= protocol.MAX_FRAME:
                    if not client.skipping:
                        self._deliver(client, TOO_LONG)
                    client.skipping = True
                    client.partial.clear()
                break
            line = bytes(client.partial[:end])
            del client.partial[:end + 1]
            if client.skipping:
                client.skipping = False   # the end of the long line: the next one is heard
                continue
            if line.strip(b" \r"):
                self._request(client, line)
        if not client.gone:
            self._interest(client)

    def _request(self, client: Client, line: bytes) -> None:
        checked = check_request(line)
        if isinstance(checked, bytes):
            self._deliver(client, checked)
            return
        seq, crc, text = checked
        key = (seq, crc)
        if key in client.answers:                      # a retry of an answered request
            self._deliver(client, wire.encode_request(seq, client.answers[key]))
            return
        flying = self.in_flight
        if flying is not None and flying.client is client and (flying.seq, flying.crc) == key:
            self._write_board(flying.frame)            # a retry of the one in flight: the same bytes
            flying.deadline = time.monotonic() + REPLY_WAIT_S
            return
        if any((r.seq, r.crc) == key for r in client.queue):
            return                                     # already waiting its turn
        request = client.unanswered.pop(key, None)
        if request is None:
            request = Request(client, seq, crc, text)
            request.line = line[:-1] if line.endswith(b"\r") else line
        client.queue.append(request)

    def _send_next(self) -> None:
        """The next request on the wire, the clients taken in turn."""
        if self.in_flight is not None or self.failure:
            return
        waiting = [c for c in self.clients if c.queue]
        if not waiting:
            return
        if self.safe_mode is not None:
            # the REPL, not the app: nothing goes to it; each request answered at once with what the board is
            answer = b"ERR BOARD " + (SAFE_MODE_ANSWER % self.safe_mode).encode("ascii", "replace")
            for client in waiting:
                while client.queue:
                    request = client.queue.popleft()
                    self._deliver(client, wire.encode_request(request.seq, answer))
                self._take_lines(client)
            return
        self.turn = (self.turn + 1) % len(self.clients)
        order = self.clients[self.turn:] + self.clients[:self.turn]
        client = next(c for c in order if c.queue)
        request = client.queue.popleft()
        if not request.frame:
            self._wire_frame(request)
        self._fly(request)
        self._take_lines(client)

    def _wire_frame(self, request: Request) -> None:
        """The request as the client sent it, its seq its own: the board's reply is then
        the one it gives on the port, as long (a seq of other digits would make the board
        cut it shorter, or make it longer than a frame). But not when the board would take
        it for a retry of another's request (the same seq and checksum as its last one
        or its last change), nor give a late reply of another's to it (the same seq as
        one unanswered): then the next free seq of as many digits."""
        others = [r for r in (self.last_sent, self.last_change) if r is not None and r.client is not request.client]
        taken = {(r.wire_seq, r.wire_crc) for r in others}
        unanswered = {seq for seq, r in self.recent.items() if r.client is not request.client}
        seq, frame = request.seq, request.line + b"\n"
        low, high = 10 ** (len(str(seq)) - 1), min(10 ** len(str(seq)) - 1, protocol.MAX_SEQ)
        crc = request.crc
        for _ in range(high - low):
            if (seq, crc) not in taken and seq not in unanswered:
                break
            seq = seq + 1 if seq < high else low
            frame = wire.encode_request(seq, request.text)
            crc = int(frame[-5:-1], 16)
        request.wire_seq, request.wire_crc, request.frame = seq, crc, frame

    def _fly(self, request: Request) -> None:
        self.last_sent = request
        self.recent[request.wire_seq] = request
        self.recent.move_to_end(request.wire_seq)
        while len(self.recent) > _RECENT_WIRE:
            self.recent.popitem(last=False)
        request.deadline = time.monotonic() + REPLY_WAIT_S
        self.in_flight = request
        self._write_board(request.frame)

    def _give_up_in_flight(self) -> None:
        """No reply in time: the next client's turn. The client may send the same
        request again; it then goes out with the same wire seq and bytes."""
        request = self.in_flight
        self.in_flight = None
        if request is None:
            return
        held, request.held = request.held, []
        if self.board_buffer.endswith(repl.PROMPT) and self._ask_safe_mode():
            if not request.client.gone:
                request.client.queue.appendleft(request)     # answered with the rest (_send_next)
            return
        if not request.client.gone:
            for line in held:                                # what the board said instead of a reply
                self._deliver(request.client, line)
            request.client.keep(request.client.unanswered, (request.seq, request.crc), request)

    def _ask_safe_mode(self) -> bool:
        """MicroPython's prompt answered instead of the app: ask the REPL, as a direct
        link does (repl.safe_mode: raw REPL, never Ctrl-C or Ctrl-D), whether main.py
        left the app out on purpose; the exchange goes to the wire tap too."""
        while True:                          # all the REPL said so far, its prompt last
            chunk = self.serial.read_now()
            if not chunk:
                break
            self._tap(b"<", chunk)
            self.board_buffer += chunk
        self.serial._buffer[:] = self.board_buffer
        self.board_buffer.clear()
        self.serial.tap = lambda direction, data: self._tap(direction.encode(), data)
        try:
            why = repl.safe_mode(self.serial)
        finally:
            self.serial.tap = None
            self.board_buffer += self.serial.pending()
            self.serial._buffer.clear()
        if why:
            self.safe_mode = why
        return bool(why)

    def _write_board(self, frame: bytes) -> None:
        self._tap(b">", frame)
        self.serial.write(frame)

    # ------------------------------------------------------------ board -> clients
    def _read_board(self) -> None:
        chunk = self.serial.read_now()
        if not chunk:
            return
        self._tap(b"<", chunk)
        self.board_buffer += chunk
        while True:
            end = self.board_buffer.find(b"\n")
            if end < 0:
                if len(self.board_buffer) < MAX_LINE:
                    flying = self.in_flight
                    if flying is not None and self.board_buffer.endswith(repl.PROMPT):
                        # the REPL's prompt, not the app's reply: none is coming
                        flying.deadline = min(flying.deadline, time.monotonic() + PROMPT_WAIT_S)
                    return
                end = len(self.board_buffer)
            line = bytes(self.board_buffer[:end])
            del self.board_buffer[:end + 1]
            self._from_board(line[:-1] if line.endswith(b"\r") else line)

    def _from_board(self, line: bytes) -> None:
        try:
            body = wire.check_frame(line)
        except ValueError:
            # noise or the REPL: whoever waits for a reply counts it, once its request has its
            # answer or its end (the REPL asked first whether it is safe mode, which answers
            # for it instead); else everyone
            flying = self.in_flight
            if flying is not None:
                flying.held.append(line + b"\n")
                return
            for client in list(self.clients):
                self._deliver(client, line + b"\n")
            return
        if body.startswith(b"! "):
            if body.split(b" ", 3)[2:3] == [b"BOOT"]:
                self.safe_mode = None   # its app runs
            for client in list(self.clients):
                self._deliver(client, line + b"\n")
            return
        head, _, tail = body.partition(b" ")
        if not head.isdigit():
            return
        wire_seq = int(head)
        flying = self.in_flight
        if wire_seq == 0:
            # the board could not trust a line: the one in flight (garbled), or
            # noise before it, when its reply follows at once
            if flying is not None:
                self._deliver(flying.client, line + b"\n")
                flying.deadline = min(flying.deadline, time.monotonic() + GARBLED_WAIT_S)
            return
        request = self.recent.pop(wire_seq, None)
        if request is None:
            return       # a reply to nobody here (a request before this hub, one answered): never another's
        if request is flying:
            self.in_flight = None
        if tail.startswith(b"OK ") and _may_change(request.text):
            self.last_change = request       # the board's journal knows its seq and checksum
        client = request.client
        held, request.held = request.held, []
        if client.gone:
            return
        for noise in held:
            self._deliver(client, noise)
        client.unanswered.pop((request.seq, request.crc), None)
        client.keep(client.answers, (request.seq, request.crc), tail)
        self._deliver(client, wire.encode_request(request.seq, tail))

    # ------------------------------------------------------------ the wire tap
    def _tap(self, direction: bytes, data: bytes) -> None:
        """Bytes that passed on the port, to every watcher as whole lines."""
        if not self.watchers:
            return
        part = self._tap_part[direction]
        part += data
        for line in take_lines(part):
            self._to_watchers(direction + b" " + line + b"\n")
        if len(part) >= MAX_LINE:
            self._to_watchers(direction + b"+ " + bytes(part) + b"\n")
            part.clear()
        self._tap_part_at[direction] = time.monotonic()

    def _tap_stale_parts(self) -> None:
        """A part line that waited TAP_PART_WAIT_S for its end (a REPL prompt) goes as it is."""
        now = time.monotonic()
        for direction, part in self._tap_part.items():
            if part and now - self._tap_part_at[direction] >= TAP_PART_WAIT_S:
                self._to_watchers(direction + b"+ " + bytes(part).replace(b"\n", b" ") + b"\n")
                part.clear()

    def _to_watchers(self, line: bytes) -> None:
        for watcher in list(self.watchers):
            self._deliver(watcher, line)

    def _deliver(self, client: Client, data: bytes) -> None:
        if client.gone:
            return
        client.outbox += data
        if len(client.outbox) > OUTBOX_LIMIT:
            self._drop(client)      # it does not read: the events would pile up without end
            return
        self._flush(client)

    def _flush(self, client: Client) -> None:
        if client.gone:
            return
        try:
            sent = client.sock.send(client.outbox)
            del client.outbox[:sent]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._drop(client)
            return
        self._interest(client)

    # ------------------------------------------------------------ stopping
    def _stop_listening(self) -> None:
        for listener, path, inode in ((self.listener, self.path, self.path_inode),
                                      (self.wire_listener, self.wire_path, self.wire_inode)):
            with contextlib.suppress(OSError, KeyError, ValueError):
                self.selector.unregister(listener)
            listener.close()
            try:
                if os.stat(path).st_ino == inode:
                    path.unlink()
            except FileNotFoundError:
                pass

    def close(self) -> None:
        if self.closing:
            return
        self.closing = True
        with contextlib.suppress(OSError, KeyError, ValueError):
            self._wake_w.send(b"x")
        self.thread.join(5)
        self._wake_w.close()
        self.local.close()

