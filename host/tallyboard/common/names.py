"""The one rule for the names the host takes (docs/host.md, "Names"), and
the one way the terminal shows text that came from data.

A name the board stores (a player's `--name`, `config set name`, a board
definition's name) is the board's own rule: 1 to protocol.MAX_NAME (12; 32
for a board's name) of A-Z a-z 0-9 _ - . (protocol.NAME_CHARS), which the
firmware checks again (tallyrun.config). A name the host keeps (an evening's
name, its players, substitutes and players added) may be any letters, but
is as long as the board can show (a player: 12, what the board gets of it;
an evening: 32, one line of the OLED) and has no control character (C0, DEL,
C1), no bidirectional override or isolate (U+202A-U+202E, U+2066-U+2069)
and no other invisible format character or line separator: those make a
name read as another one ("evil" as "live") or take over a terminal."""
from __future__ import annotations

import unicodedata

from tallynet.tablestate import board_ident
from tallyrun import protocol

from .errors import TallyboardError

PLAYER_MAX = protocol.MAX_NAME          # what the board stores and its sheet shows of a player
EVENT_MAX = 32                          # one line of the OLED (32 columns of the small font)
BOARD_MAX = protocol.MAX_BOARD_NAME

# Unicode categories a name may not hold: controls, format (bidi and zero-width among
# them), surrogates, unassigned, line and paragraph separators.
_REFUSED = frozenset(("Cc", "Cf", "Cs", "Cn", "Zl", "Zp"))


class NameRefused(TallyboardError):
    """A name refused by the rule: the message says which character or how long."""


def refused_character(text: str) -> str | None:
    """The first character of text a name may not hold, or None."""
    for c in text:
        if unicodedata.category(c) in _REFUSED or (unicodedata.category(c) == "Zs" and c != " "):
            return c
    return None


def check(what: str, text: str, limit: int) -> str:
    """A name the host keeps, spaces around it taken off: 1 to limit
    characters, none refused. NameRefused says what is wrong, in words."""
    name = text.strip()
    if not name:
        raise NameRefused(f"{what}: a name cannot be empty")
    bad = refused_character(name)
    if bad is not None:
        raise NameRefused(f"{what} {name!r}: it holds {_describe(bad)}, which a name may not (it would "
                         "show as another name, or change the terminal that shows it); type the name again")
    if len(name) > limit:
        raise NameRefused(f"{what} {name!r}: {len(name)} characters, and a name has at most {limit} "
                         "(what the board shows); shorten it")
    return name


def key(name: str) -> str:
    """The form two names are compared in (the club's register, season and
    results): NFC, case folded, spaces around taken off and each run of
    spaces inside made one, so "ann  LEE " is "Ann Lee" and "Anne" is not."""
    return " ".join(word for word in unicodedata.normalize("NFC", name).casefold().split(" ") if word)


def check_board_text(what: str, text: str, low: int, high: int) -> str:
    """A name the board stores: low to high of protocol.NAME_CHARS."""
    if not is_board_text(text, low, high):
        raise NameRefused(f"{what} {text!r}: {low} to {high} letters, digits, _ - or .")
    return text


def is_board_text(text: object, low: int, high: int) -> bool:
    """Whether text is a name the board stores: low to high of protocol.NAME_CHARS."""
    allowed = protocol.NAME_CHARS.decode()
    return isinstance(text, str) and low <= len(text) <= high and all(c in allowed for c in text)


def is_board_id(board_id: object, tag: int, table: int) -> bool:
    """Whether board_id is a board's id at table `table` of the evening `tag`:
    `<board's name>@<tag, 4 hex digits>.<table>` (evening/tables.py for a board on
    USB, tallynet/link.py for one on the club's Wi-Fi), the board's name by the
    board's own rule (1 to BOARD_MAX of A-Z a-z 0-9 _ - .), so no id can carry
    an escape sequence or a bidirectional override to a terminal."""
    if not isinstance(board_id, str):
        return False
    name, at, place = board_id.rpartition("@")
    return bool(at) and place == board_ident(tag, table) and is_board_text(name, 1, BOARD_MAX)


def _describe(c: str) -> str:
    name = unicodedata.name(c, "")
    return f"U+{ord(c):04X}" + (f" ({name.lower()})" if name else " (a control character)")


def shown(text: str) -> str:
    """text as a terminal may print it: every character a name may not hold
    written as an escape (\\x1b, \\u202e); line ends and tabs kept."""
    if refused_character(text.replace("\n", "").replace("\t", "")) is None:
        return text
    out = []
    for c in text:
        if c in "\n\t" or refused_character(c) is None:
            out.append(c)
        elif ord(c) < 0x100:
            out.append(f"\\x{ord(c):02x}")
        else:
            out.append(f"\\u{ord(c):04x}")
    return "".join(out)
