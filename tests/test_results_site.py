"""The results the club publishes (issue 33, item 3): `tallyboard results
build DIR` writes the season's static site, plain HTML and CSS with no
script; every link resolves; a rebuild after the director's correction
writes exactly the pages it changed. The season is tests/season_evenings.py's
(three evenings, worked out by hand there). In Debian's headless Chromium
(/usr/bin/chromium through playwright, as tests/test_event_page.py): every
page opens and every link leads to a page (and an anchor) that is there, a
screenshot, and a PDF made by Chromium's own printing with the print
stylesheet (the navigation left out)."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import event_evenings as ev
import season_evenings as se
from season_evenings import PIN, cli, ok

from browser_support import CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        attrs = dict(attrs)
        if tag == "a":
            self.hrefs.append(attrs["href"])
        if "id" in attrs:
            self.ids.add(attrs["id"])


def parsed(path: Path) -> Links:
    links = Links()
    links.feed(path.read_text(encoding="utf-8"))
    return links


@pytest.fixture
def season(tmp_path, monkeypatch):
    """The three evenings, Deirdre merged into Dee, E3 not corrected yet; a season by total score."""
    path = tmp_path / "archive.sqlite3"
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(path))
    monkeypatch.delenv("TALLYBOARD_DIRECTOR_PIN", raising=False)
    se.season_of_three(path, correct=False)
    ok("season", "create", "Autumn", "--rule", "total")
    ok("season", "add", "Tuesday 1", "Tuesday 2", "Tuesday 3")
    return tmp_path


def written(out: str) -> set[str]:
    return {line.strip() for line in out.splitlines()[1:]}


# the register's numbers: E1 founded it (Ann 1 ... Hal 8), E2 added Deirdre (9, merged into Dee, 4), E3 Ivy (10)
E1_CARDS = {f"evening-1-player-{n}.html" for n in range(1, 9)}
E2_CARDS = {f"evening-2-player-{n}.html" for n in range(1, 9)}
E3_CARDS = {f"evening-3-player-{n}.html" for n in (1, 2, 3, 4, 5, 6, 8, 10)}
RECORDS = {"evening-1.json", "evening-2.json", "evening-3.json"}    # each evening's event record, for verify
EVERY = ({"style.css", "index.html", "evening-1.html", "evening-2.html", "evening-3.html"} | E1_CARDS | E2_CARDS
         | E3_CARDS | RECORDS)


def test_the_site_links_every_page_and_a_rebuild_after_a_correction_writes_only_what_changed(season):
    site = season / "site"
    out = ok("results", "build", str(site))
    assert out.startswith(f"{site}: 32 pages written, 0 unchanged")      # 5 + 8 + 8 + 8 cards + 3 records
    assert written(out) == EVERY == {p.name for p in site.iterdir()}
    for page in site.glob("*.html"):
        links = parsed(page)
        assert "script" not in links.tags, page.name
        for href in links.hrefs:
            target, _, anchor = href.partition("#")
            target_path = site / (target or page.name)
            assert target_path.is_file(), (page.name, href)
            if anchor:
                assert anchor in parsed(target_path).ids, (page.name, href)
    index = (site / "index.html").read_text()
    # E2's Deirdre is the register's Dee: Dee's row holds her three evenings (770, 790, 370 as played)
    assert re.search(r"<td class=\"name\">Dee</td><td>1930</td><td><a href=\"evening-1-player-4.html\">770</a>"
                     r"</td><td><a href=\"evening-2-player-4.html\">790</a></td>"
                     r"<td><a href=\"evening-3-player-4.html\">370</a>", index), index
    evening = (site / "evening-3.html").read_text()
    assert "<h3>Round 1, table 1</h3>" in evening and "Doubled by" in evening and "Dealer" in evening
    # nothing changed: nothing written
    assert ok("results", "build", str(site)).startswith(f"{site}: 0 pages written, 32 unchanged")
    ok("event", "correct", "--event", "Tuesday 3", "--round", "1", "--table", "1", "--hand", "4", "tricks=7",
       *se.signing_key(season / "archive.sqlite3"), env={"TALLYBOARD_DIRECTOR_PIN": PIN})
    out = ok("results", "build", str(site))
    # The correction (season_evenings) changes E3's table 1: Ann, Bob 410 -> 400, Cy 310 -> 380, Dee 370 -> 380,
    # so their cards; E3's places were Ann, Bob, Eve, Fay 1, Dee, Hal 5, Cy, Ivy 7 and are Eve, Fay 1, Ann,
    # Bob 3, Cy, Dee 5, Hal 7, Ivy 8: Hal's and Ivy's cards change too, Eve's and Fay's (410, place 1) do not.
    # The season's index shows E3's scores; E1, E2 and their cards are as they were.
    assert written(out) == {"index.html", "evening-3.html", "evening-3.json", "evening-3-player-1.html",
                            "evening-3-player-2.html",
                            "evening-3-player-3.html", "evening-3-player-4.html", "evening-3-player-8.html",
                            "evening-3-player-10.html"}
    evening = (site / "evening-3.html").read_text()
    assert "This game was corrected by the director" in evening and "The director's log" in evening


def test_a_merge_removes_the_merged_players_cards_and_renames_him_where_he_played(tmp_path, monkeypatch):
    path = tmp_path / "archive.sqlite3"
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(path))
    se.season_of_three(path, merge=False)
    ok("season", "create", "Autumn", "--rule", "total")
    ok("season", "add", "Tuesday 1", "Tuesday 2", "Tuesday 3")
    site = tmp_path / "site"
    ok("results", "build", str(site))
    assert (site / "evening-2-player-9.html").is_file()          # Deirdre, register #9
    ok("players", "merge", "Deirdre", "Dee", env={"TALLYBOARD_DIRECTOR_PIN": PIN})
    out = ok("results", "build", str(site))
    # Deirdre's card is Dee's (#4) now. E2 (numbers 0..7 Hal Gus Fay Eve Deirdre Cy Bob Ann) sat her at
    # round 1 table 2 with Cy, Bob, Ann and round 2 table 1 (TWO_SEATING2 [0, 1, 4, 3]) with Hal, Gus, Eve:
    # their cards name her; Fay never sat with her. E1's and E3's pages name Dee as before.
    assert written(out) == {"index.html", "evening-2.html", "evening-2-player-4.html", "evening-2-player-3.html",
                            "evening-2-player-2.html", "evening-2-player-1.html", "evening-2-player-8.html",
                            "evening-2-player-7.html", "evening-2-player-5.html",
                            "evening-2-player-9.html (removed)"}
    assert not (site / "evening-2-player-9.html").exists()
    assert "Deirdre" not in "".join(p.read_text() for p in site.glob("*.html"))


def test_a_site_from_a_season_record_is_the_archives(season, tmp_path):
    record = tmp_path / "season.json"
    ok("season", "export", str(record))
    ok("results", "build", str(tmp_path / "a"))
    ok("results", "build", str(tmp_path / "b"), "--from", str(record))
    for page in (tmp_path / "a").iterdir():
        assert page.read_bytes() == (tmp_path / "b" / page.name).read_bytes(), page.name


def test_names_are_escaped(season):
    ok("event", "pin", "set", "--new-pin", "9999", "--pin", PIN)
    ok("players", "rename", "Ann", "<b>Ann</b>", env={"TALLYBOARD_DIRECTOR_PIN": "9999"})
    site = season / "site"
    ok("results", "build", str(site))
    index = (site / "index.html").read_text()
    assert "&lt;b&gt;Ann&lt;/b&gt;" in index and "<b>Ann" not in index
    assert cli("results", "build", str(site)).exit_code == 0


@pytest.mark.browser
@NEEDS_CHROMIUM
def test_the_site_in_chromium_opens_links_resolve_and_it_prints(season):
    from playwright.sync_api import sync_playwright

    site = season / "site"
    ok("results", "build", str(site))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=30_000)
        try:
            context = browser.new_context(viewport={"width": 1100, "height": 800}, java_script_enabled=False)
            page = context.new_page()
            failed: list[str] = []
            page.on("requestfailed", lambda request: failed.append(request.url))
            for name in sorted(EVERY - {"style.css"} - RECORDS):
                response = page.goto((site / name).as_uri())
                assert response is not None and response.ok, name
                assert page.title(), name
                # the stylesheet is applied: the header row's background is the sheet's #eee
                assert page.eval_on_selector("th", "th => getComputedStyle(th).backgroundColor") == \
                    "rgb(238, 238, 238)", name
                for href in page.eval_on_selector_all("a", "links => links.map(a => a.href)"):
                    target, _, anchor = href.partition("#")
                    assert Path(target.removeprefix("file://")).is_file(), (name, href)
                    if anchor:
                        there = context.new_page()
                        there.goto(href)
                        assert there.locator(f"#{anchor}").count() == 1, (name, href)
                        there.close()
            assert not failed
            # a reader follows the links: the season, an evening, a table, a player's card
            page.goto((site / "index.html").as_uri())
            page.click("text=E3: Tuesday 3")
            assert page.url.endswith("evening-3.html")
            page.click("section#r1t1 >> text=Cy")
            assert page.url.endswith("evening-3-player-3.html")
            assert "Cy" in page.inner_text("h1")
            page.goto((site / "index.html").as_uri())
            page.screenshot(path=str(season / "index.png"), full_page=True)
            assert (season / "index.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            # Chromium's own printing, with the print stylesheet: the navigation is not printed
            page.goto((site / "evening-1.html").as_uri())
            page.emulate_media(media="print")
            assert page.eval_on_selector("nav", "nav => getComputedStyle(nav).display") == "none"
            pdf = page.pdf(format="A4")
            assert pdf[:5] == b"%PDF-" and len(pdf) > 10_000
            (season / "evening-1.pdf").write_bytes(pdf)
            context.close()
        finally:
            browser.close()


def test_each_hand_on_the_evenings_sheets_says_who_accepted_it_on_the_board(tmp_path, monkeypatch):
    path = tmp_path / "archive.sqlite3"
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(path))
    monkeypatch.delenv("TALLYBOARD_DIRECTOR_PIN", raising=False)
    # Round 1, table 1 seats Ann Bob Cy Dee; its hand 1 is Ann's (purchaser 0), and in hand 1 Ann and Cy
    # partner Bob and Dee (SK5): Dee (seat 3), her opponent, accepted it on the board. Table 2 (Eve Fay
    # Gus Hal) dealt a misdeal first: the record's second entry is its hand 1, accepted by Hal (seat 3).
    table1 = [dict(ev.G1[0], accepted_by=3)] + ev.G1[1:]
    table2 = [{"misdeal": True}, dict(ev.G1[0], accepted_by=3)] + ev.G1[1:]
    monkeypatch.setattr(ev, "TWO_ROUND1", [table1, table2])
    se.evening(path, *se.E1[:3], 1)
    ok("season", "create", "Autumn", "--rule", "total")
    ok("season", "add", "Tuesday 1")
    site = tmp_path / "site"
    ok("results", "build", str(site))
    page = (site / "evening-1.html").read_text()
    for table, accepter in ((1, "Dee"), (2, "Hal")):
        section = page.split(f'id="r1t{table}"')[1].split("</section>")[0]
        # a hand's reason (shown on hover or tap, tests/test_why_site.py) is no cell of its own
        section = re.sub(r'<span class="why".*?</span></span>', "", section).replace(
            '<tr class="hand" tabindex="0">', "<tr>")
        head = re.findall(r"<th[^>]*>([^<]*)</th>", section)
        column = head.index("Accepted by")
        rows = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", section)]
        hands = {row[0]: row for row in rows if row and row[0].isdigit()}
        assert accepter in hands["1"][column], (table, hands["1"])
        assert hands["2"][column] == "", (table, hands["2"])       # entered without confirmation
    # Dee's card of the evening shows who accepted each hand too
    assert "<th>Accepted by</th>" in (site / "evening-1-player-4.html").read_text()
    # the event record carries it (its tables' record hands) and replays; the season record builds the same site
    exported = tmp_path / "event.json"
    ok("event", "export", str(exported), "--event", "Tuesday 1")
    tables = json.loads(exported.read_text())["rounds"][0]
    assert tables[0][0]["accepted_by"] == 3 and tables[1][1]["accepted_by"] == 3
    assert "accepted_by" not in tables[0][1]
    ok("event", "replay", str(exported))
    ok("season", "export", str(tmp_path / "season.json"))
    ok("results", "build", str(tmp_path / "again"), "--from", str(tmp_path / "season.json"))
    assert (tmp_path / "again" / "evening-1.html").read_text() == page


def test_results_build_without_a_season_says_which_it_built(season):
    # friction 2 of issue 44: without --season it took the last season made and did not say so
    only = se.cli("results", "build", str(season / "site"))
    assert only.exit_code == 0, only.output
    assert only.stderr.startswith("tallyboard: note: the results of the season 'Autumn', the only one made "
                                  "(with more, --season NAME chooses one)\n"), only.stderr
    ok("season", "create", "Winter", "--rule", "total")       # made after Autumn: the last one of two
    result = se.cli("results", "build", str(season / "site"))
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("tallyboard: note: the results of the season 'Winter', the last one made of 2 "
                                    "('Autumn', 'Winter'): --season NAME for another\n"), result.stderr
    named = se.cli("results", "build", str(season / "site2"), "--season", "Autumn")
    assert named.exit_code == 0 and "the last one made" not in named.stderr


def test_results_build_with_no_season_says_how_to_make_one(tmp_path, monkeypatch):
    # friction 2 of issue 44: no season to build, and what to do: make one, put the evenings in it
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(tmp_path / "archive.sqlite3"))
    result = se.cli("results", "build", str(tmp_path / "site"))
    assert (result.exit_code, result.stdout) == (1, ""), result.output
    assert result.stderr == ("tallyboard: no season yet: tallyboard season create NAME --rule total makes one, and "
                             "tallyboard season add EVENING ... puts the evenings in it\n"), result.stderr
    assert not (tmp_path / "site").exists()


def test_the_index_under_the_total_rule_has_one_total_column(season):
    # friction 5 of issue 44: the standings' own figure is the total, and a "Total" column followed it again
    ok("results", "build", str(season / "site"))
    index = (season / "site" / "index.html").read_text()
    head = index.split("<h2>Standings</h2>", 1)[1].split("<table>\n<tr>", 1)[1].split("</tr>", 1)[0]
    assert head.count(">Total</th>") == 1 and head.count(">Games won</th>") == 1, head
