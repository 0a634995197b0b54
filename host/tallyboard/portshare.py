"""One process owns a board's serial port and shares it: the documented local
interface of docs/protocol.md "Sharing the port".

A serial port has one owner at a time (opened exclusively: two programs on one
port steal each other's replies). The owner, a `Hub`, serves the port on a Unix
socket (`socket_path(port)`, in a folder only this user can enter) carrying the
same lines as the port. Any program may connect, tallyboard's own commands and
third-party ones alike:
  - a client's request goes to the board with a sequence number of the hub's
    own (from the session it opened with HELLO), and its reply comes back with
    the client's seq: every connection has the whole seq space to itself, and no
    client's request can be taken for another's, nor its reply given to another;
  - one request is on the wire at a time, taken from the clients in turn, so a
    retry of the request in flight is the board's "last request" and is answered
    from its retry cache; a retry of a request already answered is answered
    again by the hub, from the reply it kept;
  - an event line (`!`) goes to every client;
  - a line that is no frame (too long, no checksum, no seq) is answered by the
    hub with the board's own `0 ERR <CODE>` and never reaches the board; a client
    that floods waits (its socket is read again when its queue has room); a
    client that does not read its socket is closed; a client that goes away
    mid-request leaves its request to finish, and the reply is dropped;
  - when the board goes away the hub stops serving its name and closes every
    client's connection;
  - beside it, `wire_path(port)` is the wire tap: a read-only socket on which
    every line that passes on the port, both ways, whoever sent it, is copied
    (`> ` to the board, `< ` from it; `>+ `/`<+ ` a part line that waited
    TAP_PART_WAIT_S for its end, a REPL prompt): what `monitor` shows;
  - a board in safe mode (MicroPython's REPL answers, main.py's marker set:
    repl.py) is asked once, as a direct link would ask it, and every request
    is then answered by the hub with `ERR BOARD safe mode: ...`, never sent to
    the REPL, until the board boots again.
`open_link(port)` joins the hub that serves the port, if one does; otherwise it
opens the port itself (a short command is its only user for its short life),
or with serve=True becomes the hub (`watch`, `monitor`, `share`)."""
from __future__ import annotations

import collections
import contextlib
import errno
import hashlib
import os
import random
import select
import selectors
import socket
import stat
import struct
import tempfile
import threading
import time
from pathlib import Path

from tallyrun import protocol

from . import repl, wire
from .errors import TransportError
from .transport import MAX_LINE, SerialTransport, Transport

# How long a command waits for a port another tallyboard command holds for a moment.
BUSY_WAIT_S = 3.0
# How long the board is kept for one client's request before the next client's goes out.
REPLY_WAIT_S = 5.0
GARBLED_WAIT_S = 0.25        # after `0 ERR` (a line the board could not trust), as client.py waits
QUEUE_PER_CLIENT = 8         # requests a client may have waiting; then its socket is not read
OUTBOX_LIMIT = 256 * 1024    # bytes waiting for a client that does not read; then it is closed
KEPT_ANSWERS = 16            # replies kept per client, to answer its retries
TAP_PART_WAIT_S = 0.5        # a part line on the port waits this long for its end, then goes to the wire tap
PROMPT_WAIT_S = 0.3          # the REPL's prompt after a request: no reply is coming; ask the REPL this soon
SAFE_MODE_ANSWER = ("safe mode: %s: the board's app is not running; power-cycle it without holding a button, "
                    "or stop the sharer and use mpremote to repair it")
_RECENT_WIRE = 256           # wire seqs remembered, to route a late reply
_CHUNK = 4096
DOC = "docs/protocol.md, \"Sharing the port\""


MAX_SOCKET_PATH = 107      # sun_path's 108 bytes, less the terminating NUL


def socket_dir() -> Path:
    """The folder of the shared ports' sockets: $XDG_RUNTIME_DIR/tallyboard, or
    tallyboard-<uid> in the system's temporary folder; this user's alone (0700),
    refused if it is a link or another user's."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = Path(base) / "tallyboard" if base else Path(tempfile.gettempdir()) / f"tallyboard-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, parents=bool(base))
    except FileExistsError:
        pass
    except OSError as exc:
        raise TransportError(f"cannot make {folder} for the shared ports' sockets ({exc.strerror}); "
                             "set XDG_RUNTIME_DIR to a folder of yours") from None
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise TransportError(f"{folder} is not a folder (a link or a file): tallyboard keeps the shared "
                             "ports' sockets there; remove it, or set XDG_RUNTIME_DIR to a folder of yours")
    if info.st_uid != os.getuid():
        raise TransportError(f"{folder} belongs to another user (uid {info.st_uid}): another user could "
                             "read and answer your board there; remove it, or set XDG_RUNTIME_DIR to a "
                             "folder of yours")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(folder, 0o700)   # ours: made private again
    return folder


def socket_path(port: str) -> Path:
    """Where the hub for this port listens: one name per device, however it is
    spelled: the first 16 hex digits of the SHA-1 of the port's real path."""
    real = os.path.realpath(port)
    path = socket_dir() / (hashlib.sha1(real.encode()).hexdigest()[:16] + ".sock")
    # a Unix socket's name is at most 107 bytes (sun_path); the hub binds a longer working name first
    if len(os.fsencode(path.with_name(f"{path.stem}.{os.getpid()}.new"))) > MAX_SOCKET_PATH:
        raise TransportError(f"the folder for the shared ports' sockets, {path.parent}, has too long a path for "
                             f"a socket (at most {MAX_SOCKET_PATH} bytes in all); set XDG_RUNTIME_DIR or TMPDIR "
                             "to a shorter folder of yours")
    return path


def wire_path(port: str) -> Path:
    """The hub's wire tap for this port: `<hash>.tap` beside its `<hash>.sock` (no
    longer a name: a socket's path has at most 107 bytes)."""
    return socket_path(port).with_suffix(".tap")


def holder_of(port: str) -> str | None:
    """The process that has the port open ("pid 123 (mpremote connect ...)"), where
    the system tells (Linux /proc); None when it cannot be found."""
    real = os.path.realpath(port)
    me = os.getpid()
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            for fd in (entry / "fd").iterdir():
                if os.path.realpath(fd) == real:
                    cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                    return f"pid {entry.name} ({cmdline.strip()[:80]})"
        except OSError:
            continue
    return None


def _error_frame(code: bytes, words: bytes) -> bytes:
    """The board's own answer to a line it cannot trust: `0 ERR <CODE> <words>`."""
    return wire.encode_request(0, b"ERR " + code + b" " + words)


_TOO_LONG = _error_frame(b"FRAME", b"the line is longer than %d bytes; see docs/protocol.md" % protocol.MAX_FRAME)


def check_request(line: bytes) -> tuple[int, int, bytes] | bytes:
    """(seq, crc, text after the seq) of a client's line, or the error frame the
    board would answer it with (the same codes as the board's)."""
    if len(line) + 1 > protocol.MAX_FRAME:
        return _TOO_LONG
    if any(b < 0x20 or b > 0x7E for b in line):
        return _error_frame(b"FRAME", b"the line is not printable ASCII")
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 5:
        return _error_frame(b"CRC", b"no checksum; end the frame with *XXXX (CRC-16/CCITT-FALSE)")
    try:
        given = int(line[star + 1:], 16)
    except ValueError:
        return _error_frame(b"CRC", b"the checksum must be 4 uppercase hex digits")
    if protocol.crc16(line, 0, star) != given:
        return _error_frame(b"CRC", b"checksum mismatch; resend the frame")
    head, _, text = line[:star].lstrip(b" ").partition(b" ")
    if not head.isdigit() or not 1 <= int(head) <= protocol.MAX_SEQ:
        return _error_frame(b"SEQ", b"the sequence number must be 1 to 65535")
    return int(head), given, text.lstrip(b" ")


class _Request:
    """One client's request: its own seq and checksum; the wire seq and frame it
    goes out with, fixed the first time it is sent (a retry is the same bytes)."""

    def __init__(self, client: "_Client | None", seq: int, crc: int, text: bytes) -> None:
        self.client = client        # None: the hub's own HELLO
        self.seq = seq
        self.crc = crc
        self.text = text
        self.wire_seq = 0
        self.frame = b""
        self.deadline = 0.0


class _Client:
    """One connection to the hub."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self.sock = sock
        self.partial = bytearray()
        self.skipping = False       # the rest of a too-long line is dropped, up to its end
        self.queue: collections.deque[_Request] = collections.deque()
        self.watcher = False        # a wire tap's reader: sends nothing, is sent every line
        self.outbox = bytearray()
        self.events = 0             # what the selector watches it for
        self.answers: collections.OrderedDict[tuple[int, int], bytes] = collections.OrderedDict()
        self.unanswered: collections.OrderedDict[tuple[int, int], _Request] = collections.OrderedDict()
        self.gone = False

    def keep(self, table: collections.OrderedDict, key: tuple[int, int], value: object) -> None:
        table[key] = value
        table.move_to_end(key)
        while len(table) > KEPT_ANSWERS:
            table.popitem(last=False)


class Hub:
    """Owns the serial port and serves it on a Unix socket (see the module's text).
    One thread moves every byte; `local` is the owner's own connection."""

    def __init__(self, port: str) -> None:
        self.port = port
        self.serial = _open_serial(port)
        self.failure: str | None = None
        self.closing = False
        try:
            board_fd = self.serial.fileno()
            if board_fd is None:
                raise TransportError(f"{port} cannot be shared on this system (no pollable descriptor)")
            self.path = socket_path(port)
            self.wire_path = wire_path(port)
            self.wire_listener, self.wire_inode = _listen(self.wire_path)
            self.listener, self.path_inode = _listen(self.path)
        except BaseException:
            with contextlib.suppress(AttributeError, OSError):
                self.wire_listener.close()
            self.serial.close()
            raise
        self.selector = selectors.DefaultSelector()
        self.clients: list[_Client] = []
        self.turn = 0
        self.in_flight: _Request | None = None
        self.recent: collections.OrderedDict[int, _Request] = collections.OrderedDict()
        self.range_next = 0
        self.range_left = 0          # wire seqs left of the hub's session; 0: open one first
        self.board_buffer = bytearray()
        self.safe_mode: str | None = None    # why, once the REPL said so (main.py's marker)
        self.watchers: list[_Client] = []
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
        if _peer_uid(sock) not in (None, os.getuid()):
            sock.close()           # the folder is ours alone; a socket passed on is not
            return
        self._add_client(sock, watcher)

    def _add_client(self, sock: socket.socket, watcher: bool = False) -> None:
        client = _Client(sock)
        client.watcher = watcher
        (self.watchers if watcher else self.clients).append(client)
        self._interest(client)

    def _drop(self, client: _Client, shut: bool = False) -> None:
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

    def _interest(self, client: _Client) -> None:
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
    def _read_client(self, client: _Client) -> None:
        try:
            data = client.sock.recv(_CHUNK)
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

    def _take_lines(self, client: _Client) -> None:
        """The client's whole lines, while its queue has room (the rest wait in
        its buffer, and its socket is not read meanwhile)."""
        while not client.gone and len(client.queue) < QUEUE_PER_CLIENT:
            end = client.partial.find(b"\n")
            if end < 0:
                if len(client.partial) >= protocol.MAX_FRAME:
                    if not client.skipping:
                        self._deliver(client, _TOO_LONG)
                    client.skipping = True
                    client.partial.clear()
                break
            line = bytes(client.partial[:end])
            del client.partial[:end + 1]
            if client.skipping:
                client.skipping = False   # the end of the long line: the next one is heard
                continue
            if line.endswith(b"\r"):
                line = line[:-1]
            if line.strip():
                self._request(client, line)
        if not client.gone:
            self._interest(client)

    def _request(self, client: _Client, line: bytes) -> None:
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
        request = client.unanswered.pop(key, None) or _Request(client, seq, crc, text)
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
        if self.range_left <= 0:
            self._open_session()
            return
        self.turn = (self.turn + 1) % len(self.clients)
        order = self.clients[self.turn:] + self.clients[:self.turn]
        client = next(c for c in order if c.queue)
        request = client.queue.popleft()
        if not request.frame:
            request.wire_seq = self._next_wire_seq()
            request.frame = wire.encode_request(request.wire_seq, request.text)
        self._fly(request)
        self._take_lines(client)

    def _open_session(self) -> None:
        """The hub's own HELLO: the wire seqs it numbers requests with are the 1024
        the board hands it, so none is taken for a retry of an earlier session's."""
        seq = random.randint(1, protocol.MAX_SEQ)
        while seq in self.recent:      # a late reply to that one must not be taken for this
            seq = random.randint(1, protocol.MAX_SEQ)
        hello = _Request(None, seq, 0, b"HELLO")
        hello.wire_seq = seq
        hello.frame = wire.encode_request(seq, b"HELLO")
        self._fly(hello)

    def _next_wire_seq(self) -> int:
        seq = self.range_next
        self.range_next = seq % protocol.MAX_SEQ + 1
        self.range_left -= 1
        return seq

    def _fly(self, request: _Request) -> None:
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
        if self.board_buffer.endswith(repl.PROMPT) and self._ask_safe_mode():
            if request.client is not None and not request.client.gone:
                request.client.queue.appendleft(request)     # answered with the rest (_send_next)
            return
        if request.client is None:
            # a board that does not answer HELLO (at the REPL, another firmware):
            # number from a random start, as a version 1 host did, and ask again later
            self.range_next = random.randint(1, protocol.MAX_SEQ)
            self.range_left = protocol.SESSION_SEQS
        elif not request.client.gone:
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
            # noise or the REPL: whoever waits for a reply counts it; else everyone
            flying = self.in_flight
            targets = [flying.client] if flying is not None and flying.client is not None else self.clients
            for client in list(targets):
                self._deliver(client, line + b"\n")
            return
        if body.startswith(b"! "):
            if body.split(b" ", 3)[2:3] == [b"BOOT"]:
                self.range_left = 0     # a restarted board may hand the hub's seqs to another session
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
                if flying.client is not None:
                    self._deliver(flying.client, line + b"\n")
                flying.deadline = min(flying.deadline, time.monotonic() + GARBLED_WAIT_S)
            return
        request = self.recent.get(wire_seq)
        if request is None:
            return       # a reply to nobody here (a request before this hub): never another's
        if request is flying:
            self.in_flight = None
        if request.client is None:
            seqs = wire.fields(tail).get("seqs", "")
            if request is flying or self.range_left <= 0:
                if seqs.isdigit() and 1 <= int(seqs) <= protocol.MAX_SEQ:
                    self.range_next, self.range_left = int(seqs), protocol.SESSION_SEQS
                else:
                    self.range_next = random.randint(1, protocol.MAX_SEQ)
                    self.range_left = protocol.SESSION_SEQS
            return
        client = request.client
        if client.gone:
            return
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
        while True:
            end = part.find(b"\n")
            if end < 0:
                break
            line = bytes(part[:end])
            del part[:end + 1]
            self._to_watchers(direction + b" " + (line[:-1] if line.endswith(b"\r") else line) + b"\n")
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

    def _deliver(self, client: _Client, data: bytes) -> None:
        if client.gone:
            return
        client.outbox += data
        if len(client.outbox) > OUTBOX_LIMIT:
            self._drop(client)      # it does not read: the events would pile up without end
            return
        self._flush(client)

    def _flush(self, client: _Client) -> None:
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


class SocketTransport(Transport):
    """A link through the hub of a port: another process's, or (HubTransport) this one's."""

    def __init__(self, port: str, sock: socket.socket | None) -> None:
        super().__init__()
        self.port = port
        self.name = port
        self.sock: socket.socket | None = sock

    def reopen(self) -> None:
        self.close()
        self._buffer.clear()
        sock = _connect(socket_path(self.port))
        if sock is None:
            raise TransportError(f"the tallyboard process that shared {self.port} has stopped; "
                                 "run the command again")
        self.sock = sock

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def _lost(self) -> TransportError:
        return TransportError(f"lost the board on {self.port}: the tallyboard process sharing it stopped "
                              "or the cable was pulled; run the command again")

    def _write(self, data: bytes) -> None:
        if self.sock is None:
            raise TransportError(f"{self.port} is closed")
        try:
            self.sock.sendall(data)
        except OSError:
            raise self._lost() from None

    def _read(self, timeout: float) -> bytes:
        if self.sock is None:
            raise TransportError(f"{self.port} is closed")
        try:
            if not select.select([self.sock], [], [], timeout)[0]:
                return b""
            data = self.sock.recv(_CHUNK)
        except OSError:
            raise self._lost() from None
        if not data:
            raise self._lost()
        return data


class HubTransport(SocketTransport):
    """The owner's own link: through its hub, like every other client's."""

    def __init__(self, port: str) -> None:
        super().__init__(port, None)
        self.hub: Hub | None = None
        self.reopen()

    def reopen(self) -> None:
        """Start again: the same hub while it still reaches its board (its other
        clients keep their connections), else a new one on the port."""
        self._buffer.clear()
        if self.hub is not None and self.hub.failure is None and self.hub.thread.is_alive():
            return
        self.close()
        self.hub = Hub(self.port)
        self.sock = self.hub.local

    def close(self) -> None:
        self.sock = None
        if self.hub is not None:
            self.hub.close()
            self.hub = None

    def _lost(self) -> TransportError:
        if self.hub is not None and self.hub.failure:
            return TransportError(self.hub.failure)
        return super()._lost()


def _listen(path: Path) -> tuple[socket.socket, int]:
    """A Unix socket listening at path (0600), and the inode of its name. Listening
    before it has its name: a client that finds the name can connect, and a name
    that refuses is a dead owner's (see _connect)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        building = path.with_name(f"{path.stem}.{os.getpid()}.new")   # one at a time: sock and tap share it
        with contextlib.suppress(FileNotFoundError):
            building.unlink()
        listener.bind(str(building))
        os.chmod(building, 0o600)
        listener.listen(16)
        listener.setblocking(False)
        os.replace(building, path)
        return listener, os.stat(path).st_ino   # our name, until a later hub takes it over
    except BaseException:
        listener.close()
        raise


class WireTap:
    """A reader of a sharer's wire tap (wire_path): every line that passes on the
    port, both ways. lines(timeout) gives (direction, bytes): whole lines with their
    newline, a part line (a REPL prompt) without."""

    def __init__(self, port: str) -> None:
        sock = _connect(wire_path(port))
        if sock is None:
            raise TransportError(f"no tallyboard process shares {port} now; run the command again")
        self.sock = sock
        self._buffer = bytearray()

    def lines(self, timeout: float) -> list[tuple[str, bytes]]:
        try:
            if select.select([self.sock], [], [], timeout)[0]:
                data = self.sock.recv(_CHUNK)
                if not data:
                    raise TransportError("the tallyboard process sharing the port stopped")
                self._buffer += data
        except OSError as exc:
            raise TransportError(f"lost the sharer's wire tap ({exc})") from None
        found = []
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                return found
            line = bytes(self._buffer[:end])
            del self._buffer[:end + 1]
            mark, _, data = line.partition(b" ")
            if mark in (b">", b"<"):
                found.append((mark.decode(), data + b"\n"))
            elif mark in (b">+", b"<+"):
                found.append((mark[:1].decode(), data))

    def close(self) -> None:
        self.sock.close()


def _connect(path: Path) -> socket.socket | None:
    """A connection to the hub at path, or None when no hub serves it (a stale
    socket left by a process that died is removed)."""
    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
        return sock
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.ECONNREFUSED, errno.ENOENT):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        return None


def _peer_uid(sock: socket.socket) -> int | None:
    try:
        return struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                   struct.calcsize("3i")))[1]
    except (AttributeError, OSError):
        return None


def _open_serial(port: str) -> SerialTransport:
    """The port, opened exclusively; waits a moment for another tallyboard command
    that holds it; names the program holding it when it stays taken."""
    deadline = time.monotonic() + BUSY_WAIT_S
    while True:
        try:
            return SerialTransport(port)
        except TransportError as exc:
            if not os.path.exists(port):
                raise
            holder = holder_of(port)
            if holder is None or time.monotonic() > deadline:
                if holder is not None:
                    raise TransportError(
                        f"cannot open {port}: it is in use by {holder}; close that program, or have it "
                        f"reach the board through the shared port instead (tallyboard share -p {port}, "
                        f"then connect to {socket_path(port)}: {DOC})") from None
                raise exc from None
            time.sleep(0.1)


def server_of(port: str) -> str | None:
    """The tallyboard process serving this port now ("pid 123 (tallyboard watch)"),
    or None when none does."""
    sock = _connect(socket_path(port))
    if sock is None:
        return None
    try:
        pid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                  struct.calcsize("3i")))[0]
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        return f"pid {pid} ({cmdline.strip()[:80]})"
    except (AttributeError, OSError):   # no SO_PEERCRED or /proc here
        return "another tallyboard process (a watch, a monitor or a share)"
    finally:
        sock.close()


def open_link(port: str, serve: bool = False) -> Transport:
    """The link to the board on port: through the hub that serves it, if one does;
    else the port itself, shared with other processes when serve is true (the
    long-running commands: watch, monitor, share)."""
    sock = _connect(socket_path(port))
    if sock is not None:
        return SocketTransport(port, sock)
    if serve:
        return HubTransport(port)
    return _open_serial(port)
