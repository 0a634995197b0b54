"""The director (docs/events.md, "The director"): one PIN on the host, kept
as a salted scrypt hash, never in clear; and the changes only he may make,
each checked by the rules before it is stored and logged with it in one
transaction: a hand corrected, a game rescored, a player moved, players
withdrawn or added. A correction is a signed entry of its own
(corrections.py), never an edit, kept beside the board's record and applied
on top of it (play.counted_hands), so the next sync from the board does not
undo it."""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from datetime import datetime
from typing import Any, Sequence

from ..common.errors import RecordError, TallyboardError
from . import corrections, play, standings
from .store import FINISHED, PIN_LOCKED, PIN_RIGHT, Evening, EveningError, EveningDatabase, now

_N, _R, _P = 2 ** 14, 8, 1   # scrypt's cost (about 50 ms), as hashlib documents
MIN_PIN = 4


class DirectorError(TallyboardError):
    """A director's command without the PIN, or with a wrong one: nothing changed."""

    exit_code = 5


def hash_pin(pin: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(pin.encode(), salt=salt, n=_N, r=_R, p=_P)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def pin_matches(pin: str, stored: str) -> bool:
    kind, n, r, p, salt, digest = stored.split("$")
    if kind != "scrypt":
        return False
    mine = hashlib.scrypt(pin.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p))
    return hmac.compare_digest(mine.hex(), digest)


# Wrong PINs (docs/events.md, "The director"): each is logged in the event's
# log and answered after a delay that doubles (0.5, 1, 2, 4 s); the fifth in a
# row locks the PIN for 15 minutes, when even the right one is refused. The
# count is in the archive, so separate commands (or many at once) share it.
FIRST_DELAY_S = 0.5
LOCK_AFTER = 5
LOCK_FOR_S = 15 * 60
_sleep = time.sleep
_now = time.time


def _until(when: float) -> str:
    return datetime.fromtimestamp(when).strftime("%H:%M")


def _check(store: EveningDatabase, pin: str, what: str, event: Evening | None) -> None:
    """DirectorError unless pin is the director's; the wrong PINs counted, delayed,
    logged, locked. The count is read, the PIN checked and the count written in one
    transaction (EveningDatabase.try_director_pin): PINs guessed at once are checked one
    after another, and the lock stops the sixth as it stops the sixth in a row."""
    now = _now()
    attempt = store.try_director_pin(lambda stored: pin_matches(pin, stored), event, what, now,
                                      LOCK_AFTER, LOCK_FOR_S)
    if attempt.outcome == PIN_RIGHT:
        return
    if attempt.outcome == PIN_LOCKED:
        minutes = max(1, round((attempt.locked_until - now) / 60))
        raise DirectorError(f"the director's PIN is locked after {LOCK_AFTER} wrong PINs in a row: wait "
                            f"{minutes} minute{'s' if minutes > 1 else ''} (until {_until(attempt.locked_until)}), "
                            "then give it again; nothing was changed")
    _sleep(FIRST_DELAY_S * 2 ** (min(attempt.failures, LOCK_AFTER) - 1))
    if attempt.locked_until:
        raise DirectorError(f"that is not the director's PIN, the {LOCK_AFTER}th wrong one in a row: the PIN is "
                            f"locked for {LOCK_FOR_S // 60} minutes (until {_until(attempt.locked_until)}); nothing "
                            "was changed")
    raise DirectorError("that is not the director's PIN; nothing was changed")


def set_pin(store: EveningDatabase, new: str, old: str | None, event: Evening | None = None) -> bool:
    """Set the director's PIN (True), or change it given the old one."""
    if len(new.strip()) < MIN_PIN or new != new.strip():
        raise DirectorError(f"a director's PIN is at least {MIN_PIN} characters, with no spaces around it; "
                            "nothing was changed")
    stored = store.director_pin()
    if stored is not None:
        if old is None:
            raise DirectorError("a director's PIN is set already: changing it needs the old one "
                                "(--pin-file, TALLYBOARD_DIRECTOR_PIN or the prompt); nothing was changed")
        _check(store, old, "tallyboard event pin set", event)
    store.set_director_pin(hash_pin(new), stored)
    return stored is None


def check_pin(store: EveningDatabase, pin: str | None, what: str, event: Evening | None = None) -> None:
    """DirectorError unless pin is the director's, saying what the command
    needs; a wrong one is delayed, logged in the event's log (event), and
    locks the PIN after LOCK_AFTER in a row."""
    stored = store.director_pin()
    if stored is None:
        raise DirectorError(f"{what} needs the director's PIN, and none is set: tallyboard event pin set "
                            "sets it; nothing was changed")
    if pin is None:
        raise DirectorError(f"{what} needs the director's PIN: give --pin-file FILE or set "
                            "TALLYBOARD_DIRECTOR_PIN (or run it at a terminal, which asks); nothing was changed")
    _check(store, pin, what, event)


# ---------------------------------------------------------------- hands and games

def _table(store: EveningDatabase, event: Evening, round: int, table: int) -> tuple[list[str], int]:
    if not 1 <= round <= event.round:
        raise EveningError(f"the event has rounds 1 to {event.round}, not {round}")
    seating = store.seating(event, round)
    if not 1 <= table <= len(seating):
        raise EveningError(f"round {round} has tables 1 to {len(seating)}, not {table}")
    names = store.names(event)
    return [names[p] for p in seating[table - 1]], play.table_length(event, seating)


def _check_game(names: list[str], hands: list[Any], length: int, where: str) -> dict[str, Any]:
    try:
        return standings.table_sheet(names, hands, length, where)
    except RecordError as exc:
        raise EveningError(f"{exc}; nothing was changed") from None


def _seat_value(value: str, names: list[str]) -> Any:
    """A KEY=VALUE word: a name at the table is its seat; digits a number;
    true, false, null as in JSON; anything else the text."""
    if value in names:
        return names.index(value)
    lowered = value.lower()
    if lowered in ("true", "false", "null"):
        return json.loads(lowered)
    if value.isdigit():
        return int(value)
    return value


def correct(store: EveningDatabase, event: Evening, round: int, table: int, hand: int, changes: list[str],
            seed: bytes) -> dict[str, Any]:
    """Change hand `hand` (as the sheet numbers it) of a table's game with
    KEY=VALUE fields of the record's hand form: a new correction, signed
    with seed (the director's update key), kept over the board's. The
    board's `accepted_by` is not carried over (nobody at the table accepted
    the corrected hand) unless a change gives it. Returns the log entry."""
    names, length = _table(store, event, round, table)
    hands = play.counted_hands(store, event, round, table) or []
    entries = play.played_entries(names, hands, length)
    if not 1 <= hand <= len(entries):
        raise EveningError(f"round {round} table {table} has hands 1 to {len(entries)}, not {hand}"
                         if entries else f"round {round} table {table} has no hand yet")
    if not changes:
        raise EveningError("say what to change: KEY=VALUE fields of the hand (docs/records.md), e.g. tricks=9")
    entry = entries[hand - 1]
    before = hands[entry]
    after = {k: v for k, v in before.items() if k != "accepted_by"} if isinstance(before, dict) else {}
    for word in changes:
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise EveningError(f"{word!r}: write each change as KEY=VALUE (e.g. tricks=9); nothing was changed")
        after[key] = _seat_value(value, names)
    hands[entry] = after
    where = f"round {round} table {table}"
    _check_game(names, hands, length, where)
    made = corrections.sign({"round": round, "table": table, "hand": entry + 1, "before": before, "after": after,
                             "by": corrections.BY, "at": now()}, seed)
    log = ("correct", f"round {round} table {table} hand {hand}: kept over the board's record "
           f"(a later sync from the board keeps it); signed by key {made['key'][:8]}",
           json.dumps(before), json.dumps(after))
    store.add_correction(event, made, log)
    return dict(zip(("action", "what", "before", "after"), log))


def rescore(store: EveningDatabase, event: Evening, round: int, table: int, hands: Any,
            seed: bytes) -> dict[str, Any]:
    """Replace a table's game with these hands (a game record's `hands`, the
    players by seat): a new correction, signed with seed (the director's
    update key); the board's record no longer counts for that game."""
    names, length = _table(store, event, round, table)
    if not isinstance(hands, list):
        raise EveningError("the game's hands must be a list (a game record's hands, docs/records.md)")
    where = f"round {round} table {table}"
    new = _check_game(names, hands, length, where)
    old_hands = play.counted_hands(store, event, round, table)
    old = _check_game(names, old_hands, length, where)["totals"] if old_hands is not None else None
    made = corrections.sign({"round": round, "table": table, "whole": True, "before": old_hands or [],
                             "after": list(hands), "by": corrections.BY, "at": now()}, seed)
    log = ("rescore", f"round {round} table {table}: the whole game replaced by the director's "
           f"(kept over the board's record); signed by key {made['key'][:8]}",
           f"totals {old}" if old else "no game", f"totals {new['totals']} ({len(new['hands'])} hands)")
    store.add_correction(event, made, log)
    return dict(zip(("action", "what", "before", "after"), log))


# ---------------------------------------------------------------- seating between rounds

def between_rounds(store: EveningDatabase, event: Evening) -> list[list[int]]:
    """The current round's seating, if no hand is in at any table yet (the
    only time players may be moved, withdrawn or added)."""
    event = store.refresh(event)
    if event.state == FINISHED:
        raise EveningError(f"the event {event.name!r} is finished; nothing was changed")
    seating = store.seating(event, event.round)
    for t in range(1, len(seating) + 1):
        if play.counted_hands(store, event, event.round, t) or store.pending(event, event.round, t):
            raise EveningError(f"round {event.round} has begun (table {t} has a hand): players are moved, withdrawn "
                             "or added between rounds, after tallyboard event next and before the first hand")
    return seating


def player_number(store: EveningDatabase, event: Evening, who: str) -> int:
    players = store.players(event)
    for p in players:
        if p["name"] == who:
            return p["number"]
    if who.isdigit() and int(who) < len(players):
        return int(who)
    raise EveningError(f"no player {who!r} at the event; players: {', '.join(p['name'] for p in players)}")


def _where(seating: list[list[int]], player: int) -> tuple[int, int] | None:
    for t, table in enumerate(seating):
        if player in table:
            return t, table.index(player)
    return None


def _reseated(store: EveningDatabase, event: Evening, seating: list[list[int]], action: str, what: str,
              before: list[list[int]], names: dict[int, str] | None = None,
              withdrawn: Sequence[int] = ()) -> dict[str, Any]:
    log = (action, what, json.dumps(before), json.dumps(seating))
    store.reseat(event, seating, log, names, withdrawn)
    play.on_new_round(store, store.refresh(event), event.round)
    return dict(zip(("action", "what", "before", "after"), log))


def move(store: EveningDatabase, event: Evening, who: str, table: int, seat: int) -> dict[str, Any]:
    """Seat a player at table/seat for the coming round; whoever sat there
    takes his old seat (a swap)."""
    before = between_rounds(store, event)
    player = player_number(store, event, who)
    if not 1 <= table <= len(before) or not 0 <= seat <= 3:
        raise EveningError(f"tables are 1 to {len(before)} and seats 0 to 3; nothing was changed")
    here = _where(before, player)
    if here is None:
        raise EveningError(f"{who} does not sit in round {event.round} (withdrawn); nothing was changed")
    seating = [list(t) for t in before]
    other = seating[table - 1][seat]
    seating[here[0]][here[1]] = other
    seating[table - 1][seat] = player
    names = store.names(event)
    return _reseated(store, event, seating, "move",
                     f"round {event.round}: {names[player]} to table {table} seat {seat}, "
                     f"{names[other]} to table {here[0] + 1} seat {here[1]}", before)


def withdraw(store: EveningDatabase, event: Evening, who: list[str], substitutes: list[str]) -> dict[str, Any]:
    """Players leave before the round: each substitute (a new player) takes
    the seat of the one withdrawn in his place; with none, they leave in
    fours, the foot table's other players filling their seats (head first,
    seat order) and the foot table closing."""
    before = between_rounds(store, event)
    players = [player_number(store, event, w) for w in who]
    if len(set(players)) != len(players):
        raise EveningError("a player is named twice; nothing was changed")
    for w, p in zip(who, players):
        if _where(before, p) is None:
            raise EveningError(f"{w} does not sit in round {event.round}; nothing was changed")
    names = store.names(event)
    seating = [list(t) for t in before]
    new_names: dict[int, str] = {}
    if substitutes:
        if len(substitutes) != len(players):
            raise EveningError(f"{len(players)} withdrawn and {len(substitutes)} substitutes: give one substitute "
                             "for each, or none; nothing was changed")
        _check_new_names(names, substitutes)
        for p, name in zip(players, substitutes):
            number = len(names) + len(new_names)
            new_names[number] = name
            t, s = _where(seating, p)  # type: ignore[misc]
            seating[t][s] = number
        what = ", ".join(f"{names[p]} withdrawn, {n} in his seat" for p, n in zip(players, substitutes))
    else:
        if len(players) % 4 or len(players) >= 4 * len(seating):
            raise EveningError("without substitutes players withdraw in fours, and one table at least must stay "
                             "(or give --substitute NAME for each); nothing was changed")
        closing = seating[len(seating) - len(players) // 4:]
        seating = seating[:len(seating) - len(players) // 4]
        movers = [p for table in closing for p in table if p not in players]
        for table in seating:
            for s, p in enumerate(table):
                if p in players:
                    table[s] = movers.pop(0)
        what = f"{', '.join(names[p] for p in players)} withdrawn; the foot table's players take their seats"
    return _reseated(store, event, seating, "withdraw", f"round {event.round}: {what}", before, new_names, players)


def add(store: EveningDatabase, event: Evening, new: list[str]) -> dict[str, Any]:
    """New players, in fours: each four a new table at the foot, seated in the order given."""
    before = between_rounds(store, event)
    if not new or len(new) % 4:
        raise EveningError(f"players are added in fours (a new table at the foot), not {len(new)}; to replace a "
                         "player use tallyboard event withdraw NAME --substitute NEW; nothing was changed")
    names = store.names(event)
    _check_new_names(names, new)
    numbers = list(range(len(names), len(names) + len(new)))
    seating = [list(t) for t in before] + [numbers[i:i + 4] for i in range(0, len(numbers), 4)]
    return _reseated(store, event, seating, "add", f"round {event.round}: {', '.join(new)} added at the foot",
                     before, dict(zip(numbers, new)))


def _check_new_names(names: list[str], new: list[str]) -> None:
    for n in new:
        if not n.strip() or n in names or new.count(n) > 1:
            raise EveningError(f"{n!r}: every player needs a name of his own; nothing was changed")
