"""Draws docs/img/event_page.png: the club evening's web page (`tallyboard
event serve`) as a club TV shows it, in Debian's headless Chromium. Run from
the checkout, with the test extras installed:

    .venv/bin/python docs/img/event_page.py

The evening is made up but scored for real: three tables, twelve players,
round 2 of 3, four-hand games. Each table's hands are game records
(docs/records.md) scored by the host's profile of the club game, and the
movement is tallycore.progressive's (docs/rules.md SK19, SK20)."""
from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

from tallyboard import games
from tallyboard.scorebook import records, sheet
from tallyboard.evening import web
from tallycore import progressive

OUT = Path(__file__).resolve().parent / "event_page.png"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kit", "Lou"]
FIRST_SEATING = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
# Hands by table (players are seats at the table, docs/records.md), round 1 then round 2.
ROUND_1 = [
    [{"purchaser": 0, "bid": "3H", "tricks": 9}, {"purchaser": 1, "bid": "2S", "doubled_by": 2, "tricks": 7},
     {"purchaser": 2, "bid": "1NK", "tricks": 5}, {"purchaser": 3, "bid": "4D", "lone": True, "tricks": 11}],
    [{"purchaser": 1, "bid": "2C", "tricks": 8}, {"purchaser": 0, "bid": "3NT", "tricks": 8},
     {"purchaser": 3, "bid": "2H", "tricks": 9}, {"purchaser": 2, "bid": "1S", "tricks": 7}],
    [{"purchaser": 2, "bid": "4S", "tricks": 10}, {"purchaser": 3, "bid": "2D", "doubled_by": 0, "tricks": 8},
     {"purchaser": 0, "bid": "1H", "tricks": 6}, {"purchaser": 1, "bid": "3C", "tricks": 8}],
]
ROUND_2 = [
    [{"purchaser": 1, "bid": "2NT", "tricks": 8}, {"purchaser": 2, "bid": "3S", "tricks": 10},
     {"purchaser": 0, "bid": "1D", "tricks": 7}, {"purchaser": 3, "bid": "2C", "doubled_by": 0, "tricks": 6}],
    [{"purchaser": 0, "bid": "2H", "tricks": 8}, {"purchaser": 3, "bid": "1NK", "tricks": 6},
     {"purchaser": 2, "bid": "3D", "tricks": 9}],
    [{"purchaser": 3, "bid": "3H", "tricks": 10}, {"purchaser": 1, "bid": "2S", "tricks": 6}],
]
HELD = (1, {"purchaser": 1, "bid": "4C", "tricks": 10})   # table 2's hand 4, held for an opponent


def scored(seats: list[int], hands: list[dict]) -> dict:
    """A table's game as its sheet (docs/records.md `sheet --json`), scored by
    the host's profile of the club game."""
    club = games.club_game()
    doc = {"format": "tallyboard/1", "game": club.name, "players": [PLAYERS[p] for p in seats],
           "options": club.club_options(4), "hands": hands}
    return sheet.sheet_json(records.from_document(doc))


def evening() -> dict:
    count = len(PLAYERS)
    continuous, won = [0] * count, [0] * count
    game = [0] * count
    for seats, hands in zip(FIRST_SEATING, ROUND_1):
        totals = scored(seats, hands)["totals"]
        for s, p in enumerate(seats):
            game[p] = totals[s]
            continuous[p] += totals[s]
    for seats in FIRST_SEATING:
        won[seats[progressive.table_winner(seats, game, continuous)]] += 1
    seating = progressive.next_seating(FIRST_SEATING, game, continuous)
    game = [0] * count
    tables = []
    for t, (seats, hands) in enumerate(zip(seating, ROUND_2)):
        doc = scored(seats, hands)
        for s, p in enumerate(seats):
            game[p] = doc["totals"][s]
            continuous[p] += doc["totals"][s]
        table = {"table": t + 1, "round": 2, "board": f"/dev/ttyACM{t}", "status": "ok", "seats": seats,
                 "names": [PLAYERS[p] for p in seats],
                 "hands": [{"hand": h["hand"], "dealer": h["dealer"], "seats": [seats[s] for s in h["seats"]],
                            "scores": h["scores"]} for h in doc["hands"]],
                 "totals": doc["totals"], "complete": doc["complete"], "pending": None}
        if t == HELD[0]:
            after = scored(seats, hands + [HELD[1]])["hands"][-1]
            bidder_seat = after["seats"].index(HELD[1]["purchaser"])   # an opponent accepts (docs/rules.md CF2)
            opponents = sorted(after["seats"][(bidder_seat + k) % 4] for k in (1, 3))
            table["pending"] = {"hand": after["hand"], "waiting_for": [PLAYERS[seats[i]] for i in opponents],
                                "scores": after["scores"]}
        tables.append(table)
    order = progressive.evening_order(continuous)
    standings, rank = [], 0
    for i, p in enumerate(order):
        if i == 0 or continuous[p] != continuous[order[i - 1]]:
            rank = i + 1
        table = next(t + 1 for t, seats in enumerate(seating) if p in seats)
        standings.append({"rank": rank, "player": p, "name": PLAYERS[p], "continuous": continuous[p],
                          "games": 1, "games_won": won[p], "table": table})
    moves = [{"player": p, "name": PLAYERS[p], "from": a + 1, "to": b + 1, "seat": seat}
             for p, a, b, seat in progressive.moves(seating, game, continuous)]
    return {"format": "tallyboard-event-view/1", "event": "Tuesday club", "state": "running",
            "round": 2, "rounds": 3, "hands": 4, "updated": "2026-11-24T21:07:00+00:00",
            "players": PLAYERS, "standings": standings, "tables": tables, "moves": moves,
            "moves_final": False, "next_seating": progressive.next_seating(seating, game, continuous), "log": []}


def main() -> None:
    doc = evening()
    sock = web.listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(web.create_app(lambda: doc), log_level="warning",
                                           timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=30_000)
            try:
                page = browser.new_page(viewport={"width": 1600, "height": 900})
                page.goto(web.url_of(sock), timeout=10_000)
                page.wait_for_selector('[data-table="3"]', timeout=5_000)
                page.wait_for_selector("#status.live", timeout=5_000)
                page.screenshot(path=str(OUT), full_page=True)
            finally:
                browser.close()
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
