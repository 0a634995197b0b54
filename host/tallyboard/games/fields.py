"""Reading a record's fields (docs/records.md): the shape of the JSON only (types,
indices, card names). Every rule is checked by the game's own module in
`tallycore`, whose error names the field ("tricks: must add up to 13");
`records.from_document` adds the hand ("hand 3: ...")."""
from __future__ import annotations

import json
from typing import Any, Callable, Iterator

from tallycore import cards, points


def read_int(hand: dict, key: str, *, optional: bool = False, default: Any = None) -> Any:
    if key not in hand or (optional and hand[key] is None):
        if optional:
            return default
        raise ValueError(f"{key}: missing")
    value = hand[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key}: must be a whole number, not {json.dumps(value)}")
    return value


def read_bool(hand: dict, key: str) -> bool:
    value = hand.get(key, False)
    if not isinstance(value, bool):
        raise ValueError(f"{key}: must be true or false, not {json.dumps(value)}")
    return value


def read_player(hand: dict, key: str, players: int, *, optional: bool = False) -> int | None:
    value = read_int(hand, key, optional=optional)
    if value is not None and not 0 <= value < players:
        raise ValueError(f"{key}: player {value} is out of range 0 to {players - 1}")
    return value


def only(hand: Any, allowed: set[str]) -> dict:
    """The hand (an object) if it has no field but the allowed ones."""
    if not isinstance(hand, dict):
        raise ValueError("must be an object")
    unknown = sorted(set(hand) - allowed)
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown field")
    return hand


def read_card(text: Any, field: str) -> int:
    if not isinstance(text, str):
        raise ValueError(f"{field}: a card is a string such as \"10\" or \"QH\", not {json.dumps(text)}")
    try:
        return cards.parse(text.strip().upper())
    except ValueError:
        raise ValueError(f"{field}: unknown card {json.dumps(text)}; cards are A, 2..10, J, Q, K, "
                         "optionally followed by C, S, H or D") from None


def per_player(hand: dict, key: str, players: int, top: int) -> list[int]:
    """One count 0..top per player."""
    values = hand.get(key)
    if not isinstance(values, list):
        raise ValueError(f"{key}: missing; one count per player")
    if len(values) != players:
        raise ValueError(f"{key}: {len(values)} counts for {players} players; one count per player")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
            raise ValueError(f"{key}: {json.dumps(value)} is not a count 0 to {top}")
    return values


def read_pair(hand: dict, key: str, top: int, *, optional: bool = False) -> list[int]:
    """Two counts 0..top, one per side."""
    if key not in hand and optional:
        return [0, 0]
    values = hand.get(key)
    if (not isinstance(values, list) or len(values) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= top for v in values)):
        raise ValueError(f"{key}: must be two counts 0 to {top}, one per side, not {json.dumps(values)}")
    return values


# ---------------------------------------------------------------- options

def no_options(options: dict) -> int:
    only(options, set())
    return 0


def no_options_document(name: str) -> Callable[[int], dict]:
    """The reverse of no_options for one game: every bit is unknown."""
    def document(packed: int) -> dict:
        if packed:
            raise ValueError(f"options: {name} has no option {packed}")
        return {}
    return document


def first_dealer(options: dict) -> int:
    """The `first_dealer` option every short game takes (default 0)."""
    value = options.get("first_dealer", 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 7:
        raise ValueError(f"first_dealer: must be a player index, not {json.dumps(value)}")
    return value


def dealer_only(options: dict) -> int:
    only(options, {"first_dealer"})
    return first_dealer(options)


def faces_rank(options: dict, default: str) -> bool:
    """The `faces` option: whether the faces count at rank (J 11, Q 12, K 13) rather than 10."""
    value = options.get("faces", default)
    if value not in ("rank", "ten"):
        raise ValueError(f'faces: must be "rank" (J 11, Q 12, K 13) or "ten", not {json.dumps(value)}')
    return value == "rank"


def dealer_options_document(name: str, more: Callable[[int, int, dict], int] | None = None
                            ) -> Callable[[int], dict]:
    """The reverse of a short game's options: `first_dealer` (left out when 0),
    then `more(packed, rest, doc)` for the game's own bits above the dealer's,
    which adds them to doc and returns the bits it does not know."""
    def document(packed: int) -> dict:
        doc: dict[str, Any] = {}
        if packed & points.DEALER_MASK:
            doc["first_dealer"] = packed & points.DEALER_MASK
        rest = packed >> points.DEALER_BITS << points.DEALER_BITS
        if more is not None and rest:
            rest = more(packed, rest, doc)
        if rest:
            raise ValueError(f"options: {name} has no option {rest}")
        return doc
    return document


# ---------------------------------------------------------------- hands several games share

def winner_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    """{"winner": player}: one event, the player (Hoodoo, Ups and Downs)."""
    hand = only(hand, {"winner"})
    winner = read_player(hand, "winner", players)
    assert winner is not None
    yield winner


def winner_hand(events: list[int]) -> Any:
    (event,) = events
    return {"winner": event}


def cut_short(events: Callable[[Any, int, dict], Iterator[int]], hand: Callable[[list[int]], Any]
              ) -> tuple[Callable[[list[int], int], Any], Callable[[Any, int, dict], Iterator[int]]]:
    """(open_hand, open_events) of a game whose hand in progress is its finished
    form cut short (Doolittle's takers, Moosehead's plays so far): written as a
    finished hand is, read as one less the closing event."""
    def open_hand(so_far: list[int], players: int) -> Any:
        return hand(so_far)

    def open_events(record: Any, players: int, options: dict) -> Iterator[int]:
        yield from list(events(record, players, options))[:-1]
    return open_hand, open_events


def count_hand(key: str, end: int) -> Callable[[list[int]], Any]:
    """{key: [count per player]} from count events (points.COUNT_FIELDS), then end
    (Numero, Quatro)."""
    def hand(events: list[int]) -> Any:
        counts: dict[int, int] = {points.count_player(e): points.count_of(e) for e in events if e != end}
        return {key: [counts.get(p, 0) for p in range(max(counts, default=-1) + 1)]}
    return hand
