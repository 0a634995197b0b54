"""A mixed club evening end to end (issue 24.6): three boards on the club's
Wi-Fi by themselves and one board on a table host, one director, mosquitto
between them on loopback with its users and ACLs. The wireless boards are the
real firmware in the emulator (its network.WLAN stand-in joins the access
point the test puts in reach, its sockets are real), enrolled with `tallyboard
wifi enrol`; the table host is `tallyboard event table --emulators 1`; the
director is `tallyboard event serve --broker`, its page read in Debian's
headless Chromium. Every hand is entered with the boards' own buttons and knob
(the emulator's pins) and accepted on an opponent's seat button. Faults: the
broker restarted, the Wi-Fi dropped mid-publish, a board's power cut
mid-publish, a message delivered twice. After each the director's tables equal
the boards' journals, hand for hand and point for point, and the standings
equal the arithmetic below.

Every hand: the player in seat 0 buys 4H and takes 10, entered on the board as
docs/display.md's Skicket entry (his seat button; push; level 1 + 3 = 4; push;
strain C + 2 = H; push; nobody doubled, not lone, tricks 10 as suggested,
save: five pushes), accepted on the button beside him (position 1: seat 1 in
hands 1-2, seat 2 after the pivot: an adversary either way, SK5, SK16, CF).
4H made with 10 is 60 + 10 x 4 = 100 to the purchaser and his partner, 10 x
(13 - 10) = 30 to each adversary (SK2, SK7); seat 0's partner is seat 2 in
hands 1-2 and seat 1 in hands 3-4. So after
  one hand:    seat 0 100, seat 1  30, seat 2 100, seat 3  30
  two hands:   200,  60, 200,  60
  three:       300, 160, 230,  90
  four:        400, 260, 260, 120   (the four-hand game of four tables, SK19)
and each player's continuous score is his seat's total (one game each)."""
from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from broker_spy import SPY_PASSWORD, SPY_USER, WatchedMosquitto
from club_evening_support import Evening
import wifi_boards
from waiting import NotInTime, until
from tallyboard.boardlink import portshare
from tallyboard.boardlink.client import Board
from tallyboard.club import brokers
from tallyboard.tooling.emulator import Emulator, running_on
from tallyboard.evening import EveningDatabase
from tallyboard.evening import club as club_mod

from browser_support import CHROMIUM, CHROMIUM_ARGS
from machine import needs
pytestmark = [needs("mosquitto", "chromium"),
              pytest.mark.emulator, pytest.mark.twin, pytest.mark.broker, pytest.mark.browser, pytest.mark.process]

PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kim", "Lu",
           "Max", "Ned", "Ola", "Pat"]
AFTER = {1: [100, 30, 100, 30], 2: [200, 60, 200, 60], 3: [300, 160, 230, 90], 4: [400, 260, 260, 120]}
WIFI = ("Club Wifi", "club passphrase")
WIRELESS, HOSTED = (1, 2, 3), 4
SEAT_PINS, KNOB_A, KNOB_B, KNOB_PUSH = (10, 11, 12, 13), 16, 17, 18     # picow-reference = pico-reference's
WAIT = 60.0
# a board tries a lost broker again after 1 s, doubling to 8 s, plus up to 1 s of jitter (tallynet.client);
# a table host after at most 5 s: both are back within 10 s of the broker, the rest is the catch-up on a
# machine running everything else beside it
RECONNECT_WAIT = 90.0


def secret_file(path: Path, text: str) -> str:
    path.write_text(text + "\n")
    path.chmod(0o600)
    return str(path)


class WifiEvening(Evening):
    """The evening of four tables: three boards on Wi-Fi by themselves, one on a table host."""

    def __init__(self, tmp: Path, monkeypatch) -> None:
        self.boards: dict[int, Emulator] = {}
        super().__init__(tmp, monkeypatch, PLAYERS)

    # ---- a wireless board: the emulator in this process, enrolled over USB by `tallyboard wifi enrol`
    def wireless_board(self, table: int, broker_port: int) -> Emulator:
        # the heap of the tests about the protocol (wifi_boards.HEAP_SIZE): at the emulator's 384K the link,
        # a four-hand game and its signature at the end left a 3 KB largest block, and one board in a loaded
        # run could not compose its last hand for 60 s (MemoryError, NET error "memory"); the chip's heap is
        # bench/bench_wifi_twin.py's (tests/test_benches_twin.py runs it)
        emulator = Emulator(flash=self.tmp / f"wifi-{table}" / "flash", heap_size=wifi_boards.HEAP_SIZE)
        emulator.start()
        self.boards[table] = emulator
        self.cli("config", "set", "board", "picow-reference", "-p", emulator.port)
        emulator.cut_power()
        emulator.power_on()          # boots a Pico W: its club link's settings load
        self.access_point(table, True)
        out = self.cli("wifi", "enrol", "-p", emulator.port, "--ssid", WIFI[0],
                       "--wifi-password-file", secret_file(self.tmp / "wifi.pw", WIFI[1]),
                       "--broker", f"mqtt://127.0.0.1:{broker_port}",       # it logs in as its table
                       "--join-file", secret_file(self.tmp / f"table-{table}.join", self.codes[table]))
        assert "reached the broker" in out, out
        return emulator

    def access_point(self, table: int, up: bool) -> None:
        path = self.boards[table].io_dir / "wifi.txt"
        if up:
            path.write_text(f"{WIFI[0]}\n{WIFI[1]}\n")
        else:
            path.unlink()

    # ---- the boards, read over USB as a host would read them
    def port(self, table: int) -> str:
        if table in self.boards:
            return self.boards[table].port
        return str(running_on(self.hosted_flash())["port"])

    def hosted_flash(self) -> Path:
        found = list((self.tmp / "host4" / "state").glob(f"tallyboard/events/*/table-{HOSTED}"))
        assert len(found) == 1, found
        return found[0]

    def board(self, table: int) -> dict:
        link = portshare.open_link(self.port(table))
        try:
            board = Board(link, timeout=3.0)
            board.hello()
            current = board.rebuild_settled()   # a board seating itself for a round while it is read
            game = current.game            # None: no game yet (not seated)
            return {"round": int(board.cfg_get("round")), "names": board.player_names(4),
                    "hands": game.hands() if game else 0,
                    "totals": [game.total(p) for p in range(4)] if game else None,
                    "held": current.held is not None}
        finally:
            link.close()

    # ---- a hand on the board's own controls
    def tap(self, table: int, control: str, times: int = 1) -> None:
        if table in self.boards:
            emulator = self.boards[table]
            if control.startswith("seat"):
                emulator.tap(SEAT_PINS[int(control[4:])])
            elif control == "push":
                emulator.tap(KNOB_PUSH, times=times)
            else:
                emulator.turn(KNOB_A, KNOB_B, times)
        else:      # the table host's board: `tallyboard press` on its emulator
            self.cli("press", control if control != "turn" else "right", "--times", str(times),
                     "--flash", str(self.hosted_flash()))

    def enter_hand(self, table: int) -> int:
        """Seat 0's 4H with 10 tricks, entered on the board; returns the hand's number, held."""
        before = self.board(table)
        assert not before["held"], (table, before)
        self.tap(table, "seat0")
        self.tap(table, "push")
        self.tap(table, "turn", 3)
        self.tap(table, "push")
        self.tap(table, "turn", 2)
        self.tap(table, "push", 5)
        until(lambda: self.board(table)["held"], 15, f"table {table}'s hand {before['hands'] + 1} held")
        return before["hands"] + 1

    def accept(self, table: int, hand: int) -> None:
        self.tap(table, "seat1")      # position 1: an adversary of seat 0 in every hand
        until(lambda: self.board(table)["hands"] == hand, 15, f"table {table}'s hand {hand} accepted")

    def hand(self, table: int) -> None:
        self.accept(table, self.enter_hand(table))

    # ---- the director's store
    def wait_director(self, hands: list[int], seconds: float = WAIT) -> None:
        self.wait(lambda: self.director_hands() == hands, f"the director's tables at {hands} hands", seconds)

    def wait(self, check, what: str, seconds: float = WAIT) -> None:
        try:
            until(check, seconds, what)
        except AssertionError as exc:
            raise AssertionError(f"{exc}: {self.diagnosis()}") from None

    def diagnosis(self) -> str:
        """What each end holds, for a failure's message, and again once it has moved (or that it has
        not, 5 s after the boards were asked)."""
        first = self._diagnosis()
        later = [first]

        def moved() -> bool:
            later[:] = [self._diagnosis()]
            return later[0] != first

        try:
            until(moved, 5, "a change at either end", every=0.5)
        except NotInTime:
            return first + " -- the same 5 s after asking the boards"
        return first + " -- then, once it moved: " + later[0]

    def _diagnosis(self) -> str:
        return (f"the director has {self.director_hands()} hands, applied {self.applied()}, refused "
                f"{self.cli('event', 'refused', '--json')}; the wireless boards' NET "
                f"{ {t: self.net(t) for t in self.boards} }, their heap (STATS) "
                f"{ {t: self.net(t, 'STATS') for t in self.boards} }, netout "
                f"{ {t: (e.flash / 'netout.txt').read_bytes()[:16] for t, e in self.boards.items()} }, logs "
                f"{ {t: e.log_tail() for t, e in self.boards.items()} }")

    def applied(self) -> dict:
        with EveningDatabase() as store:
            path = club_mod.director_file(store.event())
        with sqlite3.connect(path) as db:
            return dict(db.execute("SELECT board, seq FROM applied").fetchall())

    def net(self, table: int, verb: str = "NET") -> dict:
        link = portshare.open_link(self.port(table))
        try:
            board = Board(link, timeout=3.0)
            board.hello()
            return board.request(verb)
        finally:
            link.close()

    def close(self) -> None:
        for emulator in self.boards.values():
            emulator.stop()
        super().close()


class Capture:
    """Every table message the broker carries, as the director reads it (its login)."""

    def __init__(self, port: int, event_id: str, password: str) -> None:
        self.payloads: dict[str, list[bytes]] = {}
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{event_id}-spy")
        # not the director's login: on mosquitto a login's client id is its user name, and this would take
        # the director's place
        self.client.username_pw_set(SPY_USER, SPY_PASSWORD)
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(f"tallyboard/{event_id}/table/+/+", qos=1)
        self.client.loop_start()

    def _message(self, client, userdata, message) -> None:
        with self.lock:
            self.payloads.setdefault(message.topic, []).append(message.payload)

    def first(self, topic: str) -> bytes:
        with self.lock:
            return self.payloads[topic][0]

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def evening(tmp_path, monkeypatch):
    with WifiEvening(tmp_path, monkeypatch) as made:
        yield made


def netout_hands(emulator: Emulator) -> int:
    """The hands of the message the board has numbered and not yet had confirmed (its netout.txt)."""
    try:
        head = (emulator.flash / "netout.txt").read_bytes().split(b"\n", 1)[0].split(b" ")
        return int(head[2])
    except (OSError, IndexError, ValueError):
        return -1


def refused_count(evening: WifiEvening, board: str, reason: str) -> int:
    rows = json.loads(evening.cli("event", "refused", "--json"))
    return sum(times for _, who, why, _, times in rows if who == board and why == reason)


def page_cards(page) -> dict[int, dict]:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('article.card')].map(card => [
        card.dataset.table, {link: (card.querySelector('.link') || {}).textContent || null,
                             kind: (card.querySelector('.link') || {dataset: {}}).dataset.kind || null,
                             totals: [...card.querySelectorAll('tfoot td.num')].map(td => td.textContent)}]))""")


def test_three_wireless_boards_and_a_table_host_through_every_fault(evening, tmp_path):
    from playwright.sync_api import sync_playwright

    tag = evening.event_id.rsplit("-", 1)[1].upper()
    users = evening.users
    with WatchedMosquitto(0, users, tmp_path / "mosquitto", event=evening.event_id) as broker, \
            sync_playwright() as playwright:
        capture = Capture(broker.port, evening.event_id, users["director"])
        try:
            director = evening.spawn("director", "event", "serve", "--port", "0", "--broker",
                                     f"mqtt://director@127.0.0.1:{broker.port}",
                                     TALLYBOARD_BROKER_PASSWORD=users["director"])
            url = director.wait_line(r"The club evening's page: (http://\S+?)[;\s]").group(1)
            host = evening.spawn("host4", "event", "table", "--broker", f"mqtt://127.0.0.1:{broker.port}", "--plain",
                                 "--emulators", "1", "--table", "4", "--name", "room-b",
                                 TALLYBOARD_JOIN=evening.codes[4])
            host.wait_line(r"round 1: tables 4 seated")
            for table in WIRELESS:
                evening.wireless_board(table, broker.port)
            # each wireless board seats itself from the director's round, as a table host seats one
            doc = evening.doc()
            for t in doc["tables"]:
                evening.wait(lambda t=t: evening.board(t["table"])["round"] == 1, f"table {t['table']} seated")
                assert evening.board(t["table"])["names"] == t["names"] == PLAYERS[4 * t["table"] - 4:4 * t["table"]]

            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=30_000)
            page = browser.new_page()
            page.goto(url)

            # hand 1 everywhere; the page shows each table's link and its totals
            for table in (1, 2, 3, 4):
                evening.hand(table)
            evening.wait_director([1, 1, 1, 1])
            until(lambda: all(c["totals"] == [str(s) for s in AFTER[1]] for c in page_cards(page).values()),
                  15, "hand 1's totals on the page")
            cards = page_cards(page)
            assert [cards[str(t)]["kind"] for t in (1, 2, 3, 4)] == ["wireless board"] * 3 + ["table host"]
            assert cards["1"]["link"].startswith(f"on Wi-Fi, board {tag}.1 · online · last message ")
            assert cards["4"]["link"].startswith("via table host room-b · online · last message ")
            evening.same_as_boards()

            # the broker restarted while every table scores its second hand
            broker.stop()
            for table in (1, 2, 3, 4):
                evening.hand(table)
            broker.start()
            evening.wait_director([2, 2, 2, 2], RECONNECT_WAIT)
            evening.same_as_boards()

            # table 1's Wi-Fi dropped mid-publish: the moment its board has numbered hand 3's message on
            # flash (netout.txt) and is sending it; it scores on, and catches up when the Wi-Fi is back
            hand = evening.enter_hand(1)
            evening.tap(1, "seat1")
            until(lambda: netout_hands(evening.boards[1]) == 3, 60, "table 1's hand 3 numbered")
            evening.access_point(1, False)
            until(lambda: evening.board(1)["hands"] == hand, 60, "table 1's hand 3 accepted")
            for table in (2, 3, 4):
                evening.hand(table)
            evening.wait(lambda: evening.director_hands()[1:] == [3, 3, 3], "tables 2 to 4 at 3 hands")
            assert evening.director_hands()[0] in (2, 3)        # hand 3 got out before the drop, or did not
            evening.wait(lambda: evening.doc()["tables"][0]["link"]["online"] is False,
                         "table 1 shown offline (the broker published its will)")
            evening.access_point(1, True)
            evening.wait_director([3, 3, 3, 3])
            evening.wait(lambda: evening.doc()["tables"][0]["link"]["online"] is True, "table 1 back online")
            evening.same_as_boards()

            # table 2's power cut mid-publish: right after its board numbered hand 4's message; on again, it
            # sends that message again, same seq and body, and the director applies it once
            hand = evening.enter_hand(2)
            evening.tap(2, "seat1")
            until(lambda: netout_hands(evening.boards[2]) == 4, 60, "table 2's hand 4 numbered")
            evening.boards[2].cut_power()
            evening.boards[2].power_on()
            until(lambda: evening.board(2)["hands"] == hand, 30, "table 2's hand 4 in its journal after the cut")
            for table in (1, 3, 4):
                evening.hand(table)
            evening.wait_director([4, 4, 4, 4])

            # a message delivered twice: table 3's first hand, published again with table 3's login
            topic = f"tallyboard/{evening.event_id}/table/{tag}.3/hand"
            replays = refused_count(evening, f"{tag}.3", "replay")
            twice = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{evening.event_id}-twice")
            twice.username_pw_set(f"{tag}.3", users[f"{tag}.3"])
            twice.connect("127.0.0.1", broker.port)
            twice.loop_start()
            try:
                twice.publish(topic, capture.first(topic), qos=1).wait_for_publish(10)
            finally:
                twice.loop_stop()
                twice.disconnect()
            until(lambda: refused_count(evening, f"{tag}.3", "replay") > replays, WAIT,
                  "the director refusing the copy as a replay")
            assert evening.director_hands() == [4, 4, 4, 4]

            # the director's tables are the boards' journals; the standings are the arithmetic above
            doc = evening.same_as_boards()
            assert [t["totals"] for t in doc["tables"]] == [AFTER[4]] * 4
            continuous = {row["name"]: row["continuous"] for row in doc["standings"]}
            assert continuous == {name: AFTER[4][i % 4] for i, name in enumerate(PLAYERS)}
            until(lambda: all(c["totals"] == [str(s) for s in AFTER[4]] for c in page_cards(page).values()),
                  15, "the final totals on the page")
            # what was refused was the boards and the host catching up, and the copy: never a forgery
            reasons = {row[2] for row in json.loads(evening.cli("event", "refused", "--json"))}
            assert reasons <= {"replay", "gap"}, reasons

            # the next round: published by the director, taken by each wireless board by itself
            evening.cli("event", "next")
            doc = evening.doc()
            for t in doc["tables"]:
                until(lambda t=t: evening.board(t["table"])["round"] == 2, WAIT, f"table {t['table']} in round 2")
                assert evening.board(t["table"])["names"] == t["names"]
            browser.close()
        finally:
            capture.close()
