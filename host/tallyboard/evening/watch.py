"""`tallyboard event watch`: the club evening in a terminal, drawn from a
snapshot document (docs/host.md, "The club evening's live views"): the standings, each
table's game, who moves where next, and the standings of each season the evening is in
(as the live page shows them at its side). `frame()` draws one snapshot;
`live()` redraws it from a source whenever it changes. When the tables and the
seasons do not fit the terminal's height, they are shown a page at a time, the pages
turning every few seconds; the evening's standings stay."""
from __future__ import annotations

import json
import sys
import time
from typing import Any, Callable

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..common.console import Console

FORMAT = "tallyboard-event-view/1"
PAGE_SECONDS = 6.0
POLL_SECONDS = 0.4
_NAME_WIDTH = 7    # a name in a table's column: a club TV's terminal is 80 wide


def check(doc: Any) -> dict[str, Any]:
    """The snapshot, or ValueError saying what is wrong with it."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"not a club evening's snapshot (its format should be {FORMAT})")
    if "seasons" in doc:
        _check_seasons(doc["seasons"])
    return doc


def _check_seasons(seasons: Any) -> None:
    """The snapshot's `seasons` (docs/events.md, "The snapshot"): each season's standings beside the
    evening, or why they cannot be worked out just now."""
    if not isinstance(seasons, list):
        raise _season_fault("seasons", "must be a list of seasons")
    for n, s in enumerate(seasons, 1):
        if not (isinstance(s, dict) and isinstance(s.get("season"), str)):
            raise _season_fault(str(n), "must be an object with the season's name")
        if "problem" in s:
            if not isinstance(s["problem"], str):
                raise _season_fault(f"{n}: problem", "must be a sentence")
            continue
        for key in ("rule_words", "figure", "note"):
            if not isinstance(s.get(key), str):
                raise _season_fault(f"{n}: {key}", "must be a sentence")
        evening = s.get("evening")
        counts = ("evening", "of", "rounds_counted")
        if not (isinstance(evening, dict) and all(type(evening.get(k)) is int for k in counts)
                and isinstance(evening.get("finished"), bool)):
            raise _season_fault(f"{n}: evening",
                                'must be {"evening", "of", "rounds_counted": numbers, "finished": true/false}')
        _check_season_rows(n, s)


def _season_fault(where: str, what: str) -> ValueError:
    return ValueError(f"the snapshot's seasons: {where}: {what}")


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_season_rows(n: int, s: dict[str, Any]) -> None:
    rows = s.get("standings")
    if not isinstance(rows, list) or not all(
            isinstance(r, dict) and type(r.get("rank")) is int and isinstance(r.get("name"), str)
            and _number(r.get("value")) and (r.get("decided_by") is None or isinstance(r["decided_by"], str))
            for r in rows):
        raise _season_fault(f"{n}: standings", 'must be a list of {"rank", "name", "value", "decided_by"}')
    rows = s.get("unranked")
    if not isinstance(rows, list) or not all(
            isinstance(r, dict) and isinstance(r.get("name"), str) and _number(r.get("value"))
            and type(r.get("evenings")) is int for r in rows):
        raise _season_fault(f"{n}: unranked", 'must be a list of {"name", "value", "evenings"}')


def frame(doc: dict[str, Any], height: int | None = None, page: int = 0, width: int = 80) -> RenderableType:
    """One snapshot as a terminal view. With a height, the tables and seasons that do
    not fit are left to the other pages (`page` counts from 0 and wraps); width: the
    terminal's, which the pages are measured at."""
    standings = _standings(doc)
    side = Group(standings, Text(""), _next(doc))
    tables = [_safe_table(t, i) for i, t in enumerate(doc.get("tables") or [])]
    seasons = [_season(s) for s in doc.get("seasons") or []]
    parts = tables + seasons
    shown, note = parts, None
    if height is not None and parts:
        room = max(20, width - Console(width=width).measure(side).maximum - 2)
        pages = _pages(parts, height - 1, room, 2 if seasons else 1)
        if len(pages) > 1:
            first, last = pages[page % len(pages)]
            shown = parts[first:last]
            note = Text(f"{_page_words(first, last, len(tables))}, the next page in a few seconds", style="dim")
    body = Table.grid(padding=(0, 2))
    body.add_column(no_wrap=True)
    body.add_column()
    right: list[RenderableType] = list(shown) + ([note] if note is not None else [])
    body.add_row(side, Group(*right) if right else Text("no tables yet", style="dim"))
    return Group(_title(doc), body)


def _page_words(first: int, last: int, tables: int) -> str:
    """What a page shows, of the parts tables..., seasons... : "tables 1–3 of 4", "table 4 of 4 and the
    season's standings", "the season's standings"."""
    words = []
    if first < tables:
        end = min(last, tables)
        words.append(f"table {end} of {tables}" if end == first + 1 else f"tables {first + 1}–{end} of {tables}")
    if last > tables:
        words.append("the seasons' standings" if last - max(first, tables) > 1 else "the season's standings")
    return " and ".join(words)


def _season(s: dict[str, Any]) -> RenderableType:
    """A season's standings as they stand now (the snapshot's `seasons`, docs/events.md): rank, player,
    the rule's figure and the tie-break that placed a player; the rule in words and how far this
    evening counts, below."""
    title = f"Season · {s['season']}"
    if "problem" in s:
        return Group(Text(""), Text(title, style="bold"),
                     Text(f"its standings cannot be worked out just now: {s['problem']}", style="dim"))
    table = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False)
    table.add_column("", justify="right")
    table.add_column("player", no_wrap=True, max_width=12)
    table.add_column(Text(s["figure"]), justify="right")
    table.add_column("")
    for row in s["standings"]:
        tie = row.get("decided_by")
        table.add_row(str(row["rank"]), Text(row["name"]), _figure(row["value"]),
                      Text(f"tie: {tie.replace('_', ' ')}", style="dim") if tie else "",
                      style="bold green" if row["rank"] == 1 else None)
    for row in s["unranked"]:
        evenings = row["evenings"]
        table.add_row("–", Text(row["name"]), _figure(row["value"]),
                      Text(f"{evenings} evening{'' if evenings == 1 else 's'}: not ranked", style="dim"))
    # a line between it and the table or season above; the rule and how far the evening counts below
    return Group(Text(""), Text(title, style="bold"), table, Text(s["rule_words"], style="dim"),
                 Text(s["note"], style="dim"))


def _figure(value: float) -> str:
    """A season's figure as the live page writes it: an average that is whole without its ".0"
    (the snapshot's averages are rounded to two places already)."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _pages(parts: list[RenderableType], height: int, width: int = 200, note_lines: int = 1) -> list[tuple[int, int]]:
    """(first, end) index ranges of the parts that fit in `height` lines together at
    `width` columns, note_lines kept for the page note."""
    console = Console(width=width, height=1000)
    sizes = [len(console.render_lines(t, console.options, pad=False)) for t in parts]
    pages, first, used = [], 0, 0
    for i, size in enumerate(sizes):
        if i > first and used + size > height - note_lines:
            pages.append((first, i))
            first, used = i, 0
        used += size
    pages.append((first, len(parts)))
    return pages


def _title(doc: dict[str, Any]) -> Text:
    title = Text(str(doc.get("event", "")), style="bold")
    state = doc.get("state", "")
    if doc.get("round"):
        title.append(f" · round {doc['round']} of {doc.get('rounds', '?')}")
    if doc.get("hands"):
        title.append(f" · {doc['hands']}-hand games")
    if state and state != "running":
        title.append(f" · {state}", style="yellow")
    updated = str(doc.get("updated", ""))
    if "T" in updated:
        title.append(f" · {updated.split('T')[1][:5]}", style="dim")
    return title


def _standings(doc: dict[str, Any]) -> RenderableType:
    table = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False,
                  title="Standings", title_justify="left", title_style="bold")
    table.add_column("", justify="right")
    table.add_column("player", no_wrap=True, max_width=12)
    table.add_column("score", justify="right")
    table.add_column("won", justify="right")
    table.add_column("tbl", justify="right")
    for row in doc.get("standings", []):
        top = row.get("rank") == 1 and doc.get("state") == "finished"
        table.add_row(str(row["rank"]), Text(str(row["name"])), str(row["continuous"]),
                      str(row.get("games_won", "")), str(row.get("table", "") or ""),
                      style="bold green" if top else None)
    return table


def _cell(name: Any) -> str:
    text = str(name)
    return text if len(text) <= _NAME_WIDTH else text[:_NAME_WIDTH - 1] + "…"


def _safe_table(t: Any, index: int) -> RenderableType:
    """A table's game, or, for a stored value of the wrong shape, a marked
    gap in its place: the rest of the view stands."""
    try:
        return _table(t)
    except Exception as exc:   # any shape of bad value: said, never a blank view
        number = t.get("table") if isinstance(t, dict) and isinstance(t.get("table"), int) else index + 1
        return Text(f"Table {number} · ⚠ unreadable ({type(exc).__name__}: {exc})", style="bold red")


_LINK_KINDS = {"usb": "USB", "table host": "table host", "wireless board": "Wi-Fi board"}


def link_words(link: Any, port: str | None = None) -> str:
    """A table's link in a few words (docs/club-wifi.md, "The director's view"):
    `table host room-a · online · last message 20:14:05`, `Wi-Fi board B39D.3 ·
    offline · ...`, `USB /dev/ttyACM0`; an unreadable one says so."""
    if link is None:
        return port or "no board"
    if not isinstance(link, dict) or link.get("kind") not in _LINK_KINDS:
        return "⚠ unreadable link"
    words = _LINK_KINDS[link["kind"]]
    via = link.get("via", port)
    if via:
        words += f" {via}"
    words += " · offline" if link.get("online") is False else " · online"
    seen = link.get("seen")
    if isinstance(seen, str) and "T" in seen:
        words += f" · last message {seen.split('T')[1][:8]} UTC"
    return words


def _table(t: dict[str, Any]) -> RenderableType:
    """A table's game as its sheet: a column per seat at the round's start,
    each hand's scores under its players (the dealer's marked ·), the
    totals, a held hand in brackets with who must accept it."""
    names = t.get("names", [])
    totals = t.get("totals") or [""] * len(names)
    title, head = _heading(t)
    table = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False, show_footer=True,
                  title=None if head else title, title_justify="left")
    table.add_column("#", justify="right", footer="Σ")
    for seat, name in enumerate(names):
        # every cell ends in one column kept for the dealer's mark
        table.add_column(Text(_cell(name) + " "), justify="right", no_wrap=True, min_width=5,
                         footer=f"{totals[seat]} ")
    columns = t.get("seats", [])   # the player of each column: the seats at the round's start
    for hand in t.get("hands", []):
        dealer = hand.get("dealer")    # an event player number
        table.add_row(str(hand["hand"]), *(
            f"{score}{'·' if seat < len(columns) and columns[seat] == dealer else ' '}"
            for seat, score in enumerate(hand.get("scores", []))))
    pending = t.get("pending")
    if not pending:
        return Group(*head, table) if head else table
    table.add_row(str(pending["hand"]), *(f"({score})" for score in pending.get("scores", [])), style="yellow")
    return Group(*head, table, Text(f"hand {pending['hand']}: {_who_accepts(pending)} to accept", style="yellow"))


def _heading(t: dict[str, Any]) -> tuple[Text, list[Text]]:
    """The table's title (its board's status, game over) and, when it has a link, the title
    and the link's words on a line of their own (as wide as they need, not the sheet's width)."""
    title = Text(f"Table {t['table']}", style="bold")
    status = t.get("status", "ok")
    if status != "ok":
        title.append(f" · board {status}", style="bold red")
    if t.get("complete"):
        title.append(" · game over", style="green")
    link = t.get("link")
    down = link is not None and (not isinstance(link, dict) or link.get("online") is False)
    return title, ([] if link is None else [title, Text(link_words(link), style="bold red" if down else "dim")])


def _who_accepts(pending: dict[str, Any]) -> str:
    """Who may accept a held hand, with their buttons (an older table host's: names alone)."""
    waiting = pending.get("waiting_for")
    buttons = pending.get("buttons")
    if not (isinstance(buttons, list) and isinstance(waiting, list) and len(buttons) == len(waiting)
            and all(isinstance(b, str) and len(b) == 1 and b.isalnum() for b in buttons)):
        buttons = None
    if not (isinstance(waiting, list) and waiting and all(isinstance(name, str) for name in waiting)):
        return "⚠ unreadable"
    return " or ".join(_cell(name) + (f" (button {buttons[i]})" if buttons else "") for i, name in enumerate(waiting))


def _next(doc: dict[str, Any]) -> RenderableType:
    moves = doc.get("moves") or []
    if not moves or doc.get("last_round") or doc.get("state") == "finished":
        return Text("")   # no next round in the last round, nor after finish
    head = "Next round" if doc.get("moves_final") else "Next round, so far"
    lines = Text(head, style="bold")
    for move in moves:
        lines.append(f"\n{_cell(move['name'])}: table {move['from']} → {move['to']}")
    return lines


def once(source: Callable[[], dict[str, Any]], console: Console, as_json: bool = False) -> None:
    """One frame (or the snapshot document as JSON), for a log or a test."""
    doc = check(source())
    if as_json:
        console.print_json(json.dumps(doc))   # print_json never reads markup in the names
    else:
        console.print(frame(doc))


def _each_change(text: Callable[[], str], stamped: Callable[[str], str], console: Console,
                 problem: Callable[[], str | None], read: Callable[[], None], deadline: float | None,
                 poll: float) -> None:
    """Write the snapshot's text (stamped) whenever it changes, and a source that fails, once on stderr,
    until the deadline: `watch --json` and `watch` into a pipe or a file."""
    last, said = None, None
    while True:
        now = text()
        if now != last:
            console.file.write(stamped(now))
            console.file.flush()
            last = now
        if problem() != said and problem() is not None:
            sys.stderr.write(f"tallyboard: cannot read the evening just now: {problem()}\n")
        said = problem()
        if deadline is not None and time.monotonic() >= deadline:
            return
        time.sleep(poll)
        read()


def live(source: Callable[[], dict[str, Any]], console: Console, as_json: bool = False,
         duration: float = 0.0, poll: float = POLL_SECONDS) -> None:
    """Redraw from `source` whenever its snapshot changes (and turn the page
    of tables every few seconds), until Ctrl-C or `duration` seconds. With
    as_json, one line of JSON for every change instead. The first read's
    failure is raised; a later one is shown under the last snapshot (on
    stderr with as_json) until the source answers again."""
    from rich.live import Live

    deadline = time.monotonic() + duration if duration > 0 else None
    doc = check(source())
    problem = None

    def read() -> None:
        nonlocal doc, problem
        try:
            doc, problem = check(source()), None
        except Exception as exc:   # a board or the store failed for a moment: said, not fatal
            problem = str(exc) or type(exc).__name__

    if as_json:
        _each_change(lambda: json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n", lambda text: text,
                     console, lambda: problem, read, deadline, poll)
        return
    if not console.is_terminal:
        # a pipe or a file: one whole plain-text snapshot per change, never a redrawn screen
        def plain() -> str:
            with console.capture() as captured:
                console.print(frame(doc))
            return captured.get()

        _each_change(plain, lambda text: f"--- {time.strftime('%H:%M:%S')}\n{text}", console, lambda: problem, read,
                     deadline, poll)
        return

    def view(page: int) -> RenderableType:
        shown = frame(doc, console.height - (1 if problem else 0), page, console.width)
        if problem is None:
            return shown
        return Group(Text(f"cannot read the evening just now: {problem}", style="bold red"), shown)

    page, turned = 0, time.monotonic()
    with Live(view(page), console=console, auto_refresh=False, vertical_overflow="crop") as screen:
        while deadline is None or time.monotonic() < deadline:
            time.sleep(poll)
            before = (doc, problem)
            read()
            now = time.monotonic()
            if now - turned >= PAGE_SECONDS:
                page, turned = page + 1, now
            elif (doc, problem) == before:
                continue
            screen.update(view(page), refresh=True)
