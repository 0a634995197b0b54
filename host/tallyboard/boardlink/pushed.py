"""The events boards push (`! <eseq> <KIND> ...`, docs/protocol.md "Events"),
followed through their shared ports (portshare.py: a port's hub sends every
event line to every client it serves).

`PushedEvents` holds one connection to each followed board's hub, all read by
one thread. That thread only tells: for a board's event line it calls
`heard(key)`, and for a hub that goes away (the board unplugged, the process
sharing its port stopped) it calls `heard(key)` once and forgets the board.
What was heard is the caller's to act on in its own worker (read the board:
the event is a nudge, never the data), so nothing here touches a store, and a
board that never pushes is only ever read by the caller's own schedule."""
from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from typing import Any, Callable

from . import wire
from .portsocket import CHUNK, connect, socket_path
from .transport import MAX_LINE


class PushedEvents:
    """The boards followed (key -> its port's hub), read by one daemon thread."""

    def __init__(self, heard: Callable[[Any], None]) -> None:
        self.heard = heard
        self._lock = threading.Lock()
        self._ports: dict[Any, str] = {}                     # key -> port followed
        self._socks: dict[Any, socket.socket] = {}           # key -> its connection (the thread's to close)
        self._changes: list[tuple[Any, socket.socket | None]] = []   # for the thread: (key, new socket or None)
        self._partial: dict[Any, bytearray] = {}
        self._closing = False
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._thread = threading.Thread(target=self._run, daemon=True, name="pushed events")
        self._thread.start()

    def follow(self, key: Any, port: str) -> bool:
        """Follow the events of the board on `port` (a hub must serve it) as `key`;
        already followed on that port: nothing. False when no hub serves the port."""
        with self._lock:
            if self._closing:
                return False
            if self._ports.get(key) == port:
                return True
        sock = connect(socket_path(port))
        if sock is None:
            return False
        sock.setblocking(False)
        with self._lock:
            if self._closing or self._ports.get(key) == port:
                sock.close()
                return not self._closing
            self._ports[key] = port
            self._changes.append((key, sock))
        self._wake()
        return True

    def forget(self, key: Any) -> None:
        """Stop following `key`'s board (its link was dropped: it is followed again when it is opened)."""
        with self._lock:
            if self._ports.pop(key, None) is None:
                return
            self._changes.append((key, None))
        self._wake()

    def following(self) -> set[Any]:
        with self._lock:
            return set(self._ports)

    def close(self) -> None:
        with self._lock:
            if self._closing:
                return
            self._closing = True
        self._wake()
        self._thread.join(5)
        self._wake_w.close()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    # ------------------------------------------------------------ the thread
    def _run(self) -> None:
        try:
            while True:
                with self._lock:
                    if self._closing:
                        return
                    changes, self._changes = self._changes, []
                for key, sock in changes:
                    self._unregister(key)
                    if sock is not None:
                        self._socks[key] = sock
                        self._partial[key] = bytearray()
                        self._selector.register(sock, selectors.EVENT_READ, key)
                for selected, _ in self._selector.select():
                    if selected.data is None:
                        with contextlib.suppress(OSError):
                            self._wake_r.recv(64)
                    else:
                        self._read(selected.data, selected.fileobj)
        finally:
            for key in list(self._socks):
                self._unregister(key)
            self._selector.close()
            self._wake_r.close()

    def _unregister(self, key: Any) -> None:
        sock = self._socks.pop(key, None)
        self._partial.pop(key, None)
        if sock is not None:
            with contextlib.suppress(KeyError, ValueError, OSError):
                self._selector.unregister(sock)
            sock.close()

    def _read(self, key: Any, selected: Any) -> None:
        sock = self._socks.get(key)
        if sock is None or sock is not selected:
            return
        try:
            data = sock.recv(CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            # the hub went away: its board is read by the caller, which finds out why
            self._unregister(key)
            with self._lock:
                # followed again meanwhile (its board opened anew): the new connection stands
                again = any(k == key for k, _ in self._changes)
                gone = not again and self._ports.pop(key, None) is not None
            if gone:
                self.heard(key)
            return
        partial = self._partial[key]
        partial += data
        pushed = False
        while True:
            end = partial.find(b"\n")
            if end < 0:
                if len(partial) > MAX_LINE:
                    partial.clear()
                break
            line = bytes(partial[:end])
            del partial[:end + 1]
            try:
                pushed = wire.check_frame(line).startswith(b"! ") or pushed
            except ValueError:
                continue
        if pushed:
            self.heard(key)
