"""A tallyboard client written as a third party would write one: from
docs/protocol.md (and the machine-readable docs/protocol.json) alone, with the
standard library. It imports nothing of host/ or firmware/: what it needs of the
protocol it takes from the docs, so the docs are what it tests (tests/conformance/
plays every game with it beside `tallyboard watch`). Copy it, or run it:

    python examples/tbclient.py /dev/ttyACM0     # HELLO and STATE through the port's sharer

What it implements, each from its section of docs/protocol.md:
  - Frames: printable ASCII lines, `*` and CRC-16/CCITT-FALSE in 4 uppercase
    hex digits over every byte before the last `*`.
  - Sequence numbers: HELLO opens a session; its `seqs=<first>` hands the
    session 1024 seqs; HELLO again when they are used up or after BOOT.
  - Retries: with no reply in time, the same bytes again; after `0 ERR` (the
    board could not trust a line) a short wait for the reply, then the same
    bytes again.
  - Events: `! <eseq> <KIND> key=value...`, eseq one more each time.
  - Sharing the port: the socket of a port is `tallyboard/<16 hex>.sock` in
    $XDG_RUNTIME_DIR (else `tallyboard-<uid>` in the temporary folder), the hex
    digits the start of the SHA-1 of the port's real path."""
from __future__ import annotations

import hashlib
import os
import random
import select
import socket
import tempfile
import time

SESSION_SEQS = 1024
MAX_SEQ = 65535
GARBLED_WAIT = 0.25


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, not reflected, no final xor."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = (crc << 1 ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def frame(seq: int, text: str | bytes) -> bytes:
    if isinstance(text, str):
        text = text.encode()
    body = b"%d %s" % (seq, text)
    return b"%s*%04X\n" % (body, crc16(body))


class FrameError(ValueError):
    pass


def body_of(line: bytes) -> bytes:
    """The part before `*` of a received line whose checksum is right."""
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 5:
        raise FrameError(f"no *XXXX checksum: {line!r}")
    if b"%04X" % crc16(line[:star]) != line[star + 1:]:
        raise FrameError(f"checksum mismatch: {line!r}")
    return line[:star]


def fields_of(body: bytes) -> dict[str, str]:
    out = {}
    for word in body.decode().split(" "):
        key, eq, value = word.partition("=")
        if eq and key:
            out[key] = value
    return out


def shared_socket_path(port: str) -> str:
    """The documented rule (docs/protocol.md, Sharing the port)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = os.path.join(base, "tallyboard") if base else os.path.join(tempfile.gettempdir(),
                                                                        f"tallyboard-{os.getuid()}")
    name = hashlib.sha1(os.path.realpath(port).encode()).hexdigest()[:16]
    return os.path.join(folder, name + ".sock")


class Refused(Exception):
    """The board answered ERR: its code and its words."""

    def __init__(self, code: str, words: str) -> None:
        super().__init__(f"{code} {words}")
        self.code = code
        self.words = words


class NoReply(Exception):
    pass


class Event:
    def __init__(self, eseq: int, kind: str, fields: dict[str, str], line: bytes) -> None:
        self.eseq, self.kind, self.fields, self.line = eseq, kind, fields, line

    def __repr__(self) -> str:
        return f"Event({self.eseq}, {self.kind}, {self.fields})"


class Client:
    """One session with a board over a connected stream socket (the shared port)."""

    def __init__(self, sock: socket.socket, timeout: float = 2.0, retries: int = 3) -> None:
        self.sock = sock
        self.timeout = timeout
        self.retries = retries
        self.buffer = b""
        self.events: list[Event] = []
        self.gaps = 0
        self.noise: list[bytes] = []
        self.seq = random.randint(1, MAX_SEQ)
        self.left = 0            # seqs left of this session's
        self.tries = 0           # frames written, retries included

    @classmethod
    def connect(cls, port: str, **kw: float) -> "Client":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(shared_socket_path(port))
        return cls(sock, **kw)

    def close(self) -> None:
        self.sock.close()

    # ---------------------------------------------------------------- lines
    def read_line(self, timeout: float) -> bytes | None:
        """The next line without its newline; None when none came in time.
        EOFError when the other end closed the connection."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                return None
            chunk = self.sock.recv(4096)
            if not chunk:
                raise EOFError("the shared port closed the connection")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.rstrip(b"\r")

    def _take_event(self, body: bytes, line: bytes) -> None:
        words = body.decode().split(" ")
        event = Event(int(words[1]), words[2], fields_of(body), line)
        if event.kind == "BOOT":
            self.left = 0
        elif self.events and event.eseq != self.events[-1].eseq % MAX_SEQ + 1:
            self.gaps += 1
        self.events.append(event)

    def poll(self, timeout: float) -> None:
        """Read events for timeout seconds."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            line = self.read_line(left)
            if line is None:
                return
            self._line(line, None)

    def wait_event(self, check, timeout: float = 10.0, since: int = 0) -> Event:
        """The first event from events[since] on (already heard or coming) for which check(event) is true."""
        seen = since
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events[seen:]:
                if check(event):
                    return event
            seen = len(self.events)
            left = deadline - time.monotonic()
            if left <= 0:
                raise NoReply(f"no such event within {timeout} s (heard {self.events[-5:]})")
            self.poll(min(left, 0.2))

    def _line(self, line: bytes, seq: int | None) -> tuple[bool, bytes] | str | None:
        """An event is kept; the reply to seq returned as (ok, body); "garbled"
        for a `0 ERR`; None for anything else (noise, a stale reply)."""
        try:
            body = body_of(line)
        except FrameError:
            self.noise.append(line)
            return None
        if body.startswith(b"! "):
            self._take_event(body, line)
            return None
        head = body.split(b" ", 2)
        if len(head) >= 2 and head[0] == b"0" and head[1] == b"ERR":
            return "garbled"
        if seq is not None and len(head) >= 2 and head[0] == b"%d" % seq and head[1] in (b"OK", b"ERR"):
            return head[1] == b"OK", body
        return None

    # ---------------------------------------------------------------- requests
    def next_seq(self) -> int:
        self.seq = self.seq % MAX_SEQ + 1
        self.left -= 1
        return self.seq

    def request(self, verb: str, *args: object) -> dict[str, str]:
        if self.left <= 0 and verb != "HELLO":
            self.hello()
        text = " ".join([verb, *("-" if a is None else str(a) for a in args)])
        seq = self.next_seq()
        data = frame(seq, text)
        for _ in range(self.retries + 1):
            self.sock.sendall(data)
            self.tries += 1
            deadline = time.monotonic() + self.timeout
            while (left := deadline - time.monotonic()) > 0:
                line = self.read_line(left)
                if line is None:
                    break
                got = self._line(line, seq)
                if got == "garbled":
                    deadline = min(deadline, time.monotonic() + GARBLED_WAIT)
                elif got is not None:
                    ok, body = got
                    if ok:
                        return fields_of(body)
                    words = body.decode().split(" ", 3)
                    raise Refused(words[2], words[3] if len(words) > 3 else "")
        raise NoReply(f"no reply to {text!r} after {self.retries + 1} tries")

    def hello(self) -> dict[str, str]:
        reply = self.request("HELLO")
        self.seq = int(reply["seqs"]) - 1 or MAX_SEQ
        self.left = SESSION_SEQS
        return reply


# ---------------------------------------------------------------- the spec (docs/protocol.json)

class Spec:
    """docs/protocol.json: the games and each one's packed event layout
    ("ev_decoding" in the file says how to read it)."""

    def __init__(self, document: dict) -> None:
        self.document = document
        self.games = {g["name"]: g for g in document["games"]}

    @classmethod
    def load(cls, path: str) -> "Spec":
        import json

        with open(path, encoding="utf-8") as f:
            return cls(json.load(f))

    def decode(self, game: str, event: int) -> tuple[str, dict[str, object]]:
        """(form, {field: value}) of a packed event; a field with each=true is a
        list, one value per player. ValueError when no form matches or a field is
        out of its range."""
        for form in self.games[game]["event_forms"]:
            if event & form["mask"] != form["value"]:
                continue
            values: dict[str, object] = {}
            for field in form["fields"]:
                width = field["width"]
                if field["each"]:
                    copies = [(event >> (field["shift"] + p * width)) & ((1 << width) - 1) for p in range(8)]
                    for v in copies:
                        if not field["min"] <= v <= field["max"]:
                            raise ValueError(f"{game} {form['form']}: {field['name']} {v} out of range")
                    values[field["name"]] = copies
                else:
                    v = (event >> field["shift"]) & ((1 << width) - 1)
                    if not field["min"] <= v <= field["max"]:
                        raise ValueError(f"{game} {form['form']}: {field['name']}={v} outside "
                                         f"{field['min']}..{field['max']}")
                    values[field["name"]] = v
            return form["form"], values
        raise ValueError(f"{game}: no event form matches {event}")

    def form(self, game: str, event: int) -> dict:
        """The event form a packed event is of (the first whose mask and value match)."""
        for form in self.games[game]["event_forms"]:
            if event & form["mask"] == form["value"]:
                return form
        raise ValueError(f"{game}: no event form matches {event}")

    def closes_hand(self, game: str, event: int) -> bool:
        """Whether the event ends a hand (its form's closes_hand): SCORE's hands counts these, and
        with confirmation on the board holds such a change for an opponent's accept."""
        return bool(self.form(game, event)["closes_hand"])

    def encode(self, game: str, form_name: str, **values: object) -> int:
        """The packed event of a form and its fields (a list for an each=true field)."""
        form = next(f for f in self.games[game]["event_forms"] if f["form"] == form_name)
        event = form["value"]
        for field in form["fields"]:
            value = values.pop(field["name"])
            copies = value if field["each"] else [value]
            for p, v in enumerate(copies):
                assert field["min"] <= v <= field["max"], (field["name"], v)
                event |= v << (field["shift"] + p * field["width"])
        assert not values, f"not fields of {game} {form_name}: {sorted(values)}"
        assert event & form["mask"] == form["value"], "the fields overlap the form's mark"
        return event


if __name__ == "__main__":
    import sys

    board = Client.connect(sys.argv[1] if len(sys.argv) > 1 else "/dev/ttyACM0")
    try:
        print(board.hello())
        print(board.request("STATE"))
    finally:
        board.close()
