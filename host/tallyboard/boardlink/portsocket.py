"""Where a shared port is served and how it is reached (docs/protocol.md,
"Sharing the port"; the hub is hub.py, the links through it portshare.py):
the paths of a port's socket and wire tap, who holds a port, listening and
connecting on a socket, the serial port opened exclusively, the check of a
client's line before it goes to the board, and a client and its request as
the hub keeps them."""
from __future__ import annotations


import collections
import contextlib
import errno
import hashlib
import os
import socket
import stat
import struct
import tempfile
import time
from pathlib import Path

from tallyrun import incoming, outgoing, protocol

from . import wire
from ..common.errors import TransportError
from .transport import SerialTransport

# How long a command waits for a port another tallyboard command holds for a moment.
BUSY_WAIT_S = 3.0
KEPT_ANSWERS = 16            # replies kept per client, to answer its retries
CHUNK = 4096
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
    the system tells (Linux /proc); None when it cannot be found. A pseudo-terminal's
    own end (an emulated board holds the master of its /dev/pts/N, and its slave
    too) is the board, not a program in the way: it is never named."""
    real = os.path.realpath(port)
    board_side = _pty_index(real)
    me = os.getpid()
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    for entry in sorted((e for e in proc.iterdir() if e.name.isdigit()), key=lambda e: int(e.name)):
        if int(entry.name) == me:
            continue
        try:
            links = {fd.name: os.path.realpath(fd) for fd in (entry / "fd").iterdir()}
            if real not in links.values():
                continue
            if board_side is not None and any(
                    target.endswith("/ptmx") and _tty_index(entry / "fdinfo" / fd) == board_side
                    for fd, target in links.items()):
                continue
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            return f"pid {entry.name} ({cmdline.strip()[:80]})"
        except OSError:
            continue
    return None


def _pty_index(real: str) -> int | None:
    """N of a /dev/pts/N, else None."""
    head, _, number = real.rpartition("/")
    return int(number) if head == "/dev/pts" and number.isdigit() else None


def _tty_index(fdinfo: Path) -> int | None:
    """The pseudo-terminal a ptmx descriptor is the master of (Linux fdinfo's tty-index)."""
    try:
        for line in fdinfo.read_text().splitlines():
            if line.startswith("tty-index:"):
                return int(line.split(":", 1)[1])
    except (OSError, ValueError):
        return None
    return None


def _board_answer(code: int, words: bytes) -> bytes:
    """`0 ERR <CODE> <words>` as the board's own writer (tallyrun.outgoing) makes it."""
    writer = outgoing.Writer()
    writer.error(0, code, words)
    return bytes(writer.buf[:writer.finish()])


TOO_LONG = _board_answer(protocol.E_FRAME, incoming.TOO_LONG)


def check_request(line: bytes) -> tuple[int, int, bytes] | bytes:
    """(seq, crc, text after the seq) of a client's line (its newline taken off),
    or, for a line the board could not trust (it would answer it with seq 0),
    that answer: the board's own parser (tallyrun.incoming) reads the line, so
    its codes and words are the board's."""
    if len(line) + 1 > protocol.MAX_FRAME:
        return TOO_LONG
    if line.endswith(b"\r"):
        line = line[:-1]
    request = incoming.Request()
    code = request.parse(bytearray(line), len(line))
    if request.seq == 0:
        return _board_answer(code, request.message)
    star = line.rfind(b"*")
    return request.seq, request.crc, line[request.ends[0]:star].lstrip(b" ")



def listen(path: Path) -> tuple[socket.socket, int]:
    """A Unix socket listening at path (0600), and the inode of its name. Listening
    before it has its name: a client that finds the name can connect, and a name
    that refuses is a dead owner's (see connect)."""
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



def connect(path: Path) -> socket.socket | None:
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


def peer_uid(sock: socket.socket) -> int | None:
    try:
        return struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                   struct.calcsize("3i")))[1]
    except (AttributeError, OSError):
        return None



def open_serial(port: str) -> SerialTransport:
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
    sock = connect(socket_path(port))
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


class Request:
    """One client's request: its own seq and checksum; the wire seq, checksum and
    frame it goes out with, fixed the first time it is sent (a retry is the same bytes)."""

    def __init__(self, client: "Client", seq: int, crc: int, text: bytes) -> None:
        self.client = client
        self.seq = seq
        self.crc = crc
        self.text = text
        self.line = b""             # as the client sent it: the wire's, when its seq is (Hub._wire_frame)
        self.wire_seq = 0
        self.wire_crc = 0
        self.frame = b""
        self.deadline = 0.0
        self.held: list[bytes] = []  # what the board said that was no frame while this was in flight


class Client:
    """One connection to the hub."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self.sock = sock
        self.partial = bytearray()
        self.skipping = False       # the rest of a too-long line is dropped, up to its end
        self.queue: collections.deque[Request] = collections.deque()
        self.watcher = False        # a wire tap's reader: sends nothing, is sent every line
        self.outbox = bytearray()
        self.events = 0             # what the selector watches it for
        self.answers: collections.OrderedDict[tuple[int, int], bytes] = collections.OrderedDict()
        self.unanswered: collections.OrderedDict[tuple[int, int], Request] = collections.OrderedDict()
        self.gone = False

    def keep(self, table: collections.OrderedDict, key: tuple[int, int], value: object) -> None:
        table[key] = value
        table.move_to_end(key)
        while len(table) > KEPT_ANSWERS:
            table.popitem(last=False)
