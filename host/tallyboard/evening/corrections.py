"""The director's corrections of an evening (docs/events.md, "Corrections
and the boards"): each one a signed entry of its own in the evening's log,
never an edit. An entry is

    {"round": 1, "table": 1, "hand": 4,          (or "whole": true, no "hand", for a rescore)
     "before": ..., "after": ...,                (the hand, or the game's hands, as they counted
                                                  just before, and as corrected)
     "by": "director", "at": "2026-11-29T21:04:05+00:00",
     "key": 64 hex digits, "tag": 128 hex digits}

`hand` is the hand's place in the game record's `hands` (from 1, every entry
counted, a misdeal too). The tag is the director's Ed25519 signature (the
club's update key, club/releases.py) over MESSAGE + the canonical JSON of
the entry without "tag". An entry made before corrections were signed (an
archive migrated to version 6) has "key" and "tag" null.

A table's game counts as the board's hands with its entries applied in the
order made (`counted`: the last entry of a hand wins, a rescore replaces the
whole game); `board_hands` undoes them, from each entry's "before"."""
from __future__ import annotations

import json
from typing import Any


MESSAGE = b"tallyboard correction "
BY = "director"         # who makes a correction: the evening knows its director by no other name
FIELDS = ("round", "table", "hand", "whole", "before", "after", "by", "at", "key", "tag")
UNSIGNED = "unsigned: made before corrections were signed (an archive of an older tallyboard)"


def canonical(value: Any) -> bytes:
    """The bytes signed: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _signed_bytes(entry: dict[str, Any]) -> bytes:
    return MESSAGE + canonical({k: v for k, v in entry.items() if k != "tag"})


def sign(entry: dict[str, Any], seed: bytes) -> dict[str, Any]:
    """The entry with "key" (the public half of seed, the director's update
    key) and "tag" (its signature) in place of any it had."""
    signed = {k: v for k, v in entry.items() if k not in ("key", "tag")}
    from ..club import releases   # the release module's key functions (and all it imports), only when signing
    signed["key"] = releases.public_key(seed).hex()
    signed["tag"] = releases.ed25519_sign(seed, _signed_bytes(signed)).hex()
    return signed


def check(entry: dict[str, Any]) -> str | None:
    """None when the entry's tag is its key's signature over the entry; else why not, in words."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    key, tag = entry.get("key"), entry.get("tag")
    if key is None and tag is None:
        return UNSIGNED
    try:
        public, signature = bytes.fromhex(str(key)), bytes.fromhex(str(tag))
    except ValueError:
        public = signature = b""
    if len(public) != 32 or len(signature) != 64:
        return "not signed: key must be 64 hex digits and tag 128"
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, _signed_bytes(entry))
    except (InvalidSignature, ValueError):
        return (f"the tag is not key {str(key)[:8]}'s signature of the entry: the correction was changed "
                "after it was signed")
    return None


def counted(board: list[Any] | None, entries: list[dict[str, Any]]) -> list[Any] | None:
    """The hands as they count: the board's (None: none stored) with each entry
    applied in the order made; None when there is neither."""
    hands = None if board is None else list(board)
    for entry in entries:
        if entry.get("whole"):
            hands = list(entry["after"])
        elif hands is not None and entry["hand"] <= len(hands):
            hands[entry["hand"] - 1] = entry["after"]
    return hands


def board_hands(counted_hands: list[Any], entries: list[dict[str, Any]]) -> list[Any]:
    """The hands as the board kept them: counted_hands (the table's, corrections
    applied) with the table's entries undone in reverse order, from each
    entry's "before"."""
    hands = list(counted_hands or [])
    for entry in reversed(entries):
        if entry.get("whole"):
            hands = list(entry["before"] or [])
        elif entry["hand"] <= len(hands):
            hands[entry["hand"] - 1] = entry["before"]
    return hands


def entry_problem(entry: Any, rounds: int) -> tuple[str, str] | None:  # size: one check a field of the documented entry, in its order
    """(field, what is wrong) when entry is not a correction's shape; None when it is."""
    if not isinstance(entry, dict):
        return "", "must be an object (docs/events.md, the corrections)"
    unknown = sorted(set(entry) - set(FIELDS))
    if unknown:
        return unknown[0], "unknown field"
    for field in ("round", "table"):
        if type(entry.get(field)) is not int or entry[field] < 1:
            return field, f"must be a whole number from 1, not {json.dumps(entry.get(field))}"
    if entry["round"] > rounds:
        return "round", f"the record has rounds 1 to {rounds}, not {entry['round']}"
    if entry.get("whole") is True:
        if "hand" in entry:
            return "hand", "a rescore (whole: true) replaces the whole game: it has no hand"
        if not isinstance(entry.get("before"), list) or not isinstance(entry.get("after"), list):
            return "after" if isinstance(entry.get("before"), list) else "before", "must be a list of hands"
    else:
        if "whole" in entry:
            return "whole", "must be true, or left out for one hand's correction"
        if type(entry.get("hand")) is not int or entry["hand"] < 1:
            return "hand", f"must be a whole number from 1, not {json.dumps(entry.get('hand'))}"
        for field in ("before", "after"):
            if field not in entry:
                return field, "missing: the hand as it counted before, and as corrected"
    if not (isinstance(entry.get("by"), str) and entry["by"].strip()):
        return "by", "must be who made the correction"
    if not isinstance(entry.get("at"), str):
        return "at", "must be when it was made (UTC, ISO 8601)"
    for field, digits in (("key", 64), ("tag", 128)):
        value = entry.get(field, "")
        if value is not None and not (isinstance(value, str) and len(value) == digits
                                      and all(c in "0123456789abcdef" for c in value)):
            return field, f"must be {digits} lowercase hex digits (or null: made before corrections were signed)"
    if (entry.get("key") is None) != (entry.get("tag") is None):
        return "tag" if entry.get("tag") is None else "key", "key and tag are both given or both null"
    return None
