"""The season's results as a static site (docs/host.md, "The results the
club publishes"): plain HTML and one stylesheet, no script, readable from
the folder or any web server. index.html holds the season's standings and
its evenings; evening-N.html each evening's standings, its movement, every
round's tables with their full sheets and the director's log;
evening-N-player-P.html each player's card of that evening. Names are the
register's, escaped as HTML does.

A page is made whole in memory and written only when it differs from the
file there (a rebuild after a correction writes the pages it changed:
the evening's, its players' cards, the season's index), each by
write-then-rename. Nothing on a page says when it was built, so a page
that is as it was stays byte for byte the same."""
from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import Any

from . import season as season_mod
from .evenings import play as evening_play, standings

STYLE = """\
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 62em; padding: 0 1em; color: #111; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { margin-top: 1.6em; } h3 { margin-bottom: .3em; }
nav { font-size: .95em; margin-bottom: 1em; } nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: .4em 0 1em; }
th, td { border-bottom: 1px solid #ccc; padding: .2em .6em; text-align: right; }
th { background: #eee; } td.name, th.name { text-align: left; }
tr.total td { font-weight: bold; border-top: 2px solid #333; }
.rule, .note { color: #444; } .uncounted { color: #888; } .tie { font-style: italic; } .guest { color: #666; }
section.table { break-inside: avoid; }
tr.hand { cursor: default; } tr.hand:hover td, tr.hand:focus td { background: #f4f1e4; }
tr.hand td:first-child { position: relative; }
.why { visibility: hidden; position: absolute; left: 0; top: 100%; z-index: 1; width: 34em; text-align: left;
       white-space: normal; font-size: .9em; background: #fffbe6; border: 1px solid #bba; padding: .3em .6em;
       box-shadow: 0 2px 6px rgba(0, 0, 0, .2); }
.why span { display: block; }
tr.hand:hover .why, tr.hand:focus .why, tr.hand:focus-within .why { visibility: visible; }
@media print {
  .why { display: none; }
  body { max-width: none; margin: 0; font-size: 10pt; }
  nav { display: none; }
  a { color: inherit; text-decoration: none; }
  th { background: none; border-bottom: 2px solid #000; }
  section.table, table { break-inside: avoid; }
  h2 { break-after: avoid; }
}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _page(title: str, nav: list[tuple[str, str]], body: list[str]) -> str:
    links = "".join(f'<a href="{_e(href)}">{_e(words)}</a>' for href, words in nav)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{_e(title)}</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n"
            f"<nav>{links}</nav>\n" + "\n".join(body) + "\n</body>\n</html>\n")


def _table(head: list[str], rows: list[list[str]], names: int = 1, extra: list[str] | None = None,
           why: list[list[str]] | None = None) -> str:
    """A table of cells already escaped; the column `names` (from 0) holds names. why: each
    row's reason (its lines, not escaped yet), shown over the rows below when the row is
    hovered or tapped (focused), so that nothing moves: no script."""
    def cell(tag: str, i: int, text: str) -> str:
        return f"<{tag} class=\"name\">{text}</{tag}>" if i == names else f"<{tag}>{text}</{tag}>"

    def tr(r: int, row: list[str]) -> str:
        lines = why[r] if why is not None and r < len(why) else []
        if not lines:
            return "<tr>" + "".join(cell("td", i, c) for i, c in enumerate(row)) + "</tr>"
        reason = ("<span class=\"why\" role=\"tooltip\">" + "".join(f"<span>{_e(line)}</span>" for line in lines)
                  + "</span>")
        return ("<tr class=\"hand\" tabindex=\"0\">" + cell("td", 0, row[0] + reason)
                + "".join(cell("td", i, c) for i, c in enumerate(row) if i) + "</tr>")
    out = ["<table>", "<tr>" + "".join(cell("th", i, h) for i, h in enumerate(head)) + "</tr>"]
    out += [tr(r, row) for r, row in enumerate(rows)]
    out += extra or []
    out.append("</table>")
    return "\n".join(out)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def evening_page(n: int) -> str:
    return f"evening-{n}.html"


def card_page(n: int, player: int) -> str:
    return f"evening-{n}-player-{player}.html"


def record_file(n: int) -> str:
    """The evening's event record (docs/events.md), beside its page: what `tallyboard verify` checks."""
    return f"evening-{n}.json"


# ---------------------------------------------------------------- the pages

def pages(parsed: season_mod.Parsed) -> dict[str, str]:
    """Every file of the site, by name."""
    doc = season_mod.standings_of(parsed)
    out = {"style.css": STYLE, "index.html": _index(parsed, doc)}
    for n, night in enumerate(parsed.nights, 1):
        out[evening_page(n)] = _evening(parsed, n, night)
        out[record_file(n)] = json.dumps(night.record, indent=1, ensure_ascii=False) + "\n"
        for p, who in enumerate(night.players):
            if night.sat(p):
                out[card_page(n, who)] = _card(parsed, n, night, p)
    return out


def _index(parsed: season_mod.Parsed, doc: dict[str, Any]) -> str:
    kind = doc["rule"]["kind"]
    value = {"total": "Total", "best": f"Best {doc['rule'].get('best')}", "average": "Average",
             "games_won": "Games won"}[kind]
    head = ["#", "Player", value] + [f'<a href="{evening_page(n)}">E{n}</a>' for n in range(1, len(parsed.nights) + 1)]
    # the total and the games won beside the rule's own figure, unless it is one of them (then it is shown once)
    beside = [key for key in ("total", "games_won") if key != kind]
    head += [{"total": "Total", "games_won": "Games won"}[key] for key in beside] + ["Tie broken by"]

    def row(r: dict[str, Any], mark: str = "") -> list[str]:
        scores = []
        for n, (score, counted) in enumerate(zip(r["scores"], r["counted"]), 1):
            if score is None:
                scores.append("")
                continue
            link = f'<a href="{card_page(n, r["player"])}">{score}</a>'
            scores.append(link if counted else f'<span class="uncounted">({link})</span>')
        shown_value = f"{r['value']:.2f}" if kind == "average" else str(r["value"])
        tie = _e(season_mod.SHORT[r["decided_by"]]) if r["decided_by"] else ""
        return (["" if r["rank"] is None else str(r["rank"]), _e(r["name"]) + mark, shown_value] + scores
                + [str(r[key]) for key in beside] + [f'<span class="tie">{tie}</span>' if tie else ""])

    body = [f"<h1>{_e(parsed.name)}</h1>", f"<p class=\"rule\">Standings: {_e(doc['rule_words'])}.</p>",
            "<h2>Standings</h2>", _table(head, [row(r) for r in doc["standings"]])]
    if doc["unranked"]:
        body += [f"<h3>Not ranked: fewer than {doc['rule']['min_evenings']} evenings</h3>",
                 _table(head, [row(r) for r in doc["unranked"]])]
    if doc["guests"]:
        body += ["<h3>Guests: not ranked</h3>",
                 "<p class=\"note\">A guest plays and scores at the evenings and is not ranked in the season.</p>",
                 _table(head, [row(r, _GUEST) for r in doc["guests"]])]
    if kind == "best":
        body.append("<p class=\"note\">A score in brackets is an evening that does not count.</p>")
    body.append("<h2>Evenings</h2>")
    items = [f'<li><a href="{evening_page(n)}">E{n}: {_e(night["event"])}</a> — {night["players"]} players, '
             f'{_count(night["rounds"], "round")}' + ("" if night["finished"] else " (not finished)") + "</li>"
             for n, night in enumerate(doc["evenings"], 1)]
    body.append("<ul>" + "".join(items) + "</ul>")
    return _page(parsed.name, [], body)


_GUEST = f'<span class="guest">{_e(season_mod.GUEST_MARK)}</span>'


def _names(parsed: season_mod.Parsed, night: season_mod.Night) -> list[str]:
    return [parsed.names[who] for who in night.players]


def _nav(parsed: season_mod.Parsed, n: int) -> list[tuple[str, str]]:
    nav = [("index.html", f"{parsed.name}: standings")]
    if n > 1:
        nav.append((evening_page(n - 1), f"← E{n - 1}"))
    if n < len(parsed.nights):
        nav.append((evening_page(n + 1), f"E{n + 1} →"))
    return nav


def _person(n: int, night: season_mod.Night, names: list[str], p: int) -> str:
    return f'<a href="{card_page(n, night.players[p])}">{_e(names[p])}</a>'


def _evening(parsed: season_mod.Parsed, n: int, night: season_mod.Night) -> str:
    names = _names(parsed, night)
    ev = night.evening
    body = [f"<h1>E{n}: {_e(night.name)}</h1>",
            f"<p class=\"rule\">{_count(len(night.plays), 'round')}" + ("" if night.finished else "; not finished")
            + ". Ranked by continuous score (rules.md SK20); games won shown, never ranked.</p>",
            "<h2>Standings</h2>",
            _table(["#", "Player", "Continuous score", "Games", "Won"],
                   [[str(rank), _person(n, night, names, p) + (_GUEST if night.players[p] in parsed.guests else ""),
                     str(ev.continuous[p]), str(ev.games[p]), str(ev.games_won[p])]
                    for rank, p in standings.ranked(ev) if night.sat(p)])]
    body.append("<h2>The movement</h2>")
    for r, play in enumerate(night.plays, 1):
        body.append(f"<h3>Round {r}</h3>")
        body.append(_table(["Table", "Seat 0", "Seat 1", "Seat 2", "Seat 3"],
                           [[f'<a href="#r{r}t{t.table}">{t.table}</a>']
                            + [_person(n, night, names, p) for p in t.seats] for t in play.tables], names=-1))
        if r < len(night.plays):
            body.append("<p>Then: " + _moved(play, night.plays[r], names) + ".</p>")
    for r, play in enumerate(night.plays, 1):
        body.append(f"<h2>Round {r}: the tables</h2>")
        for t in play.tables:
            body.append(_sheet(n, night, names, r, t))
    if night.log:
        body.append("<h2>The director's log</h2>")
        body.append(_table(["When", "Action", "What", "Before", "After"],
                           [[_e(e.get("at", "")).replace("T", " ")[:19], _e(e.get("action", "")), _e(e.get("what", "")),
                             _e(e.get("before", "")), _e(e.get("after", ""))] for e in night.log], names=2))
    return _page(f"{night.name} — {parsed.name}", _nav(parsed, n), body)


def _moved(play: Any, following: Any, names: list[str]) -> str:
    """Who sat at another table in the following round (the seatings as they
    were played: the movement, SK19, or the director's), in words."""
    where = {p: (t.table, s) for t in following.tables for s, p in enumerate(t.seats)}
    out = []
    for t in play.tables:
        for p in t.seats:
            if p in where and where[p][0] != t.table:
                out.append(f"{_e(names[p])} table {t.table} → {where[p][0]}, seat {where[p][1]}")
            elif p not in where:
                out.append(f"{_e(names[p])} left")
    joined = [p for p in where if not any(p in t.seats for t in play.tables)]
    out += [f"{_e(names[p])} joined at table {where[p][0]}, seat {where[p][1]}" for p in joined]
    return "; ".join(out) or "everyone stayed"


_FACTS = (("purchaser", "Purchaser"), ("bid", "Bid"), ("doubled_by", "Doubled by"),
          ("redoubled_by", "Redoubled by"), ("lone", "Lone"), ("tricks", "Tricks"), ("made", "Made"),
          ("accepted_by", "Accepted by"))
# accepted_by: the opponent whose seat button accepted the hand on the board (docs/rules.md CF2)
_PLAYER_FACTS = {"purchaser", "doubled_by", "redoubled_by", "accepted_by"}


def _hand_row(h: dict[str, Any], facts: list[tuple[str, str]], seated: list[str], corrected: bool = False) -> list[str]:
    """A sheet's hand as cells: its number, dealer and facts (a player by his name). A corrected
    hand's `accepted_by` is not shown as if the accepter accepted it: nobody at the table accepted the
    director's hand (what was accepted, and by whom, is in the game's corrections)."""
    row = [str(h["hand"]), _e(seated[h["dealer"]])]
    for key, _ in facts:
        value = h.get(key)
        if key == "accepted_by" and corrected:
            row.append("corrected")
        elif key in _PLAYER_FACTS:
            row.append("" if value is None else _e(seated[value]))
        elif isinstance(value, bool):
            row.append("yes" if value else "")
        else:
            row.append("" if value is None else _e(value))
    return row


def _hand_words(hand: Any, seated: list[str]) -> str:
    """A record's hand in the words of the sheet's columns ("Purchaser Cy, Bid 1C, Tricks 6"), who
    accepted it on the board last."""
    if not isinstance(hand, dict):
        return _e(hand)
    if hand.get("misdeal"):
        return "a misdeal"
    words = []
    for key, label in _FACTS:
        value = hand.get(key)
        if key == "accepted_by" or value is None:
            continue
        if key in _PLAYER_FACTS and type(value) is int and 0 <= value < len(seated):
            value = seated[value]
        elif isinstance(value, bool):
            value = "yes" if value else "no"
        words.append(f"{label} {_e(value)}")
    accepted = hand.get("accepted_by")
    if type(accepted) is int and 0 <= accepted < len(seated):
        words.append(f"accepted on the board by {_e(seated[accepted])}")
    return ", ".join(words)


class _Corrections:
    """A table's corrections (the event record's `corrections`, in the order made) as the sheet shows
    them: which of its hands (as the sheet numbers them) the director's, and each correction in words."""

    def __init__(self, night: season_mod.Night, r: int, t: Any, seated: list[str], length: int) -> None:
        made = [c for c in night.record.get("corrections", []) if c.get("round") == r and c.get("table") == t.table]
        hands = night.record["rounds"][r - 1][t.table - 1]
        places = evening_play.played_entries(seated, hands, length) if made else []
        self.whole = any(c.get("whole") for c in made)
        self.hands: set[int] = set()
        self.words: list[str] = []
        seen: set[int] = set()
        for c in made:
            when = f"{_e(c.get('at', '')).replace('T', ' ')[:16]} UTC"
            who = _e(c.get("by", ""))
            signed = f" (signed, key {_e(str(c.get('key'))[:8])})" if c.get("key") else " (made before corrections were signed)"
            if c.get("whole"):
                was = "; ".join(f"{i}: {_hand_words(h, seated)}" for i, h in enumerate(c.get("before") or [], 1))
                self.words.append(f"The whole game rescored by the {who}, {when}{signed}: its hands before were "
                                  + (was or "none") + ".")
                continue
            place = c["hand"] - 1
            number = places.index(place) + 1 if place in places else c["hand"]
            self.hands.add(number)
            first = place not in seen and not self.whole
            seen.add(place)
            whose = "the board's hand" if first else "his earlier correction"
            self.words.append(f"Hand {number} corrected by the {who}, {when}{signed}: it replaced {whose}, "
                              f"{_hand_words(c.get('before'), seated)}; it is now {_hand_words(c.get('after'), seated)}.")

    def corrected(self, number: int) -> bool:
        return self.whole or number in self.hands


def _sheet(n: int, night: season_mod.Night, names: list[str], r: int, t: Any) -> str:
    """One table's game: every hand with its dealer, its facts and each seat's score; the totals; the
    director's corrections of it, each in words (by whom, when, what it was)."""
    seated = [names[p] for p in t.seats]
    sheet = t.sheet or {"hands": [], "totals": [0, 0, 0, 0], "winners": []}
    fixes = _Corrections(night, r, t, seated, night.plays[r - 1].length)
    facts = [(k, words) for k, words in _FACTS if any(k in h for h in sheet["hands"])]
    head = ["Hand", "Dealer"] + [words for _, words in facts] + [_e(s) for s in seated]
    rows = [_hand_row(h, facts, seated, fixes.corrected(h["hand"])) + [str(s) for s in h["scores"]]
            for h in sheet["hands"]]
    total = ("<tr class=\"total\"><td>Total</td>" + "<td></td>" * (1 + len(facts))
             + "".join(f"<td>{s}</td>" for s in sheet["totals"]) + "</tr>")
    won = ", ".join(_e(seated[w]) for w in sheet["winners"])
    notes = []
    if t.ended_early:
        notes.append("ended early by the director; it counts as it stands")
    if fixes.words:
        notes.append("corrected by the director (below, and the log)")
    players = ", ".join(f"seat {s}: {_person(n, night, names, p)}" for s, p in enumerate(t.seats))
    return "\n".join([f"<section class=\"table\" id=\"r{r}t{t.table}\">", f"<h3>Round {r}, table {t.table}</h3>",
                      f"<p>{players}</p>", _chain(n, night, r, t.table), _table(head, rows, names=-1, extra=[total],
                                                  why=[standings.why_words(w, seated) for w in t.why]),
                      (f"<p>Won by {won}." if won else "<p>No hand played.")
                      + "".join(f" This game was {x}." for x in notes) + "</p>",
                      *(f"<p class=\"note\">{w}</p>" for w in fixes.words),
                      "</section>"])


def _chain(n: int, night: season_mod.Night, r: int, table: int) -> str:
    """The board's chain head of the table's game, as its screen shows it (docs/records.md, The chain),
    to hold beside the board; or that the board sent none."""
    boards = night.record.get("boards", [])
    chain = boards[r - 1][table - 1] if r <= len(boards) else None
    if chain is None:
        return ("<p class=\"note\">The board did not sign this game (not finished on the board, or "
                "entered without one): nothing ties it to a board.</p>")
    head = chain["head"][:8].upper()
    return (f"<p class=\"note\">The board's chain: <code>{head[:4]} {head[4:]}</code>, as its screen shows it at "
            f"the game's end; signed by board key <code>{_e(chain['key'][:8].upper())}</code>. "
            f"<code>tallyboard verify {record_file(n)}</code> checks every hand against "
            "it.</p>")


def _hands(night: season_mod.Night, r: int, t: Any, seated: list[str], seat: int) -> str:
    """A player's hands of one table's game: each hand's facts and his score."""
    hands = t.sheet["hands"]
    fixes = _Corrections(night, r, t, seated, night.plays[r - 1].length)
    facts = [(k, words) for k, words in _FACTS if any(k in h for h in hands)]
    rows = [_hand_row(h, facts, seated, fixes.corrected(h["hand"])) + [str(h["scores"][seat])] for h in hands]
    return _table(["Hand", "Dealer"] + [words for _, words in facts] + ["Score"], rows, names=-1,
                  why=[standings.why_words(w, seated) for w in t.why]) + "".join(
                      f"\n<p class=\"note\">{w}</p>" for w in fixes.words)


def _card(parsed: season_mod.Parsed, n: int, night: season_mod.Night, p: int) -> str:
    names = _names(parsed, night)
    ev = night.evening
    rank = next(rank for rank, q in standings.ranked(ev) if q == p)
    rows = []
    continuous = 0
    for r, play in enumerate(night.plays, 1):
        for t in play.tables:
            if p not in t.seats:
                continue
            seat = t.seats.index(p)
            score = t.scores()[seat]
            continuous += score
            others = ", ".join(_person(n, night, names, q) for q in t.seats if q != p)
            won = "yes" if t.sheet and seat in t.sheet["winners"] and t.sheet["hands"] else ""
            rows.append([str(r), f'<a href="{evening_page(n)}#r{r}t{t.table}">{t.table}</a>', str(seat), others,
                         str(score), won, str(continuous)])
    seated_count = sum(1 for q in range(len(names)) if night.sat(q))
    body = [f"<h1>{_e(names[p])}</h1>", f"<p>E{n}: <a href=\"{evening_page(n)}\">{_e(night.name)}</a> — place "
            f"{rank} of {seated_count}, continuous score {ev.continuous[p]}, {ev.games_won[p]} of {ev.games[p]} "
            "games won.</p>",
            _table(["Round", "Table", "Seat", "With", "Score", "Won", "Continuous"], rows, names=3)]
    for r, play in enumerate(night.plays, 1):
        for t in play.tables:
            if p in t.seats and t.sheet and t.sheet["hands"]:
                body.append(f"<h3>Round {r}, table {t.table}: hand by hand</h3>")
                body.append(_hands(night, r, t, [names[q] for q in t.seats], t.seats.index(p)))
    return _page(f"{names[p]}, {night.name} — {parsed.name}",
                 [("index.html", f"{parsed.name}: standings"), (evening_page(n), f"E{n}: {night.name}")], body)


# ---------------------------------------------------------------- writing

def build(parsed: season_mod.Parsed, folder: Path) -> tuple[list[str], list[str], list[str]]:
    """Write the site into folder (made if missing): (files written, files
    that were already as they are, pages of an earlier build that the site
    no longer has, removed: a merged player's cards, an evening gone from
    the season). No other file of the folder is touched."""
    folder.mkdir(parents=True, exist_ok=True)
    written, kept = [], []
    site = pages(parsed)
    removed = sorted(p.name for pattern in ("evening-*.html", "evening-*.json") for p in folder.glob(pattern)
                     if p.name not in site)
    for name in removed:
        (folder / name).unlink()
    for name, text in site.items():
        data = text.encode("utf-8")
        target = folder / name
        try:
            same = target.read_bytes() == data
        except FileNotFoundError:
            same = False
        if same:
            kept.append(name)
            continue
        fresh = target.with_name(f".{name}.tmp")
        fresh.write_bytes(data)
        os.replace(fresh, target)
        written.append(name)
    return written, kept, removed
