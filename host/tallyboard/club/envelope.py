"""The signed envelope every club message travels in (docs/club-mqtt.md).

    {"v": 1, "event": "club-2026-11-27", "board": "t1", "seq": 7,
     "kind": "hand", "body": {...}, "sig": "<HMAC-SHA256, 64 hex digits>"}

A table's message: `sig` is the HMAC-SHA256, keyed with its board's key, of
the canonical JSON of every other field (keys sorted, no spaces, ASCII).
`board` names the sender: a board's identity for what a table host
publishes about that board, a table's login for its status.

The director's (`round`, `applied`; `board` is "director") has `tags`
instead of `sig`: {board: HMAC-SHA256 with that board's key of the same
canonical JSON}, one for each table it is for. A table checks its own tag
with its own key and nothing else, so no table holds a key that can speak
for the director to another table (issue 30, finding 2: with one director
key in every join code, any table could forge the round); the director,
who derives every board's key from the evening's secret, alone can tag.

open_message() takes nothing on trust: the bytes must be one JSON object of
exactly these fields (no duplicate key, no float, no NaN), each of its type
and within its range, the event the evening's, the sender known, the
signature (or this table's tag) right, and, for the kinds that happen once
(SEQUENCED), the sequence the next one. It evaluates nothing; the body is
handed on as plain JSON values for the evening to check against its own
schema. A kind of topics.RAW (a release's chunk) is never an envelope: none is
sealed or opened.

Sequences (per sender, per SEQUENCED kind stream): a table host's messages
about a board are numbered 1, 2, 3, ... by its outbox, and the director
takes exactly the next one (`gaps=False`): a seq already applied is refused
as a replay, a seq beyond the next is refused as a gap and comes again
after the one missing (the table host resends everything the director has
not confirmed), so nothing is applied twice or out of order. The director's
own messages are state (the round, retained by the broker): a table host
takes any seq above the last it applied (`gaps=True`), since a table that
joins late needs only the latest, but no more than ROUND_AHEAD above it
once it has taken one (`ahead`): a number pushed far out could otherwise
shadow every later round the director publishes.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Union

from tallynet import topics
from tallyrun.protocol import MAX_TABLE

from ..common.errors import TallyboardError
from . import kinds as _kinds
from .kinds import KINDS, MAX_SEQ, SEQUENCED, is_name

VERSION = 1
DIRECTOR = "director"
Key = Union[bytes, Callable[[Mapping[str, Any]], "bytes | None"]]   # one key, or the key of a message's sender
MAX_BYTES = 64 * 1024        # a whole message; a hand or a round is far smaller
MAX_DEPTH = 8                # nesting of the body
SECRET_BYTES = 32

MAX_TAGS = MAX_TABLE         # a director's message is tagged for each table
# How far above the last round it took a table takes the director's next one. The director numbers
# a round only when its body changes (event next, move, withdraw, add: each a command at its screen),
# a handful an evening; a table connected sees each (retained, QoS 1) and one away misses only those
# published meanwhile. 64 is far beyond that and keeps a number pushed out of reach (the forged
# round 5000 of issue 30) from shadowing the director's later rounds.
ROUND_AHEAD = 64

_SIG = re.compile(r"[0-9a-f]{64}\Z")
_SIGNED = frozenset({"v", "event", "board", "seq", "kind", "body"})     # and sig, or the director's tags


class RefusedMessage(ValueError):
    """A message that is not applied: `reason` is one short word for the log
    (json, version, field, event, board, signature, replay, gap, ahead), the
    text says what was wrong."""

    def __init__(self, reason: str, text: str) -> None:
        super().__init__(text)
        self.reason = reason


def check_name(what: str, name: object) -> str:
    """An event id, board identity or host name: 1-64 letters, digits, _ . -
    starting with a letter or digit (it becomes a topic level)."""
    if not is_name(name) or not isinstance(name, str):
        raise ValueError(f"{what} {name!r} is not a name: use 1 to 64 letters, digits, '_', '.' or '-'")
    return name


def new_secret() -> bytes:
    """A fresh secret for one evening."""
    return secrets.token_bytes(SECRET_BYTES)


def canonical(fields: Mapping[str, Any]) -> bytes:
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("ascii")


def _proof(board: object) -> str:
    """The field that proves a message: the director's `tags`, anyone else's `sig`."""
    return "tags" if board == DIRECTOR else "sig"


def signature(key: bytes, fields: Mapping[str, Any]) -> str:
    """The sig of a table's message, or one table's tag of the director's: HMAC-SHA256
    with `key` of the canonical JSON of every field but sig and tags."""
    unsigned = {name: value for name, value in fields.items() if name not in ("sig", "tags")}
    return hmac.new(key, canonical(unsigned), hashlib.sha256).hexdigest()


def seal(key: bytes, event: str, board: str, seq: int, kind: str, body: Mapping[str, Any]) -> bytes:
    """A table's message's bytes, signed; ValueError if a field is out of range
    (the director's are tagged: seal_director)."""
    if board == DIRECTOR:
        raise ValueError("the director's messages are tagged for each table: seal_director()")
    message = {"v": VERSION, "event": event, "board": board, "seq": seq, "kind": kind, "body": dict(body)}
    _check_fields(message)
    message["sig"] = signature(key, message)
    return _bytes(message)


def seal_director(keys: Mapping[str, bytes], event: str, seq: int, kind: str, body: Mapping[str, Any]) -> bytes:
    """The director's message's bytes, with a tag for each board of `keys` ({board:
    its key}): each table checks its own and can make none for another."""
    message: dict[str, Any] = {"v": VERSION, "event": event, "board": DIRECTOR, "seq": seq, "kind": kind,
                               "body": dict(body)}
    _check_fields(message)
    if not 1 <= len(keys) <= MAX_TAGS:
        raise ValueError(f"a director's message is tagged for 1 to {MAX_TAGS} boards, not {len(keys)}")
    unsigned = canonical(message)
    message["tags"] = {check_name("board", board): hmac.new(key, unsigned, hashlib.sha256).hexdigest()
                       for board, key in sorted(keys.items())}
    return _bytes(message)


def _bytes(message: Mapping[str, Any]) -> bytes:
    data = canonical(message)
    if len(data) > MAX_BYTES:
        raise ValueError(f"message of {len(data)} bytes; at most {MAX_BYTES}")
    return data


def _no_float(text: str) -> None:
    raise ValueError(f"a number with a fraction or exponent ({text}): only whole numbers are sent")


def _no_constant(text: str) -> None:
    raise ValueError(f"{text} is not a JSON number")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a key appears twice")
    return out


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max([_depth(item, level + 1) for item in value.values()] or [level])
    if isinstance(value, list):
        return max([_depth(item, level + 1) for item in value] or [level])
    return level


def _check_fields(message: Mapping[str, Any]) -> None:
    """Every field of its type and in range; RefusedMessage("field"/"version") if not."""
    proof = _proof(message.get("board"))
    if set(message) - {proof} != _SIGNED:
        raise RefusedMessage("field", "fields are " + ", ".join(sorted(message)) + "; expected "
                             + ", ".join(sorted(_SIGNED | {proof})))
    if type(message["v"]) is not int or message["v"] != VERSION:
        raise RefusedMessage("version", f"version {message['v']!r}; this host reads version {VERSION}")
    for name in ("event", "board"):
        try:
            check_name(name, message[name])
        except ValueError as error:
            raise RefusedMessage("field", str(error)) from None
    seq = message["seq"]
    if type(seq) is not int or not 0 <= seq <= MAX_SEQ:
        raise RefusedMessage("field", f"seq {seq!r} is not a whole number from 0 to {MAX_SEQ}")
    if type(message["kind"]) is not str or message["kind"] not in KINDS:
        raise RefusedMessage("field", f"kind {message['kind']!r}; known kinds: " + ", ".join(sorted(KINDS)))
    if message["kind"] in _kinds.RAW:
        raise RefusedMessage("field", f"a {message['kind']} is not an envelope: its bytes go as they are "
                                      "(docs/club-mqtt.md, \"Updates over the air\")")
    if message["kind"] in SEQUENCED and seq == 0:
        raise RefusedMessage("field", f"a {message['kind']} message is numbered from 1")
    body = message["body"]
    if not isinstance(body, dict):
        raise RefusedMessage("field", "body is not a JSON object")
    if _depth(body) > MAX_DEPTH:
        raise RefusedMessage("field", f"body nested deeper than {MAX_DEPTH}")
    if "sig" in message and not (isinstance(message["sig"], str) and _SIG.match(message["sig"])):
        raise RefusedMessage("field", "sig is not 64 lowercase hex digits")
    if "tags" in message:
        tags = message["tags"]
        if not (isinstance(tags, dict) and 1 <= len(tags) <= MAX_TAGS and all(
                is_name(board) and isinstance(tag, str) and _SIG.match(tag) for board, tag in tags.items())):
            raise RefusedMessage("field", f"tags is not 1 to {MAX_TAGS} boards, each with 64 lowercase hex digits")


def open_message(data: bytes | bytearray | str, key: Key, known_boards: Mapping[str, int], *,
                 event: str | None = None, gaps: bool = False, topic: str | None = None,
                 tag_for: str | None = None) -> dict[str, Any]:
    """The message in `data`, checked; RefusedMessage(reason) if it is not to be applied.

    `key` is the key it must be signed with, or a function of the (not yet
    trusted) message giving its sender's key (None: no key for it). A
    director's message is checked by its tag for board `tag_for`, with `key`
    that board's: the table checking it is that board's.
    `known_boards` maps every sender this end accepts to the last seq it
    applied from it (0 for none yet). `event`, if given, is the evening's id.
    `topic`, if given, is the topic it came on: its kind and subject must be
    the message's (kinds.KINDS), and the body is checked as that kind's.
    `gaps` as in the module's docstring."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, (bytes, bytearray)) or len(data) > MAX_BYTES:
        raise RefusedMessage("json", f"not a message of at most {MAX_BYTES} bytes")
    try:
        message = json.loads(bytes(data).decode("utf-8"), parse_float=_no_float, parse_constant=_no_constant,
                             object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise RefusedMessage("json", f"not JSON: {error}") from None
    if not isinstance(message, dict):
        raise RefusedMessage("json", "not a JSON object")
    if "v" in message and (type(message["v"]) is not int or message["v"] != VERSION):
        raise RefusedMessage("version", f"version {message['v']!r}; this host reads version {VERSION}")
    if _proof(message.get("board")) not in message:
        raise RefusedMessage("field", "no " + _proof(message.get("board")))
    _check_fields(message)
    if event is not None and message["event"] != event:
        raise RefusedMessage("event", f"message of event {message['event']!r}, not of {event!r}")
    if topic is not None:
        _check_topic(message, topic)
    sender = message["board"]
    if sender not in known_boards:
        raise RefusedMessage("board", f"unknown board {sender!r}")
    signing_key = key(message) if callable(key) else key
    if signing_key is None:
        raise RefusedMessage("board", f"no key for {sender!r}")
    if sender == DIRECTOR:
        proof = message["tags"].get(tag_for) if tag_for is not None else None
        if proof is None:
            raise RefusedMessage("signature", f"{message['kind']} {message['seq']} from {sender!r} has no tag for "
                                              f"{tag_for!r}")
    else:
        proof = message["sig"]
    if not hmac.compare_digest(signature(signing_key, message), proof):
        whose = f" (the tag for {tag_for!r})" if sender == DIRECTOR else ""
        raise RefusedMessage("signature", f"bad signature{whose} on {message['kind']} {message['seq']} "
                                          f"from {sender!r}")
    if message["kind"] in SEQUENCED:
        last = known_boards[sender]
        seq = message["seq"]
        if seq <= last:
            raise RefusedMessage("replay", f"{message['kind']} {seq} from {sender!r} already applied (last {last})")
        if not gaps and seq != last + 1:
            raise RefusedMessage("gap", f"{message['kind']} {seq} from {sender!r} before {last + 1}")
        if gaps and last and seq > last + ROUND_AHEAD:
            raise RefusedMessage("ahead", f"{message['kind']} {seq} from {sender!r} is more than {ROUND_AHEAD} "
                                          f"above the last taken ({last}): not taken, so it cannot shadow "
                                          "the director's next ones")
    return message


def _check_topic(message: Mapping[str, Any], topic: str) -> None:
    found = _kinds.parse_topic(message["event"], topic)
    if found is None:
        raise RefusedMessage("field", f"{topic} is not a topic of evening {message['event']!r}")
    kind, subject = found
    if kind.body is not None:
        try:
            kind.body(message["body"])
        except _kinds.BodyError as error:
            raise RefusedMessage("field", f"{message['kind']} {message['seq']} from {message['board']!r}: "
                                          f"{error}") from None
    wrong = _kinds.check_topic(kind, subject, dict(message))
    if wrong is not None:
        raise RefusedMessage("field", f"{wrong} ({topic})")


KEY_BYTES = 16               # a table's signing key in a join code (HMAC-SHA256 keys of 128 bits)


def board_key(secret: bytes, board: str) -> bytes:
    """The key that signs `board`'s messages (and its table host's status): derived
    from the evening's secret, so the director knows it for every board, and
    given only to the table host that has that board (its join code)."""
    return hmac.new(secret, b"board:" + board.encode("ascii"), hashlib.sha256).digest()[:KEY_BYTES]


def broker_password(key: bytes) -> str:
    """The broker password of the table whose board signs with `key`: its login is the
    board's identity, its password comes from the board's key (HMAC-SHA256 of the label
    `broker`, 18 bytes in base64url). Whoever has the table's key (its table host, from
    the join code; a board enrolled with its key) can log in as that table and no other;
    the director, who derives every key, writes the broker's users; the password does not
    give the key back, so a broker's password file signs nothing."""
    return base64.urlsafe_b64encode(hmac.new(key, b"broker", hashlib.sha256).digest()[:18]).decode("ascii")


@dataclass(frozen=True)
class JoinCode:
    """What a table host joins with: the evening, its tables and their keys (no key of the director's:
    a table checks the director's messages by its own tag, seal_director)."""
    event: str
    tables: tuple[int, ...]
    keys: tuple[bytes, ...]          # one per table, in the order of `tables`
    ca_pin: str | None = None        # the club CA's pin (certificates.py): the broker a table host trusts


JOIN_VERSION = "tb4"
PINLESS_VERSION = "tb3"             # a code of before the club's TLS (issue 40): no pin, still taken
OLD_JOIN_CODE = ("this join code is from an older tallyboard: it carried the director's key, with which a table "
                 "could sign the director's round (issue 30). Ask the director for a new code for this table "
                 "host's tables (tallyboard event join-code --table N)")


def join_code(event: str, secret: bytes, tables: list[int], board: Callable[[int], str], ca_pin: str) -> str:
    """What the director shows for the table host of `tables` to type in:
    `tb4:EVENT:TABLES:KEYS:PIN:CHECK`, the tables as `1.2`, each table's key in
    base32, the club CA's pin (certificates.pin_of), and a check of all of it.
    `board(t)` is table t's board identity."""
    from .certificates import check_pin

    check_name("event", event)
    check_pin(ca_pin)
    if not tables or len(set(tables)) != len(tables) or not all(type(t) is int and 1 <= t <= MAX_TABLE for t in tables):
        raise ValueError(f"a join code is for one or more different tables, numbered 1 to {MAX_TABLE}")
    material = b"".join(board_key(secret, board(t)) for t in tables)
    text = base64.b32encode(material).decode("ascii").rstrip("=").lower()
    numbers = ".".join(map(str, tables))
    return f"{JOIN_VERSION}:{event}:{numbers}:{text}:{ca_pin}:{_check(f'{event}:{numbers}:{ca_pin}', material)}"


def read_join_code(code: str) -> JoinCode:
    """The evening, tables and keys of a join code; ValueError saying what to do if it was mistyped
    or is an older tallyboard's."""
    from .certificates import check_pin

    parts = code.strip().split(":")
    if parts[0] in ("tb1", "tb2"):
        raise ValueError(OLD_JOIN_CODE)
    if parts[0] == PINLESS_VERSION and len(parts) == 5:
        parts.insert(4, "")           # no pin (a tb3 code of six parts is no code: refused below)
    elif parts[0] == PINLESS_VERSION:
        parts = []
    if len(parts) != 6 or parts[0] not in (JOIN_VERSION, PINLESS_VERSION):
        raise ValueError(f"not a join code: it looks like {JOIN_VERSION}:EVENT:TABLES:KEYS:PIN:CHECK; copy it again "
                         "from the director")
    version, event, numbers, text, pin, check = parts
    check_name("event", event)
    if version == JOIN_VERSION:
        check_pin(pin)
    try:
        tables = tuple(int(t) for t in numbers.split("."))
        material = base64.b32decode(text.upper() + "=" * (-len(text) % 8))
    except ValueError:
        raise ValueError("the join code is mistyped; copy it again from the director") from None
    checked = f"{event}:{numbers}:{pin}" if version == JOIN_VERSION else f"{event}:{numbers}"
    if len(material) != KEY_BYTES * len(tables) or check != _check(checked, material):
        raise ValueError("the join code is mistyped (its check does not match); copy it again from the director")
    keys = tuple(material[KEY_BYTES * i:KEY_BYTES * (i + 1)] for i in range(len(tables)))
    return JoinCode(event, tables, keys, pin or None)


def _check(what: str, material: bytes) -> str:
    return hashlib.sha256(what.encode("ascii") + b":" + material).hexdigest()[:6]


def table_topic(event: str, board: str, kind: str) -> str:
    if KINDS[kind].sender != _kinds.TABLE or KINDS[kind].subject != "sender":
        raise ValueError(f"{kind} is not a board's message")
    return KINDS[kind].topic(event, board)


def host_status_topic(event: str, host: str) -> str:
    return KINDS[topics.STATUS].topic(event, host)


def round_topic(event: str) -> str:
    return KINDS[topics.ROUND].topic(event)


def applied_topic(event: str, board: str) -> str:
    return KINDS[topics.APPLIED].topic(event, board)


def tag_of(event_id: str) -> int:
    """The evening's tag from its id on the wire (club_id: the tag in hex at its end)."""
    try:
        return int(event_id.rsplit("-", 1)[1], 16)
    except (IndexError, ValueError):
        raise TallyboardError(f"{event_id!r} is not an evening's id: copy the join code again from the "
                              "director") from None
