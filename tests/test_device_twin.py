"""The firmware on the device twin (issue 11): an emulated Raspberry Pi Pico (rp2040js)
running stock MicroPython v1.28.0, driven by bench/twin_harness.py. A blank chip gets the firmware
with `tallyboard deploy --port <its pty>` (the run's one deploy, tests/twin_support.py); a Skicket game and a Roquet game are played
through `tallyboard` commands with the scores worked out by hand; the power is cut in the
middle (SIGKILL: the flash image keeps what the chip's flash held at that instant) and the
chip boots again from that image: every change the board acknowledged is there once, and
the game carries on.

Skipped, with the reason, where the twin cannot run (it needs node, socat
and rp2040js; TALLYBOARD_RP2EMU names another folder), but never in CI (CI=true): there
they fail instead. Marked `twin`, so
`pytest -m "not twin"` leaves it out. The twin runs busy code at about a quarter of a real
Pico's speed, and slower on a busy machine: every step waits on what the chip did (its
replies, its events, its own clock), each with its own bound against a hang only
(bench/twin_harness.py's PATIENCE)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from twin_support import TWIN_TESTS, deploy_output, deployed_twin, device_twin, still_running  # noqa: E402
from test_cli_skicket_series import summary_of  # noqa: E402  (what a command printed before its reason)
from waiting import NotInTime, until  # noqa: E402

pytestmark = [*TWIN_TESTS, pytest.mark.process]

COMMAND_S = device_twin.COMMAND_S    # one other tallyboard command
BOOT_S = device_twin.BOOT_S          # power back on to the firmware's BOOT event
SETTLE_S = device_twin.SETTLE_S      # the OLED drawn after a change or a press

# A change's reply: the board sends it only once the change is in its journal
# (docs/protocol.md: checked, journaled, applied, answered, then pushed).
CHANGE_ACKNOWLEDGED = re.compile(r"\d+ OK n=\d+ top=\d+ eseq=\d+")


class Chip:
    """The twin, with tallyboard commands on its port and power cuts, each wait bounded on its own."""

    def __init__(self, twin) -> None:
        self.twin = twin
        self.last_knob_note: str | None = None    # the knob's latest NOTE a wait has read

    def tallyboard(self, *args: str, most: float = COMMAND_S) -> subprocess.CompletedProcess:
        try:
            return self.twin.tallyboard(*args, timeout=most)
        except subprocess.TimeoutExpired:
            pass     # run() has killed the command
        pytest.fail(f"tallyboard {' '.join(args)} did not end within {most:.0f} s{self.log_tail()}")

    def score(self, *args: str) -> str:
        """A command that must succeed; its standard output."""
        done = self.tallyboard(*args)
        assert done.returncode == 0, (f"tallyboard {' '.join(args)}: exit {done.returncode}\n"
                                      f"{done.stdout}{done.stderr}{self.log_tail()}")
        assert done.stderr == "", done.stderr
        return done.stdout

    def summary(self) -> str:
        """The game's one-line summary, as `tallyboard status` ends."""
        return self.score("status").splitlines()[-1]

    def power_cut_and_boot(self) -> dict[str, str]:
        """Cut the power, power up from the flash image, wait for the firmware's BOOT
        event; its game, n (changes applied) and top (applied + to redo)."""
        self.twin.power_cut()
        self.twin.mark()
        self.twin.start()
        return self.wait_for_boot()

    def wait_for_boot(self) -> dict[str, str]:
        def booted():
            return next((found.groupdict() for line in self.twin.lines()
                         if (found := device_twin.BOOT_EVENT.search(line.text))), None)

        return until(booted, BOOT_S, "the BOOT event after power-up", explain=self.log_tail, every=0.1)

    def cut_power_as_the_board_acknowledges(self, *args: str) -> subprocess.CompletedProcess:
        """Run a scoring command and cut the power the moment the board has sent the
        reply to its change: the board has acknowledged it, and the command (which reads
        the board's state before it prints) has almost always not reported it yet.
        What the command said, once it has ended."""
        self.twin.mark()
        command = self._command(*args)

        def acknowledged() -> bool:
            if any(line.since_request_us is not None and CHANGE_ACKNOWLEDGED.match(line.text)
                   for line in self.twin.lines()):
                return True
            if command.poll() is not None:
                out, err = command.communicate()
                pytest.fail(f"tallyboard {' '.join(args)} ended (exit {command.returncode}) before the "
                            f"board acknowledged a change: {out}{err}{self.log_tail()}")
            return False

        try:
            until(acknowledged, COMMAND_S, f"the board's acknowledgement of tallyboard {' '.join(args)}",
                  explain=self.log_tail, every=0.005)
            self.twin.power_cut()
            return self._ended(command, args)
        finally:
            self._kill(command)

    def cut_power_as_the_board_journals(self, *args: str) -> subprocess.CompletedProcess | None:
        """Run a scoring command and cut the power the moment the chip's flash takes a
        write (the twin writes every programmed sector to its image file at once): the
        change's journal record, which the board writes before it replies. What the
        command said once it has ended; None if it ended before the flash was written
        (nothing to cut mid-command)."""
        image = self.twin.image
        before = image.stat().st_mtime_ns
        command = self._command(*args)
        try:
            # looked at every 0.2 ms: the reply follows the write by a few ms of wall time
            until(lambda: image.stat().st_mtime_ns != before or command.poll() is not None, COMMAND_S,
                  f"a write to the chip's flash for tallyboard {' '.join(args)}", explain=self.log_tail,
                  every=0.0002)
            if image.stat().st_mtime_ns == before:     # the command ended first
                command.communicate()
                return None
            self.twin.power_cut()
            return self._ended(command, args)
        finally:
            self._kill(command)

    def _command(self, *args: str) -> subprocess.Popen:
        argv, env = self.twin.tallyboard_command(*args)
        return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)

    @staticmethod
    def _ended(command: subprocess.Popen, args: tuple[str, ...]) -> subprocess.CompletedProcess:
        """What the command said once it has ended, after the power cut."""
        try:
            out, err = command.communicate(timeout=COMMAND_S)
            return subprocess.CompletedProcess(command.args, command.returncode, out, err)
        except subprocess.TimeoutExpired:
            pass     # killed by _kill
        pytest.fail(f"tallyboard {' '.join(args)} still ran {COMMAND_S:.0f} s after the board lost power")

    @staticmethod
    def _kill(command: subprocess.Popen) -> None:
        if command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
            command.wait(device_twin.STOP_S)

    def power_up(self) -> dict[str, str]:
        self.twin.mark()
        self.twin.start()
        return self.wait_for_boot()

    def log_tail(self, lines: int = 15) -> str:
        return self.twin.log_tail(lines)


@pytest.fixture(scope="module")
def chip(tmp_path_factory):
    """A twin whose blank chip got the firmware through the CLI (the run's one deploy,
    twin_support.deployed_image: MicroPython formats its littlefs on first boot, then deploy
    copies the file set; what it printed is checked here), powered up from that flash;
    stopped (node, the pty bridge and its socat) whatever happens."""
    deployed = deploy_output(tmp_path_factory)
    assert "the board runs firmware 0.1.0 (protocol 6)" in deployed, deployed
    twin = deployed_twin(tmp_path_factory, "twin")
    try:
        twin.start()
        ready = Chip(twin)
        ready.wait_for_boot()
        yield ready
    finally:
        started = [proc.pid for proc in (twin.node, twin.bridge) if proc is not None]
        twin.stop()
    left = still_running(started)
    assert not left, f"the twin left processes running: {left}"


@pytest.fixture(autouse=True)
def powered(chip):
    """Each test starts with the chip powered: one that failed between its power cut and its
    power-up left it off, and every test after it failed on a port that was not there (a loaded
    CI run, 36b9f3c)."""
    if chip.twin.node is None or chip.twin.node.poll() is not None:
        chip.power_up()                 # (start() ends the old bridge, and refuses only a running chip)
    yield


def test_a_skicket_game_survives_power_cuts(chip):
    # Seats 0 to 3: Ann (the keeper), Bob, Cy, Dee. Partners (docs/rules.md SK5):
    # hands 1-2 Ann+Cy, Bob+Dee; 3-4 Ann+Bob, Cy+Dee; 5-6 Ann+Dee, Cy+Bob.
    # A bid of level L needs 6 + L tricks and is worth A = 60 + 10 L (SK2).
    assert chip.score("new", "skicket", "--name", "Ann", "--name", "Bob", "--name", "Cy", "--name", "Dee") \
        == "skicket: Ann 0  Bob 0  Cy 0  Dee 0  (0 hands)\n"
    # Hand 1: Ann bids 3H, takes 9: made (SK7). Ann and Cy A = 90 each; Bob and Dee
    # 10 x their 13 - 9 = 4 tricks = 40 each.
    assert summary_of(chip.score("hand", "Ann", "3H", "9")) == "skicket: Ann 90  Bob 40  Cy 90  Dee 40  (1 hand)\n"
    # Hand 2: Bob bids 2S, needs 8, takes 7, doubled by Cy: set (SK9). The doubler Cy
    # and his partner Ann 2A = 160 each; Bob nothing; Dee 10 x 7 = 70.
    assert summary_of(chip.score("hand", "1", "2s", "7", "--doubled-by", "cy")) \
        == "skicket: Ann 250  Bob 40  Cy 250  Dee 110  (2 hands)\n"
    assert chip.score("undo") == "skicket: Ann 90  Bob 40  Cy 90  Dee 40  (1 hand, 1 to redo)\n"

    # Power cut between commands: the undo was acknowledged, so the board comes back
    # with hand 1 applied and hand 2 on the redo stack.
    booted = chip.power_cut_and_boot()
    assert booted == {"game": "skicket", "n": "1", "top": "2"}
    assert chip.summary() == "skicket: Ann 90  Bob 40  Cy 90  Dee 40  (1 hand, 1 to redo)"
    assert chip.score("redo") == "skicket: Ann 250  Bob 40  Cy 250  Dee 110  (2 hands)\n"
    # a misdeal scores nothing and is not one of the six hands (SK3)
    assert summary_of(chip.score("misdeal")) == ("misdeal recorded: the same dealer deals again\n"
                                     "skicket: Ann 250  Bob 40  Cy 250  Dee 110  (2 hands)\n")

    # Hand 3: Dee bids 4NT, takes 10: made. Dee and Cy A = 100 each; Ann and Bob
    # 10 x 3 = 30 each. The power goes the moment the board has acknowledged it.
    said = chip.cut_power_as_the_board_acknowledges("hand", "Dee", "4NT", "10")
    assert said.returncode in (0, 4) and "Traceback" not in said.stderr, said
    booted = chip.power_up()
    assert booted == {"game": "skicket", "n": "4", "top": "4"}     # hands 1-2, the misdeal, hand 3
    assert chip.summary() == "skicket: Ann 280  Bob 70  Cy 350  Dee 210  (3 hands)"

    # Hand 4: Bob bids 1NK (No Trick: made when his side takes 7 - 1 = 6 or fewer,
    # SK11) and his side takes 4. Bob and Ann A = 70 each; Cy and Dee 10 x the tricks
    # they did not take, 4 = 40 each.
    assert summary_of(chip.score("hand", "Bob", "1NK", "4")) == "skicket: Ann 350  Bob 140  Cy 390  Dee 250  (4 hands)\n"
    # Hand 5: Cy bids 2C alone and takes 8 (SK12): he alone A = 80; his partner Bob,
    # silent, and Ann and Dee 10 x 5 = 50 each.
    assert summary_of(chip.score("hand", "Cy", "2C", "8", "--lone")) \
        == "skicket: Ann 400  Bob 190  Cy 470  Dee 300  (5 hands)\n"
    # Hand 6: Ann bids 5D, needs 11, doubled by Cy, redoubled by herself, takes 11
    # (SK10): Ann and Dee 4A = 440 each; the doubler Cy nothing; his partner Bob
    # 10 x the 2 tricks of his side = 20.
    assert summary_of(chip.score("hand", "Ann", "5D", "11", "-d", "Cy", "-r", "Ann")) \
        == "skicket: Ann 840  Bob 210  Cy 470  Dee 740  (6 hands)  game over: Ann wins\n"
    refused = chip.tallyboard("hand", "Ann", "1H", "7")          # six hands make a game (SK4)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == "tallyboard: the board says: game: the six hands of the game are all in (RULE)\n"

    # the board's record holds each acknowledged change once
    exported = json.loads(chip.score("export"))
    assert exported["players"] == ["Ann", "Bob", "Cy", "Dee"]
    assert [hand.get("bid", "misdeal") for hand in exported["hands"]] == ["3H", "2S", "misdeal", "4NT", "1NK",
                                                                         "2C", "5D"]
    sheet = json.loads(chip.score("sheet", "--json"))
    assert [hand["scores"] for hand in sheet["hands"]] == [[90, 40, 90, 40], [160, 0, 160, 70],
                                                          [30, 30, 100, 100], [70, 70, 40, 40],
                                                          [50, 50, 80, 50], [440, 20, 0, 440]]
    assert (sheet["totals"], sheet["winners"], sheet["complete"], sheet["misdeals"]) \
        == ([840, 210, 470, 740], [0], True, 1)


def test_a_roquet_game_survives_a_power_cut(chip):
    # The first to 100 (king row plus the hand's count) wins the moment he gets
    # there (docs/rules.md RQ9); end moves the hand's counts to the king row.
    assert chip.score("new", "roquet", "--name", "Ann", "--name", "Bob", "--discard") == "roquet: Ann 0  Bob 0  (0 hands)\n"
    assert chip.score("peg", "Ann", "20") == "roquet: Ann 20  Bob 0  (0 hands)\n"
    assert chip.score("peg", "Bob", "7") == "roquet: Ann 20  Bob 7  (0 hands)\n"
    assert chip.score("end") == "roquet: Ann 20  Bob 7  (1 hand)\n"
    assert chip.score("peg", "Ann", "9") == "roquet: Ann 29  Bob 7  (1 hand)\n"

    # Bob pegs 12 and the power goes the moment the board has acknowledged it:
    # it is there after the power cut, once (Bob 7 + 12 = 19, not 31).
    said = chip.cut_power_as_the_board_acknowledges("peg", "Bob", "12")
    assert said.returncode in (0, 4) and "Traceback" not in said.stderr, said
    booted = chip.power_up()
    assert booted == {"game": "roquet", "n": "5", "top": "5"}
    assert chip.summary() == "roquet: Ann 29  Bob 19  (1 hand)"

    assert chip.score("peg", "Bob", "5") == "roquet: Ann 29  Bob 24  (1 hand)\n"
    assert chip.score("undo") == "roquet: Ann 29  Bob 19  (1 hand, 1 to redo)\n"
    assert chip.score("redo") == "roquet: Ann 29  Bob 24  (1 hand)\n"
    assert chip.score("end") == "roquet: Ann 29  Bob 24  (2 hands)\n"
    assert chip.score("peg", "Ann", "40") == "roquet: Ann 69  Bob 24  (2 hands)\n"
    assert chip.score("peg", "Ann", "31") == "roquet: Ann 100  Bob 24  (2 hands)  game over: Ann wins\n"
    refused = chip.tallyboard("peg", "Bob", "1")                 # nothing more is pegged
    assert (refused.returncode, refused.stderr) == (2, "tallyboard: the board says: game: the game is over (RULE)\n")
    assert chip.score("end") == "roquet: Ann 100  Bob 24  (3 hands)  game over: Ann wins\n"

    # hand 2's pegs once each; the king row holds every count
    exported = json.loads(chip.score("export"))
    assert exported["hands"] == [[[0, 20], [1, 7]], [[0, 9], [1, 12], [1, 5]], [[0, 40], [0, 31]]]
    sheet = json.loads(chip.score("sheet", "--json"))
    assert [hand["scores"] for hand in sheet["hands"]] == [[20, 7], [9, 17], [71, 0]]
    assert (sheet["king"], sheet["tally"], sheet["totals"], sheet["winners"], sheet["complete"]) \
        == ([100, 24], [0, 0], [100, 24], [0], True)
    # the text sheet is the sheet of the same game as a record
    record = {"format": "tallyboard/1", "game": "roquet", "players": ["Ann", "Bob"], "hands": exported["hands"]}
    assert chip.score("sheet") == _sheet_of_record(record)


def test_a_command_cut_off_by_the_power_does_not_ask_for_its_change_again(chip):
    # The power goes the moment the peg's journal record is on the chip's flash: the
    # board holds the peg, and its reply is usually not out yet. When the command still
    # got the reply and printed the new score first, the cut did not land mid-command:
    # try again with a fresh peg (the board keeps every peg it recorded), at most
    # CUT_TRIES times; never landing mid-command fails.
    assert chip.score("new", "roquet", "--name", "Ann", "--name", "Bob", "--discard") == "roquet: Ann 0  Bob 0  (0 hands)\n"
    printed_first = []
    pegged = 0
    for _ in range(CUT_TRIES):
        said = chip.cut_power_as_the_board_journals("peg", "Ann", "5")
        if said is None:           # the command ended before the flash was written: the board kept
            pytest.fail("tallyboard peg ended before the board journaled its peg")
        pegged += 1
        # pegs of 5 recorded so far: Ann 5 * pegged, each once
        assert chip.power_up() == {"game": "roquet", "n": str(pegged), "top": str(pegged)}
        assert chip.summary() == f"roquet: Ann {5 * pegged}  Bob 0  (0 hands)"   # the peg is on the board
        if said.returncode != 0:
            break
        printed_first.append(said.stdout.strip())
    else:
        pytest.fail(f"in {CUT_TRIES} tries the command always printed the new score before the power went "
                    f"({printed_first}): the cut never landed mid-command")
    assert said.returncode == 4 and said.stdout == "", said
    # the user cannot know whether the peg counted: the command must not ask for it again
    assert "run the command again" not in said.stderr, said.stderr
    assert "tallyboard status" in said.stderr, said.stderr


CUT_TRIES = 6   # the cut comes at the journal's write, before the reply: it lands mid-command almost every time


def _knob_notes(chip, lines) -> None:
    """Keep the knob's latest NOTE among lines (the whole batch: those after a match count too)."""
    for line in lines:
        if " NOTE " in line.text and "knob's_pins" in line.text:
            chip.last_knob_note = line.text


def _wait_for_note(chip, words: str, chip_ms: float) -> str:
    """The text of the first NOTE event containing words (spaces as _) the board pushes
    within chip_ms of the chip's own (emulated) time, however slowly a loaded machine
    runs the twin."""
    control = chip.twin.control
    by_chip = control.hurry(chip_ms) + chip_ms      # the chip's idle time unpaced until the note

    def note() -> str | None:
        # the chip's time first: a line it printed by then is in the log read next
        past = control.stats()["emu_ms"] > by_chip
        lines = chip.twin.lines()
        _knob_notes(chip, lines)
        found = next((line.text for line in lines if " NOTE " in line.text and words in line.text), None)
        if found is None and past:
            pytest.fail(f"no NOTE saying {words!r} within {chip_ms:.0f} ms of the chip's time{chip.log_tail()}")
        return found

    try:
        return until(note, device_twin.patient_chip(chip_ms), f"the chip's time to pass {chip_ms:.0f} ms "
                     f"(a NOTE saying {words!r})", explain=chip.log_tail, every=0.02)
    finally:
        control.hurry(0)


def _knob_settles(chip, chip_ms: float) -> None:
    """After chip_ms of the chip's time, the knob's last NOTE (of those since the last
    wait, and any that come now) says its pins have settled."""
    control = chip.twin.control
    by_chip = control.hurry(chip_ms) + chip_ms      # the chip's idle time unpaced meanwhile

    def passed() -> bool:
        past = control.stats()["emu_ms"] > by_chip
        _knob_notes(chip, chip.twin.lines())
        return past

    try:
        until(passed, device_twin.patient_chip(chip_ms), f"the chip's time to pass {chip_ms:.0f} ms",
              explain=chip.log_tail, every=0.02)
    finally:
        control.hurry(0)
    last = chip.last_knob_note
    assert last is not None and "have_settled" in last, f"the knob's last note: {last!r}{chip.log_tail()}"


def test_parts_that_fail_mid_game_cost_no_acknowledged_peg(chip):
    # the twin's fault switches: the OLED's address NAKs, the shift button stuck down (a
    # stuck seat button would peg +5 first: for 600 ms it is a long press, legitimately),
    # the knob's contacts bouncing without end; the board scores on over USB, says what is
    # wrong in a NOTE and takes each part back when it works again
    assert chip.score("new", "roquet", "--name", "Ann", "--name", "Bob", "--discard") \
        == "roquet: Ann 0  Bob 0  (0 hands)\n"                # the last test's game is not the point here
    control = chip.twin.control
    chip.twin.mark()
    try:
        control.fault("oled", True)
        assert _scored(chip, "peg", "Ann", "5") == "roquet: Ann 5  Bob 0  (0 hands)\n"
        _wait_for_note(chip, "the_OLED_stopped_answering", chip_ms=5_000)   # the twin's log keeps a line's start only
        control.fault("encoder", True)
        _wait_for_note(chip, "the_knob's_pins_changed", chip_ms=3_000)
        assert _scored(chip, "peg", "Bob", "7") == "roquet: Ann 5  Bob 7  (0 hands)\n"
        control.fault("button", True, control="shift")
        # held down 10 s of the chip's time before it is called stuck (and set aside)
        _wait_for_note(chip, "the_shift_button_has_been_held_down", chip_ms=10_000 + 5_000)
        assert _scored(chip, "peg", "Ann", "3") == "roquet: Ann 8  Bob 7  (0 hands)\n"
        control.fault("oled", False)
        _wait_for_note(chip, "the_OLED_answers_again", chip_ms=5_000)   # retried every 2 s
        control.fault("encoder", False)
        # the storm alternates "changed … times" and "have settled" notes about once a second, and its
        # last one may have come with the OLED's note above: the knob's last word must be "settled"
        _knob_settles(chip, chip_ms=3_000)
        control.fault("button", False, control="shift")
        _wait_for_note(chip, "the_shift_button_is_let_go", chip_ms=3_000)
    finally:   # the next test's board has its parts back, whatever failed here
        for part, which in (("oled", None), ("encoder", None), ("button", "shift")):
            control.fault(part, False, control=which)
    # Ann 5 + 3 = 8, Bob 7: each acknowledged peg once, none from the stuck button
    assert _scored(chip, "status").splitlines()[-1] == "roquet: Ann 8  Bob 7  (0 hands)"


def test_the_accept_screen_names_the_buttons_and_a_refused_press_says_why(chip):
    """Issue 23 on the chip: the OLED names the buttons that accept a held hand by the
    letters beside them, and a press that cannot accept says why, drawn by the same
    firmware the unix-port emulator runs (tests/test_confirm_board.py)."""
    from emu_fixtures import oled_text

    # (the first switch to Skicket loads its modules at the twin's quarter speed: the harness's reply
    # timeout, TALLYBOARD_TIMEOUT, allows for it)
    _scored(chip, "new", "skicket", "--confirm", "--discard", "--name", "Ann", "--name", "Bob",
            "--name", "Cy", "--name", "Dee")
    # Ann (seat 0) bids 4H and takes 10 with her partner Cy (hands 1-2: Ann+Cy, Bob+Dee): Bob (button B)
    # and Dee (button D) accept
    assert "waiting for Bob (button B) or Dee (button D)" in _scored(chip, "hand", "Ann", "4H", "10")
    control = chip.twin.control
    control.settle(most_s=SETTLE_S)
    assert oled_text(control.oled().ram, 7).rstrip() == "ACCEPT: B (BOB) OR D (DEE)"
    control.press("seat0")                         # Ann's own button: refused, and why
    control.settle(most_s=SETTLE_S)
    assert oled_text(control.oled().ram, 9).rstrip() == "BUTTON A: ANN IS NOT AN OPPONENT"
    control.press("seat3")                         # Dee accepts. SK7: Ann and Cy 60 + 10 x 4 = 100,
    control.settle(most_s=SETTLE_S)                # Bob and Dee 10 x (13 - 10) = 30
    assert _scored(chip, "status").splitlines()[-1] == "skicket: Ann 100  Bob 30  Cy 100  Dee 30  (1 hand)"


def test_a_six_hand_skicket_game_at_its_end_keeps_its_rows_on_the_oled(chip):
    """Issue 32, item 1 on the chip: the OLED sheet of a finished six-hand game still shows
    its hands, as the unix-port emulator draws it (tests/test_cli_skicket_series.py, whose
    SIX hands and rows are worked out by hand there from docs/rules.md SK2 to SK7)."""
    from emu_fixtures import oled_text
    from test_cli_skicket_series import SIX, SIX_ROWS, SIX_TOTALS

    _scored(chip, "new", "skicket", "--discard", "--name", "Ann", "--name", "Bob", "--name", "Cy",
            "--name", "Dee")
    for hand in SIX:
        said = summary_of(_scored(chip, "hand", *hand))
    assert said == "skicket: Ann 340  Bob 380  Cy 420  Dee 420  (6 hands)  game over: Cy and Dee win\n"
    control = chip.twin.control
    control.settle(most_s=SETTLE_S)
    shown = [oled_text(control.oled().ram, row) for row in range(10)]
    assert shown[1:7] == SIX_ROWS
    assert shown[7][:22] == SIX_TOTALS      # then the game's chain head (test_cli_skicket_series checks it)
    assert shown[8].rstrip() == "GAME OVER. WON BY CY DEE"


def test_the_firmware_loads_through_the_import_filesystem(chip):
    """On the chip the app's modules come through tallyrun.importfs (/fw), not littlefs's own
    lookups (docs/firmware.md, start-up step 0): what the running app has loaded, read at the
    raw REPL after Ctrl-C stops it, then the board powered up again as it was."""
    chip.power_cut_and_boot()
    chip.score("status")           # the app answers: its modules are loaded (the app's load after BOOT)
    repl = device_twin.RawRepl(chip.twin.link)
    try:
        out = repl.run("import sys, vfs\n"
                       "print('mounts', sorted(p for _, p in vfs.mount()))\n"
                       "print('path', sys.path[:3])\n"
                       "print('app', sys.modules['tallyrun.app'].__file__)\n"
                       "print('rules', sys.modules['tallycore.game'].__file__)\n"
                       "print('package', sys.modules['tallypanel'].__path__)\n")
    finally:
        repl.close()
        chip.power_cut_and_boot()
    lines = out.splitlines()
    assert "mounts ['/', '/fw']" in lines, out
    assert "path ['.frozen', '/fw', '']" in lines, out
    assert "app /fw/tallyrun/app.mpy" in lines, out          # loaded after BOOT, through /fw
    assert "rules /fw/tallycore/game.mpy" in lines, out      # loaded before BOOT, through /fw too
    assert "package /fw/tallypanel" in lines, out


def _scored(chip, *args: str) -> str:
    """A command that must succeed; its standard output. Its standard error may only
    carry the board's notes (the parts' problems are kept as notes until the next boot)."""
    done = chip.tallyboard(*args)
    assert done.returncode == 0, f"tallyboard {' '.join(args)}: exit {done.returncode}\n{done.stdout}{done.stderr}"
    assert all(line.startswith("tallyboard: note:") for line in done.stderr.splitlines()), done.stderr
    return done.stdout


def _sheet_of_record(record: dict) -> str:
    done = subprocess.run([str(Path(sys.executable).with_name("tallyboard")), "sheet", "-"],
                          input=json.dumps(record), capture_output=True, text=True, timeout=COMMAND_S)
    assert done.returncode == 0, done.stderr
    return done.stdout
