"""One process owns a board's serial port and shares it: the documented local
interface of docs/protocol.md "Sharing the port".

A serial port has one owner at a time (opened exclusively: two programs on one
port steal each other's replies). The owner, a `Hub`, serves the port on a Unix
socket (`socket_path(port)`, in a folder only this user can enter) carrying the
same lines as the port. Any program may connect, tallyboard's own commands and
third-party ones alike:
  - a client's request goes to the board as the client sent it, its seq its
    own, so its reply is the port's, as long; when the board would take it for
    a retry of another client's request, it goes with another seq of as many
    digits, and its reply comes back with the client's seq: no client's request
    can be taken for another's, nor its reply given to another;
  - one request is on the wire at a time, taken from the clients in turn, so a
    retry of the request in flight is the board's "last request" and is answered
    from its retry cache; a retry of a request already answered is answered
    again by the hub, from the reply it kept;
  - an event line (`!`) goes to every client;
  - a line the board could not trust (too long, no checksum, no seq) is read by
    the board's own parser and answered by the hub with the board's own
    `0 ERR <CODE> <words>`, and never reaches the board; a client
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

import select
import socket

from ..common.errors import TransportError
from .hub import Hub
from .portsocket import CHUNK, connect, open_serial, socket_path, wire_path
from .portsocket import server_of, socket_dir  # noqa: F401  (callers find a port's server here)
from .transport import PtyHold, Transport

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
        sock = connect(socket_path(self.port))
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
            data = self.sock.recv(CHUNK)
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
        self._hold = PtyHold()
        self.reopen()

    def reopen(self) -> None:
        """Start again: the same hub while it still reaches its board (its other
        clients keep their connections), else a new one on the port."""
        self._buffer.clear()
        if self.hub is not None and self.hub.failure is None and self.hub.thread.is_alive():
            return
        self._close_hub()             # the pty stays held: its number is not given away meanwhile
        self.hub = Hub(self.port)
        self.sock = self.hub.local
        self._hold.take(self.port)

    def close(self) -> None:
        self._close_hub()
        self._hold.release()

    def _close_hub(self) -> None:
        self.sock = None
        if self.hub is not None:
            self.hub.close()
            self.hub = None

    def _lost(self) -> TransportError:
        if self.hub is not None and self.hub.failure:
            return TransportError(self.hub.failure)
        return super()._lost()



class WireTap:
    """A reader of a sharer's wire tap (wire_path): every line that passes on the
    port, both ways. lines(timeout) gives (direction, bytes): whole lines with their
    newline, a part line (a REPL prompt) without."""

    def __init__(self, port: str) -> None:
        sock = connect(wire_path(port))
        if sock is None:
            raise TransportError(f"no tallyboard process shares {port} now; run the command again")
        self.sock = sock
        self._buffer = bytearray()

    def lines(self, timeout: float) -> list[tuple[str, bytes]]:
        try:
            if select.select([self.sock], [], [], timeout)[0]:
                data = self.sock.recv(CHUNK)
                if not data:
                    raise TransportError("the tallyboard process sharing the port stopped")
                self._buffer += data
        except OSError as exc:
            raise TransportError(f"lost the sharer's wire tap ({exc})") from None
        found: list[tuple[str, bytes]] = []
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



def open_link(port: str, serve: bool = False) -> Transport:
    """The link to the board on port: through the hub that serves it, if one does;
    else the port itself, shared with other processes when serve is true (the
    long-running commands: watch, monitor, share)."""
    sock = connect(socket_path(port))
    if sock is not None:
        return SocketTransport(port, sock)
    if serve:
        return HubTransport(port)
    return open_serial(port)
