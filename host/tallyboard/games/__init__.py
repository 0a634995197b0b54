"""The host's games: one profile per game (`GameProfile`, games/base.py),
each in its own module here, registered in PROFILE_MODULES below.

A profile says how one game looks on the host: its docs/records.md hands and
options (both ways), which event closes a record hand, its score sheet (JSON
and table), how it is won, and, where the game has them, its simulation and
its own protocol verbs. The rules stay in the game's `tallycore` module.
Every other host module (records, sheet, simulate, client, the commands)
looks a game up here and names none.

Shared parts: games/fields.py (reading a record's fields, the options and
hand shapes several games share), games/sheetparts.py (the sheet's common
fields, hand scores, key order, table style, the short games' sheet),
games/base.py (GameProfile, LoadedGame).

Adding a seventeenth game touches only its own modules on each side plus one
registry line:
  firmware: firmware/tallycore/<name>.py (the rules) and its line in
            tallycore.games.GAMES;
  host:     host/tallyboard/games/<name>.py defining PROFILE = GameProfile(...)
            and its line in PROFILE_MODULES below (same place in the order).
A test checks that the two tables name the same games in the same order."""
from __future__ import annotations

from importlib import import_module

from tallycore import games as core_games

from .base import GameProfile, LoadedGame

__all__ = ["GameProfile", "LoadedGame", "PROFILE_MODULES", "profile", "profiles", "names", "by_verb"]

# The profile modules, in the order of tallycore.games.GAMES (wire order).
PROFILE_MODULES = (
    "skicket",
    "roquet",
    "bishops_whist",
    "rummy",
    "parquet",
    "coronado",
    "foozle",
    "jaimy",
    "hoodoo",
    "numero",
    "sachem",
    "quatro",
    "doolittle",
    "despised_nines",
    "ups_and_downs",
    "moosehead",
)

_profiles: dict[str, GameProfile] = {}


def _load() -> dict[str, GameProfile]:
    if not _profiles:
        for module in PROFILE_MODULES:
            loaded: GameProfile = import_module(f"{__name__}.{module}").PROFILE
            # a game's verbs are its rules module's (tallycore.game VERBS): the
            # profile only adds the host's checks of their words
            declared = {row[0].decode() for row in core_games.by_name(loaded.name).VERBS}
            if set(loaded.verbs) != declared:
                raise ImportError(f"games/{module}.py checks the verbs {sorted(loaded.verbs)}, but its "
                                  f"rules declare {sorted(declared)}")
            _profiles[loaded.name] = loaded
    return _profiles


def names() -> list[str]:
    """Every game's name, in wire order."""
    return list(_load())


def profiles() -> list[GameProfile]:
    """Every game's profile, in wire order."""
    return list(_load().values())


def profile(name: str) -> GameProfile:
    """The profile of a game; ValueError naming the known games for any other name."""
    found = _load().get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(_load())}")
    return found


def by_verb(verb: str) -> GameProfile:
    """The game whose own protocol verb this is (e.g. the one that takes HAND)."""
    for candidate in _load().values():
        if verb in candidate.verbs:
            return candidate
    raise ValueError(f"no game has the verb {verb}")


def club_game() -> GameProfile:
    """The game a club evening plays at its tables (its profile has
    club_options): `tallyboard event` finds it here and never names it."""
    for candidate in _load().values():
        if candidate.club_options is not None:
            return candidate
    raise ValueError("no game is played at a club evening")
