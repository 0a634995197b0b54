"""The club's message kinds (docs/club-mqtt.md, "Topics"): the firmware's
table (tallynet.topics, which a board on Wi-Fi reads too) of each kind's
topic, sender, and whether it is numbered (applied once each, in order) and
retained, with the check of its body where the transport knows its shape.
The envelope, the links, the outbox and the director read this module; a
kind's name and topic are written only in tallynet.topics.

Topics are `tallyboard/<event>/` and then the kind's levels, where `SUBJECT`
stands for the one level that names whom the message is about: the board
(hand, state, applied, health, offer, chunk, update) or the table host's client
id (status). A kind of topics.RAW (a release's chunk) is not an envelope: its
bytes are checked by the signed release's hash chain, and no envelope of that
kind is sealed or opened (envelope.py)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from tallynet import health, topics, update
from tallyrun.protocol import MAX_TABLE

MAX_SEQ = 2**53 - 1          # the largest integer every JSON reader keeps exact
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")   # topic-safe: no / + # or spaces
TABLE = topics.TABLE        # senders
DIRECTOR = topics.DIRECTOR
SUBJECT = topics.SUBJECT
ROOT = topics.ROOT


class BodyError(ValueError):
    """A body of the wrong shape; the text says which field."""


def is_name(name: object) -> bool:
    """An event id, board identity or host name: 1-64 letters, digits, _ . - starting
    with a letter or digit (it becomes a topic level)."""
    return isinstance(name, str) and bool(_NAME.match(name))


def _status_body(body: dict[str, Any]) -> None:
    if set(body) != {"online", "boards"} or type(body["online"]) is not bool:
        raise BodyError("a status body is {online: true or false, boards: [...]}")
    boards = body["boards"]
    if not isinstance(boards, list) or len(boards) > MAX_TABLE or not all(is_name(b) for b in boards):
        raise BodyError("a status's boards are a list of board names")


def _applied_body(body: dict[str, Any]) -> None:
    if set(body) != {"board", "seq"} or not is_name(body["board"]) or type(body["seq"]) is not int \
            or not 0 <= body["seq"] <= MAX_SEQ:
        raise BodyError("an applied body is {board: NAME, seq: a whole number}")


def _health_body(body: dict[str, Any]) -> None:
    """A board's health (docs/club-mqtt.md, "Each board's health"): exactly the fields of
    tallynet.health.FIELDS, the one definition of it, each of its kind and in its range: an
    "int" a whole number lo..hi or null (the board cannot measure it), a "name" 1..hi letters,
    digits, . _ - (the cause one of health.CAUSES). BodyError naming the first field wrong."""
    names = [field[0] for field in health.FIELDS]
    missing = [name for name in names if name not in body]
    extra = sorted(str(name)[:40] for name in body if name not in names)
    if missing or extra:
        raise BodyError("a health body has the fields " + ", ".join(names)
                        + (f"; missing {', '.join(missing)}" if missing else "")
                        + (f"; no field {', '.join(map(repr, extra))}" if extra else ""))
    for name, kind, low, high, _on_change in health.FIELDS:
        value = body[name]
        if kind == "int":
            if value is not None and (type(value) is not int or not low <= value <= high):
                raise BodyError(f"health {name} {str(value)[:40]!r} is not a whole number from {low} to {high} "
                                "(or null)")
        elif not (isinstance(value, str) and low <= len(value) <= high and _HEALTH_NAME.match(value)):
            raise BodyError(f"health {name} {str(value)[:40]!r} is not {low} to {high} letters, digits, . _ -")
    if body["cause"] not in health.CAUSES:
        raise BodyError(f"health cause {body['cause']!r} is not one of " + ", ".join(health.CAUSES))


_HEALTH_NAME = re.compile(r"[A-Za-z0-9._-]+\Z")

# a board's side of an update over the air (docs/club-mqtt.md, "Updates over the air")
UPDATE_STATES = update.STATES      # the board's own list (firmware/tallynet/update.py)
UPDATE_FIELDS = ("release", "state", "have", "of", "why")
MAX_CHUNKS = update.MAX_CHUNKS      # a chunk's index is 2 bytes on the wire (the board's bound)
MAX_WORD = 16                # a release id (12) or a why word: "-" when there is none
_SIG128 = re.compile(r"[0-9a-f]{128}\Z")


def _is_word(value: object) -> bool:
    return isinstance(value, str) and 1 <= len(value) <= MAX_WORD and bool(_HEALTH_NAME.match(value))


def _update_body(body: dict[str, Any]) -> None:
    """A board's update status: {release: id or "-", state: one of UPDATE_STATES, have: the chunks it
    holds, of: how many there are (0..65535, have <= of), why: a word or "-"}. BodyError naming the field."""
    if set(body) != set(UPDATE_FIELDS):
        raise BodyError("an update body has the fields " + ", ".join(UPDATE_FIELDS) + "; not "
                        + ", ".join(sorted(str(name)[:40] for name in body)))
    for name in ("release", "why"):
        if not _is_word(body[name]):
            raise BodyError(f"update {name} {str(body[name])[:40]!r} is not 1 to {MAX_WORD} letters, digits, . _ - "
                            "(or -)")
    if body["why"] != "-" and body["why"] not in update.WHYS:
        raise BodyError(f"update why {body['why']!r} is not one of " + ", ".join(update.WHYS) + " (or -)")
    if body["state"] not in UPDATE_STATES:
        raise BodyError(f"update state {str(body['state'])[:40]!r} is not one of " + ", ".join(UPDATE_STATES))
    for name in ("have", "of"):
        if type(body[name]) is not int or not 0 <= body[name] <= MAX_CHUNKS:
            raise BodyError(f"update {name} {str(body[name])[:40]!r} is not a whole number from 0 to {MAX_CHUNKS}")
    if body["have"] > body["of"]:
        raise BodyError(f"update have {body['have']} is more than its of {body['of']}")


def _offer_body(body: dict[str, Any]) -> None:
    """The director's offer of a release to a board: {board: NAME, manifest: {...}, sig: 128 hex
    digits, force: true or false} (the manifest is the board's to check, with the signature)."""
    if set(body) != {"board", "manifest", "sig", "force"}:
        raise BodyError("an offer body is {board, manifest, sig, force}")
    if not is_name(body["board"]):
        raise BodyError(f"offer board {str(body['board'])[:40]!r} is not a board's identity")
    if not isinstance(body["manifest"], dict):
        raise BodyError("offer manifest is not a JSON object")
    if not (isinstance(body["sig"], str) and _SIG128.match(body["sig"])):
        raise BodyError("offer sig is not 128 lowercase hex digits")
    if type(body["force"]) is not bool:
        raise BodyError("offer force is not true or false")


@dataclass(frozen=True)
class Kind:
    name: str
    sender: str                 # TABLE or DIRECTOR
    levels: tuple[str, ...]     # after tallyboard/<event>/
    sequenced: bool             # numbered from 1 per sender, applied once each, in order
    retained: bool
    body: Callable[[dict[str, Any]], None] | None   # the transport's check; None: the evening checks it
    # whose name the SUBJECT level must be: "sender" (the envelope's board), or a body field
    subject: str | None = "sender"
    raw: bool = False           # topics.RAW: its payload is bytes of its own, not an envelope

    def topic(self, event: str, subject: str | None = None) -> str:
        return topics.topic(self.name, event, subject)

    def subscription(self, event: str) -> str:
        return self.topic(event, "+") if SUBJECT in self.levels else self.topic(event)


_BODIES = {topics.STATUS: _status_body, topics.APPLIED: _applied_body, topics.HEALTH: _health_body,
           topics.UPDATE: _update_body, topics.OFFER: _offer_body}   # the others: the evening checks them
KINDS: dict[str, Kind] = {
    name: Kind(name, sender, levels, sequenced=sequenced, retained=retained, body=_BODIES.get(name), subject=subject,
               raw=name in topics.RAW)
    for name, sender, levels, sequenced, retained, subject in topics.KINDS}
RAW = frozenset(topics.RAW)     # not envelopes: never sealed nor opened as one
SEQUENCED = frozenset(name for name, kind in KINDS.items() if kind.sequenced)
FROM_TABLES = tuple(kind for kind in KINDS.values() if kind.sender == TABLE)
FROM_DIRECTOR = tuple(kind for kind in KINDS.values() if kind.sender == DIRECTOR)
QUEUED = tuple(KINDS[name] for name in topics.QUEUED)     # what a table host's outbox numbers and keeps


def parse_topic(event: str, topic: str) -> tuple[Kind, str | None] | None:
    """(kind, subject) of a topic of evening `event`; None if it is no club topic of it."""
    levels = topic.split("/")
    if len(levels) < 3 or levels[0] != ROOT or levels[1] != event:
        return None
    rest = levels[2:]
    for kind in KINDS.values():
        if len(rest) != len(kind.levels):
            continue
        subject = None
        for level, pattern in zip(rest, kind.levels):
            if pattern == SUBJECT:
                subject = level
            elif level != pattern:
                break
        else:
            return kind, subject
    return None


def check_topic(kind: Kind, subject: str | None, message: dict[str, Any]) -> str | None:
    """Why `message` does not belong on a topic of `kind` about `subject`; None if it does."""
    if message["kind"] != kind.name:
        return f"a {message['kind']} message on a {kind.name} topic"
    if kind.subject == "sender" and message["board"] != subject:
        return f"{message['board']}'s {kind.name} on {subject}'s topic"
    if kind.subject not in (None, "sender") and message["body"].get(kind.subject) != subject:
        return f"a {kind.name} message about {message['body'].get(kind.subject)!r} on {subject}'s topic"
    return None
