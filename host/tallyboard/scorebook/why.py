"""Why each event scored what it did, in words: the host's side of
tallycore.why (the firmware's one implementation, imported: the parts come
from the rules that scored, the words from the game's reason table), for
`tallyboard why`, `sheet --why`, `hand` and `press`, and the pages."""
from __future__ import annotations

from typing import Any

from tallycore import why as core_why


def explains(game: Any) -> bool:
    """Whether the game's rules explain their scores (they have a reason table)."""
    try:
        core_why.reasons(game)
    except ValueError:
        return False
    return True


def event_lines(game: Any, index: int, names: list[str]) -> list[str]:
    """The reason of event index (0-based) of the game's log, line by line."""
    parts = core_why.Parts()
    core_why.explain(game, index, parts)
    return list(core_why.lines(game, parts, names))


def wire_lines(game: Any, reply: dict[str, str], names: list[str]) -> list[str]:
    """The words of a WHY reply (its parts, their codes) for the game it was asked of:
    composed by the same tallycore.why.lines from the same reason table."""
    parts = core_why.Parts()
    count = int(reply.get("parts", "0"))
    if count:
        who, pts, why = (reply[key].split(",") for key in ("who", "pts", "why"))
        for i in range(count):
            parts.add(int(who[i]), int(pts[i]), int(why[i]))
    if reply.get("won", "-") != "-":
        parts.ended = True
        parts.winners = int(reply["won"])
    return list(core_why.lines(game, parts, names))


def hand_events(game: Any) -> list[list[int]]:
    """The log's events applied (0-based indexes) hand by hand, as the sheet numbers the
    hands: an event that does not close its hand (a peg, a misdeal) goes with the hand it
    is part of or comes before; the last list is the hand in progress, if one is."""
    groups: list[list[int]] = [[]]
    for i in range(game.n):
        groups[-1].append(i)
        if game.rules.ends_hand(game.log[i]):
            groups.append([])
    if not groups[-1]:
        groups.pop()
    return groups


def hand_lines(game: Any, hand: int, names: list[str]) -> list[str]:
    """The reason of hand (1-based, as the sheet numbers it), each event's in turn."""
    groups = hand_events(game)
    if not 1 <= hand <= len(groups):
        raise ValueError(f"hand: must be 1 to {len(groups)}" if groups else "hand: nothing is scored yet")
    out: list[str] = []
    for index in groups[hand - 1]:
        out.extend(event_lines(game, index, names))
    return out


def hand_of_event(game: Any, index: int) -> int:
    """The hand (1-based, as the sheet numbers it) event index (0-based) is part of."""
    for number, group in enumerate(hand_events(game), 1):
        if index in group:
            return number
    raise ValueError(f"event: must be 1 to {game.n}")


def sheet_lines(loaded: Any) -> list[list[str]]:
    """Each hand's reason, hand by hand as the sheet numbers them (the hand in
    progress last, if one is), for a record applied to the core (LoadedGame)."""
    game = loaded.game
    try:
        core_why.reasons(game)
    except ValueError as exc:   # rules that do not explain their scores yet: each hand says so
        return [[str(exc)] for _ in hand_events(game)]
    return [[line for index in events for line in event_lines(game, index, loaded.players)]
            for events in hand_events(game)]
