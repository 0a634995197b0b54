"""A rejected hand of a game entered from its description (docs/rules.md CF1,
docs/display.md "A hand waiting for its confirmation"), on the emulated board
with the real firmware: a Rummy hand of several events entered with the knob,
confirmation forced on, rejected by a long press of a seat: nothing of it
counts or stays applied, and the entry reopens on it with its values;
corrected and accepted, the corrected hand counts. Then what `sheet` and
`archive save` say of a hand pending."""
from __future__ import annotations

import pytest
import json

from click.testing import CliRunner

from emu_fixtures import emulated_board, until
from tallycore import rummy
from tallycore.game import CONFIRM
from tallyboard.cli import main

pytestmark = [pytest.mark.emulator]

SEAT_PINS = (10, 11, 12, 13)                 # board/pico-reference.json: seats 0..3
KNOB_A, KNOB_B, KNOB_PUSH = 16, 17, 18


def card(player, rank):
    """A card of the board's Rummy entry: its rank, no suit (4)."""
    return rummy.pack_card(player, rank | 4 << 4)


def push(emulator, turns=0):
    if turns:
        emulator.turn(KNOB_A, KNOB_B, turns)
    emulator.tap(KNOB_PUSH)


def wait_for(board, done, deadline_s=5.0):
    """The board's game once done(it) holds."""
    last = []

    def there():
        last[:] = [board.rebuild()]
        return last[0] if done(last[0]) else None

    return until(there, deadline_s, "the board's game as the test waits for it",
                 explain=lambda: f"the board's game: n={last[0].n}, held {last[0].held}")


def totals(state):
    return [state.game.total(p) for p in range(3)]


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_a_rejected_rummy_hand_entered_on_the_knob_goes_whole_and_reopens(tmp_path):
    with emulated_board(tmp_path / "flash", timeout=3.0) as (emulator, board):
        board.new("rummy", 3, CONFIRM)
        # docs/display.md's entry: the cards step shows A to K (indexes 0-12) then DONE (13), and
        # starts at the rank chosen last at it (A at first); the OUT step at player 1
        push(emulator)                       # the knob opens the entry: P1's cards
        push(emulator, -1)                   # A -> DONE (13): P1 went out, holds none
        push(emulator, 9)                    # P2: A -> 10
        push(emulator, -7)                   # 10 -> 3
        push(emulator, 1)                    # 3 -> 4
        push(emulator, 10)                   # 4 -> DONE
        push(emulator, 9)                    # P3: 4 -> K
        push(emulator, 1)                    # K -> DONE
        push(emulator)                       # out: P1
        push(emulator)                       # SAVE THE HAND? YES
        state = wait_for(board, lambda s: s.held is not None)
        # the four cards applied at once, the OUT held (CF1)
        assert state.held == (1, rummy.pack_out(0)) and state.n == 4, state
        # RU2, RU3: P2 10 + 3 + 4 = 17 against, P3 a king, 13; P1 out scored 0, the best (CF2)
        assert list(state.game.held_scores)[:3] == [0, 17, 13]
        emulator.tap(SEAT_PINS[1], hold=0.9)           # a long press of P2's seat: rejected
        state = wait_for(board, lambda s: s.held is None and s.n == 0)
        assert (state.held, state.n, totals(state)) == (None, 0, [0, 0, 0])
        # nothing of the hand applied, nor waiting to be redone: the rejected hand goes whole (CF1)
        assert state.game.n == 0 and state.log == []
        # the entry is open at SAVE THE HAND? with the hand's values: the keeper holds the knob
        # back five values (out, P3's DONE and K, P2's DONE) to P2's 4, shown, and makes it a 5
        for _ in range(5):
            emulator.tap(KNOB_PUSH, hold=0.9)
        push(emulator, 1)                    # 4 -> 5
        push(emulator, 9)                    # 5 -> DONE
        push(emulator, 8)                    # P3: 5 -> K
        push(emulator, 1)                    # K -> DONE
        push(emulator)                       # out: P1
        push(emulator)                       # YES
        state = wait_for(board, lambda s: s.held is not None)
        assert state.held == (1, rummy.pack_out(0)), state
        assert state.log == [card(1, 10), card(1, 3), card(1, 5), card(2, 13)]
        port = emulator.port
        board.link.close()
        # the sheet on the live board says so, and --json carries it (docs/records.md)
        out = run("sheet", "--port", port)
        assert out.exit_code == 0, out.output
        assert out.output.rstrip().endswith("hand 1 pending: waiting for P2 (button B) or P3 (button C) to accept on the board: "
                                            "not on the sheet until accepted"), out.output
        out = run("sheet", "--json", "--port", port)
        doc = json.loads(out.output)
        assert doc["pending"] == {"hand": 1, "waiting_for": ["P2", "P3"]}
        assert doc["totals"] == [0, 0, 0]
        # archive save leaves it out, with export's note
        out = CliRunner().invoke(main, ["archive", "save", "--archive",
                                          str(tmp_path / "a.sqlite3"), "--port", port])
        assert out.exit_code == 0, out.output
        assert out.stderr == ("tallyboard: note: hand 1 pending: waiting for P2 (button B) or P3 (button C) to accept on the board; "
                              "it is left out of the record until it is accepted\n"
                              "tallyboard: note: the game is not over, so its record is not signed: the board signs its "
                              "game's chain once it is over (docs/records.md, The chain)\n"), out.stderr
        # the archived game holds no hand: the pending one's cards go with it (CF1)
        listed = run("archive", "show", "1", "--json", "--archive", str(tmp_path / "a.sqlite3"))
        assert json.loads(listed.output)["hands"] == [], listed.output
        emulator.tap(SEAT_PINS[2])                      # P3 accepts
        out = run("sheet", "--json", "--port", port)
        doc = json.loads(out.output)
        # RU2, RU3: P2 10 + 3 + 5 = 18 against, P3 13, P1 0; no hand pending any more
        assert doc["totals"] == [0, 18, 13] and "pending" not in doc, doc
