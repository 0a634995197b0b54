"""The club's register of players (docs/host.md, "A club's season"): each
player one entry with a number that stays his across evenings, in the
archive beside the evenings (database.ARCHIVE, migration 4).

An evening's player is joined to an entry by his name's key (names.key:
case and spaces aside), so "ann lee" at one evening is "Ann Lee" of the
last. `event create` matches its names first (match): a name that is not
the register's but close to one is refused with the register's ("did you
mean Ann Lee?"); a name new to a register that has players is added only
when the director says so (--new-player). Players of evenings made before
the register, or added to an evening by the director later, are joined on
the register's next use (join): by key, a new entry where there is none.

An entry is a member or a guest (migration 5): a guest plays and scores on
his evenings and is not ranked in seasons (season.py shows him under the
standings). A guest is seated by `event create --guest` (added as a guest
when new) or added by `players guest`; `players member` makes him a member
and `players guest` a member a guest (the director's, logged). Whether a
player is ranked is the register's now, not his evenings': a guest made a
member is ranked with every evening he played, those played as a guest too.

Merging two entries (one person entered twice) and renaming one are the
director's, behind his PIN (the caller checks it), and logged."""
from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any

from ..common import database
from ..common import names as tallyboard_names
from ..common.errors import TallyboardError
from .evenings import Evening, EveningDatabase

NEAR = 0.75            # SequenceMatcher's ratio of two keys at and above which a name is a near miss


class RegisterError(TallyboardError):
    """A name the register cannot take, or a player it does not hold: the message says which and what to do."""


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    evenings: int = 0
    guest: bool = False


def _now() -> str:
    from datetime import datetime, timezone
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def join(store: EveningDatabase, guests: list[str] | tuple[str, ...] = ()) -> None:
    """Join every evening's player not yet in the register to the entry of
    his name's key, adding an entry where there is none (or where that
    entry already plays in the same evening): a guest's when the name is
    one of guests. One transaction; nothing is written when every player is
    joined."""
    if not store.db.execute("SELECT 1 FROM event_players WHERE register IS NULL LIMIT 1").fetchone():
        return
    with database.write(store.db) as db:
        guest_keys = {tallyboard_names.key(g) for g in guests}
        rows = db.execute("SELECT event, number, name FROM event_players WHERE register IS NULL"
                          " ORDER BY event, number").fetchall()
        for event, number, name in rows:
            key = tallyboard_names.key(name)
            guest = int(key in guest_keys)
            taken = {r for (r,) in db.execute("SELECT register FROM event_players WHERE event = ?"
                                              " AND register IS NOT NULL", (event,))}
            found = [i for (i,) in db.execute("SELECT id FROM register_players WHERE key = ? AND merged_into IS NULL"
                                              " ORDER BY id", (key,)) if i not in taken]
            if found:
                entry = found[0]
            else:
                entry = int(db.execute("INSERT INTO register_players (name, key, added_at, guest) VALUES (?, ?, ?, ?)",
                                       (name.strip(), key, _now(), guest)).lastrowid or 0)
            db.execute("UPDATE event_players SET register = ? WHERE event = ? AND number = ?", (entry, event, number))


def players(store: EveningDatabase) -> list[Player]:
    """The register's players (merged entries aside), by number, each with the evenings he played."""
    join(store)
    return [Player(i, name, count, bool(guest)) for i, name, count, guest in store.db.execute(
        "SELECT r.id, r.name, (SELECT count(DISTINCT e.event) FROM event_players e WHERE e.register = r.id), r.guest"
        " FROM register_players r WHERE r.merged_into IS NULL ORDER BY r.id")]


def near(everyone: list[Player], name: str) -> list[Player]:
    """The players whose names are close to name (not its key's own): a
    typo's ratio of NEAR or more, or name being a first name of theirs."""
    key = tallyboard_names.key(name)
    out = []
    for p in everyone:
        theirs = tallyboard_names.key(p.name)
        if theirs == key:
            continue
        if difflib.SequenceMatcher(None, key, theirs).ratio() >= NEAR or theirs.split(" ")[0] == key:
            out.append(p)
    return out


def _by_key(everyone: list[Player], name: str) -> Player | None:
    key = tallyboard_names.key(name)
    return next((p for p in everyone if tallyboard_names.key(p.name) == key), None)


def _did_you_mean(found: list[Player]) -> str:
    return " or ".join(repr(p.name) for p in found[:3])


def match(store: EveningDatabase, names: list[str], new: list[str],
          guests: list[str] | tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """An evening's names matched to the register, before the evening is
    created: (the names as the register spells them, the names new to it).
    guests are among names: each a guest of the register, or new to it (then
    join(store, guests) adds him as a guest). RegisterError for a near miss
    ("did you mean 'Ann Lee'?"), a name new to a register that has players
    and not given as new or a guest, a new name the register holds already,
    a guest the register holds as a member, or two names that are one."""
    everyone = players(store)
    new_keys = {tallyboard_names.key(n) for n in new}
    guest_keys = {tallyboard_names.key(g) for g in guests}
    keys = [tallyboard_names.key(n) for n in names]
    for n in new:
        if tallyboard_names.key(n) not in keys:
            raise RegisterError(f"--new-player {n!r} is not one of the evening's players: give it with --player "
                                "too (--new-player only says that the player is new to the register)")
        if tallyboard_names.key(n) in guest_keys:
            raise RegisterError(f"{n!r} is given as --new-player and as --guest: a guest new to the register is "
                                f"added as a guest by --guest {n!r} alone; nothing was created")
    out, fresh = [], []
    for name, key in zip(names, keys):
        if keys.count(key) > 1:
            raise RegisterError(f"{name!r} is given twice (the register does not tell case or spaces apart); "
                                "every player needs a name of his own")
        known = _by_key(everyone, name)
        if key in guest_keys:
            if known is not None and not known.guest:
                raise RegisterError(f"--guest {name!r}: {known.name!r} (#{known.id}) is a member of the club's "
                                    "register, ranked in seasons; leave --guest out to seat him as a member "
                                    f"(tallyboard players guest {known.name!r} makes him a guest); nothing was created")
            if known is None:
                fresh.append(name)
            out.append(name if known is None else known.name)
        elif key in new_keys:
            if known is not None:
                guest = ", a guest" if known.guest else ""
                raise RegisterError(f"--new-player {name!r}: the register has {known.name!r} (#{known.id}{guest}) "
                                    "already; leave --new-player out to seat that player")
            fresh.append(name)
            out.append(name)
        elif known is not None:
            out.append(known.name)
        elif everyone:
            close = near(everyone, name)
            hint = f": did you mean {_did_you_mean(close)}? If not, a" if close else "; a"
            raise RegisterError(f"{name!r} is not in the club's register{hint} player new to the club is "
                                f"added on purpose: --player {name!r} --new-player {name!r}, or --guest {name!r} "
                                "for a visitor not ranked in seasons (tallyboard players list shows the register); "
                                "nothing was created")
        else:
            fresh.append(name)     # the first evening: its players found the register
            out.append(name)
    return out, fresh


def find(store: EveningDatabase, who: str) -> Player:
    """The player named who (case and spaces aside) or numbered #N / N."""
    everyone = players(store)
    number = who.lstrip("#")
    if number.isdigit():
        entry = root(store, int(number))
        for p in everyone:
            if p.id == entry:
                return p
    known = _by_key(everyone, who)
    if known is not None:
        return known
    close = near(everyone, who)
    hint = f"; did you mean {_did_you_mean(close)}?" if close else ""
    raise RegisterError(f"no player {who!r} in the club's register{hint} (tallyboard players list shows them)")


def root(store: EveningDatabase, entry: int) -> int:
    """The entry an entry was merged into, through every merge."""
    seen = set()
    while entry not in seen:
        seen.add(entry)
        row = store.db.execute("SELECT merged_into FROM register_players WHERE id = ?", (entry,)).fetchone()
        if row is None or row[0] is None:
            return entry
        entry = int(row[0])
    return entry


def evening_players(store: EveningDatabase, event: Evening) -> list[int]:
    """The register's number of each of the evening's players, by the evening's number."""
    join(store)
    return [int(r) for (r,) in store.db.execute("SELECT register FROM event_players WHERE event = ? ORDER BY number",
                                                (event.id,))]


def names_of(store: EveningDatabase) -> dict[int, str]:
    """Every entry's name (merged ones too), by number."""
    return {int(i): name for i, name in store.db.execute("SELECT id, name FROM register_players")}


def guests_of(store: EveningDatabase) -> set[int]:
    """The numbers of the register's guests."""
    return {int(i) for (i,) in store.db.execute("SELECT id FROM register_players WHERE guest = 1")}


def with_guests(names: list[str], guests: list[str] | tuple[str, ...]) -> list[str]:
    """An evening's names and after them its guests (`event create --guest`) not among them already."""
    given = {tallyboard_names.key(n) for n in names}
    return names + [g.strip() for g in guests if tallyboard_names.key(g) not in given]


def guests_at(store: EveningDatabase, event: Evening) -> list[str]:
    """The evening's names of its players who are the register's guests, by the evening's number."""
    visitors = guests_of(store)
    return [name for name, entry in zip(store.names(event), evening_players(store, event))
            if root(store, entry) in visitors]


def _log(db: Any, action: str, what: str, before: str, after: str) -> dict[str, str]:
    db.execute("INSERT INTO register_log (at, action, what, before, after) VALUES (?, ?, ?, ?, ?)",
               (_now(), action, what, before, after))
    return {"action": action, "what": what, "before": before, "after": after}


def _status(guest: bool) -> str:
    return "guest" if guest else "member"


def add(store: EveningDatabase, name: str, guest: bool = False) -> Player:
    """A player new to the club, on purpose, a member or a guest; logged."""
    name = tallyboard_names.check("player", name, tallyboard_names.PLAYER_MAX)
    known = _by_key(players(store), name)
    if known is not None:
        if known.guest and not guest:
            raise RegisterError(f"{known.name!r} (#{known.id}) is a guest in the register already: tallyboard "
                                f"players member {known.name!r} makes him a member, keeping his evenings; "
                                "nothing was added")
        raise RegisterError(f"the register has {known.name!r} (#{known.id}) already; nothing was added")
    with database.write(store.db) as db:
        entry = int(db.execute("INSERT INTO register_players (name, key, added_at, guest) VALUES (?, ?, ?, ?)",
                               (name, tallyboard_names.key(name), _now(), int(guest))).lastrowid or 0)
        _log(db, "add", f"#{entry} {name}", "", f"{name} ({_status(guest)})" if guest else name)
    return Player(entry, name, 0, guest)


def lookup(store: EveningDatabase, who: str) -> Player | None:
    """The player named who (case and spaces aside) or numbered #N, None when the register has none."""
    if who.lstrip("#").isdigit():
        return find(store, who)
    return _by_key(players(store), who)


def set_guest(store: EveningDatabase, who: str, guest: bool) -> dict[str, str]:
    """A member made a guest (guest) or a guest a member: his evenings stay his,
    and every season ranks him, or leaves him out, with all of them. The
    director's (the caller checks the PIN); logged."""
    player = find(store, who)
    if player.guest == guest:
        raise RegisterError(f"{player.name!r} (#{player.id}) is a {_status(guest)} already; nothing was changed")
    with database.write(store.db) as db:
        db.execute("UPDATE register_players SET guest = ? WHERE id = ?", (int(guest), player.id))
        return _log(db, _status(guest), f"#{player.id} {player.name}", _status(player.guest), _status(guest))


def rename(store: EveningDatabase, who: str, new: str) -> dict[str, str]:
    """The register's name of a player (the director's; the caller checks the
    PIN): the evenings keep the names they were played under."""
    player = find(store, who)
    new = tallyboard_names.check("player", new, tallyboard_names.PLAYER_MAX)
    other = _by_key(players(store), new)
    if other is not None and other.id != player.id:
        raise RegisterError(f"the register has {other.name!r} (#{other.id}) already: if they are one person, "
                            f"tallyboard players merge {player.name!r} {other.name!r}; nothing was changed")
    with database.write(store.db) as db:
        db.execute("UPDATE register_players SET name = ?, key = ? WHERE id = ?",
                   (new, tallyboard_names.key(new), player.id))
        return _log(db, "rename", f"#{player.id}", player.name, new)


def merge(store: EveningDatabase, who: str, into: str) -> dict[str, str]:
    """One person entered twice: `who`'s evenings become `into`'s and `who`'s
    entry is merged (the director's; the caller checks the PIN). Refused when
    both played the same evening."""
    gone, kept = find(store, who), find(store, into)
    if gone.id == kept.id:
        raise RegisterError(f"{who!r} and {into!r} are the same player (#{kept.id}); nothing was changed")
    both = store.db.execute(
        "SELECT e.name FROM event_events e WHERE EXISTS (SELECT 1 FROM event_players p WHERE p.event = e.id AND"
        " p.register = ?) AND EXISTS (SELECT 1 FROM event_players p WHERE p.event = e.id AND p.register = ?)",
        (gone.id, kept.id)).fetchall()
    if both:
        raise RegisterError(f"{gone.name!r} and {kept.name!r} both played {both[0][0]!r}: they are two people, "
                            "not one; nothing was changed")
    with database.write(store.db) as db:
        db.execute("UPDATE event_players SET register = ? WHERE register = ?", (kept.id, gone.id))
        db.execute("UPDATE register_players SET merged_into = ? WHERE id = ?", (kept.id, gone.id))
        return _log(db, "merge", f"#{gone.id} {gone.name} into #{kept.id} {kept.name}",
                    json.dumps({"evenings": [gone.evenings, kept.evenings]}),
                    json.dumps({"evenings": gone.evenings + kept.evenings}))


def log(store: EveningDatabase) -> list[dict[str, str]]:
    return [{"at": at, "action": action, "what": what, "before": before, "after": after}
            for at, action, what, before, after in store.db.execute(
                "SELECT at, action, what, before, after FROM register_log ORDER BY id")]
