"""Enrolling a board with Wi-Fi in a club evening, over USB, once
(docs/club-wifi.md; the board's side: docs/protocol.md, "The club link").

A Pico W or Pico 2 W board is its own table host: it joins the club's Wi-Fi
and publishes its table to the director over MQTT. What it needs for that is
given to it here while it is plugged in, never over the air: the Wi-Fi's name
and passphrase, the broker and the board's login there, the evening's id, its
table (its CFG event and table: its identity `<tag>.<table>` on the wire), the
key that signs its messages (its table's key in the join code) and the
director's key (to check the round). The board checks every value again
(`NET SET`, protocol.NET_KEYS); the host checks them first, in the user's
words, so a typo is said before anything is sent.

`plan()` turns the join code and the options into an `Enrolment`;
`enrol()`, `leave()` and `link_state()` speak `NET` to a connected Board."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from tallynet.tablestate import board_ident
from tallyrun import protocol

from ..boardlink.wirefields import NET_KEY_MEANINGS
from ..common.errors import BoardError, TallyboardError
from . import envelope
from .envelope import tag_of
from .mqtt_link import parse_url

NONE = "-"                    # NET SET key -: no value (an open network, no broker login)
_HOST = re.compile(r"[A-Za-z0-9]([A-Za-z0-9.-]{0,62}[A-Za-z0-9])?\Z")
_KEYS = {row[0].decode(): row for row in protocol.NET_KEYS}

# the board's `error` words (docs/protocol.md, NET's fields), in the user's words
PROBLEMS = {
    "no_wifi": "this board has no Wi-Fi (a Pico W or Pico 2 W whose board definition says \"wifi\": true)",
    "not_enrolled": "not enrolled in an evening: tallyboard wifi enrol",
    "no_network": "the Wi-Fi network is not in reach: is the access point on, and its name (--ssid) right?",
    "wifi_password": "the Wi-Fi refused the passphrase: enrol again with the right one",
    "no_address": "joined the Wi-Fi but got no address: check the access point's DHCP",
    "broker_unreachable": "the broker does not answer: is mosquitto running, and the host and port right?",
    "broker_refused": "the broker refused the board's login: check its user and password (mosquitto_passwd)",
    "broker_lost": "the broker went away; the board tries again and keeps its messages meanwhile",
    "director_tag": "a message said to be the director's failed the check of this board's tag: enrol again "
                    "with this evening's join code",
    "round_ahead": "a round said to be the director's was numbered far above the last the board took: not taken "
                   "(docs/club-mqtt.md); if the director really published that many, enrol the board again",
    "director_ahead": "the director has more of this board than it numbered: another device has this table's "
                      "key; the board publishes nothing until it is enrolled again",
    "memory": "the board ran short of memory for the link; it tries again",
}


class EnrolError(TallyboardError):
    """An enrolment the host refuses before sending anything, or the board refused."""


def escape(value: bytes) -> str:
    """A NET SET value as one token: each space, *, % and byte outside printable
    ASCII written %XX (tallyrun.incoming.unescape_into reads it back)."""
    out = []
    for byte in value:
        if 33 <= byte <= 126 and byte not in (37, 42):
            out.append(chr(byte))
        else:
            out.append(f"%{byte:02X}")
    return "".join(out)


def check_value(key: str, value: bytes | None) -> None:
    """A NET setting's value against its row of protocol.NET_KEYS (None: `-`,
    where the key allows none); EnrolError in the user's words."""
    row = _KEYS[key]      # (key, form, lo, hi, secret, may be none, default)
    form, lo, hi, secret, may_be_none = row[1].decode(), row[2], row[3], row[4], row[5]
    what = NET_KEY_MEANINGS[key]
    if value is None:
        if not may_be_none:
            raise EnrolError(f"{key}: {what} is needed")
        return
    shown = "it" if secret else repr(value.decode("utf-8", "replace"))
    if form == "key":
        if len(value) != lo:
            raise EnrolError(f"{key}: {what}: {len(value)} bytes where it is {lo}" if key != "key" else
                             f"{key}: a key is 16 bytes; copy the join code again from the director")
        return
    if form == "int":
        number = int(value) if value.isdigit() else -1
        if not lo <= number <= hi:
            raise EnrolError(f"{key} {shown}: must be a whole number {lo} to {hi}")
    elif not lo <= len(value) <= hi:
        raise EnrolError(f"{key}: {shown} is {len(value)} bytes; {what} is {max(lo, 1)} to {hi} bytes")
    if form == "host" and not _HOST.match(value.decode("ascii", "replace")):
        raise EnrolError(f"{key} {shown}: a host name or IPv4 address (letters, digits, '.' and '-')")
    if form == "name" and not envelope.is_name(value.decode("ascii", "replace")):
        raise EnrolError(f"{key} {shown}: 1 to 64 letters, digits, '_', '.' or '-'")
    if len(escape(value)) > protocol.MAX_NET_VALUE:
        raise EnrolError(f"{key}: written for the board ({len(escape(value))} characters with its escapes) it is "
                         f"longer than the {protocol.MAX_NET_VALUE} one line takes; choose a shorter one")


@dataclass(frozen=True)
class Enrolment:
    """Everything a board is given: what `NET SET` sends, and its CFG identity."""
    event: str            # the evening's id on the wire (club id)
    tag: int              # its tag: the board's CFG event
    table: int            # the board's CFG table
    ssid: bytes
    wifi_password: bytes | None
    broker_host: str
    broker_port: int
    broker_user: bytes | None
    broker_password: bytes | None
    key: bytes           # its table's: signs its messages, checks its tag of the director's
    update_key: bytes | None = None   # the club's update key's public half: checks a release (None: takes none)

    @property
    def board(self) -> str:
        """The board's identity on the wire (tablestate.board_ident)."""
        return board_ident(self.tag, self.table)

    def settings(self) -> list[tuple[str, bytes | None]]:
        """(key, value) in the order NET SET sends them; None is `-`."""
        return [("ssid", self.ssid), ("wifi_password", self.wifi_password), ("broker_host", self.broker_host.encode()),
                ("broker_port", str(self.broker_port).encode()), ("broker_user", self.broker_user),
                ("broker_password", self.broker_password), ("event", self.event.encode()),
                ("key", self.key), ("update_key", self.update_key)]


def wire_value(key: str, value: bytes | None) -> str:
    """How NET SET writes the value: `-`, 32 hex digits for a key, else escaped."""
    if value is None:
        return NONE
    if _KEYS[key][1] == b"key":
        return value.hex()
    return escape(value)


def plan(join: str, table: int | None, ssid: str, wifi_password: str | None, broker_url: str,
         update_key: bytes | None = None) -> Enrolment:
    """The enrolment of a board at `table` (None: the join code's only table)
    from the director's join code, the Wi-Fi and the broker URL (its
    password put in already). EnrolError saying what to do."""
    try:
        code = envelope.read_join_code(join)
    except ValueError as exc:
        raise EnrolError(str(exc)) from None
    if table is None:
        if len(code.tables) != 1:
            raise EnrolError(f"the join code is for tables {', '.join(map(str, code.tables))}: say which this board "
                             "scores with --table N (or use that table's own code: tallyboard event join-code "
                             "--table N)")
        table = code.tables[0]
    if table not in code.tables:
        raise EnrolError(f"the join code is for table {', '.join(map(str, code.tables))}, not {table}: ask the "
                         f"director for table {table}'s code (tallyboard event join-code --table {table})")
    try:
        address = parse_url(broker_url)
        tag = tag_of(code.event)
    except (ValueError, TallyboardError) as exc:
        raise EnrolError(str(exc)) from None
    if address.tls:
        raise EnrolError("a board on Wi-Fi speaks plain MQTT: give the broker as mqtt://USER@HOST:PORT (its "
                         "messages are signed with its own key; the club's Wi-Fi passphrase guards the air)")
    # without a user the board logs in as its table: its identity, the password its key gives (the
    # director writes these users: event broker-files); a user named here overrides that login
    if address.username is not None and address.password is None:
        raise EnrolError(f"no password for the broker's user {address.username}: give --broker-password-file "
                         "FILE or $TALLYBOARD_BROKER_PASSWORD, or leave the user out (mqtt://HOST:PORT) and the "
                         "board logs in as its table")
    enrolment = Enrolment(
        event=code.event, tag=tag, table=table, ssid=ssid.encode("utf-8"),
        wifi_password=wifi_password.encode("utf-8") if wifi_password else None,
        broker_host=address.host, broker_port=address.port,
        broker_user=address.username.encode("utf-8") if address.username is not None else None,
        broker_password=address.password.encode("utf-8") if address.password is not None else None,
        key=code.keys[code.tables.index(table)], update_key=update_key)
    if enrolment.wifi_password is not None and len(enrolment.wifi_password) < 8:
        raise EnrolError("wifi_password: a WPA2 passphrase is 8 to 63 characters; for an open network give "
                         "--open-network instead")
    for key, value in enrolment.settings():
        check_value(key, value)
    return enrolment


# ---------------------------------------------------------------- speaking NET to a board

@dataclass(frozen=True)
class LinkState:
    """NET's reply: the board's club link as it stands."""
    wifi: bool
    enrolled: bool
    joined: bool
    broker: bool
    waiting: int
    error: str

    @classmethod
    def of(cls, fields: dict[str, str]) -> "LinkState":
        def flag(name: str) -> bool:
            return fields.get(name) == "1"
        waiting = fields.get("waiting", "0")
        return cls(flag("wifi"), flag("enrolled"), flag("joined"), flag("broker"),
                   int(waiting) if waiting.isdigit() else 0, fields.get("error", NONE))

    @property
    def problem(self) -> str | None:
        """The last problem in words; None for none."""
        if self.error in ("", NONE):
            return None
        return PROBLEMS.get(self.error, f"the board says {self.error}")

    def as_dict(self) -> dict[str, Any]:
        return {"wifi": self.wifi, "enrolled": self.enrolled, "joined": self.joined, "broker": self.broker,
                "waiting": self.waiting, "error": None if self.error in ("", NONE) else self.error}


def net(board: Any, *args: str) -> dict[str, str]:
    """One NET request; a firmware without the verb is said in the user's words."""
    try:
        return board.request("NET", *args)
    except BoardError as exc:
        if exc.code == "VERB":
            raise EnrolError("the board's firmware has no club link (NET): update it with tallyboard deploy") \
                from None
        raise


def link_state(board: Any) -> LinkState:
    return LinkState.of(net(board))


def _with_wifi(board: Any, port: str) -> LinkState:
    state = link_state(board)
    if not state.wifi:
        raise EnrolError(f"the board on {port} has no Wi-Fi: a Pico W or Pico 2 W with a definition that says "
                         "\"wifi\": true enrols (tallyboard deploy --board picow-reference); a board without "
                         "scores a club evening on a table host's USB (tallyboard event table)")
    return state


def enrol(board: Any, enrolment: Enrolment, port: str, say: Callable[[str], None] = print) -> LinkState:
    """Give the board its evening, table and link; a board enrolled in another
    evening or at another table leaves that first (its numbering starts
    again). The board's game stays."""
    state = _with_wifi(board, port)
    if state.enrolled:
        event = net(board, "GET", "event").get("value", NONE)
        tag, table = board.cfg_get("event"), board.cfg_get("table")
        if (event, tag, table) != (enrolment.event, str(enrolment.tag), str(enrolment.table)):
            net(board, "LEAVE")
            say(f"left evening {event} (table {table}) first")
    if board.cfg_get("event") != str(enrolment.tag) or board.cfg_get("table") != str(enrolment.table):
        # a board new to this table: whatever game it holds is not this table's (as event attach does)
        board.cfg_set("round", "0")
        board.cfg_set("event", str(enrolment.tag))
        board.cfg_set("table", str(enrolment.table))
    for key, value in enrolment.settings():
        try:
            net(board, "SET", key, wire_value(key, value))
        except BoardError as exc:
            raise EnrolError(f"the board refused {key}: {exc}") from None
    state = link_state(board)
    if not state.enrolled:
        raise EnrolError("the board took every setting but does not count itself enrolled: "
                         f"{state.problem or 'see tallyboard wifi status'}")
    return state


# the problems a board does not get past by trying again: enrolment waits no longer for them
LASTING = frozenset({"no_wifi", "wifi_password", "broker_refused", "director_tag",
                     "director_ahead"})


def wait_linked(board: Any, seconds: float, poll: float = 0.5,
                progress: Callable[[LinkState], None] | None = None) -> LinkState:
    """NET until the board has reached the broker, a lasting problem, or
    `seconds` pass; the last state (progress hears each new one)."""
    import time

    deadline = time.monotonic() + seconds
    state, said = link_state(board), None
    while True:
        if state != said and progress is not None:
            progress(state)
        said = state
        if state.broker or state.error in LASTING or time.monotonic() >= deadline:
            return state
        time.sleep(poll)
        state = link_state(board)


def leave(board: Any, port: str) -> str:
    """The evening the board left (NET LEAVE: its link settings and numbering
    forgotten; its game stays)."""
    state = _with_wifi(board, port)
    if not state.enrolled:
        raise EnrolError(f"the board on {port} is not enrolled in an evening: nothing to leave")
    event = net(board, "GET", "event").get("value", NONE)
    net(board, "LEAVE")
    return event


def settings(board: Any) -> dict[str, str | None]:
    """The board's link settings as it reads them back (a secret: 'set' or None)."""
    out: dict[str, str | None] = {}
    for key in _KEYS:
        value = net(board, "GET", key).get("value", NONE)
        out[key] = None if value == NONE else _unescape(value)
    return out


def _unescape(text: str) -> str:
    data = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "%" and i + 2 < len(text) and re.fullmatch(r"[0-9A-Fa-f]{2}", text[i + 1:i + 3]):
            data.append(int(text[i + 1:i + 3], 16))
            i += 3
        else:
            data += text[i].encode("utf-8")
            i += 1
    return data.decode("utf-8", "replace")
