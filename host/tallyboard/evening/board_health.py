"""Each board's health at the director (issue 43; docs/club-mqtt.md, "The
director's view of the boards"): what every board on the club's Wi-Fi
publishes about itself (tallynet.health.FIELDS, checked and stored by the
director's link, club/director_link.py, in the director's club file's
`health`), judged here, in one function (judge) with its thresholds named
below, and put in the rows `tallyboard event boards` prints and the page's
Boards table draws (the snapshot's `boards`): the same columns and words in
both."""
from __future__ import annotations

import functools
import json
import logging
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tallynet import health
from tallynet.tablestate import board_ident
from tallyrun.protocol import FIRMWARE_VERSION

from ..common import database

log = logging.getLogger(__name__)

# the thresholds of the warnings (docs/club-mqtt.md, "The director's view of the boards")
WEAK_SIGNAL_DBM = -75                          # an RSSI below this: weak signal
RESETS_GROWN = 3                               # resets grown by this many since the first report this evening
WATCHDOG = "watchdog"                          # a reset this evening by the watchdog: frequent resets at once
# (not the cause alone: the rp2 port reports a reset asked for, machine.reset() as deploy and mpremote
# do, as the watchdog's, so a board deployed before the evening says "watchdog" from its first report)
LOW_FREE_BYTES = 20_000                        # heap free below this: heap low
LOW_BLOCK_BYTES = 8_000                        # the largest free block below this: heap low
SILENT_AFTER_S = 2 * health.PERIOD_MS // 1000  # no report for longer than this while online: silent
LOW_SUPPLY_MV = 4_500                          # VSYS below this, where the board measures it: supply low

OLD, WEAK, RESETS, HEAP, SILENT, SUPPLY = ("old firmware", "weak signal", "frequent resets", "heap low", "silent",
                                           "supply low")
# the columns, as `event boards` and the page head them (each row's `shown` has one text per key)
COLUMNS = (("table", "Table"), ("board", "Board"), ("release", "Release"), ("uptime", "Up"),
           ("resets", "Resets"), ("heap", "Heap KB"), ("rssi", "RSSI"), ("reconnects", "Reconn."),
           ("journal", "Journal"), ("vsys", "VSYS"), ("age", "Report"), ("warnings", "Warnings"))
NONE = "—"     # a value the board cannot measure (null), or no report yet


def version(text: object) -> tuple[int, ...] | None:
    """A firmware version "1.2.3" as (1, 2, 3); None if it is not one."""
    if not isinstance(text, str):
        return None
    try:
        return tuple(int(part) for part in text.split("."))
    except ValueError:
        return None


@functools.lru_cache(maxsize=1)
def current_release() -> str | None:
    """The release this checkout builds (tooling.fileset.release_id of its file set), worked out once
    per process (the build is cached by content); None when it cannot be (no mpy-cross, say): then
    only the firmware's version tells an old board."""
    try:
        from ..tooling import fileset
        return str(fileset.release_id(fileset.build()))
    except Exception as exc:      # the page and `event boards` still show every board
        log.warning("this checkout's release could not be worked out (%s): boards are judged old by their "
                    "firmware version only", exc)
        return None


def judge(report: dict[str, Any] | None, *, release: str | None, fw: str | None, first_resets: int | None,
          age_s: float | None, online: bool) -> list[dict[str, str]]:
    """A board's warnings, each {"warning": its name above, "text": in words, with what to do}:
    `report` its latest health body (None: none yet), `release` and `fw` the director's (None:
    not known), `first_resets` the reset count of its first report this evening, `age_s` how long
    ago its report came (or, with none, how long it has been online), `online` its status."""
    silent = (f"no report in {_age(age_s)} while online: check that the board is running, and restart it if it "
              "does not answer") if online and age_s is not None and age_s > SILENT_AFTER_S else None
    if report is None:
        found = [(SILENT, silent)]
    else:
        found = [(OLD, _old(report, release, fw)), (WEAK, _weak(report["rssi"])),
                 (RESETS, _resets(report, first_resets)), (HEAP, _heap(report["free"], report["block"])),
                 (SILENT, silent), (SUPPLY, _supply(report["vsys_mv"]))]
    return [{"warning": name, "text": f"{name}: {text}"} for name, text in found if text is not None]


def _old(report: dict[str, Any], release: str | None, fw: str | None) -> str | None:
    theirs, ours = version(report["fw"]), version(fw)
    if release is not None and report["release"] != release:
        return (f"release {report['release']}, the director's is {release}: deploy this checkout to the board "
                "(tallyboard deploy)")
    if theirs is not None and ours is not None and theirs < ours:
        return f"firmware {report['fw']}, the director's is {fw}: deploy this checkout to the board (tallyboard deploy)"
    return None


def _weak(rssi: int | None) -> str | None:
    return f"{rssi} dBm: move the board or the access point closer" \
        if rssi is not None and rssi < WEAK_SIGNAL_DBM else None


def _resets(report: dict[str, Any], first_resets: int | None) -> str | None:
    resets = report["resets"]
    grown = resets - first_resets if resets is not None and first_resets is not None else 0
    why = [f"last reset by the {WATCHDOG}, this evening"] if report["cause"] == WATCHDOG and grown >= 1 else []
    why += [f"{grown} resets this evening"] if grown >= RESETS_GROWN else []
    return f"{', '.join(why)}: check its supply and cable; if it goes on, swap the board" if why else None


def _heap(free: int | None, block: int | None) -> str | None:
    if (free is not None and free < LOW_FREE_BYTES) or (block is not None and block < LOW_BLOCK_BYTES):
        return f"{_kb(free)} KB free, largest block {_kb(block)} KB: restart the board between rounds"
    return None


def _supply(vsys: int | None) -> str | None:
    return f"{vsys / 1000:.2f} V: use a better USB supply or a shorter cable" \
        if vsys is not None and vsys < LOW_SUPPLY_MV else None


def _kb(value: int | None) -> str:
    return NONE if value is None else f"{value / 1024:.1f}"


def _age(seconds: float) -> str:
    """How long ago, in a few characters: 45 s, 12 min, 2 h 05."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d}"


def _uptime(seconds: int | None) -> str:
    """h:mm"""
    return NONE if seconds is None else f"{seconds // 3600}:{seconds % 3600 // 60:02d}"


def _stored(at: str) -> datetime:
    """SQLite's datetime('now') (UTC)."""
    return datetime.strptime(at, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)


def shown(row: dict[str, Any]) -> dict[str, str]:
    """A row's cells as text, one per COLUMNS key."""
    report = row["health"]
    cells = {"table": str(row["table"]), "board": row["board"]}
    if report is None:
        cells.update({key: NONE for key, _ in COLUMNS[2:-1]})
    else:
        def num(value: int | None, unit: str = "") -> str:
            return NONE if value is None else f"{value}{unit}"

        cells.update({
            "release": report["release"] + (" (old)" if row["old"] else ""),
            "uptime": _uptime(report["up_s"]),
            "resets": f"{num(report['resets'])} ({report['cause']})",
            "heap": f"{_kb(report['free'])} / {_kb(report['block'])}",
            "rssi": num(report["rssi"], " dBm"),
            "reconnects": num(report["reconnects"]),
            "journal": f"{num(report['erases'])} / {num(report['records'])}",
            "vsys": NONE if report["vsys_mv"] is None else f"{report['vsys_mv'] / 1000:.2f} V",
        })
    cells["age"] = (_age(row["age_s"]) + " ago") if row["at"] else "no report"
    cells["warnings"] = "; ".join(w["text"] for w in row["warnings"])
    return cells


def rows(club_file: Path, tag: int, tables: int, wireless: set[int], now: datetime | None = None,
         release: str | None = None, fw: str | None = FIRMWARE_VERSION) -> list[dict[str, Any]]:
    """The Boards table of an evening from its director's club file (nothing if it has none): a row
    for each of tables 1..`tables` whose board reported its health, or is a board on Wi-Fi by itself
    (`wireless`) whose status says online; each with its report, its age, its warnings (judge) and
    its cells as text (`shown`). `release`: the director's (current_release(), asked only when a
    board has reported)."""
    if not club_file.exists():
        return []
    db = database.open_file(club_file, database.DIRECTOR)
    try:
        reports = {board: (body, at, first) for board, body, at, first in
                   db.execute("SELECT board, body, at, first_resets FROM health").fetchall()}
        clients = {client: (bool(online), at) for client, online, at in
                   db.execute("SELECT client, online, at FROM clients").fetchall()}
    finally:
        db.close()
    now = now or datetime.now(timezone.utc)
    out = []
    for table in range(1, tables + 1):
        board = board_ident(tag, table)
        online, since = clients.get(board, (False, None))
        if board not in reports and not (table in wireless and online):
            continue
        if board in reports and release is None:
            release = current_release()
        body, at, first = reports.get(board, (None, None, None))
        report = json.loads(body) if body is not None else None
        heard = at or (since if online else None)
        age_s = (now - _stored(heard)).total_seconds() if heard else None
        warnings = judge(report, release=release, fw=fw, first_resets=first, age_s=age_s, online=online)
        row = {"table": table, "board": board, "health": report, "online": online,
               "at": at.replace(" ", "T") + "Z" if at else None, "age_s": None if age_s is None else int(age_s),
               "old": any(w["warning"] == OLD for w in warnings), "warnings": warnings}
        row["shown"] = shown(row)
        out.append(row)
    return out


def evening_rows(store: Any, event: Any, now: datetime | None = None) -> list[dict[str, Any]]:
    """rows() of an evening of the director's store (store.EveningDatabase)."""
    from . import club     # the club transport's files: only read, and only when the evening has them
    from .tables import event_tag

    path = club.director_file(event)
    if not path.exists():
        return []
    links = club.links(event, store.boards(event))
    wireless = {table for table, link in links.items() if link["kind"] == club.WIRELESS_BOARD}
    return rows(path, event_tag(event), club.table_count(store, event), wireless, now)


def document(found: list[dict[str, Any]]) -> dict[str, Any]:
    """The snapshot's `boards` (docs/club-mqtt.md, "The director's view of the boards"): the columns' heads and
    the rows."""
    return {"columns": [{"key": key, "head": head} for key, head in COLUMNS], "rows": found}
