"""A hand of each of the sixteen games entered on the emulated board (the real
firmware) with `tallyboard press`, no host command in between but starting the
game; the board's totals are the ones worked out by hand from docs/rules.md
(the arithmetic beside each hand in tests/mp/test_entry.py's HANDS, and in
emu_fixtures.py for Skicket and Roquet). The entry cost of each hand is the figure of
docs/display.md. And, property-style: whatever is pressed, the entry never
sends an event the core refuses, and every refusal is on the screen."""
from __future__ import annotations

import contextlib

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

import test_entry as hands   # tests/mp/test_entry.py: the hands and their arithmetic
from emu_fixtures import EVERY_GAME, ROQUET, SKICKET
from tallyboard.tooling import emulator as emu_mod
from tallyboard.cli import main
from tallyboard.boardlink.client import Board
from tallyboard.tooling.emulator import Emulator
from tallyboard.boardlink.transport import SerialTransport
from tallypanel import menu
from tallycore import games
from waiting import until

ROOT = Path(__file__).resolve().parent.parent
PUSH, HOLD, turn, seat = hands.PUSH, hands.HOLD, hands.turn, hands.seat


def press_args(one) -> list[list[str]]:
    """The `tallyboard press` commands of one input."""
    if isinstance(one, tuple):
        kind, value = one
        if kind == menu.TURN:
            return [["press", "right" if value > 0 else "left", "--times", str(abs(value))]]
        if kind == menu.SEAT_LONG:
            return [["press", f"seat{value}", "--hold", "0.8"]]
        return [["press", f"seat{value}", "--hold", "0.1"]]
    if one == HOLD:
        return [["press", "push", "--hold", "0.8"]]
    return [["press", "push", "--hold", "0.1"]]


def _with_a_hand(game):
    return game if game.hands() == 1 else None


@pytest.mark.emulator
def test_every_game_is_entered_with_presses_on_the_emulated_board(tmp_path, monkeypatch):
    assert sorted(row[0] for row in EVERY_GAME) == sorted(games.names())
    home = tmp_path / "home"
    monkeypatch.setenv("TALLYBOARD_EMULATOR_HOME", str(home))
    runner = CliRunner()
    with Emulator(flash=tmp_path / "flash") as emulator:
        emu_mod.write_running(emulator)        # as `tallyboard emulate` does: press finds it
        link = SerialTransport(emulator.port)
        board = Board(link, timeout=3.0)
        try:
            board.connect()
            for name, players, inputs, totals, _cost in EVERY_GAME:
                board.new(name, players)
                for one in inputs:
                    for args in press_args(one):
                        out = runner.invoke(main, args)
                        assert out.exit_code == 0, out.output
                game = until(lambda: _with_a_hand(board.rebuild().game), 60, f"{name}'s hand on the board",
                             every=0.1, explain=lambda: f"the board's game: {board.rebuild().game.hands()} hands")
                got = [game.total(p) for p in range(players)]
                assert (name, game.hands(), got) == (name, 1, totals)
        finally:
            link.close()
            emu_mod.clear_running()


def test_the_entry_costs_in_display_md_are_the_counted_ones():
    """docs/display.md's table: presses and detents of each example hand, as
    the hands above count them."""
    text = (ROOT / "docs" / "display.md").read_text()
    table = {}
    for line in text.splitlines():
        m = re.match(r"\|\s*([A-Za-z ]+?)\s*\|.*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*$", line)
        if m:
            table[m.group(1).lower().replace(" ", "_")] = (int(m.group(2)), int(m.group(3)))
    for name, _players, _inputs, _totals, cost in EVERY_GAME:
        assert table.get(name) == cost, (name, table.get(name), cost)
    # Skicket's target: a hand in at most 8 presses.
    assert SKICKET[4][0] <= 8


def test_the_cost_of_skicket_and_roquet_is_counted():
    for name, players, inputs, totals, cost in (SKICKET, ROQUET):
        b = hands.Board(name, players)
        b.do(*inputs)
        assert b.totals() == totals and (b.presses, b.detents) == cost, (name, b.totals())


# --- property: no event the core refuses, no refusal unsaid -----------------------

SHORT_GAMES = [(row[0], row[1]) for row in hands.HANDS] + [("moosehead", 3)]
INPUT = st.one_of(
    st.just(PUSH), st.just(HOLD), st.just((menu.UNDO, 0)),
    st.integers(-3, 3).filter(bool).map(turn),
    st.integers(0, 3).map(seat))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(SHORT_GAMES), st.lists(INPUT, max_size=60))
def test_the_entry_sends_only_what_the_core_takes_and_shows_every_refusal(game, inputs):
    name, players = game
    b = hands.Board(name, players)
    refused: list[str] = []
    rules = b.game.rules
    check = rules.check

    def watched(state, n, event):
        try:
            check(state, n, event)
        except ValueError as exc:
            refused.append(str(exc))
            raise

    rules.check = watched
    try:
        for one in inputs:
            refused.clear()
            before = b.game.n
            b.do(one)           # Board.submit raises (failing the test) if the core refuses a sent event
            entry = b.input.entry
            if refused and b.game.n == before:
                shown = entry.error if entry.active else b.input.note
                assert shown == refused[-1], (one, refused, shown)
    finally:
        rules.check = check


NEXT = ("turn the knob (press right/left) to change the value, press push for the next step, "
        "push --hold 0.8 to go back")


@contextlib.contextmanager
def skicket_to_press(tmp_path, monkeypatch):
    """A running emulator (as `tallyboard emulate` leaves it for `press`) with a Skicket game of
    P1 to P4 started: (runner, board), the board's link open for the test to score with."""
    monkeypatch.setenv("TALLYBOARD_EMULATOR_HOME", str(tmp_path / "home"))
    with Emulator(flash=tmp_path / "flash") as emulator:
        emu_mod.write_running(emulator)
        link = SerialTransport(emulator.port)
        board = Board(link, timeout=3.0)
        try:
            board.connect()
            board.new("skicket", 4)       # players P1 to P4; hand 1 is dealt from seat 2, P3's (SK3)
            yield CliRunner(), board
        finally:
            link.close()
            emu_mod.clear_running()


@pytest.mark.emulator
def test_press_says_what_the_hand_entry_shows(tmp_path, monkeypatch):
    """Issue 32, item 2: each press during a hand entry says its step and value as the OLED
    shows them (tallypanel/skicketview.py's steps: PURCHASER, BID LEVEL, STRAIN ...)."""
    with skicket_to_press(tmp_path, monkeypatch) as (runner, board):
        board.link.close()            # press opens the port itself

        def press(*args: str) -> str:
            return run_ok(runner, "press", *args).splitlines()[-1]

        # seat 1's player, P2, is the purchaser; the bid starts at level 1
        assert press("seat1") == f"the hand entry opened: it shows HAND 1 DEALER P3 – PURCHASER: P2; {NEXT}"
        assert press("push") == ("the hand entry moved: it shows HAND 1 DEALER P3 – BID LEVEL: 1 "
                                 f"(entered so far: P2); {NEXT}")
        # three detents right: level 1 + 3 = 4
        assert press("right", "--times", "3") == ("the hand entry moved: it shows HAND 1 DEALER P3 – "
                                                  f"BID LEVEL: 4 (entered so far: P2); {NEXT}")
        assert press("push") == ("the hand entry moved: it shows HAND 1 DEALER P3 – STRAIN: CLUBS "
                                 f"(entered so far: P2 4); {NEXT}")
        # held: back one step, the level kept
        assert press("push", "--hold", "0.8") == ("the hand entry moved: it shows HAND 1 DEALER P3 – "
                                                  f"BID LEVEL: 4 (entered so far: P2); {NEXT}")
        assert press("push", "--hold", "0.8").startswith("the hand entry moved: it shows HAND 1 DEALER P3 – "
                                                         "PURCHASER: P2;")
        # held on the first step: the entry closes, nothing scored
        assert press("push", "--hold", "0.8") == "the hand entry closed without scoring: nothing was entered"
        assert run_ok(runner, "status", "--emulator").splitlines()[-1] == "skicket: P1 0  P2 0  P3 0  P4 0  (0 hands)"


@pytest.mark.emulator
def test_press_reads_the_why_screen_the_knob_opens_and_says_when_it_is_left(tmp_path, monkeypatch):
    """A turn of the knob outside an entry opens the why screen (docs/display.md): press says what it
    shows, read from the OLED, where it said "nothing happened"; a push leaves it, and press says so."""
    with skicket_to_press(tmp_path, monkeypatch) as (runner, board):
        # hand 1: P2 (seat 1) buys 4H, not doubled, and takes 10 tricks (SK7): P2 and P4 score the
        # bid's value 60 + 10 x 4 = 100; P1 and P3, 10 for each of the 13 - 10 = 3 tricks = 30
        board.request("HAND", 1, "4H", "-", "-", 0, 10)
        board.link.close()
        said = run_ok(runner, "press", "right").splitlines()[1]
        assert said.startswith("the why screen: WHY HAND 1 OF 1: P2 AND P4 +100: MADE: THE PURCHASER AND HIS "
                               "PARTNER SCORE THE BID'S VALUE, 60 + 10 A LEVEL (SK7) / P3 AND P1 +30: ")
        assert said.endswith("(SK7); turn the knob (press right/left) for another hand, press push for its "
                             "next page, any other control leaves it")
        assert run_ok(runner, "press", "push").splitlines()[1] == "left the why screen: the board shows its sheet again"


def run_ok(runner, *args: str) -> str:
    out = runner.invoke(main, list(args))
    assert out.exit_code == 0, out.output
    return out.output


@pytest.mark.emulator
def test_watch_draws_the_hand_entry_the_oled_shows_readably_at_80_columns(tmp_path):
    """Issue 32, items 2 and 7: while a hand entry is open on the board, watch's picture of
    the OLED is that entry's screen, not the sheet; the OLED is drawn as the rows of text it
    shows, a box 36 columns wide and 12 lines tall (not 32 lines of pixels), whole at 80."""
    from rich.console import Console
    from tallyboard.commands.emulation import board_buttons
    from tallyboard.commands.live import render_board

    with Emulator(flash=tmp_path / "flash") as emulator:
        link = SerialTransport(emulator.port)
        board = Board(link, timeout=3.0)
        try:
            board.connect()
            board.new("skicket", 4)
            pins = board_buttons(emulator.flash)

            def drawn() -> list[str]:
                console = Console(record=True, width=80)
                console.print(render_board(board, 80))
                return console.export_text().splitlines()

            lines = drawn()
            top = next(i for i, line in enumerate(lines) if line.startswith("┌"))
            assert lines[top + 1] == "│ #D   P1   P2   P3   P4 CONTRACT  │"
            assert lines[top + 11] == "└" + "─" * 34 + "┘"     # ten rows: the sheet's layout
            emulator.tap(pins["seat1"], 0.15, 1)      # P2 opens the entry as purchaser
            emulator.tap(pins["push"], 0.15, 1)       # to the bid's level
            lines = until(lambda: (lambda got: got if any("BID LEVEL" in line for line in got) else None)(drawn()),
                          5, "the entry's second step in watch's picture")
            top = next(i for i, line in enumerate(lines) if line.startswith("┌"))
            # the entry screen (tallypanel/sheetview.py draw_entry): heading, step, the value between
            # arrows in big characters (spaced), what is entered so far, the knob's help
            assert lines[top + 1: top + 10] == [
                "│ HAND 1  DEALER P3                │",
                "│ BID LEVEL                        │",
                "│ <               1             >  │",
                "│ P2                               │",
                "│                                  │",
                "│                                  │",
                "│                                  │",
                "│ TURN:CHOOSE PUSH:OK HOLD:BACK    │",
                "└" + "─" * 34 + "┘",
            ]
            assert "the board's hand entry: HAND 1 DEALER P3 – BID LEVEL: 1 (entered so far: P2)" in lines
            assert max(len(line) for line in lines) <= 80
        finally:
            link.close()
