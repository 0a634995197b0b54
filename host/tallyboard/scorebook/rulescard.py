"""A game's rules card: its section of the rule book (rules.md in docs/) with every clause under
its number (the numbers the board's reasons cite), the clauses of other games
it applies (Parquet's RU1 to RU4), the common clauses (G, CF) it cites in
full and the others by title. The same Markdown is printed in the terminal
(`tallyboard rules GAME`) and laid out as a one-page A4 card printed to PDF
by Chromium (`--pdf FILE`).

rules.md is the one copy of the text: an editable install reads the
checkout's, a wheel carries it as package data of tallyboard.docs_files
(setup.py). Which section is a game's comes from rules.md's own table of
games (code, game, players, the game ends), which a test holds equal to
tallycore.games."""
from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..common.errors import TallyboardError

_PACKAGE = Path(__file__).resolve().parent.parent          # tallyboard/
_CHECKOUT = _PACKAGE.parent.parent                          # host/tallyboard/ -> the checkout
RULES_MD = (_CHECKOUT / "docs" / "rules.md" if (_CHECKOUT / "docs" / "rules.md").exists()
            else _PACKAGE / "docs_files" / "rules.md")
COMMON = ("G", "CF")    # the sections every game relies on

_TABLE_ROW = re.compile(r"^\| \[([A-Z]+)\]\(#[a-z]+\) \| ([^|]+?) \(`([a-z_]+)`\) \| ([^|]*?) \| ([^|]*?) \|", re.M)
_SECTION = re.compile(r'^## <a id="([a-z]+)"></a>(.+)$', re.M)
_CLAUSE = re.compile(r'^### <a id="[a-z]+\d+"></a>([A-Z]+\d+) (.+)$', re.M)
# a citation inside the text: SK9, or a run, SK7–SK10 and SK6 to SK14
_CITED = re.compile(r"\b([A-Z]{1,2})(\d+)(?:(?:–| to )\1(\d+))?\b")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")


@dataclass(frozen=True)
class Clause:
    number: str     # "SK9"
    title: str      # "Doubled"
    body: str       # Markdown


@dataclass(frozen=True)
class Section:
    code: str       # "SK"
    title: str      # "Skicket (SK)"
    intro: str      # Markdown before the first clause
    clauses: tuple[Clause, ...]


@dataclass(frozen=True)
class Card:
    game: str                           # the name records use
    title: str                          # "Skicket (SK)"
    facts: str                          # players and how the game ends, from rules.md's table
    section: Section
    borrowed: tuple[Section, ...]       # other games' clauses the section applies, by their sections
    common_cited: tuple[Clause, ...]    # G and CF clauses cited: given in full
    common_listed: tuple[Clause, ...]   # the other G and CF clauses: by number and title

    def body(self) -> str:
        """The card below its title and facts, as Markdown."""
        parts = [self.section.intro] if self.section.intro else []
        parts += [_clause_markdown(c) for c in self.section.clauses]
        for other in self.borrowed:
            parts.append(f"## As in {other.title}")
            parts += [_clause_markdown(c) for c in other.clauses]
        parts.append("## Common rules (" + ", ".join(COMMON) + ")")
        parts += [_clause_markdown(c) for c in self.common_cited]
        if self.common_listed:
            also = "; ".join(f"**{c.number}** {c.title}" for c in self.common_listed)
            parts.append(f"{'Also in' if self.common_cited else 'In'} rules.md: {also}.")
        return "\n\n".join(parts) + "\n"

    def markdown(self) -> str:
        return f"# {self.title}\n\n{self.facts}\n\n{self.body()}"


def _clause_markdown(clause: Clause) -> str:
    heading = f"### {clause.number} {clause.title}"
    return f"{heading}\n\n{clause.body}" if clause.body else heading


def _plain(text: str) -> str:
    """Markdown without links (the card has no other document to go to) and without trailing space."""
    return _LINK.sub(r"\1", text).strip()


def parse(text: str) -> tuple[dict[str, Section], dict[str, tuple[str, str, str, str]]]:
    """rules.md's sections by code, and its table of games: name -> (code, game, players, the game ends)."""
    games = {name: (code, title, players, ends) for code, title, name, players, ends in _TABLE_ROW.findall(text)}
    sections: dict[str, Section] = {}
    heads = list(_SECTION.finditer(text))
    for head, after in zip(heads, heads[1:] + [None]):
        chunk = text[head.end():after.start() if after else len(text)]
        clauses = list(_CLAUSE.finditer(chunk))
        intro = chunk[:clauses[0].start()] if clauses else chunk
        found = []
        for clause, nxt in zip(clauses, clauses[1:] + [None]):
            body = chunk[clause.end():nxt.start() if nxt else len(chunk)]
            found.append(Clause(clause.group(1), clause.group(2).strip(), _plain(body)))
        code = head.group(1).upper()
        sections[code] = Section(code, head.group(2).strip(), _plain(intro), tuple(found))
    return sections, games


def cited(text: str, known: set[str]) -> list[str]:
    """The clause numbers a text cites, runs spelt out, in order of first mention."""
    out: list[str] = []
    for code, first, last in _CITED.findall(text):
        for n in range(int(first), int(last or first) + 1):
            number = f"{code}{n}"
            if number in known and number not in out:
                out.append(number)
    return out


def rules_text() -> str:
    try:
        return RULES_MD.read_text(encoding="utf-8")
    except OSError as exc:
        raise TallyboardError(f"cannot read the rules ({RULES_MD}): {exc.strerror}; reinstall tallyboard") from None


def card(game: str) -> Card:
    """The rules card of a game (by the name records use)."""
    sections, games = parse(rules_text())
    if game not in games:
        raise TallyboardError(f"rules.md has no section for {game}; its table of games names "
                              f"{', '.join(games)}")
    code, _, players, ends = games[game]
    section = sections[code]
    clauses = {c.number: (s.code, c) for s in sections.values() for c in s.clauses}
    own = "\n".join([section.intro] + [c.body for c in section.clauses])
    borrowed_numbers = [n for n in cited(own, set(clauses)) if clauses[n][0] not in COMMON + (code,)]
    borrowed = tuple(Section(other.code, other.title, "",
                             tuple(c for c in other.clauses if c.number in borrowed_numbers))
                     for other in sections.values() if any(clauses[n][0] == other.code for n in borrowed_numbers))
    # the common clauses the game's text cites, and those cited by the clauses it borrows
    read = own + "\n" + "\n".join(c.body for s in borrowed for c in s.clauses)
    common = [c for s in COMMON for c in sections[s].clauses]
    in_full = set(cited(read, {c.number for c in common}))
    facts = f"**Players:** {players} · **The game ends:** {ends}"
    return Card(game, section.title, facts, section, borrowed,
                tuple(c for c in common if c.number in in_full), tuple(c for c in common if c.number not in in_full))


# ---- the printed card ----------------------------------------------------------------------------------------

PAPER = "A4"
_PAGE_MM = (210, 297)
_MARGIN_MM = 8

# The text is set as large as the page takes it: the page's script tries font sizes (a binary search
# between the smallest and the largest) until the card's two balanced columns fit the page's height,
# with a little room for the print layout's rounding. The longest section (Skicket's) comes out near the
# smallest; a short game's card is large print.
_CSS = """
@page { size: %(paper)s portrait; margin: %(margin)smm; }
html { font-size: 10px; }
body { margin: 0; width: %(width)smm; font-family: "DejaVu Sans Condensed", "DejaVu Sans", sans-serif;
       color: #000; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
header { border-bottom: 0.15rem solid #000; margin-bottom: 0.6rem; }
h1 { font-size: 2.1rem; margin: 0 0 0.2rem 0; }
header p { margin: 0 0 0.4rem 0; font-size: 1.1rem; }
main { column-count: 2; column-gap: 5mm; column-rule: 0.05rem solid #999; font-size: 1rem; line-height: 1.25; }
main h2 { font-size: 1.25rem; margin: 0.7rem 0 0.2rem 0; border-bottom: 0.05rem solid #000; break-after: avoid; }
main h3 { font-size: 1.08rem; margin: 0.55rem 0 0.1rem 0; break-after: avoid; }
main p, main ul { margin: 0 0 0.35rem 0; }
main ul { padding-left: 1.1rem; }
main table { border-collapse: collapse; font-size: 0.85rem; margin: 0.2rem 0 0.4rem 0; break-inside: avoid; }
main th, main td { border: 0.05rem solid #888; padding: 0.05rem 0.25rem; text-align: left; }
main code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.9em; }
footer { margin-top: 0.4rem; font-size: 0.8rem; color: #444; }
"""

_FIT = """
(function () {
  var root = document.documentElement, room = %(room)s * 96 / 25.4 * 0.97;
  var low = %(smallest)s, high = %(largest)s;
  function fits(size) { root.style.fontSize = size + "px"; return document.body.scrollHeight <= room; }
  var size = high;
  if (!fits(high)) {
    for (var i = 0; i < 14; i++) { var mid = (low + high) / 2; if (fits(mid)) low = mid; else high = mid; }
    size = low;
    fits(size);
  }
  document.body.dataset.fontPx = String(size);
})();
"""
SMALLEST_PX = 5.0   # 3.75 pt: the floor the fit never goes under
LARGEST_PX = 18.0


def card_html(rules: Card) -> str:
    """The card as a page for Chromium to print on one sheet of PAPER."""
    from markdown_it import MarkdownIt

    render = MarkdownIt("commonmark", {"html": False}).enable("table").render
    width, height = _PAGE_MM[0] - 2 * _MARGIN_MM, _PAGE_MM[1] - 2 * _MARGIN_MM
    css = _CSS % {"paper": PAPER, "margin": _MARGIN_MM, "width": width}
    fit = _FIT % {"room": height, "smallest": SMALLEST_PX, "largest": LARGEST_PX}
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(rules.title)}'
            f"</title>\n<style>{css}</style></head>\n<body>\n<header><h1>{html.escape(rules.title)}</h1>"
            f"{render(rules.facts)}</header>\n<main>\n{render(rules.body())}</main>\n"
            f"<footer>Printed by tallyboard rules {html.escape(rules.game)} from rules.md</footer>\n"
            f"<script>{fit}</script>\n</body></html>\n")


# Debian's chromium (apt-get install chromium); never a browser of its own download
CHROMIUM_NAMES = ("chromium", "chromium-browser")
CHROMIUM_ARGS = ["--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def chromium() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise TallyboardError("no Chromium to print the card with: install it (Debian: apt-get install chromium), "
                          "or leave out --pdf to read the rules in the terminal")


def pdf(rules: Card, timeout: float = 120) -> bytes:
    """The card printed to a one-page PDF by headless Chromium's own printing."""
    browser = chromium()
    with tempfile.TemporaryDirectory(prefix="tallyboard-card-") as folder:
        page = Path(folder) / "card.html"
        page.write_text(card_html(rules), encoding="utf-8")
        made = Path(folder) / "card.pdf"
        args = [browser, *CHROMIUM_ARGS, f"--user-data-dir={Path(folder) / 'profile'}", "--no-pdf-header-footer",
                f"--print-to-pdf={made}", page.as_uri()]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")   # Chromium refuses root otherwise; the page is our own file
        try:
            done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise TallyboardError(f"Chromium ({browser}) did not print the card in {timeout:.0f} s; "
                                  "try again, or close other Chromium windows") from None
        if not made.exists() or made.stat().st_size == 0:
            last = (done.stderr.strip().splitlines() or ["(it said nothing)"])[-1]
            raise TallyboardError(f"Chromium ({browser}) made no PDF (exit {done.returncode}): {last}")
        return made.read_bytes()
