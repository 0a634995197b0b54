"""Confirmation by an opponent (docs/rules.md CF) on the emulated board, the
real firmware: hands entered from the host wait for a seat button of the
other side (`tallyboard press`, the only way a host can answer), and
`status`, `hand`, `watch` and `export` say so; a power cut keeps a hand
pending; an exported record of a game with a hand pending loads back."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from emu_fixtures import emulated_board, oled_text, until

from tallycore import skicket
from tallycore.game import CONFIRM, HELD_APPLY
from tallyboard.cli import main
from tallyboard.scorebook import records

SEAT_PINS = (10, 11, 12, 13)   # board/pico-reference.json


def run(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env)


@pytest.fixture
def emulate(tmp_path):
    """`tallyboard emulate` running in the foreground (as a user runs it), so that
    `tallyboard press` reaches its buttons; the environment the commands need."""
    env = dict(os.environ, TALLYBOARD_EMULATOR_HOME=str(tmp_path / "emu"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "emulate", "--fresh"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip().startswith("/dev/")
        yield {"TALLYBOARD_EMULATOR_HOME": env["TALLYBOARD_EMULATOR_HOME"],
               "XDG_CACHE_HOME": env["XDG_CACHE_HOME"]}
    finally:
        proc.terminate()
        proc.wait(10)


def _status_until(env: dict, wanted: str) -> str:
    """status, again until its output holds wanted (the board debounces a release first)."""
    last = []

    def there():
        last[:] = [run("status", "--emulator", env=env).output]
        return last[0] if wanted in last[0] else None

    return until(there, 10, f"{wanted!r} in the status", every=0.1, explain=lambda: f"last status:\n{last[0]}")


def _screen(env: dict) -> list[str]:
    """The rows of the running emulator's OLED, read back from its pixels."""
    home = env["TALLYBOARD_EMULATOR_HOME"]
    running = json.loads((Path(home) / "running.json").read_text())
    oled = (Path(running["io"]) / "oled.bin").read_bytes()
    return [oled_text(oled, row) for row in range(10)]


@pytest.mark.process
def test_a_hand_from_the_host_waits_for_an_opponents_seat(emulate, tmp_path):
    env = emulate
    names = ["--name", "Ann", "--name", "Bob", "--name", "Cy", "--name", "Dee"]
    assert run("new", "skicket", "--confirm", *names, "--emulator", env=env).exit_code == 0
    # Ann bids 4 hearts, takes 10 (6 + 4, docs/rules.md SK2): made, SK7: A = 60 + 10 * 4 = 100 for
    # Ann and her partner Cy (hand 1: Ann+Cy, Bob+Dee); Bob and Dee 10 * (13 - 10) = 30 each
    out = run("hand", "Ann", "4H", "10", "--emulator", env=env)
    assert out.exit_code == 0, out.output
    assert out.output == ("skicket: Ann 0  Bob 0  Cy 0  Dee 0  (0 hands)\n"
                          "hand 1 pending: waiting for Bob (button B) or Dee (button D) to accept on the board\n"
                          "  it gives: Ann +100  Bob +30  Cy +100  Dee +30\n"
                          # and why, in the rules' words (the same arithmetic)
                          "why (hand 1, once accepted):\n"
                          "  Ann and Cy +100: made: the purchaser and his partner score the bid's value, 60 + 10 a "
                          "level (SK7)\n"
                          "  Bob and Dee +30: an adversary of a bid made: 10 for each trick the adversaries took "
                          "(SK7)\n")
    # the next hand is refused while one waits, in words that say what to do
    out = run("hand", "Bob", "1C", "7", "--emulator", env=env)
    assert out.exit_code != 0
    assert ("hand 1 is pending: it waits for Bob or Dee to accept on the board (a long press rejects)"
            in out.output), out.output
    # and the host adds which buttons those are
    assert out.output.rstrip().endswith("\nhand 1 pending: waiting for Bob (button B) or Dee (button D) to "
                                        "accept on the board"), out.output
    status = run("status", "--emulator", env=env).output
    assert "hand 1 pending: waiting for Bob (button B) or Dee (button D) to accept on the board" in status
    watch = run("watch", "--duration", "0.5", "--plain", "--emulator", env=env).output
    assert "hand 1 pending: waiting for Bob (button B) or Dee (button D) to accept on the board" in watch, watch
    # export: the record holds the hands that count (none yet), with a note; it loads back
    record = tmp_path / "pending.json"
    out = run("export", "-o", str(record), "--emulator", env=env)
    assert out.exit_code == 0, out.output
    assert ("note: hand 1 pending: waiting for Bob (button B) or Dee (button D) to accept on the board; it is left out of the "
            "record until it is accepted") in out.output
    assert json.loads(record.read_text())["hands"] == []
    sheet = run("sheet", str(record), "--json")
    assert sheet.exit_code == 0 and json.loads(sheet.output)["totals"] == [0, 0, 0, 0], sheet.output
    # the OLED names the buttons that accept, by the letters beside them: Bob's B, Dee's D
    until(lambda: _screen(env)[7].rstrip() == "ACCEPT: B (BOB) OR D (DEE)", 60, "the OLED's accepting buttons")
    # Ann (the purchaser) presses her seat: not hers to accept. press says so, in the board's
    # words (its NOTE), and the OLED says why on its last row
    assert _screen(env)[9].strip() == ""
    out = run("press", "seat0", env=env)
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[1] == ("refused: button A may not accept hand 1: its player is not an "
                                          "opponent; button B or D accepts it"), out.output
    assert "hand 1 pending: waiting for Bob (button B) or Dee (button D)" in out.output
    until(lambda: _screen(env)[9].rstrip() == "BUTTON A: ANN IS NOT AN OPPONENT", 10,
          "the board's words that Ann may not accept")
    # for a moment: the row clears by itself (3 s on the board's clock), the hand still pending
    until(lambda: _screen(env)[9].strip() == "", 60, "the refusal's words leaving the OLED")
    assert _screen(env)[7].rstrip() == "ACCEPT: B (BOB) OR D (DEE)"
    assert "hand 1 pending" in run("status", "--emulator", env=env).output
    out = run("press", "seat3", env=env)
    assert out.output.splitlines()[1] == "accepted: Dee (button D) accepted hand 1; it counts now", out.output
    assert "skicket: Ann 100  Bob 30  Cy 100  Dee 30  (1 hand)" in out.output
    assert "pending" not in run("status", "--emulator", env=env).output
    # a seat with nothing pending opens the board's hand entry: no change, and press says what the
    # entry shows (its ENTRY): hand 2, dealt from seat (2 + 1) mod 4 = 3, Dee's (rules.md SK3), and
    # seat 2's player, Cy, the purchaser
    out = run("press", "seat2", env=env)
    assert out.output.splitlines()[1].startswith("the hand entry opened: it shows HAND 2 DEALER Dee – "
                                                 "PURCHASER: Cy; turn the knob"), out.output
    out = run("press", "undo", env=env)           # the entry closes again (undo steps back out of it)
    assert out.output.splitlines()[1] == "the hand entry closed without scoring: nothing was entered", out.output
    # the undo of a counted hand waits too; a long press rejects it: the hand stays
    out = run("undo", "--emulator", env=env)
    assert out.output.endswith("the undo of hand 1 pending: waiting for Bob (button B) or Dee (button D) to accept on the board\n"
                               "  it gives: Ann -100  Bob -30  Cy -100  Dee -30\n"), out.output
    out = run("press", "seat1", "--hold", "0.9", env=env)
    assert out.output.splitlines()[1] == "rejected: Bob (button B) rejected the undo of hand 1; it is dropped", \
        out.output
    out = _status_until(env, "(1 hand)\n")
    assert "pending" not in out
    # again, accepted by Bob: nothing counts, the hand is on the redo stack
    run("undo", "--emulator", env=env)
    run("press", "seat1", env=env)
    _status_until(env, "skicket: Ann 0  Bob 0  Cy 0  Dee 0  (0 hands, 1 to redo)")
    # the record exported now loads back with the hand that counts: none
    out = run("export", "--emulator", env=env)
    assert json.loads(out.stdout)["hands"] == [] and "pending" not in out.output


@pytest.mark.emulator
def test_a_power_cut_keeps_a_hand_pending_and_the_board_accepts_it_after(tmp_path):
    with emulated_board(tmp_path / "flash") as (emulator, board):
        board.new("skicket", 4, CONFIRM)
        reply = board.game_verb("HAND", 1, "4H", None, None, 0, 10)
        event = skicket.pack_hand(1, 4, skicket.HEARTS, None, None, False, 10)
        assert reply["held"] == f"{HELD_APPLY},{event}" and reply["n"] == "0"
        emulator.cut_power()
        emulator.power_on()
        current = board.reconnect()
        assert current.held == (HELD_APPLY, event) and current.n == 0
        assert [current.game.total(p) for p in range(4)] == [0, 0, 0, 0]
        # hand 1: Ann+Cy, Bob+Dee; Bob's opponents are Ann (seat 0) and Cy (seat 2)
        emulator.tap(SEAT_PINS[2])
        events = board.poll_events(1.0)
        accepted = [e for e in events if e.kind == "ACCEPT"]
        # SK7: Bob and Dee 60 + 10 * 4 = 100 each; Ann and Cy 10 * (13 - 10) = 30
        assert accepted and accepted[0].fields["totals"] == "30,100,30,100", events
        after = board.rebuild()
        assert after.held is None and after.n == 1 and after.log == [event]
        # and the accepted hand survives the next cut
        emulator.cut_power()
        emulator.power_on()
        assert board.reconnect().log == [event]


@pytest.mark.emulator
@pytest.mark.process
def test_the_view_cache_is_never_served_across_an_accept_or_a_reject(tmp_path, monkeypatch):
    """A copy of the game kept while a hand waited has the same n, top and log as
    the game after the hand is rejected: only held tells them apart (viewcache)."""
    from tallyboard.boardlink import client

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sent: list[str] = []
    real = client.Board.send_frame

    def counting(self, seq, frame, timeout=None, renumber=None):
        sent.append(frame.decode().split(" ")[1].split("*")[0])
        return real(self, seq, frame, timeout, renumber)

    monkeypatch.setattr(client.Board, "send_frame", counting)
    with emulated_board(tmp_path / "flash") as (emulator, board):
        board.link.close()
        port = emulator.port
        assert run("new", "skicket", "--confirm", "-p", port).exit_code == 0
        first = run("hand", "0", "4H", "10", "-p", port)
        assert "hand 1 pending: waiting for P2 (button B) or P4 (button D)" in first.output, first.output
        emulator.tap(SEAT_PINS[1], hold=0.9)            # a long press of Bob's seat: rejected
        sent.clear()
        # corrected to 9 tricks: one short of 6 + 4 (SK2), failed; SK8: P1 nothing, her partner
        # P3 10 * 9 = 90, P2 and P4 10 * (13 - 9) = 40
        again = run("hand", "0", "4H", "9", "-p", port)
        assert sent.index("STATE") < sent.index("HAND"), sent    # the copy was read again, not trusted
        assert again.output == ("skicket: P1 0  P2 0  P3 0  P4 0  (0 hands)\n"
                                "hand 1 pending: waiting for P2 (button B) or P4 (button D) to accept on the board\n"
                                "  it gives: P1 +0  P2 +40  P3 +90  P4 +40\n"
                                "why (hand 1, once accepted):\n"
                                "  P1 0: the purchaser failed: he forfeits the count (SK8)\n"
                                "  P3 +90: partner of the purchaser who failed: 10 for each trick their side took "
                                "(SK8)\n"
                                "  P2 and P4 +40: an adversary of a bid failed: 10 for each trick the adversaries "
                                "took (SK8)\n"), again.output
        emulator.tap(SEAT_PINS[3])                       # P4 accepts
        sent.clear()
        out = run("undo", "-p", port)
        assert sent.index("STATE") < sent.index("UNDO"), sent
        assert out.output.startswith("skicket: P1 0  P2 40  P3 90  P4 40  (1 hand)\n"), out.output


def test_the_accepting_buttons_follow_the_pivot():
    """Issue 23: the host named who accepts but not which button; the seats
    pivot during a Skicket game (rules.md SK5), so after hand 2 the button
    beside seat 1 belongs to Cy and seat 2's to Bob. Ann bought hand 3: her
    opponents then are Bob (seat 2, button C) and Dee (seat 3, button D);
    in hand 5 (the second pivot: seats Ann, Cy, Dee, Bob) Bob sits at seat 3
    (button D) and Dee at seat 2 (button C)."""
    from tallycore import skicket

    from tallyboard.commands.connect import held_words

    class Held:   # a game holding a hand, its rules the real Skicket core's
        rules, players, held, held_by = skicket, 4, 1, 0b1010

        def __init__(self, hand):
            self.hand = hand

        def held_hand(self):
            return self.hand

    names = ["Ann", "Bob", "Cy", "Dee"]
    assert held_words(Held(1), names) == "hand 1 pending: waiting for Bob (button B) or Dee (button D) to accept on the board"
    assert held_words(Held(3), names) == "hand 3 pending: waiting for Bob (button C) or Dee (button D) to accept on the board"
    assert held_words(Held(5), names) == "hand 5 pending: waiting for Bob (button D) or Dee (button C) to accept on the board"


def test_the_host_names_the_buttons_by_the_boards_own_letters():
    """The letters come from the board definition the board runs (HELLO's
    board), the board's own OLED's: a definition may letter its buttons as it
    likes, and a seat with no button on the board is said so."""
    from tallycore import skicket

    from tallyboard.commands.connect import button_letters, held_words

    class Held:   # hand 3 held, Bob and Dee accept (seats after the pivot: Ann, Cy, Bob, Dee)
        rules, players, held, held_by = skicket, 4, 1, 0b1010

        def held_hand(self):
            return 3

    class Board:
        def __init__(self, name):
            self.hello_fields = {"board": name}

    names = ["Ann", "Bob", "Cy", "Dee"]
    assert button_letters(Board("pico-reference")) == "ABCD"
    assert button_letters(Board("no-such-board")) == "ABCD"            # not on this host: the default
    assert held_words(Held(), names, "WXYZ") == ("hand 3 pending: waiting for Bob (button Y) or Dee (button Z) "
                                                 "to accept on the board")
    # the serpentine build has two seat buttons, A and B: seats 2 and 3 have none
    assert button_letters(Board("pico2-serpentine-nooled")) == "AB"
    assert held_words(Held(), names, "AB") == ("hand 3 pending: waiting for Bob (no button on this board) or "
                                               "Dee (no button on this board) to accept on the board")


@pytest.mark.process
def test_after_the_pivot_the_board_and_the_host_name_the_same_buttons(emulate):
    """Issue 23's evening: in round 2 the seats had pivoted (rules.md SK5) and
    pressing the seat the seating list suggested did nothing, silently."""
    env = emulate
    names = ["--name", "Ann", "--name", "Bob", "--name", "Cy", "--name", "Dee"]
    assert run("new", "skicket", "--confirm", *names, "--emulator", env=env).exit_code == 0
    # hands 1 and 2: seats 0-3 hold Ann, Bob, Cy, Dee; Ann (with her partner Cy) bids 1C and takes 7
    # (6 + 1: made); her opponents Bob (button B) and Dee (button D) accept. SK7: Ann and Cy
    # 60 + 10 x 1 = 70 each, Bob and Dee 10 x (13 - 7) = 60 each
    for hand in (1, 2):
        out = run("hand", "Ann", "1C", "7", "--emulator", env=env)
        assert f"hand {hand} pending: waiting for Bob (button B) or Dee (button D)" in out.output, out.output
        out = run("press", "seat1", env=env)
        assert out.output.splitlines()[1] == f"accepted: Bob (button B) accepted hand {hand}; it counts now", \
            out.output
    # hand 3: after hand 2 Bob changed seats with seat 2 (Cy): seats 0-3 hold Ann, Cy, Bob, Dee, and
    # Ann's partner is Bob. Her opponents Cy (seat 1: button B) and Dee (seat 3: button D) accept
    out = run("hand", "Ann", "1C", "7", "--emulator", env=env)
    assert "hand 3 pending: waiting for Cy (button B) or Dee (button D) to accept on the board" in out.output
    until(lambda: _screen(env)[7].rstrip() == "ACCEPT: B (CY) OR D (DEE)", 60, "the OLED's accepting buttons")
    # button C, Cy's in the seating list, is Bob's now: refused, and both the host and the OLED say why
    out = run("press", "seat2", env=env)
    assert out.output.splitlines()[1] == ("refused: button C may not accept hand 3: its player is not an "
                                          "opponent; button B or D accepts it"), out.output
    until(lambda: _screen(env)[9].rstrip() == "BUTTON C: BOB IS NOT AN OPPONENT", 60, "the OLED's why")
    out = run("press", "seat1", env=env)
    assert out.output.splitlines()[1] == "accepted: Cy (button B) accepted hand 3; it counts now", out.output
    # hand 3, SK7: Ann and Bob 70 each, Cy and Dee 60: Ann 140 + 70, Bob 120 + 70, Cy 140 + 60, Dee 120 + 60
    assert "skicket: Ann 210  Bob 190  Cy 200  Dee 180  (3 hands)" in out.output, out.output


@pytest.mark.emulator
def test_the_lights_beside_the_accepting_buttons_on_a_board_without_an_oled(tmp_path):
    """The serpentine build (board/pico2-serpentine-nooled.json) has no OLED: the
    LED beside each seat button (132 beside A, 133 beside B) lights in its
    player's colour while that player may accept."""
    from tallypanel import boarddef

    from tallyboard.tooling import render

    flash = tmp_path / "flash"
    with emulated_board(flash) as (emulator, board):
        board.cfg_set("board", "pico2-serpentine-nooled")
        emulator.restart()
        board.hello()
        assert board.hello_fields["board"] == "pico2-serpentine-nooled"
        serpentine = render.find_board("pico2-serpentine-nooled")
        assert bytes(serpentine.seat_lights) == bytes((132, 133))
        board.new("skicket", 4, CONFIRM)
        # hand 1, seats Ann, Bob, Cy, Dee: Ann (player 0) buys 1C, takes 7; Bob and Dee accept. Bob sits
        # at seat 1, button B: LED 133 in his colour 0040FF at brightness 64: each channel v * 64 * 256
        # >> 16 = v // 4, GRB: (0x40 // 4, 0, 0xFF // 4) = (16, 0, 63); Ann's button A (LED 132) dark
        board.game_verb("HAND", 0, "1C", "-", "-", 0, 7)

        def light(led):
            frame = emulator.leds()
            return bytes(frame[3 * led:3 * led + 3]) if len(frame) >= 3 * 134 else None
        until(lambda: light(133) == bytes((16, 0, 63)), 60, "the light beside Bob's button")
        assert light(132) == bytes(3)
        emulator.tap(serpentine.seat_pins[1])          # Bob accepts: the lights go out
        until(lambda: light(133) == bytes(3), 60, "the light going out")
        assert board.state()["held"] == "-"
        assert boarddef.NO_LIGHT not in serpentine.seat_lights


@pytest.mark.emulator
def test_the_player_who_accepted_a_hand_is_in_the_event_the_record_and_kept_through_a_power_cut(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    names = ("Ann", "Bob", "Cy", "Dee")
    with emulated_board(tmp_path / "flash") as (emulator, board):
        for p, name in enumerate(names):
            board.cfg_set("name", name, p)
        board.new("skicket", 4, CONFIRM)
        board.game_verb("HAND", 0, "4H", None, None, 0, 10)
        # hand 1: Ann+Cy, Bob+Dee; Ann's opponents Bob (seat 1) and Dee (seat 3) may accept: Dee does
        emulator.tap(SEAT_PINS[3])
        seen: list = []

        def accepted():
            seen.extend(board.poll_events(0.2))
            return [e for e in seen if e.kind == "ACCEPT"]

        event = until(accepted, 60, "the ACCEPT event")[0]
        assert event.fields["who"] == "3", event       # Dee is player 3
        # SK7: Ann and Cy 60 + 10 * 4 = 100 each; Bob and Dee 10 * (13 - 10) = 30
        assert event.fields["totals"] == "100,30,100,30", event
        hand = {"purchaser": 0, "bid": "4H", "doubled_by": None, "redoubled_by": None, "lone": False,
                "tricks": 10, "accepted_by": 3}
        emulator.cut_power()
        emulator.power_on()
        current = board.reconnect()
        assert current.n == 1 and current.game.accepted_by(0) == 3
        assert records.to_document("skicket", list(names), {}, current.game)["hands"] == [hand]
        board.link.close()
        out = run("export", "-p", emulator.port)
        assert out.exit_code == 0, out.output
        doc = json.loads(out.stdout)
        assert doc["players"] == list(names) and doc["hands"] == [hand]
        # the record exported loads back with who accepted it
        assert records.loads(out.stdout).game.accepted_by(0) == 3

