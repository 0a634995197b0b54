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
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from emu_fixtures import emulated_board, oled_text, until

from tallycore import skicket
from tallycore.game import CONFIRM, HELD_APPLY
from tallyboard.cli import main

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
    for _ in range(30):
        out = run("status", "--emulator", env=env).output
        if wanted in out:
            return out
        time.sleep(0.1)
    raise AssertionError(f"{wanted!r} never came; last status:\n{out}")


def _screen(env: dict) -> list[str]:
    """The rows of the running emulator's OLED, read back from its pixels."""
    home = env["TALLYBOARD_EMULATOR_HOME"]
    running = json.loads((Path(home) / "running.json").read_text())
    oled = (Path(running["io"]) / "oled.bin").read_bytes()
    return [oled_text(oled, row) for row in range(10)]


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
                          "  it gives: Ann +100  Bob +30  Cy +100  Dee +30\n")
    # the next hand is refused while one waits, in words that say what to do
    out = run("hand", "Bob", "1C", "7", "--emulator", env=env)
    assert out.exit_code != 0
    assert ("hand 1 is pending: it waits for Bob or Dee to accept on the board (a long press rejects)"
            in out.output), out.output
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
    # Ann (the purchaser) presses her seat: not hers to accept; Dee's seat accepts
    assert _screen(env)[9].strip() == ""
    assert run("press", "seat0", env=env).exit_code == 0
    # the board took the press: its OLED says why it is not hers (its note line, the last row)
    until(lambda: _screen(env)[9].startswith("HAND 1 IS PENDING: IT WAITS FOR"), 10,
          "the board's note that Ann may not accept")
    assert "hand 1 pending" in run("status", "--emulator", env=env).output
    run("press", "seat3", env=env)
    _status_until(env, "skicket: Ann 100  Bob 30  Cy 100  Dee 30  (1 hand)")
    assert "pending" not in run("status", "--emulator", env=env).output
    # the undo of a counted hand waits too; a long press rejects it: the hand stays
    out = run("undo", "--emulator", env=env)
    assert out.output.endswith("the undo of hand 1 pending: waiting for Bob (button B) or Dee (button D) to accept on the board\n"
                               "  it gives: Ann -100  Bob -30  Cy -100  Dee -30\n"), out.output
    run("press", "seat1", "--hold", "0.9", env=env)
    out = _status_until(env, "(1 hand)\n")
    assert "pending" not in out
    # again, accepted by Bob: nothing counts, the hand is on the redo stack
    run("undo", "--emulator", env=env)
    run("press", "seat1", env=env)
    _status_until(env, "skicket: Ann 0  Bob 0  Cy 0  Dee 0  (0 hands, 1 to redo)")
    # the record exported now loads back with the hand that counts: none
    out = run("export", "--emulator", env=env)
    assert json.loads(out.output)["hands"] == [] and "pending" not in out.output


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


def test_the_view_cache_is_never_served_across_an_accept_or_a_reject(tmp_path, monkeypatch):
    """A copy of the game kept while a hand waited has the same n, top and log as
    the game after the hand is rejected: only held tells them apart (viewcache)."""
    from tallyboard import client

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sent: list[str] = []
    real = client.Board.send_frame

    def counting(self, seq, frame, timeout=None):
        sent.append(frame.decode().split(" ")[1].split("*")[0])
        return real(self, seq, frame, timeout)

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
                                "  it gives: P1 +0  P2 +40  P3 +90  P4 +40\n"), again.output
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

    from tallyboard.commands.link import held_words

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
