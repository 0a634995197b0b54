"""One process owns a board's serial port and shares it with the others.

A serial port has one owner at a time (the link opens it exclusively, or two
programs would steal each other's replies). So that `watch` in one terminal
and `hand`, `peg` or `sheet` in another work at once, a long-running view
(`watch`, `monitor`) opens the port through a `Hub`: a thread that owns the
port and a Unix socket beside it (`socket_path(port)`) where every other
tallyboard process connects. Through the hub:
  - a request line goes to the board whole, one line at a time, in the order
    the lines arrive;
  - a reply goes back to the process that sent the request with its sequence
    number (each process numbers its own requests from a random start);
  - an event line (`!`) goes to every process, and so does a line whose
    sequence number nobody sent (noise is every client's to count and drop).
`open_link(port)` joins a hub when one serves the port, and otherwise opens the
port itself (a short command is then its only user for its short life). When
the port is taken by a program that is not a tallyboard hub, the error names
that program."""
from __future__ import annotations

import errno
import hashlib
import os
import queue
import select
import socket
import struct
import threading
import time
from pathlib import Path

from .errors import TransportError
from .transport import SerialTransport, Transport

# How long a command waits for a port another tallyboard command holds for a moment.
BUSY_WAIT_S = 3.0
_CHUNK = 4096


def socket_dir() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = Path(base) / "tallyboard" if base else Path(f"/tmp/tallyboard-{os.getuid()}")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def socket_path(port: str) -> Path:
    """Where the hub for this port listens: one name per device, however it is spelled."""
    real = os.path.realpath(port)
    return socket_dir() / (hashlib.sha1(real.encode()).hexdigest()[:16] + ".sock")


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


def _seq_of(line: bytes) -> int | None:
    head = line.split(b" ", 1)[0]
    return int(head) if head.isdigit() and len(head) <= 5 else None


class _Client:
    """One user of the hub: the owner itself (a queue) or a process on the socket."""

    def __init__(self, sock: socket.socket | None = None) -> None:
        self.sock = sock
        self.inbox: queue.Queue[bytes] = queue.Queue()
        self.partial = bytearray()

    def deliver(self, data: bytes) -> None:
        if self.sock is None:
            self.inbox.put(data)
            return
        try:
            self.sock.sendall(data)
        except OSError:
            pass   # gone: its reader thread drops it


class Hub:
    """Owns the serial port and serves it on a Unix socket (see the module's text)."""

    def __init__(self, port: str) -> None:
        self.port = port
        self.serial = _open_serial(port)
        self.path = socket_path(port)
        # listening before it has its name: a client that finds the name can
        # connect, and a name that refuses is a dead owner's (see _connect)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        building = self.path.with_name(f"{self.path.stem}.{os.getpid()}.new")
        try:
            building.unlink()
        except FileNotFoundError:
            pass
        self.listener.bind(str(building))
        os.chmod(building, 0o600)
        self.listener.listen(16)
        os.replace(building, self.path)
        self.path_inode = os.stat(self.path).st_ino   # our name, until a later hub takes it over
        self.lock = threading.Lock()   # the client list, the seq owners and a line going out
        self.clients: list[_Client] = []
        self.sent_by: dict[int, _Client] = {}
        self.closed = threading.Event()
        self.failure: str | None = None
        self.local = self.join()
        # the reader alone uses the port, and closes it when it stops
        self.reader = threading.Thread(target=self._read_board, daemon=True, name="hub reader")
        self.accepter = threading.Thread(target=self._accept, daemon=True, name="hub accepter")
        self.reader.start()
        self.accepter.start()

    def join(self, sock: socket.socket | None = None) -> _Client:
        client = _Client(sock)
        with self.lock:
            self.clients.append(client)
        return client

    def leave(self, client: _Client) -> None:
        with self.lock:
            if client in self.clients:
                self.clients.remove(client)
            for seq in [s for s, c in self.sent_by.items() if c is client]:
                del self.sent_by[seq]

    def write(self, client: _Client, data: bytes) -> None:
        """Whole lines from one client go to the board; a part line waits for its end."""
        client.partial += data
        while True:
            end = client.partial.find(b"\n")
            if end < 0:
                return
            line = bytes(client.partial[:end + 1])
            del client.partial[:end + 1]
            seq = _seq_of(line)
            with self.lock:
                if seq is not None:
                    self.sent_by[seq] = client
                self.serial.write(line)

    def _route(self, line: bytes) -> None:
        data = line + b"\n"
        with self.lock:
            owner = None if line.startswith(b"!") else self.sent_by.get(_seq_of(line) or -1)
            targets = [owner] if owner is not None else list(self.clients)
        for client in targets:
            client.deliver(data)

    def _read_board(self) -> None:
        try:
            while not self.closed.is_set():
                line = self.serial.read_line(0.2)
                if line is not None:
                    self._route(line)
        except TransportError as exc:
            self.failure = str(exc)
            # the port is gone (a pulled cable, an emulator stopped): no new
            # client may join a hub that cannot reach its board, least of all
            # one for another board that gets this port's name next (a pty)
            self._stop_listening()
        finally:
            self.serial.close()
            self._shut_clients()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                readable, _, _ = select.select([self.listener], [], [], 0.2)
                if not readable:
                    continue
                sock, _ = self.listener.accept()
            except (OSError, ValueError):   # ValueError: closed under select
                return
            client = self.join(sock)
            threading.Thread(target=self._serve, args=(client,), daemon=True, name="hub client").start()

    def _serve(self, client: _Client) -> None:
        assert client.sock is not None
        try:
            while not self.closed.is_set():
                data = client.sock.recv(_CHUNK)
                if not data:
                    break
                self.write(client, data)
        except (OSError, TransportError):
            pass
        finally:
            self.leave(client)
            client.sock.close()

    def _shut_clients(self) -> None:
        with self.lock:
            clients = [c for c in self.clients if c.sock is not None]
        for client in clients:
            try:
                client.sock.shutdown(socket.SHUT_RDWR)  # type: ignore[union-attr]
            except OSError:
                pass

    def _stop_listening(self) -> None:
        self.listener.close()
        try:
            if os.stat(self.path).st_ino == self.path_inode:
                self.path.unlink()
        except FileNotFoundError:
            pass

    def close(self) -> None:
        if self.closed.is_set():
            return
        self.closed.set()
        self.accepter.join(2)
        self._stop_listening()
        self.reader.join(2)   # it closes the port and tells the clients


class HubTransport(Transport):
    """The owner's own link: through its hub, like every other client's."""

    def __init__(self, port: str) -> None:
        super().__init__()
        self.port = port
        self.name = port
        self.hub: Hub | None = None
        self.reopen()

    def reopen(self) -> None:
        self.close()
        self._buffer.clear()
        self.hub = Hub(self.port)

    def close(self) -> None:
        if self.hub is not None:
            self.hub.close()
            self.hub = None

    def _hub(self) -> Hub:
        if self.hub is None:
            raise TransportError(f"{self.port} is closed")
        return self.hub

    def _write(self, data: bytes) -> None:
        hub = self._hub()
        if hub.failure:
            raise TransportError(hub.failure)
        hub.write(hub.local, data)

    def _read(self, timeout: float) -> bytes:
        hub = self._hub()
        try:
            data = hub.local.inbox.get(timeout=timeout)
        except queue.Empty:
            if hub.failure:
                raise TransportError(hub.failure) from None
            return b""
        while not hub.local.inbox.empty():
            data += hub.local.inbox.get_nowait()
        return data


class SocketTransport(Transport):
    """A link through another tallyboard process's hub."""

    def __init__(self, port: str, sock: socket.socket) -> None:
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
            try:
                path.unlink()
            except FileNotFoundError:
                pass
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
                    raise TransportError(f"cannot open {port}: it is in use by {holder}; "
                                         "close that program and run the command again") from None
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
        return "another tallyboard process (a watch or a monitor)"
    finally:
        sock.close()


def open_link(port: str, serve: bool = False) -> Transport:
    """The link to the board on port: through the hub that serves it, if one does;
    else the port itself, shared with other tallyboard processes when serve is
    true (the long-running views)."""
    sock = _connect(socket_path(port))
    if sock is not None:
        return SocketTransport(port, sock)
    if serve:
        return HubTransport(port)
    return _open_serial(port)
