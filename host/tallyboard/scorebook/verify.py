"""A game record checked against the board that scored it (docs/records.md,
"The chain"). The board keeps each game as a hash chain (the firmware's
tallyrun.chain, the one implementation: the host runs the same module) and
signs its head with its own Ed25519 key (SIGN); a record it exported carries
that head, the key's public half, the tag, and the head's short form after
each hand. Checking a record makes the chain again from its hands: the same
head, and the tag the key's over it, say that the hands are the ones the
board kept; a hand changed afterwards leads to another head, and the first
hand whose head differs is the one changed."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tallynet import boardkey
from tallyrun import chain as board_chain

from .. import games
from ..common.errors import RecordError
from . import records



def short(head: bytes) -> str:
    """A head's short form, as the board shows it (8 uppercase hex digits)."""
    return head[:board_chain.SHORT].hex().upper()


def hand_heads(loaded: records.LoadedGame) -> list[bytes]:
    """The chain's head after each of the record's hands (the game's applied
    events grouped as its record writes them: records.hands_of)."""
    game = records.without_pending(loaded.game)
    links = board_chain.Chain()
    heads = []
    end = 0
    for events in games.profile(loaded.name).record_hands(game):
        end += len(events)
        heads.append(bytes(links.head_of(game, end)))
    return heads


def game_head(loaded: records.LoadedGame) -> bytes:
    """The chain's head after all of the record's events (the game's first link when it has none)."""
    game = records.without_pending(loaded.game)
    return bytes(board_chain.Chain().head_of(game, game.n))


def record_chain(loaded: records.LoadedGame, head: bytes, key: bytes, tag: bytes) -> dict[str, Any]:
    """The record's chain object for a game read from a board and the board's
    SIGN of it (head, key, tag). RecordError when the board's head is not the
    one its log as read makes (a log misread: read it again)."""
    heads = hand_heads(loaded)
    made = heads[-1] if heads else game_head(loaded)
    if head != made:
        raise RecordError(f"the board's chain head {short(head)} is not the one the game as read makes "
                          f"({short(made)}): read the board again (tallyboard status), then export")
    return {"head": head.hex(), "key": key.hex(), "tag": tag.hex(), "hands": [short(h) for h in heads]}


@dataclass
class Verdict:
    """What checking one game found: ok, the head its hands make (short form),
    the key that signed it (short form), and in words what was found."""

    source: str
    game: str
    ok: bool
    head: str
    key: str
    found: str


def tag_holds(key: bytes, head: bytes, tag: bytes) -> bool:
    """Whether tag is key's Ed25519 signature of a chain head (what SIGN signs)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(tag, boardkey.MESSAGE + head)
    except (InvalidSignature, ValueError):
        return False
    return True


def check(doc: Any, source: str, keys: set[str] | None = None) -> Verdict:
    """A game record (docs/records.md) checked against its board's chain; keys:
    the boards' public keys (hex) it must be signed by, None: any."""
    what = doc.get("game", "?") if isinstance(doc, dict) else "?"
    try:
        loaded = records.from_document(doc, source)
    except RecordError as exc:
        return Verdict(source, what, False, "-", "-", f"not a game the rules allow: {exc}")
    what = f"{loaded.name} ({', '.join(loaded.players)})"
    signed = loaded.chain
    if signed is None:
        return Verdict(source, what, False, short(game_head(loaded)), "-",
                       "not signed: the record has no chain (typed by hand, or exported by a tallyboard or "
                       "a board firmware before protocol 6); nothing ties it to a board")
    head, key, tag = (bytes.fromhex(signed[k]) for k in ("head", "key", "tag"))
    made = hand_heads(loaded)
    made_head = made[-1] if made else game_head(loaded)     # the last hand's head is the game's
    if made_head != head:
        for number, (mine, theirs) in enumerate(zip(made, signed["hands"]), 1):
            if short(mine) != theirs:
                return Verdict(source, what, False, short(made_head), short(key),
                               f"hand {number} is not what the board kept: the chain it makes ({short(mine)}) "
                               f"is not the board's ({theirs}); the hands from there on were changed after "
                               "the board signed the game")
        return Verdict(source, what, False, short(made_head), short(key),
                       f"the hands make the head {short(made_head)}, not the board's {short(head)}: the record "
                       "was changed after the board signed it (its heads after each hand were rewritten too, "
                       "so which hand cannot be told)")
    if not tag_holds(key, head, tag):
        return Verdict(source, what, False, short(made_head), short(key),
                       f"the tag is not key {short(key)}'s signature of the head: the head, key or tag was "
                       "changed after the board signed it")
    if keys is not None and key.hex() not in keys:
        return Verdict(source, what, False, short(made_head), short(key),
                       f"signed by key {short(key)}, which is not one of the boards' keys given")
    return Verdict(source, what, True, short(made_head), short(key),
                   f"the hands make the board's head {short(head)}, signed by board key {short(key)}")
