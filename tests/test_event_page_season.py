"""The season's standings at the live page's side (issue 33, item 2), in Debian's headless Chromium as
tests/test_event_page.py drives it: `event serve --snapshot FILE` showing a snapshot the test rewrites.
The panel shows each season's rank, name and the rule's figure, the rule in words, the tie-break that
placed a player and how far this evening counts; it follows the pushes (a rewritten snapshot, no
reload); and it sits in its own place under the evening's standings, never moving a table's sheet."""
from __future__ import annotations

import copy

from event_snapshots import two_tables
from browser_support import WAIT_MS
from test_event_page import CHROMIUM, browser, page, pytestmark, serve, write  # noqa: F401  (fixtures, markers)

# the figures of tests/test_season_live.py (worked out there by hand): Tuesday 1 whole, Tuesday 2's round 1
AUTUMN = {"season": "Autumn", "figure": "total",
          "rule_words": "total continuous score over the season's evenings; a tie is broken by games won; players "
                        "equal on all of them share a rank",
          "evening": {"evening": 2, "of": 2, "rounds_counted": 1, "finished": False},
          "note": "Tuesday 2 (evening 2 of 2) counts as far as it has gone: 1 of its 2 rounds; the round in play "
                  "counts once every table's game of it is over",
          "standings": [{"rank": 1, "name": "Ann", "value": 1180, "decided_by": None},
                        {"rank": 1, "name": "Dee", "value": 1180, "decided_by": None},
                        {"rank": 4, "name": "Eve", "value": 1160, "decided_by": None},
                        {"rank": 5, "name": "Cy", "value": 1120, "decided_by": None}],
          "unranked": []}
CUP = {"season": "Cup", "figure": "games won",
       "rule_words": "games won over the season's evenings (rules.md G5: tied winners all win); a tie is broken "
                     "by total continuous score; players equal on all of them share a rank",
       "evening": {"evening": 2, "of": 2, "rounds_counted": 1, "finished": False}, "note": "...",
       "standings": [{"rank": 1, "name": "Ann", "value": 2, "decided_by": "total"},
                     {"rank": 4, "name": "Cy", "value": 2, "decided_by": "total"}],
       "unranked": [{"name": "Ivy", "value": 0, "evenings": 1}]}

ROWS = """rows => rows.map(r => Array.from(r.cells).map(c => c.firstChild ? c.firstChild.textContent : ''))"""


def tall() -> dict:
    """two_tables with its two tables shown three times over (tables 1 to 6): the tables' column is
    taller than the evening's standings, as at a club of six tables."""
    doc = two_tables()
    doc["tables"] = [dict(copy.deepcopy(doc["tables"][i % 2]), table=i + 1) for i in range(6)]
    return doc


def box(page, selector):
    return page.eval_on_selector(selector, "e => e.getBoundingClientRect().toJSON()")


# the boxes of every selector, measured in one go, and only once each is laid out (a redraw replaces a
# table's element: measured in between, it is 0 x 0): null until then, so wait_for_function waits for it
LAID_OUT = """selectors => {
    const boxes = {};
    for (const selector of selectors) {
        const element = document.querySelector(selector);
        if (!element || element.getBoundingClientRect().height === 0) return null;
        boxes[selector] = element.getBoundingClientRect().toJSON();
    }
    return boxes;
}"""


def boxes_laid_out(page, selectors):
    return page.wait_for_function(LAID_OUT, arg=list(selectors), timeout=WAIT_MS).json_value()


def test_the_season_panel_shows_the_standings_follows_the_pushes_and_moves_no_sheet(page, serve):
    server, snapshot = serve(tall())
    page.goto(server.url, timeout=WAIT_MS)
    page.wait_for_function("document.querySelectorAll('#tables [data-table]').length === 6")
    page.evaluate("document.fonts.ready.then(() => true)")   # measured once its fonts are in: nothing moves after
    assert page.is_hidden("#seasons")                  # in no season: no panel
    before = boxes_laid_out(page, ('[data-table="1"]', '[data-table="2"]', "#tables", "#standings-box"))
    assert before["#tables"]["height"] > before["#standings-box"]["height"] + 200
    page.evaluate("window.notReloaded = true")

    doc = tall()
    doc["seasons"] = [AUTUMN, CUP]
    write(snapshot, doc)
    page.wait_for_function("document.querySelectorAll('#seasons article').length === 2", timeout=WAIT_MS)
    assert page.evaluate("window.notReloaded") is True
    autumn, cup = '#seasons article:nth-child(1)', '#seasons article:nth-child(2)'
    assert page.text_content(f"{autumn} h2") == "Season · Autumn"
    assert page.eval_on_selector_all(f"{autumn} thead tr", ROWS) == [["#", "Player", "total"]]
    assert page.eval_on_selector_all(f"{autumn} tbody tr", ROWS) == [
        ["1", "Ann", "1180"], ["1", "Dee", "1180"], ["4", "Eve", "1160"], ["5", "Cy", "1120"]]
    assert page.text_content(f"{autumn} .rule") == AUTUMN["rule_words"]
    assert page.text_content(f"{autumn} .note") == AUTUMN["note"]
    assert page.eval_on_selector_all(f"{cup} tbody tr", ROWS) == [["1", "Ann", "2"], ["4", "Cy", "2"], ["–", "Ivy", "0"]]
    assert page.eval_on_selector_all(f"{cup} .tie", "s => s.map(e => e.textContent)") == [
        "tie: total", "tie: total", "1 evening: not ranked"]

    # the panel has its own place: under the evening's standings, in the side column; no sheet moved
    after = boxes_laid_out(page, before)
    assert after == before
    panel = box(page, "#seasons")
    assert 0 <= panel["top"] - before["#standings-box"]["bottom"] < 40     # right under it, not below the tables
    assert panel["left"] == before["#standings-box"]["left"] and panel["right"] <= before["#tables"]["left"]

    # the next push moves the standings: Tuesday 2's round 2 over
    pushed = copy.deepcopy(doc)
    pushed["seasons"][0]["standings"][0]["value"] = 1580
    write(snapshot, pushed)
    page.wait_for_function(
        "document.querySelector('#seasons article tbody tr').textContent.includes('1580')", timeout=WAIT_MS)
    assert page.evaluate("window.notReloaded") is True

    # the season's standings cannot be worked out just now: said in its place, the rest stands
    pushed["seasons"][1] = {"season": "Cup", "problem": "the season record cannot be read"}
    write(snapshot, pushed)
    page.wait_for_function("document.querySelector('#seasons article:nth-child(2) .gap') !== null", timeout=WAIT_MS)
    assert page.text_content(f"{cup} .gap") == ("its standings cannot be worked out just now: the season record "
                                                 "cannot be read")
    assert boxes_laid_out(page, ['[data-table="1"]']) == {'[data-table="1"]': before['[data-table="1"]']}
    page.screenshot(path=str(snapshot.with_name("season-panel.png")), full_page=True)


def test_a_phone_sees_the_season_after_the_tables(browser, serve):  # noqa: F811
    doc = two_tables()
    doc["seasons"] = [AUTUMN]
    server, _ = serve(doc)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        phone = context.new_page()
        phone.goto(server.url, timeout=WAIT_MS)
        phone.wait_for_selector("#seasons article", timeout=WAIT_MS)
        assert box(phone, "#seasons")["top"] >= box(phone, "#tables")["bottom"]
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width} px wide on a 390 px phone"
    finally:
        context.close()
