"""An update's switch and its rollback on the chip itself (issue 43): tallyboard's Pico image with
its ROMFS partition (256 KiB) on the device twin, firmware/tallyboot.py doing on the emulated RP2040
what it does on a board. A power cut at any moment of the switch leaves a board that boots one of
the two releases, whole, with its game intact; a release that does not link rolls back by itself.

Release A is the checkout, deployed; a game of Roquet is scored on it over USB. Release B is the
same file set built from a copy of firmware/ whose tallyrun/protocol.py says FIRMWARE_VERSION
"<A's>-b" (HELLO's `fw` says which release runs); its ROMFS image is put on the board's littlefs as
update/new.rom through the raw REPL, and the switch is what tallynet/update.py's `_switch` does on
a board that took B over the air: the running image saved as old.rom, then the one write of
update/state ("install"), then a reset. What tallyboot predicts, and what is checked:

  cut before the reset (state written, nothing copied)   the next power-up copies B in: B on trial
  cut during the copy (the partition's block 0 erased,   the next power-up copies again: B on trial
    some of B's blocks written)
  cut during the trial's first boot (B answers, it has   the next power-up goes back: A, why "reset"
    not linked: the twin has no Wi-Fi)
  cut during that copy back                              the next power-up copies A again: A, "reset"
  no cut: the trial's time (10 s of the chip's) passes   its timer resets the board: A, why "no_link"

After each power-up the app answers HELLO with the release's fw, BOOT says the game's n and top as
before, and `tallyboard status` the same totals; the partition (the twin's flash image holds it,
written the moment the chip's flash changes) holds A's or B's image, byte for byte. The moments of
the cuts are found by what the chip's flash holds and its own clock, never by the wall clock's.

One twin for the module, its tests in order, each starting and ending on A. Marked `twin`; under
CI=true a twin that cannot start fails the module."""
from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from twin_support import ROOT, TWIN_TESTS, deploy_output, deployed_twin, device_twin, still_running, twin_files  # noqa: E402
from waiting import until  # noqa: E402

# tallyboard's Pico image with its ROMFS partition (bench/twin_harness.py IMAGES; the run deploys it once)
TWIN_IMAGE = "pico"
pytestmark = [*TWIN_TESTS, pytest.mark.process]

BOOT_S = device_twin.BOOT_S
COMMAND_S = device_twin.COMMAND_S
BLOCK = 4096                         # the partition is copied a flash sector at a time (tallyboot.BLOCK)
TRIAL_S = 120                        # the trials cut short by the power: their timer never comes first
NO_LINK_TRIAL_S = 10                 # the trial left to run out: the least a manifest may say
GAME = ("new", "roquet", "--name", "Ann", "--name", "Bob", "--discard")
HANDS = (("peg", "Ann", "20"), ("peg", "Bob", "7"), ("end",), ("peg", "Ann", "9"))
SUMMARY = "roquet: Ann 29  Bob 7  (1 hand)"
BOOTED = {"game": "roquet", "n": "4", "top": "4"}     # the NEW's game, its four changes


@dataclass
class Release:
    fw: str
    image: bytes        # its ROMFS image: what the partition holds while it runs
    ident: str          # its release id (the image's `release` file)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.image).hexdigest()


@dataclass
class Bench:
    twin: Any
    a: Release
    b: Release
    export: str = ""                 # the game's record as it was scored, before any update
    chip_ms: float = 0.0             # emulated time of the twin's runs ended by a power cut
    cuts: list[str] = field(default_factory=list)

    # ------------------------------------------------------------ the host's side
    def log_tail(self, lines: int = 15) -> str:
        return self.twin.log_tail(lines)

    def tallyboard(self, *args: str) -> str:
        done = self.twin.tallyboard(*args, timeout=COMMAND_S)
        assert done.returncode == 0, f"tallyboard {' '.join(args)}: {done.stdout}{done.stderr}{self.log_tail()}"
        return done.stdout

    def summary(self) -> str:
        return self.tallyboard("status").splitlines()[-1]

    def hello(self) -> dict[str, str]:
        """The app's answer to HELLO, once it answers."""
        failed: list[Exception] = []

        def answered():
            try:
                board = self.twin.board()
            except Exception as exc:     # booting: no answer yet
                failed[:] = [exc]
                return None
            try:
                return dict(board.hello_fields)
            finally:
                board.link.close()

        return until(answered, BOOT_S, "the app's answer to HELLO", every=0.1,
                     explain=lambda: (f"the last try: {failed[0]!r}" if failed else "") + self.log_tail())

    def partition(self, length: int | None = None) -> bytes:
        """The ROMFS partition as the chip's flash holds it now (the flash image's first bytes)."""
        with open(self.twin.image, "rb") as f:
            return f.read(length if length is not None else device_twin.ROM_BYTES)

    def holds(self) -> str:
        """Which release's image the partition holds, whole ("A", "B"), or what else."""
        now = self.partition()
        for name, release in (("A", self.a), ("B", self.b)):
            if now[:len(release.image)] == release.image:
                return name
        if now[:BLOCK] == b"\xff" * BLOCK:
            return "no ROMFS (block 0 erased)"
        return "neither release's image"

    # ------------------------------------------------------------ power
    def power_cut(self, why: str) -> None:
        self.chip_ms += self.twin.control.stats()["emu_ms"]
        self.cuts.append(why)
        self.twin.power_cut()

    def power_up(self) -> None:
        self.twin.mark()
        self.twin.start()

    def boots(self) -> tuple[dict[str, str], float]:
        """The app's BOOT event since mark() (its game, n and top), and the chip's ms from its reset to it."""
        def booted():
            return next(((found.groupdict(), line.since_reset_ms) for line in self.twin.lines()
                         if (found := device_twin.BOOT_EVENT.search(line.text))), None)

        return until(booted, BOOT_S, "the BOOT event", explain=self.log_tail, every=0.1)

    def differing(self) -> list[int]:
        """The partition's blocks after block 0 where A's image and B's differ (their first blocks, the
        same modules, do not): a block a copy has written is one of these holding the new bytes."""
        a, b = self.a.image, self.b.image
        blocks = (max(len(a), len(b)) + BLOCK - 1) // BLOCK
        return [k for k in range(1, blocks) if a[k * BLOCK:(k + 1) * BLOCK] != b[k * BLOCK:(k + 1) * BLOCK]]

    def cut_during_copy(self, to: Release) -> tuple[bool, int]:
        """Cut the power while the chip copies `to` into the partition: once block 0 (the ROMFS header,
        erased first and written last) is erased and a third of the blocks where the two releases
        differ hold `to`'s bytes. Whether block 0 was still erased after the cut (the copy under way),
        and how many of those blocks held `to`'s bytes then."""
        differing = self.differing()
        at = differing[len(differing) // 3]
        want = to.image[at * BLOCK:(at + 1) * BLOCK]

        def under_way() -> bool:
            if self.twin.node.poll() is not None:
                pytest.fail(f"the twin stopped during the copy{self.log_tail()}")
            with open(self.twin.image, "rb") as f:
                head = f.read(BLOCK)
                f.seek(at * BLOCK)
                block = f.read(len(want))
            return head == b"\xff" * BLOCK and block == want

        until(under_way, BOOT_S, f"the copy of release {to.fw} under way", explain=self.log_tail, every=0.002)
        self.power_cut(f"during the copy of {to.fw}")
        now = self.partition()
        written = sum(now[k * BLOCK:k * BLOCK + len(to.image[k * BLOCK:(k + 1) * BLOCK])]
                      == to.image[k * BLOCK:(k + 1) * BLOCK] for k in differing)
        erased = now[:BLOCK] == b"\xff" * BLOCK
        self.cuts[-1] += (f" (block 0 {'erased' if erased else 'written'}, {written} of its {len(differing)}"
                          " own blocks in)")
        return erased, written

    # ------------------------------------------------------------ the board's side (the raw REPL)
    def on_board(self, code: str) -> str:
        """Run code at the board's raw REPL (the app interrupted, as mpremote does); what it printed."""
        repl = device_twin.RawRepl(self.twin.link)
        try:
            return repl.run(code)
        finally:
            repl.close()

    def state(self) -> list[str]:
        """update/state's words, as tallyboot reads them."""
        out = self.on_board("import tallyboot\nprint('state', tallyboot.read_state())\n")
        line = next(line for line in out.splitlines() if line.startswith("state "))
        return json.loads(line[len("state "):].replace("'", '"').replace("None", "null"))

    def switch(self, trial_s: int) -> list[str]:
        """What tallynet/update.py's _switch does once B is staged: the running image saved as
        old.rom, then update/state says install. The state's words."""
        b = self.b
        out = self.on_board("\n".join([
            "import tallyboot",
            "old = tallyboot.save_running(tallyboot.partition())",
            "with open('/rom/release') as f:",
            " running = f.read().strip()",
            f"tallyboot.write_state([tallyboot.INSTALL, {b.ident!r}, {str(len(b.image))!r}, {b.sha256!r}, running,"
            f" str(old[0]), old[1], '-', {str(trial_s)!r}])",
            "print('state', ' '.join(tallyboot.read_state()))",
        ]) + "\n")
        line = next(line for line in out.splitlines() if line.startswith("state "))
        return line.split()[1:]

    def reset(self) -> None:
        """machine.reset() at the raw REPL, as mpremote's `reset` does (the line's bytes go with the chip)."""
        repl = device_twin.RawRepl(self.twin.link)
        try:
            repl.start("import machine\nmachine.reset()\n")
        finally:
            repl.port.close()

    def put(self, path: str, data: bytes) -> None:
        """A file on the board's littlefs, through the raw REPL (bench/twin_files.py)."""
        repl = device_twin.RawRepl(self.twin.link)
        try:
            twin_files.put_file(repl, path, data)
        finally:
            repl.close()

    # ------------------------------------------------------------ what is checked after each power-up
    def runs(self, release: Release, what: str) -> float:
        """The board came up on `release`, whole, with its game as it was: BOOT's n and top, HELLO's fw,
        the partition's bytes, the totals. The chip's ms from its reset to BOOT."""
        booted, at_ms = self.boots()
        assert booted == BOOTED, f"{what}: BOOT says {booted}{self.log_tail()}"
        assert self.hello()["fw"] == release.fw, what
        assert self.holds() == ("A" if release is self.a else "B"), what
        assert self.summary() == SUMMARY, what
        return at_ms


def _release_b(tmp_path_factory, fw: str):
    """Release B's file set: a copy of firmware/ that says another FIRMWARE_VERSION."""
    from tallyboard.tooling import fileset

    copy = tmp_path_factory.mktemp("release-b") / "firmware"
    shutil.copytree(ROOT / "firmware", copy, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "emu"))
    protocol = copy / "tallyrun" / "protocol.py"
    text = protocol.read_text()
    assert "\nFIRMWARE_VERSION = VERSION\n" in text, "tallyrun/protocol.py no longer says FIRMWARE_VERSION = VERSION"
    protocol.write_text(text.replace("\nFIRMWARE_VERSION = VERSION\n", f"\nFIRMWARE_VERSION = {fw!r}\n"))
    return fileset.build(copy)


def _release(files, fw: str) -> Release:
    from tallyboard.tooling import fileset

    return Release(fw, fileset.romfs_image(files), fileset.release_id(files))


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """Release A deployed onto the twin (tallyboard's Pico image), a game scored on it, release B
    staged beside it as update/new.rom; stopped (node, the pty bridge) whatever happens."""
    from tallyboard.tooling import fileset
    from tallyrun import protocol

    a = _release(fileset.build(), protocol.FIRMWARE_VERSION)
    b = _release(_release_b(tmp_path_factory, protocol.FIRMWARE_VERSION + "-b"), protocol.FIRMWARE_VERSION + "-b")
    assert a.ident != b.ident and len(b.image) <= device_twin.ROM_BYTES
    said = deploy_output(tmp_path_factory, TWIN_IMAGE)      # the run's one deploy onto this image (twin_support)
    assert "the packages in its ROMFS partition (" in said, said
    twin = deployed_twin(tmp_path_factory, "twin-update", TWIN_IMAGE)
    started_at = time.monotonic()
    here = Bench(twin, a, b)
    staged_s = 0.0
    try:
        twin.start()
        assert here.holds() == "A"
        assert here.hello()["fw"] == a.fw
        here.tallyboard(*GAME)
        for hand in HANDS:
            here.tallyboard(*hand)
        assert here.summary() == SUMMARY
        here.export = here.tallyboard("export")
        staging = time.monotonic()
        here.put("update/new.rom", b.image)
        staged_s = time.monotonic() - staging
        yield here
    finally:
        started = [proc.pid for proc in (twin.node, twin.bridge) if proc is not None]
        if twin.node is not None and twin.node.poll() is None:
            try:
                here.chip_ms += twin.control.stats()["emu_ms"]
            except Exception:     # the figure only
                pass
        twin.stop()
        print(f"\ntest_twin_update: {time.monotonic() - started_at:.0f} s of wall time ({staged_s:.0f} s of it "
              f"B's image to the board), {here.chip_ms / 1000:.1f} s of the chip's time; the power cut:\n  "
              + "\n  ".join(here.cuts))
    left = still_running(started)
    assert not left, f"the twin left processes running: {left}"


@pytest.fixture(autouse=True)
def powered(bench):
    """Each test starts with the chip powered (one that failed between a cut and a power-up left it off)."""
    if bench.twin.node is None or bench.twin.node.poll() is not None:
        bench.power_up()
    yield


def _on_a(bench) -> None:
    """Each test starts on release A with B staged (the last one ended so)."""
    assert bench.holds() == "A", "the board does not run release A: an earlier test failed midway"


def test_a_cut_before_the_reset_installs_the_new_release_and_a_cut_in_its_trial_goes_back(bench):
    a, b = bench.a, bench.b
    _on_a(bench)
    words = bench.switch(TRIAL_S)
    assert words == ["install", b.ident, str(len(b.image)), b.sha256, a.ident, str(len(a.image)), a.sha256, "-",
                     str(TRIAL_S)]
    # the power goes before the reset: the state says install, the partition still holds A
    bench.power_cut("after the switch's write, before the reset")
    assert bench.holds() == "A"
    bench.power_up()
    bench.runs(b, "after a cut before the reset: B copied in, on trial")

    # the power goes during B's trial (it answers, it has not linked): back to A, why "reset"
    bench.power_cut("during B's trial")
    assert bench.holds() == "B"
    bench.power_up()
    bench.runs(a, "after a cut during the trial: back to A")
    assert bench.state() == ["back", b.ident, str(len(b.image)), b.sha256, a.ident, str(len(a.image)), a.sha256,
                             "reset", str(TRIAL_S)]


def test_a_cut_during_either_copy_copies_again(bench):
    a, b = bench.a, bench.b
    _on_a(bench)
    bench.switch(TRIAL_S)
    bench.twin.mark()
    bench.reset()
    erased, written = bench.cut_during_copy(b)
    assert erased, f"the cut came after the copy of B had ended ({written} of B's own blocks written)"
    assert written > 0           # some of B's own blocks in place (of bench.differing()'s), block 0 not
    bench.power_up()
    bench.runs(b, "after a cut during the copy of B: copied again, on trial")

    bench.power_cut("during B's trial")
    bench.power_up()            # the state says restore at once; the copy of A (old.rom) follows
    erased, written = bench.cut_during_copy(a)
    assert erased, f"the cut came after the copy back to A had ended ({written} of A's own blocks written)"
    assert written > 0
    bench.power_up()
    bench.runs(a, "after a cut during the copy back: A copied again")
    words = bench.state()
    assert (words[0], words[1], words[7]) == ("back", b.ident, "reset"), words


def test_a_release_that_never_links_goes_back_by_itself(bench):
    # the twin has no Wi-Fi: B's trial is never kept, and its timer resets the board after
    # NO_LINK_TRIAL_S of the chip's time
    a, b = bench.a, bench.b
    _on_a(bench)
    bench.switch(NO_LINK_TRIAL_S)
    control = bench.twin.control
    resets = control.stats()["resets"]
    bench.twin.mark()
    bench.reset()
    booted, b_boot_ms = bench.boots()
    assert booted == BOOTED
    on_b = control.stats()
    assert on_b["resets"] == resets + 1, "the board reset again before B's BOOT"
    b_from = on_b["emu_ms"] - on_b["since_reset_ms"]         # the chip's time at B's reset
    assert bench.holds() == "B"
    assert bench.hello()["fw"] == b.fw

    # the trial's timer resets the board: within its seconds of the chip's time after B's BOOT, however
    # slowly the machine runs the twin (the bound in wall seconds is only against a hang)
    bench.twin.mark()
    most_ms = (NO_LINK_TRIAL_S + 20) * 1000

    def rolled_back() -> dict | None:
        now = control.stats()
        if now["resets"] > resets + 1:
            return now
        if now["emu_ms"] - b_from > most_ms:
            pytest.fail(f"no reset within {most_ms / 1000:.0f} s of the chip's time on B's trial{bench.log_tail()}")
        return None

    until(rolled_back, device_twin.patient_chip(most_ms), "the trial's timer's reset", explain=bench.log_tail,
          every=0.2)
    a_boot_ms = bench.runs(a, "after the trial's time ran out: back to A")
    now = control.stats()
    assert now["resets"] == resets + 2, "the board reset more than once on its way back"
    ran_ms = now["emu_ms"] - now["since_reset_ms"] - b_from     # the chip's time B ran, its copy in
    # the timer is armed after the copy, before BOOT, for NO_LINK_TRIAL_S
    assert NO_LINK_TRIAL_S * 1000 <= ran_ms <= b_boot_ms + NO_LINK_TRIAL_S * 1000 + 2000, (ran_ms, b_boot_ms)
    # the game as it was scored before any update, hand for hand
    assert bench.tallyboard("export") == bench.export
    assert bench.state() == ["back", b.ident, str(len(b.image)), b.sha256, a.ident, str(len(a.image)), a.sha256,
                             "no_link", str(NO_LINK_TRIAL_S)]
    print(f"\nB's trial: BOOT {b_boot_ms / 1000:.1f} s after its reset (the copy in); its timer reset the board "
          f"{ran_ms / 1000:.1f} s after that reset; A's BOOT {a_boot_ms / 1000:.1f} s after (the copy back in)")
