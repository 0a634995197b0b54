"""An update over the air at an evening (issue 43; docs/club-mqtt.md, "Updates over the air"), end to end:
emulated Pico W boards on tallyboard's own image (a ROMFS partition holding the packages), enrolled on the
club's Wi-Fi with the club's update key, linked to the embedded broker with the evening's logins and ACL;
`event update-boards`' engine (club/update_link.py) logged in as the updater. A release reaches every board
and each then runs it (HELLO's fw says the new version) with its game intact: one board's power cut while
its chunks arrive, it goes on from its flash; the other's game in play holds it, said on its OLED; a release signed with another
key, and an older one, are refused by every board and change nothing; a chunk changed on its way is
refused, said, sent again and the release still kept; a release whose link cannot log in goes back by
itself once its trial's seconds are gone."""
from __future__ import annotations

import shutil
from pathlib import Path
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Iterator

import pytest

import wifi_boards as wb
from emu_fixtures import oled_text, until
from tallypanel.screen import ROWS
from tallyboard.boardlink.client import Board
from tallyboard.club import embedded_broker, envelope, releases
from tallyboard.club.director_link import DirectorLink
from tallyboard.club.update_link import UpdateRun
from tallyboard.evening.club import key_for
from tallyboard.club.updates import UpdateServer
from tallyboard.tooling import fileset
from tallyboard.tooling.emulator import Emulator
from tallyboard.tooling.mpunix import FIRMWARE_DIR
from tallycore import cards, rummy

pytestmark = [pytest.mark.emulator, pytest.mark.broker]

TAG = 0x1A2B
EVENT = "Club-night-1a2b"
SECRET = bytes(range(32))
SEED = bytes(range(100, 132))            # the club's update key
STRANGER = bytes(range(1, 33))           # anyone else's (a table's, a stranger's)
UPDATER_PASSWORD = "updater-pw"
DIRECTOR_PASSWORD = "director-pw"
PARTITION = 256 * 1024                   # the Pico W image's (image/boards/TALLYBOARD_PICO_W)
TABLES = (1, 2)
WAIT_S = 600                             # bounds against a hang only
BOOT_S = 60


def ident(table: int) -> str:
    return wb.ident(TAG, table)


def key_of(board: str) -> bytes:
    return envelope.board_key(SECRET, board)


def hand(evening: "Evening", board: str) -> None:
    """One hand of Rummy (docs/rules.md RU): players 1 to 3 are left holding a king, a queen and a jack
    (13, 12 and 11 set down against them), player 0 goes out; a game of one deal per player: 4 hands."""
    for event in (rummy.pack_card(1, cards.card(13, 0)), rummy.pack_card(2, cards.card(12, 0)),
                  rummy.pack_card(3, cards.card(11, 0)), rummy.OUT | 0):
        evening.request(board, "EV", event)


def firmware(tmp_path: Path, name: str, version: str, change: Callable[[Path], None] | None = None) -> list:
    """The checkout's file set from a copy of firmware/ whose version (HELLO's fw) is `version`."""
    copy = tmp_path / name
    shutil.copytree(FIRMWARE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    core = copy / "tallycore" / "__init__.py"
    core.write_text(core.read_text().replace('VERSION = "0.1.0"', f'VERSION = "{version}"', 1))
    if change is not None:
        change(copy)
    return fileset.build(copy)


def cannot_log_in(copy: Path) -> None:
    """A release whose club link logs in as nobody the broker knows: it never links."""
    link = copy / "tallynet" / "link.py"
    text = link.read_text()
    old = "return user.decode() if user is not None else self.ident"
    assert old in text
    link.write_text(text.replace(old, 'return "nobody"'))


class Evening:
    def __init__(self, tmp_path: Path, broker: embedded_broker.EmbeddedBroker) -> None:
        self.tmp_path = tmp_path
        self.broker = broker
        self.emulators: dict[str, Emulator] = {}
        self.boards: dict[str, Board] = {}     # each board's USB session, open while the evening lasts
        self.pool = ThreadPoolExecutor(1)
        self.seen: list[list] = []

    def update(self, release: releases.Release, server: type[UpdateServer] | None = None) -> dict[str, Any]:
        return self.start_update(release, server).result(WAIT_S + 60)

    def start_update(self, release: releases.Release, server: type[UpdateServer] | None = None) -> Future:
        """`event update-boards`' run, in a thread of its own: its end ({board: (state, why)}, and the rows
        it saw on the way) once every board has kept, gone back or refused the release."""
        run = UpdateRun(f"mqtt://updater:{UPDATER_PASSWORD}@127.0.0.1:{self.broker.port}", event=EVENT,
                        release=release, boards={ident(t): t for t in TABLES},
                        key=lambda message: key_of(message["board"]))
        if server is not None:
            run.server.__class__ = server
        seen: list[list] = []
        self.seen = seen

        def serve() -> dict[str, Any]:
            rows = run.run(WAIT_S, seen.append, poll=0.05)
            return {"rows": {r.board: (r.state, r.why) for r in rows}, "seen": seen}
        return self.pool.submit(serve)

    def said(self, board: str, state: str, why: str) -> bool:
        """Whether the run has heard the board say state and why."""
        return any(r.board == board and (r.state, r.why) == (state, why) for rows in list(self.seen) for r in rows)

    def hello(self, board: str) -> dict[str, str]:
        """The board's HELLO, once it answers (after a restart)."""
        session = self.boards[board]

        def answered() -> dict[str, str] | None:
            try:
                return session.connect()
            except Exception:        # restarting
                return None
        return until(answered, BOOT_S, f"{board}'s HELLO")

    def game(self, board: str) -> dict[str, str]:
        """The board's STATE without its event number (a new power-up's events count from 1 again)."""
        state = self.request(board, "STATE")
        state.pop("eseq")
        return state

    def versions(self) -> list[str]:
        """Each board's firmware version (HELLO's fw), table by table."""
        return [self.hello(ident(t))["fw"] for t in TABLES]

    def request(self, board: str, *args: Any) -> dict[str, str]:
        self.hello(board)
        return self.boards[board].request(*args)


@pytest.fixture
def evening(tmp_path: Path) -> Iterator[Evening]:
    users = {"director": DIRECTOR_PASSWORD, "updater": UPDATER_PASSWORD,
             **{ident(t): envelope.broker_password(key_of(ident(t))) for t in TABLES}}
    broker = embedded_broker.EmbeddedBroker(0, users, event=EVENT)
    broker.start()
    night = Evening(tmp_path, broker)
    stack = []
    # the director's link: it confirms (applied) each board's messages, so a board knows when nothing of
    # its game waits for the director
    director = DirectorLink(f"mqtt://director:{DIRECTOR_PASSWORD}@127.0.0.1:{broker.port}", f"{EVENT}-director",
                            event=EVENT, key=lambda m: key_for(SECRET, m), store_path=tmp_path / "director.sqlite3",
                            boards={ident(t) for t in TABLES}, on_table_message=lambda connection, message: None,
                            max_backoff=1)
    try:
        director.start()
        director.wait_connected(10)
        for table in TABLES:
            flash = wb.wifi_flash(tmp_path / f"flash{table}", TAG, table)
            board_cm = wb.wifi_board(flash, romfs=PARTITION)
            emulator, board = board_cm.__enter__()
            stack.append(board_cm)
            night.emulators[ident(table)] = emulator
            night.boards[ident(table)] = board
            wb.access_point(emulator)
            wb.enrol(board, event=EVENT, key=key_of(ident(table)), port=broker.port,
                     update_key=releases.public_key(SEED))
            until(lambda: board.request("NET")["broker"] == "1", BOOT_S, f"table {table}'s link to the broker")
        yield night
    finally:
        for board_cm in reversed(stack):
            board_cm.__exit__(None, None, None)
        night.pool.shutdown(wait=False, cancel_futures=True)
        director.stop()
        broker.stop()


class Tampering(UpdateServer):
    """The updater's engine with chunk 5 to table 2 changed on its way, once (its last byte)."""
    changed = False

    def _window(self, state: Any, start: int) -> Any:    # (the server's one maker of chunk messages)
        out = super()._window(state, start)
        for at, (topic, payload) in enumerate(out):
            if state.board == ident(2) and payload[12:14] == b"\x00\x05" and not Tampering.changed:
                Tampering.changed = True
                out[at] = (topic, payload[:-1] + bytes([payload[-1] ^ 1]))
        return out


def test_a_release_reaches_every_board_and_the_wrong_ones_are_refused(tmp_path: Path, evening: Evening) -> None:
    one, two = ident(1), ident(2)
    # a game in play at table 1: one hand of four
    evening.request(one, "NEW", "rummy", 4, 0)
    hand(evening, one)

    # the release reaches both boards; table 2 switches at once, table 1 holds it until its game is over,
    # and says so on its OLED; a chunk to table 2 is changed on its way: refused and said, sent again whole
    b = releases.make(firmware(tmp_path, "b", "0.1.0-b"), 2, SEED)
    running = evening.start_update(b, Tampering)
    # table 2's power cut while its chunks arrive: it powers up again and goes on from the chunk its flash holds
    until(lambda: any(r.board == two and r.state == "receiving" and r.have >= 16 for rows in list(evening.seen)
                      for r in rows), WAIT_S, "table 2's board holding 16 chunks")
    evening.emulators[two].cut_power()
    held = (evening.emulators[two].flash / "update" / "new.pos").read_bytes()
    mark = len(evening.seen)
    evening.emulators[two].power_on()
    assert held[0] << 8 | held[1] >= 16
    until(lambda: evening.said(two, "kept", "-") and evening.said(one, "staged", "mid_game"), WAIT_S,
          "table 2's board keeping the release, table 1's holding it for its game")
    assert Tampering.changed and evening.said(two, "receiving", "tampered")
    # it never began again: every status it gave after the cut held at least the first window
    assert min(r.have for rows in evening.seen[mark:] for r in rows if r.board == two and r.state == "receiving") >= 8
    oled = (evening.emulators[one].io_dir / "oled.bin").read_bytes()
    assert "UPDATE AFTER GAME" in [oled_text(oled, row).strip() for row in range(ROWS)]
    assert evening.hello(one)["fw"] == "0.1.0"
    for _ in range(3):
        hand(evening, one)                        # 4 hands, one deal each: the game is over
    before = evening.game(one)
    assert before["n"] == "16"
    done = running.result(WAIT_S)
    assert done["rows"] == {one: ("kept", "-"), two: ("kept", "-")}
    assert evening.versions() == ["0.1.0-b", "0.1.0-b"]
    assert evening.game(one) == before

    # signed with another key (a table's, a stranger's): refused, nothing changes
    forged = releases.make(firmware(tmp_path, "x", "0.1.0-x"), 3, STRANGER)
    assert evening.update(forged)["rows"] == {one: ("refused", "signature"), two: ("refused", "signature")}
    # an older one (number 1 < 2, the one they run): refused
    older = releases.make(fileset.build(), 1, SEED)
    assert evening.update(older)["rows"] == {one: ("refused", "older"), two: ("refused", "older")}
    assert evening.versions() == ["0.1.0-b", "0.1.0-b"]

    # a release that cannot link: each board goes back by itself once its 3 s of trial are gone
    d = releases.make(firmware(tmp_path, "d", "0.1.0-d", cannot_log_in), 4, SEED, trial_s=3)
    done = evening.update(d)
    assert done["rows"] == {one: ("back", "no_link"), two: ("back", "no_link")}
    assert evening.versions() == ["0.1.0-b", "0.1.0-b"]
    assert evening.game(one) == before
