"""What a board says of its own protocol (DESC, docs/protocol.md "The board describes itself"): its
verbs with their arguments and reply keys, its events, settings, NET keys, errors, limits and
capabilities, read page by page and kept in the host's cache under the description's id, so a
board is read once per firmware. The host encodes a request from the board's own description and
asks it for a capability by name (`can`), not for a version number.

A board whose firmware predates DESC (it answers ERR VERB) is described by this host's own rows
(the firmware it would deploy) less DESC, if it speaks the protocol those rows last had without
it (PRE_DESC_PROTOCOL); a verb it then refuses as unknown is no capability of it from then on."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from tallyrun import describe, protocol
from ..common.errors import BoardError, ProtocolError
from ..common.files import FileError, cache_folder, write_output

PRE_DESC_PROTOCOL = 5    # the protocol of the boards before DESC
# the verbs a board of protocol 5 before DESC may have (WHY and ENTRY came late in it: asked, and ERR VERB
# taken for "not this board"); this host's rows for them (the self-test's verbs came after DESC)
PRE_DESC_VERBS = ("HELLO", "GAME", "NEW", "EV", "UNDO", "REDO", "OPEN", "STATE", "SCORE", "LOG", "STATS", "NOTE",
                  "CFG", "KEPT", "NET", "ENTRY", "WHY")
MOST_PAGES = 255         # DESC's at is one byte: a description that never ends is a broken board


@dataclass(frozen=True)
class Arg:
    name: str
    type: str            # protocol.TYPE_NAMES
    lo: int = 0
    hi: int = 0
    words: tuple[str, ...] | str = ()    # a word arg's words, or "@cfg" / "@net": the settings' or NET's keys


@dataclass(frozen=True)
class Verb:
    name: str
    args: tuple[Arg, ...]
    optional: int        # how many trailing args may be left out
    changes: str         # "" (it only reads), "apply", "undo", "new", "kept", "cfg", "net"
    reply: tuple[str, ...]


@dataclass
class Description:
    """A board's protocol as it described it (or as this host's rows describe a board before DESC)."""

    ident: str                                   # items-crc: the cache's key; "" for a board before DESC
    verbs: dict[str, Verb] = field(default_factory=dict)
    events: dict[str, tuple[str, ...]] = field(default_factory=dict)
    settings: dict[str, tuple[str, int, int, bool]] = field(default_factory=dict)
    net_keys: dict[str, tuple[str, int, int, bool, bool]] = field(default_factory=dict)
    errors: tuple[str, ...] = ()
    limits: dict[str, int] = field(default_factory=dict)
    capabilities: frozenset[str] = frozenset()
    refused: set[str] = field(default_factory=set)   # verbs the board answered ERR VERB (a board before DESC)

    def verb(self, name: str) -> Verb | None:
        if name.upper() in self.refused:
            return None
        return self.verbs.get(name.upper())

    def can(self, name: str) -> bool:
        """A capability by name: a verb ("WHY"), a setting ("cfg:round"), a NET key ("net:key") or
        one of the board's named capabilities ("sessions", "held", "cut")."""
        if name.startswith("cfg:"):
            return name[4:] in self.settings
        if name.startswith("net:"):
            return name[4:] in self.net_keys
        return self.verb(name) is not None or name in self.capabilities


def parse(ident: str, items: list[str]) -> Description:
    """A description from its items (tallyrun.describe's forms); ProtocolError on one this host
    cannot read."""
    out = Description(ident)
    caps: set[str] = set()
    for item in items:
        kind, _, rest = item.partition(":")
        parts = rest.split(":")
        try:
            if kind == "V":
                name, optional, changes, reply = parts
                out.verbs[name] = Verb(name, (), int(optional), changes, tuple(filter(None, reply.split(","))))
            elif kind == "A":
                verb, name, type_, lo, hi = parts
                arg = (Arg(name, type_, words=lo if lo.startswith("@") else tuple(lo.split("|")))
                       if type_ == "word" else Arg(name, type_, int(lo), int(hi)))
                known = out.verbs[verb]
                out.verbs[verb] = Verb(known.name, known.args + (arg,), known.optional, known.changes, known.reply)
            elif kind == "E":
                out.events[parts[0]] = tuple(filter(None, parts[1].split(",")))
            elif kind == "C":
                key, type_, lo, hi, each = parts
                out.settings[key] = (type_, int(lo), int(hi), each == "1")
            elif kind == "K":
                key, form, lo, hi, secret, may_be_none = parts
                out.net_keys[key] = (form, int(lo), int(hi), secret == "1", may_be_none == "1")
            elif kind == "R":
                out.errors = tuple(parts[0].split(","))
            elif kind == "L":
                out.limits[parts[0]] = int(parts[1])
            elif kind == "F":
                caps.update(filter(None, parts[0].split(",")))
            # another kind: a newer board's, which this host does not need
        except (ValueError, KeyError, IndexError):
            raise ProtocolError(f"the board's description has an item this tallyboard cannot read ({item[:60]!r}): "
                                "its firmware or this tallyboard is damaged; run tallyboard deploy") from None
    out.capabilities = frozenset(caps)
    return out


def this_hosts(without: tuple[str, ...] = ()) -> Description:
    """This host's own rows (the firmware it deploys, as this host was started with it) as a
    description of its own, less the verbs named."""
    return replace(_OWN, verbs={name: verb for name, verb in _OWN.verbs.items() if name not in without},
                   refused=set())


def before_desc(hello: dict[str, str]) -> Description:
    """A board that answered DESC as an unknown verb: described by this host's rows less DESC, if it
    speaks their protocol; else ProtocolError, with what to do."""
    try:
        theirs = int(hello.get("proto", "0"))
    except ValueError:
        theirs = 0
    if theirs != PRE_DESC_PROTOCOL:
        which = "older" if theirs < PRE_DESC_PROTOCOL else "newer"
        advice = ("run tallyboard deploy" if theirs < PRE_DESC_PROTOCOL
                  else "upgrade this tallyboard (pip install -U tallyboard)")
        raise ProtocolError(f"the board's firmware {hello.get('fw', '?')} speaks protocol {theirs}, {which} than "
                            f"this tallyboard reads without a description (protocol {PRE_DESC_PROTOCOL}): {advice}")
    return this_hosts(without=tuple(name for name in _OWN.verbs if name not in PRE_DESC_VERBS))


def cache_path(ident: str) -> Path:
    return cache_folder("descriptions") / f"{ident}.txt"


def _cached(ident: str) -> list[str] | None:
    try:
        return cache_path(ident).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None


def _keep(ident: str, items: list[str]) -> None:
    path = cache_path(ident)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_output(path, "\n".join(items) + "\n")
    except (OSError, FileError):
        pass          # no cache: the board is read again next time


def _whole(items: list[str] | None, count: int, crc: str) -> bool:
    """Whether items are the description its first page named: as many, and their CRC-16 its id."""
    if items is None or len(items) != count:
        return False
    joined = "~".join(items).encode("utf-8", "replace")
    return "%04X" % protocol.crc16(joined, 0, len(joined)) == crc


def read(request: Callable[..., dict[str, str]], hello: dict[str, str]) -> Description:
    """The board's description: DESC's first page names it; from the cache if this host has read it
    before, else page by page. A board before DESC: before_desc()."""
    try:
        page = request("DESC", 0)
    except BoardError as exc:
        if exc.code == "VERB":
            return before_desc(hello)
        raise
    try:
        count = int(page["of"])
        ident = f"{count}-{page['id']}"          # its items' count and CRC: the description's own hash
    except (KeyError, ValueError):
        raise ProtocolError(f"the board's description began with no count or id ({page}): run "
                            "tallyboard deploy") from None
    if not all(c.isalnum() or c in "-._" for c in ident):
        raise ProtocolError(f"the board's description has an id this tallyboard will not keep ({ident[:40]!r}): "
                            "run tallyboard deploy")
    items = _cached(ident)
    if not _whole(items, count, page["id"]):       # none kept, or a file damaged since: read again
        items = _pages(request, page, count)
        if not _whole(items, count, page["id"]):
            raise ProtocolError("the board's description does not match its own id (a page lost or the "
                                "firmware changed while it was read): run the command again")
        described = parse(ident, items)
        _keep(ident, items)
        return described
    return parse(ident, items or [])


def _pages(request: Callable[..., dict[str, str]], page: dict[str, Any], count: int) -> list[str]:
    items: list[str] = []
    first = (page.get("of"), page.get("id"))
    for _ in range(MOST_PAGES):
        try:
            at, next_at, got = int(page["at"]), int(page["next"]), page["items"].split("~")
        except (KeyError, ValueError):
            raise ProtocolError(f"the board's description has a page this tallyboard cannot read ({page}): "
                                "run tallyboard deploy") from None
        if (page.get("of"), page.get("id")) != first:
            raise ProtocolError("the board's description changed while it was read (a deploy meanwhile?): "
                                "run the command again")
        if at != len(items) or next_at <= at:
            raise ProtocolError(f"the board's description went from item {at} to {next_at}: run tallyboard deploy")
        if len(got) != next_at - at:
            raise ProtocolError(f"the board's description page at {at} holds {len(got)} items, not "
                                f"{next_at - at}: run tallyboard deploy")
        items += got
        if next_at >= count:
            return items
        page = request("DESC", next_at)
    raise ProtocolError("the board's description did not end: run tallyboard deploy")


_OWN = parse("", [item.decode() for item in describe.items()])
