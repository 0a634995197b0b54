"""A hand's reason on the pages (issue 34, item 4), in Debian's headless Chromium
(playwright, as tests/test_event_page.py and tests/test_results_site.py): the live
page shows a hand's reason under its table when its row is hovered or tapped, and
the results site over the rows below it; nothing on either page moves when it shows.
The snapshot's reasons here are written by hand: the page shows what it is given (the
snapshot's own reasons come from tallycore.why: tests/test_why_host.py)."""
from __future__ import annotations

import pytest

from event_snapshots import held_hand_confirmed, two_tables
from browser_support import CHROMIUM, NEEDS_CHROMIUM, WAIT_MS
from test_event_page import browser, page, serve  # noqa: F401  (fixtures)

pytestmark = [NEEDS_CHROMIUM,
              pytest.mark.browser, pytest.mark.process]

WHY = {1: ["Ann and Fay +90: made: the purchaser and his partner score the bid's value, 60 + 10 a level (SK7)",
           "Bob and Dee +40: an adversary of a bid made: 10 for each trick the adversaries took (SK7)"],
       2: ["Bob and Dee +70: an adversary of a bid failed: 10 for each trick the adversaries took (SK8)",
           "Ann 0: the purchaser failed: he forfeits the count (SK8)",
           "Fay 0: partner of the purchaser who failed: 10 for each trick their side took (SK8)"],
       3: ["a reason of one line (SK7)"]}


def with_reasons(doc: dict) -> dict:
    for hand in doc["tables"][0]["hands"]:
        hand["why"] = WHY.get(hand["hand"], ["hand %d's reason (SK7)" % hand["hand"]])
    return doc


# where each element is on the page (not the viewport: hovering may scroll it into view), once every row
# of them is laid out: a push's redraw replaces a table's element, and one measured in between was 0 x 0
# (a loaded CI run, 9ddb155)
_BOXES = ("sel => { const els = [...document.querySelectorAll(sel)]; const out = els.map(e => { "
          "const r = e.getBoundingClientRect(); return [r.x + window.scrollX, r.y + window.scrollY, r.width, "
          "r.height]; }); return els.every((e, i) => e.tagName !== 'TR' || out[i][3] > 0) ? out : null; }")


def boxes(page, selector: str) -> list[list[float]]:
    """Where each element is on the page, its rows laid out."""
    return page.wait_for_function(_BOXES, arg=selector, timeout=WAIT_MS).json_value()


def test_the_live_page_shows_a_hand_s_reason_on_hover_and_tap_and_nothing_moves(page, serve):  # noqa: F811
    server, snapshot = serve(with_reasons(two_tables()))
    page.goto(server.url, timeout=WAIT_MS)
    head = '[data-table="1"]'
    page.wait_for_function("document.querySelectorAll('#standings tbody tr').length === 8")
    page.wait_for_function("document.querySelector('#status').textContent === 'live'")
    assert page.text_content(f"{head} .why") == "hover or tap a hand: why it scored"
    page.evaluate("document.fonts.ready.then(() => true)")   # measured once its fonts are in: nothing moves after
    # and once every table is laid out (a redraw replaces a table's element: measured in between, it is 0 x 0)
    page.wait_for_function("[...document.querySelectorAll('#tables [data-table]')]"
                           ".every(e => e.getBoundingClientRect().height > 0)")
    laid_out = boxes(page, f"{head} tr, {head} .why, {head} .waiting, [data-table] ")
    page.hover(f'{head} tbody tr[data-hand="2"]')
    assert page.eval_on_selector_all(f"{head} .why span", "s => s.map(x => x.textContent)") == WHY[2]
    assert page.text_content(f"{head} .why b") == "hand 2: "
    assert boxes(page, f"{head} tr, {head} .why, {head} .waiting, [data-table] ") == laid_out
    page.click(f'{head} tbody tr[data-hand="1"]')     # a tap: the row takes the reason and keeps it
    page.mouse.move(0, 0)
    assert page.eval_on_selector_all(f"{head} .why span", "s => s.map(x => x.textContent)") == WHY[1]
    assert page.get_attribute(f'{head} tbody tr[data-hand="1"]', "class").split().count("chosen") == 1
    assert boxes(page, f"{head} tr, {head} .why, {head} .waiting, [data-table] ") == laid_out
    # the keyboard reaches the rows too
    page.focus(f'{head} tbody tr[data-hand="3"]')
    assert page.eval_on_selector_all(f"{head} .why span", "s => s.map(x => x.textContent)") == WHY[3]
    # the next snapshot (hand 4 accepted) redraws the card: the hand chosen keeps its reason shown
    from test_event_page import write

    write(snapshot, with_reasons(held_hand_confirmed()))
    page.wait_for_function("document.querySelector('[data-table=\"1\"] tfoot tr').textContent.includes('280')",
                           timeout=WAIT_MS)
    assert page.eval_on_selector_all(f"{head} .why span", "s => s.map(x => x.textContent)") == WHY[3]
    # a table whose hands carry no reason (an older host) shows the hint and no row takes the focus
    assert page.text_content('[data-table="2"] .why') == "hover or tap a hand: why it scored"
    assert page.query_selector('[data-table="2"] tbody tr[tabindex]') is None

