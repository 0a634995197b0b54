"""A session with a board (docs/protocol.md): what the board leaves to the host
(Klipper's split): sequence numbers, timeouts and retries (the same bytes again,
so the board answers a retry from its stored reply and never applies it twice),
telling events from replies, noticing a gap in the event sequence, and opening
the session (HELLO, OPEN). The message table is the firmware's own
(`tallyrun.protocol`): verbs, reply fields, error codes and event kinds are read
from there, never listed again here. client.Board is a Session with the game's
verbs and reads."""
from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from tallycore import game as core_game
from tallyrun import protocol
from ..common import names
from . import description as described
from . import wire
from . import repl
from ..common.errors import BoardError, ProtocolError, TallyboardError, TransportError, log_full
from .boardgame import parse_held
from .transport import Transport

SHARED_SAFE_MODE = "safe mode:"   # how the port's sharer answers for a board in safe mode (portshare)


class RequestError(TallyboardError, ValueError):
    """A request that cannot be sent as asked (unknown verb, a value that is not one word)."""


GARBLED_WAIT = 0.25   # seconds to wait for our reply after a seq-0 error
# a traceback's last line (MicroPython's, after "Traceback (most recent call last):"): the app has stopped
_EXCEPTION_LINE = re.compile(rb"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b")

ERROR_CODES = {code.decode() for code in protocol.ERRORS}
EVENT_KINDS = {row[0].decode(): row[1] for row in protocol.EVENTS}


@dataclass
class Event:
    """An unsolicited line from the board: `! <eseq> <KIND> <key=value>...`."""

    eseq: int
    kind: str
    fields: dict[str, str]
    line: bytes


@dataclass
class Session:
    """A session with a board over a link, in the protocol the board describes (description.py): its
    requests, their seqs and retries, and the events it pushes (client.Board adds
    the game's verbs and reads).

    timeout: seconds to wait for one reply; retries: how many times the same
    request is sent again after a timeout or a garbled line."""

    link: Transport
    timeout: float = 1.0
    retries: int = 3
    on_event: Callable[[Event], None] | None = None
    hello_fields: dict[str, str] = field(default_factory=dict)
    open_fields: dict[str, str] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    last_eseq: int = 0         # 0: none seen yet
    gap: bool = False          # an event was missed: resync with rebuild()
    noise_lines: int = 0
    retried: int = 0
    keep_events: bool = True
    # the board's own description of its protocol (description.py: describe()); None until read: the
    # requests are encoded from this host's rows until then
    description: described.Description | None = None

    def __post_init__(self) -> None:
        # until HELLO hands this session its own seqs (seqs=<first>), a random
        # start: HELLO itself only reads, so it cannot be taken for a change
        self._seq = random.randint(1, protocol.MAX_SEQ)
        self._session_left: int | None = None   # seqs left of the session's; None: none opened
        self.n: int | None = None   # the board's n as last heard (a reply or an event); None: unknown
        self.events_heard = 0
        self._stray: list[bytes] = []
        self._no_app = False
        self._restarted = False      # the board's BOOT ended the last wait for a reply (send_frame)

    # ------------------------------------------------------------ requests
    def next_seq(self) -> int:
        self._seq = self._seq % protocol.MAX_SEQ + 1
        if self._session_left is not None:
            self._session_left -= 1
        return self._seq

    def _open_session(self, reply: dict[str, str]) -> None:
        """Number the next requests from the seqs the board handed this session:
        the board never hands out the seq of its last change, nor another
        session's, so no request of ours is taken for a retry of theirs."""
        first = reply.get("seqs", "")
        if first.isdigit() and 1 <= int(first) <= protocol.MAX_SEQ:
            self._seq = int(first) - 1 if int(first) > 1 else protocol.MAX_SEQ
            self._session_left = protocol.SESSION_SEQS

    def can(self, name: str) -> bool:
        """Whether the board has a capability (description.Description.can: "WHY", "cfg:round",
        "held"), by its own description (read at the first question of a session)."""
        return self.describe().can(name)

    def encode(self, verb: str, *args: Any) -> tuple[int, bytes]:
        """The frame for a request: a verb of the board's description (this host's rows until it is
        read; a verb they lack has it read) with as many arguments as it takes, or the game in play's
        own verb (its rules' VERBS)."""
        spec = (self.description or _HOSTS).verb(verb)
        own = None if spec is not None else wire.game_verbs().get(verb.upper().encode())
        if spec is None and own is None and self.description is None and (self.hello_fields or self.open_fields):
            spec = self.describe().verb(verb)       # a verb of a newer board's, perhaps
        if own is not None:
            name = own[0][0].decode()
        elif spec is None:
            if _HOSTS.verb(verb) is not None:
                raise RequestError(f"{verb}: the board's firmware does not have it (its own description "
                                   "leaves it out); update it with tallyboard deploy")
            raise RequestError(f"{verb}: not a verb of the board's protocol")
        else:
            name = spec.name
            least = len(spec.args) - spec.optional
            if not least <= len(args) <= len(spec.args):
                raise RequestError(f"{verb}: takes {least if least == len(spec.args) else f'{least} to {len(spec.args)}'}"
                                   f" argument{'' if len(spec.args) == 1 else 's'}, not {len(args)}")
        text = " ".join([name, *(_word(a) for a in args)])
        seq = self.next_seq()
        frame = wire.encode_request(seq, text)
        if len(frame) > protocol.MAX_FRAME:
            raise RequestError(f"{verb}: the request is longer than {protocol.MAX_FRAME} bytes")
        return seq, frame

    def request(self, verb: str, *args: Any, timeout: float | None = None) -> dict[str, str]:
        """Send one request, wait for its reply; the reply's key=value fields.
        Raises BoardError (the board's own code and words) on ERR."""
        if self._session_left is not None and self._session_left <= 0 and verb not in ("HELLO", "OPEN"):
            self.hello()   # this session's seqs are used up (or the board restarted): new ones
        seq, frame = self.encode(verb, *args)
        step = _CHANGES.get(verb)
        before, heard = self.n, self.events_heard
        # a session's opening, sent again under a new seq if the board restarts meanwhile (send_frame)
        renumber = (lambda: self.encode(verb, *args)) if verb in _OPENINGS else None
        try:
            reply = self.send_frame(seq, frame, timeout, renumber)
        except BoardError as exc:
            if exc.code == "VERB" and verb.upper() != "DESC":
                board = self.describe()
                if not board.ident:
                    board.refused.add(verb.upper())   # a board before DESC: it lacks this one
            raise
        except TransportError as exc:
            if step is None:
                raise
            # the change went out; whether the board recorded it, nobody here knows
            lost = str(exc).split(": check the cable")[0]
            raise TransportError(f"{lost}, after {verb} was sent: the board may have recorded it; check "
                                 "with tallyboard status before entering it again") from None
        # n must have moved by this change alone; an event heard meanwhile (a
        # change from another host or the board's buttons) leaves it unjudged
        # (a change held for its confirmation moves nothing: it counts once accepted)
        if (step is not None and before is not None and heard == self.events_heard
                and reply.get("n", "").isdigit() and parse_held(reply) is None):
            expected = 0 if verb == "NEW" else before + step
            if int(reply["n"]) != expected:
                raise ProtocolError(f"{verb}: the board answered n={reply['n']} where this change makes "
                                    f"n={expected}; it may not have been applied: check with "
                                    "tallyboard status before entering it again")
        self._heard_n(reply)
        return reply

    def _heard_n(self, fields: dict[str, str]) -> None:
        n = fields.get("n", "")
        if n.isdigit():
            self.n = int(n)

    def send_frame(self, seq: int, frame: bytes, timeout: float | None = None,
                   renumber: Callable[[], tuple[int, bytes]] | None = None) -> dict[str, str]:
        """Send frame until its reply comes (the same bytes again after a timeout: a change the board
        took is answered again, never applied twice). With renumber (the request as a new frame: only
        for one that changes nothing), a restart of the board heard meanwhile (its BOOT: a deploy's
        reset, a power cut) sends it again at once under a new seq, instead of after the timeout: the
        board answers nothing it heard before restarting, and a reply to the old seq, if it comes, is
        passed over rather than left to be taken for a later request's that reuses the number."""
        wait = self.timeout if timeout is None else timeout
        self._stray = []
        self._no_app = False
        restarts = 0
        attempt = 0
        while attempt <= self.retries:
            if attempt:
                self.retried += 1
            self.link.write(frame)
            self._restarted = False
            outcome = self._await_reply(seq, wait, restart_ends=renumber is not None and restarts < _RESTARTS)
            if self._restarted and renumber is not None:
                restarts += 1
                seq, frame = renumber()
                continue
            attempt += 1
            if outcome is None:
                if self._no_app:
                    break         # the REPL or a traceback, not the app: sending again changes nothing
                continue          # timeout, or the board saw our line garbled: same bytes again
            ok, body = outcome
            if ok:
                return wire.fields(body)
            parts = body.decode(errors="replace").split(" ", 3)
            code = parts[2] if len(parts) > 2 else "?"
            raise BoardError(code, parts[3] if len(parts) > 3 else "", self._in_host_words(code))
        raise TransportError(self._silence_hint(frame))

    def _in_host_words(self, code: str) -> str | None:
        """What to do after a refusal, where the host says it better with its
        own commands; None: the board's words say it."""
        if code == protocol.ERRORS[protocol.E_FULL - 1].decode():
            return log_full(self.hello_fields.get("log", core_game.LOG_CAPACITY))
        return None

    def _silence_hint(self, frame: bytes) -> str:
        verb = frame.split(b" ", 2)[1].split(b"*")[0].decode(errors="replace")
        # what came instead of replies: lines that were no frames, and a
        # prompt that never ends in a newline
        stray = b" ".join(self._stray[-3:] + [self.link.pending()]).decode(errors="replace").strip()
        if "Traceback" in stray or "Error" in stray:
            return (f"the tallyboard app on {self.link.name} stopped with an error (it said: "
                    f"{stray[-100:]!r}): power the board off and on; if it happens again, run "
                    "tallyboard deploy")
        if ">>>" in stray or "MicroPython" in stray:
            return (f"the board on {self.link.name} is at the MicroPython prompt, not running the "
                    f"tallyboard app (it said: {stray[-80:]!r}): run tallyboard deploy")
        return (f"no reply from the board on {self.link.name} to {verb} after "
                f"{self.retries + 1} tries: check the cable, or run tallyboard deploy if the "
                "firmware is not installed")

    def _await_reply(self, seq: int, wait: float, restart_ends: bool = False) -> tuple[bool, bytes] | None:
        """(ok, body) of the reply to seq; None to send the request again (with restart_ends, also when
        the board's BOOT is heard first: _restarted says so)."""
        deadline = time.monotonic() + wait
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            line = self.link.read_line(left)
            if line is None:
                return None
            try:
                body = wire.check_frame(line)
            except ValueError:
                self.noise_lines += 1
                self._stray.append(line)
                if _EXCEPTION_LINE.match(line) and any(s.startswith(b"Traceback") for s in self._stray):
                    # the app stopped with an error: nobody is there to answer, however often it is asked
                    self._no_app = True
                    return None
                if line.startswith(b">>> %d " % seq):
                    # MicroPython's REPL echoed our request: no app is there to
                    # answer it, however often it is sent. Keep what the REPL
                    # says next (for the error), then stop trying.
                    self._no_app = True
                    while True:
                        more = self.link.read_line(GARBLED_WAIT)
                        if more is None:
                            return None
                        self._stray.append(more)
                continue
            if body.startswith(b"! "):
                if self._event(body, line) == "BOOT" and restart_ends:
                    self._restarted = True
                    return None
                continue
            head = body.split(b" ", 3)
            if len(head) < 2 or not head[0].isdigit():
                self.noise_lines += 1
                continue
            their_seq = int(head[0])
            if their_seq == seq and head[1] in (b"OK", b"ERR"):
                return head[1] == b"OK", body
            if their_seq == 0 and head[1] == b"ERR":
                # the board could not trust a line: ours arrived garbled, or
                # stale noise before it did. The board answers in order, so
                # if ours was fine its reply follows at once; else send again.
                deadline = min(deadline, time.monotonic() + GARBLED_WAIT)
            # a stale reply to an earlier request (answered twice): not ours

    # ------------------------------------------------------------ events
    def _event(self, body: bytes, line: bytes) -> str | None:
        """An event line heard: kept, its numbering checked; its kind (None: noise)."""
        parts = body.decode(errors="replace").split(" ")
        if len(parts) < 3 or not parts[1].isdigit():
            self.noise_lines += 1
            return None
        event = Event(int(parts[1]), parts[2], wire.fields(body), line)
        if event.kind == "BOOT":
            # the board restarted: its event numbers start again, and it may
            # hand our seqs to another session: ask for new ones first
            self.gap = self.gap or self.last_eseq != 0
            if self._session_left is not None:
                self._session_left = 0
            self.description = None     # it may run other firmware now (a deploy): read again when asked
        elif self.last_eseq and event.eseq != self.last_eseq % protocol.EVENT_SEQ_LIMIT + 1:
            self.gap = True
        self.last_eseq = event.eseq
        self.events_heard += 1
        self._heard_n(event.fields)
        if self.keep_events:
            self.events.append(event)
        if self.on_event:
            self.on_event(event)
        return event.kind

    def poll_events(self, timeout: float, first: bool = False) -> list[Event]:
        """Events that arrive within timeout seconds (for watch); with first,
        return as soon as one has come."""
        before = len(self.events)
        keep = self.keep_events
        self.keep_events = True
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                line = self.link.read_line(left)
                if line is None:
                    break
                try:
                    body = wire.check_frame(line)
                except ValueError:
                    self.noise_lines += 1
                    continue
                if body.startswith(b"! "):
                    self._event(body, line)
                    if first:
                        break
        finally:
            self.keep_events = keep
        got = self.events[before:]
        if not keep:
            del self.events[before:]
        return got

    # ------------------------------------------------------------ the verbs
    def hello(self) -> dict[str, str]:
        """Identify the board; a clear error if it runs another protocol."""
        reply = self._opening("HELLO")
        self.hello_fields = reply
        return reply

    def open(self) -> dict[str, str]:
        """OPEN: a session as HELLO opens one, and the board's stamp of its game
        (game, players, options, n, top, log CRC, settings CRC, notes): enough
        for a command to tell whether its cached copy is current."""
        reply = self._opening("OPEN")
        self.open_fields = reply
        return reply

    def _opening(self, verb: str) -> dict[str, str]:
        try:
            reply = self.request(verb)
        except BoardError as exc:
            if exc.code == "BOARD" and exc.board_message.startswith(SHARED_SAFE_MODE):
                # the sharer of the port asked the REPL itself (boardlink.hub.Hub) and answers for it
                raise TransportError(repl.SAFE_MODE_ADVICE) from None
            raise ProtocolError(f"the board on {self.link.name} does not understand {verb} "
                                f"({exc.board_message}): its firmware is too old; run tallyboard deploy") from None
        except TransportError:
            # MicroPython's REPL may have answered instead of the app: ask it
            # whether main.py left the app out on purpose (repl.py)
            if repl.safe_mode(self.link):
                raise TransportError(repl.SAFE_MODE_ADVICE) from None
            raise
        board = reply.get("board")
        if board is not None and not names.is_board_text(board, 1, names.BOARD_MAX):
            # the board's name goes into the evening's store and onto the terminal (event attach): a
            # name the board's own rule refuses (an escape sequence, U+202E) is never taken
            raise ProtocolError(f"the board on {self.link.name} calls itself {board[:40]!r}, which is not a "
                                f"board's name (1 to {names.BOARD_MAX} letters, digits, _ - or .): it runs "
                                "other firmware, or its board definition is damaged; run tallyboard deploy")
        self._open_session(reply)
        # what the board has is read from the board (its description) when asked for (can()), or at once
        # when it speaks another protocol than this host's rows: then it is judged by what it says it has,
        # not by its version. A board of this host's protocol costs a command no request more (issue 11.7:
        # OPEN and the change), and a board deployed anew since is read again.
        self.description = None
        if reply.get("proto") != _HOSTS_PROTOCOL:
            self.describe(reply)
        return reply

    def describe(self, hello: dict[str, str] | None = None) -> described.Description:
        """The board's own description of its protocol (one DESC page once this host has read its
        firmware's), read once a session; ProtocolError when it lacks what every command needs."""
        if self.description is None:
            hello = hello or self.hello_fields or self.open_fields
            board = described.read(self.request, hello)
            missing = [verb for verb in _NEEDED if not board.can(verb)]
            if missing:
                raise ProtocolError(f"the board's firmware {hello.get('fw', '?')} has no {', '.join(missing)}: "
                                    "update it with tallyboard deploy")
            self.description = board
        return self.description

    def connect(self) -> dict[str, str]:
        """Drop whatever stale bytes wait on the port, then HELLO."""
        self.link.drain()
        return self.hello()


# the verbs that open a session: sent again under a new seq when the board restarts before answering
_OPENINGS = ("HELLO", "OPEN")
_RESTARTS = 3             # restarts heard in one request before it waits out its timeout like any other
# what the host reads a board with before HELLO (and encodes from until the board's description is read)
_HOSTS = described.this_hosts()
_HOSTS_PROTOCOL = str(protocol.PROTOCOL_VERSION)
# what every command needs of a board (the rest is asked for by name: Session.can)
_NEEDED = ("HELLO", "OPEN", "STATE", "LOG", "NEW", "EV", "UNDO", "REDO")

# the verbs that change n, and by how much (NEW: to 0): from the message
# table and the games' own declarations
_CHANGES = wire.n_steps()


def _word(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(int(value))
    text = str(value)
    if not text or " " in text or "*" in text or not text.isprintable() or not text.isascii():
        raise RequestError(f"{text!r}: must be one word of printable ASCII (no spaces)")
    return text
