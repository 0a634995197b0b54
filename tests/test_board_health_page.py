"""The Boards table of the club evening's page in a real browser (issue 43; docs/club-mqtt.md,
"The director's view of the boards"): the evening's snapshot, made by play.snapshot from a
director's store seeded through its link's real receive path (signed health messages, no
broker), served by `tallyboard event serve --snapshot FILE` in a subprocess on loopback and
drawn by Debian's headless Chromium, as test_event_page does (its fixtures). The table's cells
and a warning's words and colour are read from the DOM; a new report shows without a reload."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tallyboard.evening import board_health, play

from browser_support import NEEDS_CHROMIUM, WAIT_MS
from club_director_support import unstarted_director
from test_board_health import PLAYERS, RELEASE, good_body, health_message, ident, seeded
from test_event_page import browser, cells, page, serve, write  # noqa: F401  (fixtures)

pytestmark = [NEEDS_CHROMIUM, pytest.mark.browser, pytest.mark.process]

RED = "rgb(255, 122, 107)"       # page.css --red: a warning
HELD = "rgb(240, 179, 90)"       # page.css --held: an old release


@pytest.fixture
def director(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(board_health, "current_release", lambda: RELEASE)
    with unstarted_director(tmp_path / "evening", monkeypatch, PLAYERS) as made:
        yield made


def test_the_page_shows_each_boards_health_and_its_warnings_as_they_come(page, serve, director):
    server, snapshot = serve(play.snapshot(director.store, director.event))
    page.goto(server.url, timeout=WAIT_MS)
    page.wait_for_function("document.querySelectorAll('#tables [data-table]').length === 2")
    assert page.is_hidden("#boards-box")          # no board has reported: no Boards table

    seeded(director)                               # table 1 healthy, table 2 with four warnings
    write(snapshot, play.snapshot(director.store, director.event))
    page.wait_for_function("document.querySelectorAll('#boards tbody tr').length === 2", timeout=WAIT_MS)
    assert page.is_visible("#boards-box")
    assert cells(page, "#boards thead tr") == [["Table", "Board", "Release", "Up", "Resets", "Heap KB", "RSSI",
                                                "Reconn.", "Journal", "VSYS", "Report", "Warnings"]]
    one, two = cells(page, "#boards tbody tr")
    assert re.fullmatch(r"\d+ s ago", one.pop(10)) and re.fullmatch(r"\d+ s ago", two.pop(10))
    # 3 h 25 min up; 61 440 and 30 720 bytes are 60.0 and 30.0 KB; 5 020 mV
    assert one == ["1", ident(director, 1), RELEASE, "3:25", "5 (power)", "60.0 / 30.0", "-61 dBm", "1",
                   "12 / 340", "5.02 V", "ok"]
    # 125 s up; 18 432 and 9 216 bytes are 18.0 and 9.0 KB; no VSYS; resets 5 at its first report, 9 now
    assert two[:10] == ["2", ident(director, 2), "0123456789ab (old)", "0:02", "9 (soft)", "18.0 / 9.0", "-82 dBm",
                        "4", "3 / 17", "—"]
    shown = page.eval_on_selector_all('#boards tr[data-table="2"] .warning', """spans => spans.map(s => [
        s.dataset.warning, s.textContent, getComputedStyle(s).color, getComputedStyle(s).fontWeight])""")
    assert shown == [
        ["old firmware", f"old firmware: release 0123456789ab, the director's is {RELEASE}: deploy this checkout "
                         "to the board (tallyboard deploy)", RED, "700"],
        ["weak signal", "weak signal: -82 dBm: move the board or the access point closer", RED, "700"],
        ["frequent resets", "frequent resets: 4 resets this evening: check its supply and cable; if it goes on, "
                            "swap the board", RED, "700"],
        ["heap low", "heap low: 18.0 KB free, largest block 9.0 KB: restart the board between rounds", RED, "700"]]
    assert page.eval_on_selector('#boards tr[data-table="2"] td[data-key="release"]',
                                 "c => getComputedStyle(c).color") == HELD
    assert page.eval_on_selector_all("#boards tbody tr", "rows => rows.map(r => r.className)") == ["", "warn"]
    assert page.query_selector('#boards tr[data-table="1"] .warning') is None

    # table 1's signal drops: its next report shows, without a reload, like the rest of the page
    director.link._on_message(health_message(director, 1, good_body(rssi=-80)))
    write(snapshot, play.snapshot(director.store, director.event))
    page.wait_for_function("document.querySelector('#boards tr[data-table=\"1\"] .warning') !== null",
                           timeout=WAIT_MS)
    assert page.eval_on_selector_all('#boards tr[data-table="1"] .warning', """spans => spans.map(s => [
        s.textContent, getComputedStyle(s).color])""") == [
        ["weak signal: -80 dBm: move the board or the access point closer", RED]]
    assert cells(page, '#boards tr[data-table="1"]')[0][6] == "-80 dBm"
    assert page.text_content("#status") == "live"
    assert server.stop() == 0
