"""The host's copy of a board's game, kept between commands, so that a command
that changes the game costs two requests (OPEN, then the change) rather than
reading the whole game back each time (issue 11: each request is 14-22 ms on
the chip, even when it only reads).

OPEN answers the board's stamp of its game: game, players, options, n, top,
the CRC of its log, whether a change is held for its confirmation (held: - or
its kind) and the CRC of its settings (the players' names). While a hand waits
no copy is served (OPEN has no room for the held event: the game is read
again), and a copy made while one waited never matches the stamp after its
accept or reject. A copy
whose stamp equals the board's is the board's game, names included; any other
copy is dropped and the game read again. The copy lives in one small JSON file
per port under the user's cache folder; a missing, unreadable or foreign file
is only a slower command, never a wrong one."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..common.files import cache_folder
from . import wire

STAMP_KEYS = ("game", "players", "options", "n", "top", "lcrc", "held", "ccrc")


def cache_dir() -> Path:
    return cache_folder("views")


def _path(port: str) -> Path:
    real = os.path.realpath(port)
    return cache_dir() / (hashlib.sha1(real.encode()).hexdigest()[:16] + ".json")


def stamp_of(fields: dict[str, str]) -> dict[str, str]:
    return {key: fields.get(key, "") for key in STAMP_KEYS}


def load(port: str, stamp: dict[str, str]) -> tuple[list[int], list[str], list[int | None]] | None:
    """(log[0:top], names, who accepted each event: LOG's who) when the copy
    for this port has exactly this stamp."""
    try:
        doc: Any = json.loads(_path(port).read_text())
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(doc, dict) or doc.get("stamp") != stamp or stamp.get("held", "-") not in ("-", ""):
        return None
    log, names = doc.get("log"), doc.get("names")
    if (not isinstance(log, list) or not all(isinstance(e, int) for e in log)
            or not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
        return None
    if len(log) != int(stamp["top"]) or wire.log_crc(log) != int(stamp["lcrc"], 16):
        return None
    accepted = doc.get("accepted", [None] * len(log))
    if (not isinstance(accepted, list) or len(accepted) != len(log)
            or not all(a is None or (isinstance(a, int) and 0 <= a < 8) for a in accepted)):
        return None
    return log, names, accepted


def save(port: str, stamp: dict[str, str], log: list[int], names: list[str],
         accepted: list[int | None] | None = None) -> None:
    """Keep the copy; a cache that cannot be written only costs the next command time."""
    path = _path(port)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"stamp": stamp, "log": log, "names": names,
                                   "accepted": accepted or [None] * len(log)}))
        os.replace(tmp, path)
    except OSError:
        pass


def forget(port: str) -> None:
    try:
        _path(port).unlink()
    except OSError:
        pass
