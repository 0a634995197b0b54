"""The emulator's USB CDC: bytes copied between the host's end of a pty and
the firmware's stdin and stdout, both ways buffered and written when the other
end can take them. What the board says while nobody reads the port piles up to
HOST_BUFFER bytes, then the rest is dropped, as USB CDC drops output with no
host; a board that exits leaves the port open (a dead board)."""
from __future__ import annotations

import errno
import os
import selectors
import subprocess
from typing import Callable

HOST_BUFFER = 1 << 16  # bytes of board output held for a host that does not read
CHUNK = 4096
READ_ONLY = selectors.EVENT_READ
READ_WRITE = selectors.EVENT_READ | selectors.EVENT_WRITE


class Relay:
    """One emulator's relay between `master` (the pty's host end) and `proc`
    (the firmware); `said(data)` hears every byte the board writes. run()
    copies until a byte arrives on `wake`."""

    def __init__(self, master: int, proc: subprocess.Popen[bytes], wake: int,
                 said: Callable[[bytes], None]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.master = master
        self.to_board = proc.stdin.fileno()
        self.from_board = proc.stdout.fileno()
        self.wake = wake
        self.said = said
        self.for_board = bytearray()
        self.for_host = bytearray()
        self.writing_board = False
        self.writing_host = False
        self.board_alive = True
        self.sel = selectors.DefaultSelector()

    def run(self) -> None:
        os.set_blocking(self.to_board, False)
        self.sel.register(self.master, READ_ONLY, "host")
        self.sel.register(self.from_board, READ_ONLY, "board")
        self.sel.register(self.wake, READ_ONLY, "wake")
        try:
            while True:
                for key, mask in self.sel.select(1.0):
                    if key.data == "wake":
                        return
                    if key.data == "host" and not self._host(mask):
                        return
                    if key.data == "board":
                        self._from_board()
                    elif key.data == "to_board":
                        self._to_board()
                self._watch_writes()
        finally:
            self.sel.close()

    def _host(self, mask: int) -> bool:
        """The host's end readable or writable; False when the pty is gone."""
        if mask & selectors.EVENT_READ:
            try:
                data = os.read(self.master, CHUNK)
            except BlockingIOError:
                data = b""
            except OSError:
                return False
            if self.board_alive:
                self.for_board += data
        if mask & selectors.EVENT_WRITE and self.for_host:
            try:
                del self.for_host[:os.write(self.master, self.for_host)]
            except BlockingIOError:
                pass
            except OSError as exc:
                if exc.errno not in (errno.EIO, errno.EBADF):
                    raise
                self.for_host.clear()
        return True

    def _from_board(self) -> None:
        data = os.read(self.from_board, CHUNK)
        if not data:
            # the firmware exited or crashed: a dead board, the port stays
            self.sel.unregister(self.from_board)
            if self.writing_board:
                self.sel.unregister(self.to_board)
                self.writing_board = False
            self.board_alive = False
            self.for_board.clear()
            return
        room = HOST_BUFFER - len(self.for_host)
        self.for_host += data[:max(room, 0)]
        self.said(data)

    def _to_board(self) -> None:
        try:
            del self.for_board[:os.write(self.to_board, self.for_board)]
        except BlockingIOError:
            pass
        except OSError:
            self.for_board.clear()

    def _watch_writes(self) -> None:
        """Wait to write only while there is something to write."""
        if self.board_alive and self.for_board and not self.writing_board:
            self.sel.register(self.to_board, selectors.EVENT_WRITE, "to_board")
            self.writing_board = True
        elif self.writing_board and not self.for_board:
            self.sel.unregister(self.to_board)
            self.writing_board = False
        if bool(self.for_host) != self.writing_host:
            self.writing_host = bool(self.for_host)
            self.sel.modify(self.master, READ_WRITE if self.writing_host else READ_ONLY, "host")
