"""A hand's reason on the results site (issue 34, item 4), in Debian's headless Chromium
with no script (the site has none): a hand's row hovered or tapped shows its reason over
the rows below it, and nothing on the page moves; printed, the reasons are left out."""
from __future__ import annotations

import pytest

from test_results_site import CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM
from test_why_pages import boxes

pytestmark = [NEEDS_CHROMIUM,
              pytest.mark.browser, pytest.mark.process]


def test_the_results_site_shows_a_hand_s_reason_over_the_rows_on_hover_and_tap_with_no_script(tmp_path, monkeypatch):
    import season_evenings as se
    from playwright.sync_api import sync_playwright
    from season_evenings import ok

    path = tmp_path / "archive.sqlite3"
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(path))
    monkeypatch.delenv("TALLYBOARD_DIRECTOR_PIN", raising=False)
    se.season_of_three(path, correct=False)
    ok("season", "create", "Autumn", "--rule", "total")
    ok("season", "add", "Tuesday 1", "Tuesday 2", "Tuesday 3")
    site = tmp_path / "site"
    ok("results", "build", str(site))
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=30_000)
        try:
            context = chromium.new_context(viewport={"width": 1100, "height": 800}, java_script_enabled=False)
            page = context.new_page()
            page.goto((site / "evening-1.html").as_uri())
            first = "section#r1t1 tr.hand >> nth=0"
            reason = page.locator(f"{first} >> .why")
            assert reason.is_hidden()
            lines = reason.locator("span").all_text_contents()
            assert lines and all("(SK" in line for line in lines)   # each line names its clause
            laid_out = boxes(page, "section#r1t1 tr, section#r1t2 tr, h3")
            page.hover(first)
            assert reason.is_visible()
            assert boxes(page, "section#r1t1 tr, section#r1t2 tr, h3") == laid_out
            page.mouse.move(1090, 790)
            assert reason.is_hidden()
            page.click(first)          # a tap: the row takes the focus, its reason stays shown
            page.mouse.move(1090, 790)
            assert reason.is_visible()
            assert boxes(page, "section#r1t1 tr, section#r1t2 tr, h3") == laid_out
            # printed, the reasons are left out
            page.emulate_media(media="print")
            assert reason.evaluate("e => getComputedStyle(e).display") == "none"
            context.close()
        finally:
            chromium.close()
