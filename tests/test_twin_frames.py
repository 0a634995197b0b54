"""The board's own screen and lights on the chip, pixel for pixel (issue 20,
item 3): a hand of each of the sixteen games (Roquet: its pegs and its end)
is entered with the board's buttons and knob on the device twin (the firmware
on an emulated RP2040 running stock MicroPython, its SSD1306, WS2812 chain,
buttons and encoder modelled) and, press for press, on the unix-port
emulator; after every event the twin's OLED display RAM and LED frame must
equal the emulator's.

Each game: NEW from the host; the hand (tests/emu_fixtures.py's EVERY_GAME);
the undo button; REDO from the host; `config set confirm 1`; the undo button
again, now held for an opponent's confirmation (HELD), and its accept by the
lowest seat allowed to accept (ACCEPT); REDO from the host, the hand held
again (HELD: its confirmation screen, as after a hand saved on the board), and
its accept; `config set confirm 0`. After each of these the events each board
pushed are the ones expected, the emulator's display catches up with what the
firmware composes for its game (board_frames.Composer: the display has been
drawn), and the twin's display, once its parts have been quiet 100 ms of its
own time, holds the same bytes, its SSD1306 on and not inverted, and its parts'
models found nothing wrong in the I2C stream or the WS2812 timing. The totals
after the accepted hand are the ones worked out by hand (emu_fixtures.py,
tests/mp/test_entry.py). A difference names the game, the step, the OLED rows
and the LEDs, and leaves both frames as PNGs in out/twin-frames/.

One deploy and one boot of the twin; the games follow each other on it (sixteen NEWs in
a row on the chip's heap: tests/test_twin_game_switch.py plays many more), about 140 s of
the twin's time, printed at the end (its wall time depends on the machine's load: the waits
are bounded against a hang only, never fixed: bench/twin_harness.py's PATIENCE). Under CI=true
a twin that cannot run fails the test."""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

import test_entry as hands   # tests/mp/test_entry.py: the board's input as the firmware routes it
from board_frames import Composer, Shown, difference, mismatch, wait_for
from emu_fixtures import EVERY_GAME, LONG_S, SHORT_S, describe_input, press_on_emulator
from tallyboard.tooling import render
from tallyboard.boardlink.client import Board
from tallyboard.boardlink.session import Event
from tallyboard.tooling.emulator import Emulator
from tallyboard.boardlink.transport import SerialTransport
from tallycore import games
from tallypanel import menu
from twin_support import WHY_NOT, deployed_twin, device_twin

pytestmark = [pytest.mark.emulator, pytest.mark.twin, pytest.mark.process]
# The emulator is the reference picture here, every game played through on one board: the unix port's
# 384K (the Pico-sized heap of tooling/emulator.py) ran out of room in its input task twice in four runs
# late in the sixteen games, a 1 KB read; the chip's own heap is the twin's, beside it, judged by the heap
# tests (tests/test_game_switch_heap.py, tests/test_twin_game_switch.py), not by this one
REFERENCE_HEAP = "512K"

ROOT = Path(__file__).resolve().parent.parent
BOARD_NAME = "pico-reference"
# Bounds on waits for a condition (each returns as soon as it holds), against a hang only: a
# step's time on a quiet machine times the harness's PATIENCE
EVENTS_S = device_twin.patient(3)        # the events of one step, after its input was taken
CAUGHT_UP_S = device_twin.patient(3)     # the emulator's display drawn after an event
TWIN_CAUGHT_UP_S = device_twin.SETTLE_S  # the twin's (it runs busy code at about a quarter of a Pico's speed)


class Side:
    """One board in the comparison: its host link and its controls."""
    name = "board"
    board: Board

    def press(self, one) -> None:
        raise NotImplementedError

    def shown(self) -> Shown:
        raise NotImplementedError

    def settle(self) -> None:
        """Wait until the display has had its chance to draw (the twin's parts quiet)."""

    def check_parts(self, where: str) -> None:
        """What the board's parts' models found wrong (the twin's); nothing here."""


class EmulatorSide(Side):
    name = "emulator"

    def __init__(self, emulator: Emulator, definition) -> None:
        self.emulator = emulator
        self.definition = definition
        self.link = SerialTransport(emulator.port)
        self.board = Board(self.link, timeout=device_twin.REPLY_S)
        self.board.connect()

    def press(self, one) -> None:
        press_on_emulator(self.emulator, self.definition, one)

    def shown(self) -> Shown:
        # no frame written yet (the firmware sends one only when it differs from
        # the last): the chain is dark, as WS2812s are from power-up
        return Shown(self.emulator.leds() or bytes(3 * self.definition.led_count), self.emulator.oled())

    def close(self) -> None:
        self.link.close()


class TwinSide(Side):
    """The device twin: its own buttons and knob pressed through its control
    port (contact bounce included), its SSD1306's display RAM and its WS2812
    chain's decoded frame read there."""
    name = "twin"
    QUIET_MS = 100       # the parts quiet this long (emulated) after an input: the painter
    #                      looks every 40 ms once the host has been quiet 25 ms (tallypanel/start.py)

    def __init__(self, twin) -> None:
        self.twin = twin
        self.control = twin.control
        self.board = twin.board()

    def press(self, one) -> None:
        control = self.control
        if not isinstance(one, tuple):
            control.press("push", ms=1000 * (SHORT_S if one == menu.PUSH else LONG_S))
        else:
            kind, value = one
            if kind == menu.TURN:
                control.turn(value)
            elif kind == menu.UNDO:
                control.press("undo", ms=1000 * SHORT_S)
            else:
                control.press(f"seat{value}", ms=1000 * (LONG_S if kind == menu.SEAT_LONG else SHORT_S))
        # released: the buttons are read every 50 ms, so the next press waits for the release to be seen
        self.settle()

    def settle(self) -> None:
        self.control.settle(quiet_ms=self.QUIET_MS, most_s=TWIN_CAUGHT_UP_S)

    def shown(self) -> Shown:
        return Shown(self.control.leds().grb, self.control.oled().ram)

    def check_parts(self, where: str) -> None:
        oled = self.control.oled()
        assert oled.on and not oled.inverted and oled.present, \
            f"{where}: the twin's OLED is {'on' if oled.on else 'off'}, " \
            f"{'inverted' if oled.inverted else 'not inverted'}, {'present' if oled.present else 'not answering'}"
        found = self.control.errors()
        assert found == {"ssd1306": [], "ws2812": []}, f"{where}: the twin's parts saw the firmware break their " \
            f"protocol: {found}"

    def close(self) -> None:
        self.board.link.close()


@dataclass
class Step:
    label: str
    kinds: list[str]                 # the events it must bring, in order
    act: Callable[[Side], None]


def pressing(one) -> Callable[[Side], None]:
    return lambda side: side.press(one)


def accepting(side: Side) -> None:
    """Press the seat of the first player the HELD event names as one who may
    accept (`by`, a bit mask of players), through the seat that player sits in
    for the held hand (Skicket's players pivot between seats: docs/rules.md
    SK5, player_seat)."""
    held = [e for e in side.board.events if e.kind == "HELD"][-1]
    by = int(held.fields["by"])
    player = (by & -by).bit_length() - 1
    game = side.board.rebuild().game
    player_seat = getattr(game.rules, "player_seat", None)
    side.press((menu.SEAT, player if player_seat is None else player_seat(game.held_hand() - 1, player)))


def game_steps(row) -> list[Step]:
    """The steps of one game, the events of each worked out from the inputs as
    the firmware's menu routes them (tests/mp/test_entry.py's Board: which
    input saves the hand, and how many events the save sends)."""
    name, players, inputs, _totals, _cost = row
    steps = [Step(f"new {name} {players}", ["NEW"], lambda side: side.board.new(name, players))]

    routed = hands.Board(name, players)
    for i, one in enumerate(inputs, 1):
        before = len(routed.sent)
        routed.do(one)
        steps.append(Step(f"input {i} of {len(inputs)}: {describe_input(one)}", ["EV"] * (len(routed.sent) - before),
                          pressing(one)))

    steps.append(Step("undo button", ["UNDO"], pressing((menu.UNDO, 0))))
    steps.append(Step("redo from the host", ["REDO"], lambda side: side.board.redo()))
    steps.append(Step("config set confirm 1", ["CFG"], lambda side: side.board.cfg_set("confirm", "1")))
    # with confirmation on, the undo of the hand and its redo wait for an opponent (rules.md CF1)
    steps.append(Step("undo button (held)", ["HELD"], pressing((menu.UNDO, 0))))
    steps.append(Step("accept the undo on an opponent's seat", ["ACCEPT"], accepting))
    steps.append(Step("redo from the host (held)", ["HELD"], lambda side: side.board.redo()))
    steps.append(Step("accept the hand on an opponent's seat", ["ACCEPT"], accepting))
    steps.append(Step("config set confirm 0", ["CFG"], lambda side: side.board.cfg_set("confirm", "0")))
    return steps


def take_events(side: Side, mark: int, step: Step, seconds: float) -> list[Event]:
    """The events side's board pushed since mark, once step's are all there."""
    board = side.board
    deadline = time.monotonic() + seconds
    while len(board.events) - mark < len(step.kinds):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        board.poll_events(left, first=True)
    return board.events[mark:]


class Comparison:
    """Runs steps on the reference (the emulator) and the sides compared with
    it, and checks every event step as the module's docstring says."""

    def __init__(self, reference: EmulatorSide, others: list[Side], folder: Path) -> None:
        self.reference = reference
        self.others = others
        self.sides = [reference, *others]
        self.folder = folder
        self.definition = render.find_board(BOARD_NAME)
        self.composer = Composer(reference.board, BOARD_NAME)
        self.compared = 0

    def play(self, game_no: int, row, step_no: int, step: Step) -> None:
        where = f"{row[0]}, step {step_no} ({step.label})"
        marks = [len(side.board.events) for side in self.sides]
        with ThreadPoolExecutor(len(self.sides)) as pool:     # the same input on every board at once
            for done in [pool.submit(step.act, side) for side in self.sides]:
                done.result()
        if not step.kinds:
            return
        for side, mark in zip(self.sides, marks):
            got = [event.kind for event in take_events(side, mark, step, EVENTS_S)]
            assert got == step.kinds, f"{where}: the {side.name} pushed {got}, not {step.kinds}"
        stem = f"{game_no:02d}-{row[0]}-step{step_no:02d}"
        composed = self.composer.compose(self.reference.board)
        drawn, reference = wait_for(self.reference.shown, composed, CAUGHT_UP_S)
        assert drawn, mismatch(self.definition, self.folder, stem, "composed", composed, "emulator", reference) \
            + f" ({where}: the emulator's display did not catch up within {CAUGHT_UP_S} s)"
        for side in self.others:
            side.settle()
            got = side.shown()
            if got != reference:
                # what the board itself says: its error count (a display that failed is counted) and notes
                stats = side.board.request("STATS")
                notes = [e.fields.get("text") for e in side.board.events if e.kind == "NOTE"]
                assert got == reference, mismatch(self.definition, self.folder, stem, "emulator", reference,
                                                  side.name, got) + f" ({where}; the {side.name}'s STATS {stats}, " \
                                                                   f"its NOTE events {notes})"
            side.check_parts(where)
        self.compared += 1

    def run(self, game_no: int, row) -> None:
        name, players, _inputs, totals, _cost = row
        for step_no, step in enumerate(game_steps(row), 1):
            self.play(game_no, row, step_no, step)
        for side in self.sides:
            game = side.board.rebuild().game
            assert (game.hands(), [game.total(p) for p in range(players)]) == (1, totals), \
                f"{name}: the {side.name}'s totals after the accepted hand"


# a difference's two pictures (kept after the run, unlike pytest's tmp folders: out/ is not committed)
FRAMES_DIR = ROOT / "out" / "twin-frames"


@pytest.fixture(scope="module")
def twin_board(tmp_path_factory):
    """A blank twin with the firmware deployed once through the CLI; stopped
    (node, the pty bridge) whatever happens."""
    if WHY_NOT is not None:      # (under CI, twin_support refused to run without it)
        pytest.skip(f"the device twin cannot run here: {WHY_NOT}")
    twin = deployed_twin(tmp_path_factory, "twin")
    try:
        twin.start()
        yield twin
    finally:
        twin.stop()


@pytest.mark.twin
def test_every_game_shows_the_same_on_the_twin_as_in_the_emulator(twin_board, tmp_path):
    started = time.monotonic()
    definition = render.find_board(BOARD_NAME)
    twin = TwinSide(twin_board)
    twin_started = twin.control.stats()["emu_ms"]
    try:
        with Emulator(flash=tmp_path / "flash", heap_size=REFERENCE_HEAP) as emulator:
            reference = EmulatorSide(emulator, definition)
            try:
                comparison = Comparison(reference, [twin], FRAMES_DIR)
                assert comparison.composer.names == Composer(twin.board, BOARD_NAME).names
                for game_no, row in enumerate(EVERY_GAME, 1):
                    comparison.run(game_no, row)
            finally:
                reference.close()
    finally:
        twin.close()
    twin_s = (twin_board.control.stats()["emu_ms"] - twin_started) / 1000
    print(f"the comparison took {twin_s:.0f} s of the twin's time, {time.monotonic() - started:.0f} s of wall time")
    assert sorted(row[0] for row in EVERY_GAME) == sorted(games.names())
    # every game: NEW, its hand's events, undo, redo, confirm on, held undo, accept, held redo, accept, confirm off
    assert comparison.compared >= 10 * len(EVERY_GAME)


def _why_heading(side: Side) -> str:
    from emu_fixtures import oled_text
    from tallypanel import screen

    return oled_text(side.shown().oled, 0, screen.LIST).rstrip()


def _moosehead() -> tuple[int, list[int]]:
    """The first hand of the bundled Moosehead sample (four players, Dee deals): the game's packed
    options and the hand's events, as the host's profile makes them."""
    import json
    from importlib import resources

    from tallyboard import games as profiles
    from tallyboard.scorebook import records

    record = json.loads((resources.files("tallyboard") / "data" / "sample_moosehead.json").read_text())
    profile = profiles.profile("moosehead")
    return (profile.options(record["options"]),
            list(records.hand_events(profile, record["hands"][0], 4, record["options"])))


def _why_games() -> list[tuple[str, int, int, Callable[[Board], None], list[tuple[object, str]]]]:
    """(game, players, what the host enters, the controls and the heading each brings) for the why screen."""
    def skicket(board: Board) -> None:
        # hand 1: player 0 bids 3H, his side takes 9 = 6 + 3: made (SK7);
        # hand 2: player 2 bids 2NT, player 1 doubles, 7 tricks of the 8 needed: failed (SK9)
        board.game_verb("HAND", 0, "3H", None, None, 0, 9)
        board.game_verb("HAND", 2, "2NT", 1, None, 0, 7)

    def roquet(board: Board) -> None:
        # hand 1: pegs of 5 and 3 (RQ6), its end (RQ3); hand 2 in progress: a peg of 2
        for verb, *args in (("PEG", 0, 5), ("PEG", 1, 3), ("END",), ("PEG", 0, 2)):
            board.game_verb(verb, *args)

    options, events = _moosehead()

    def moosehead(board: Board) -> None:
        for event in events:
            board.request("EV", event)

    return [("skicket", 4, 0, skicket, [((menu.TURN, 1), "WHY HAND 2 OF 2"), ((menu.TURN, -1), "WHY HAND 1 OF 2")]),
            ("roquet", 2, 0, roquet, [((menu.TURN, 1), "WHY HAND 2 OF 2"), ((menu.TURN, -1), "WHY HAND 1 OF 2")]),
            # the hand's every play, go and fifteen: more than a page; a push shows the next
            ("moosehead", 4, options, moosehead, [((menu.TURN, 1), "WHY HAND 1 OF 1 1/"), (menu.PUSH, "WHY HAND 1 OF 1 2/")])]


@pytest.mark.twin
def test_the_why_screen_is_drawn_the_same_on_the_twin_as_in_the_emulator(twin_board, tmp_path):
    """The knob turned outside an entry (issue 34, item 2): the why screen of a Skicket, a Roquet and a
    Moosehead hand, and the hand before it (or the page after), the twin's display RAM equal to the
    emulator's once each has drawn it."""
    from waiting import until

    definition = render.find_board(BOARD_NAME)
    twin = TwinSide(twin_board)
    try:
        with Emulator(flash=tmp_path / "flash") as emulator:
            reference = EmulatorSide(emulator, definition)
            try:
                sides: list[Side] = [reference, twin]
                for name, players, options, enter, controls in _why_games():
                    for side in sides:
                        side.board.new(name, players, options)
                        enter(side.board)
                    for one, heading in controls:
                        with ThreadPoolExecutor(2) as pool:
                            for done in [pool.submit(side.press, one) for side in sides]:
                                done.result()
                        until(lambda: _why_heading(reference).startswith(heading), CAUGHT_UP_S,
                              f"the emulator's {heading} ({name})", explain=lambda: _why_heading(reference))
                        # the twin composes a long reason at its own pace (a Moosehead hand: every play
                        # explained), quiet on its bus meanwhile: its heading first, then its parts quiet
                        until(lambda: _why_heading(twin).startswith(heading), TWIN_CAUGHT_UP_S,
                              f"the twin's {heading} ({name})", explain=lambda: _why_heading(twin))
                        twin.settle()
                        assert twin.shown() == reference.shown(), mismatch(
                            definition, FRAMES_DIR, f"why-{name}-{heading[-6:]}", "emulator", reference.shown(),
                            "twin", twin.shown()) + f" ({name}: {heading})"
                        twin.check_parts(f"{name}: {heading}")
                    with ThreadPoolExecutor(2) as pool:   # leave the why screen: the next game starts on its sheet
                        for done in [pool.submit(side.press, (menu.UNDO, 0)) for side in sides]:
                            done.result()
            finally:
                reference.close()
    finally:
        twin.close()
