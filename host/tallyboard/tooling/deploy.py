"""`tallyboard deploy`: copy THE file set (fileset.py) to a board with mpremote.

mpremote interrupts the running app with Ctrl-C (the wire protocol never
sends 0x03, so the app always lets it through), enters the raw REPL and
runs the commands it is given, chained with `+`, in one process (a session).
A deploy is two sessions:

  1. ask the board (deploy_scripts.survey_script): its chip (sys.implementation._machine,
     e.g. "Raspberry Pi Pico with RP2040"), the board definition its
     config.txt names, whether it has MicroPython's deflate module, and the
     SHA-256 of each file of the set it holds (those it holds already are
     not copied again).
     The definition the board is to run (--board, else the configured one,
     else pico-reference) must be one for this chip (its "mcu"), or nothing
     is copied: its pins would be wrong.
  2. copy what differs, in one session: prepare (make the folders, delete a
     stale tallycore/*.py, which would shadow the new .mpy, .mpy files no
     longer in the set and .part files a cut-short deploy left), write each
     file that differs, the core first and main.py last so a deploy cut short
     never boots a new main.py on an old core, set the board setting when --board
     changes it, and a hard reset so the new firmware boots. A command line
     longer than COMMAND_LINE_BUDGET would be split into more sessions (the
     reset in the last); the whole file set takes about a third of it.

Each file is written by a small staged script (`mpremote run`) that hands its
bytes, deflated (when the board can unpack them) and base64 in one string, to
tallyboard_write() (deploy_scripts.WRITER_SCRIPT, defined at the start of each copy session):
one raw-REPL exec per file, where `mpremote fs cp` runs one exec per 256 bytes
(repr-escaped) plus three for its checks. On the device twin a blank chip's
copy took 21 s with fs cp in one session, and takes about 7 s so
(docs/benchmarks.md). tallyboard_write() checks the bytes' SHA-256, writes
NAME.part and renames it over NAME (a cut never leaves half a file) and prints
`tallyboard: wrote NAME`: progress follows those lines.

Only what the board runs is copied: the compiled packages, boot.py, main.py
and the board definitions for its chip (the only ones it can be set to use).
The game journal and the board's other settings are left alone.

A board running one of tallyboard's own images (image/README.md: a Pico W
cannot hold its firmware and its club link in the heap otherwise) has a ROMFS
partition. The survey says its size and the SHA-256 of what it holds; when the
packages fit, they go there as one ROMFS image (fileset.romfs_image) instead of
onto littlefs, and the board runs them in place from flash. Block 0, which
holds the image's header, is erased first and written last, so a deploy cut
short leaves no ROMFS at all (the board then imports the packages' littlefs
copy, still there); only once the image is whole is that copy deleted."""
from __future__ import annotations

import hashlib
import queue
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from tallypanel import boarddef
from tallyrun.protocol import DEFAULT_BOARD

from . import fileset
from .deploy_scripts import (BOARD_LINE, BOARD_SET_LINE, CHIP_LINE, DROPPED_LINE, INFLATES_LINE, PREPARED_LINE, ROM_BLOCK,
                             ROM_BLOCK_LINE, ROMFS_LINE, SHA256_LINE, WRITER_SCRIPT, WROTE_LINE, drop_packages_script,
                             prepare_script, rom_scripts, set_board_script, survey_script, write_script)
from ..common.files import loads as load_json
from ..common.errors import TallyboardError

LineSink = Callable[[str], None]
# runs one mpremote session (its arguments), handing each line it prints to the sink
Runner = Callable[[Sequence[str], LineSink], None]
# told (what was just done, steps done, steps in all) after each step
Progress = Callable[[str, int, int], None]

# Characters one mpremote command line may hold: under Windows' 32,767 with room
# for the Python that runs it (Linux allows far more).
COMMAND_LINE_BUDGET = 24_000
# Seconds mpremote may go without printing a line (one file written, the
# board's answer) before the session is taken for hung.
SILENCE_LIMIT = 60.0

_CHIPS = (("RP2350", "rp2350"), ("RP2040", "rp2040"))   # as firmware/tallypanel/hw.py mcu()


@dataclass(frozen=True)
class Survey:
    """What the board said when asked (session 1)."""
    machine: str                    # sys.implementation._machine
    configured_board: str | None    # the board setting in its config.txt, if any
    sha256: dict[str, str]          # hex digest of each file of the set it holds, by path
    inflates: bool = False          # it can unpack files sent deflated
    romfs_size: int = 0             # its image's ROMFS partition (0: none)
    romfs_sha256: str = ""          # of the partition's first bytes, as many as the image deploy would write

    @property
    def mcu(self) -> str | None:
        """The chip as a board definition names it, rp2040 or rp2350; None for a
        chip that is neither (the firmware then plays any definition, as hw.mcu())."""
        for marker, mcu in _CHIPS:
            if marker in self.machine:
                return mcu
        return None

    @property
    def wifi(self) -> bool | None:
        """Whether the board has the wireless chip: MicroPython names a Pico W
        "Raspberry Pi Pico W with RP2040" and a Pico 2 W "Raspberry Pi Pico 2 W
        with RP2350"; None for a chip that is neither (the emulator)."""
        return None if self.mcu is None else " W with " in self.machine


@dataclass
class Deployed:
    survey: Survey
    board: str                      # the definition the board is set to run
    board_set: bool                 # whether this deploy changed the board setting
    files: list[fileset.FirmwareFile]                           # what the board runs, all on it now
    written: list[str] = field(default_factory=list)            # the files this deploy wrote
    sessions: int = 0               # mpremote sessions run (the survey included)
    romfs: int = 0                  # bytes of the ROMFS image the packages are in (0: on littlefs)
    joins_wifi: bool = False        # the definition it runs says "wifi": true

    @property
    def bytes(self) -> int:
        return sum(len(f.data) for f in self.files)

    @property
    def advice(self) -> str | None:
        """What the user should do next, if anything: a Pico W set to join the club's Wi-Fi
        on an image without a ROMFS partition has too little heap for its link and a game."""
        if self.romfs or not self.survey.wifi or self.survey.mcu != "rp2040" or not self.joins_wifi:
            return None
        return ("this Pico W runs an image without a ROMFS partition, and its heap cannot hold the firmware, "
                "its club link and a game at once: copy image/tallyboard-pico-w.uf2 onto it (hold BOOTSEL "
                "while plugging it in; its files stay), then run tallyboard deploy again (image/README.md)")


class MpremoteFailed(TallyboardError):
    def __init__(self, said: str) -> None:
        super().__init__(said)
        self.said = said


def mpremote_runner(argv: Sequence[str], on_line: LineSink) -> None:
    """Run one mpremote session (the one installed with this Python), handing
    each line it prints to on_line as it comes; raise with its last words on
    failure or after SILENCE_LIMIT seconds without a line."""
    # -u: unbuffered, the board's lines come as they are printed
    proc = subprocess.Popen([sys.executable, "-u", "-m", "mpremote", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, errors="replace")
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.rstrip("\r\n"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    said: list[str] = []
    try:
        while True:
            try:
                line = lines.get(timeout=SILENCE_LIMIT)
            except queue.Empty:
                raise MpremoteFailed(f"it said nothing for {SILENCE_LIMIT:.0f} s") from None
            if line is None:
                break
            if line.strip():
                said.append(line.strip())
            on_line(line)
        if proc.wait() != 0:
            raise MpremoteFailed(said[-1] if said else f"exit status {proc.returncode}")
    finally:
        if proc.poll() is None:      # hung, or the user pressed Ctrl-C: no mpremote left behind
            proc.kill()
            proc.wait()


def survey(port: str, paths: Sequence[str], runner: Runner, rom_length: int = 0) -> Survey:
    """Session 1: the board's chip, its board setting, the files it holds and its ROMFS partition."""
    machine: str | None = None
    configured: str | None = None
    hashes: dict[str, str] = {}
    inflates = False
    romfs_size, romfs_sha256 = 0, ""

    def hear(line: str) -> None:
        nonlocal machine, configured, inflates, romfs_size, romfs_sha256
        if line.startswith(ROMFS_LINE):
            size, _, digest = line[len(ROMFS_LINE):].strip().partition(" ")
            romfs_size, romfs_sha256 = int(size), digest
        elif line.startswith(CHIP_LINE):
            machine = line[len(CHIP_LINE):].strip()
        elif line.startswith(BOARD_LINE):
            configured = line[len(BOARD_LINE):].strip() or None   # the last line wins, as on the board
        elif line.startswith(SHA256_LINE):
            digest, _, path = line[len(SHA256_LINE):].strip().partition(" ")
            hashes[path] = digest
        elif line.strip() == INFLATES_LINE:
            inflates = True

    runner(["connect", port, "exec", survey_script(paths, rom_length)], hear)
    if machine is None:
        raise TallyboardError(f"the board on {port} did not say which chip it is; is it running "
                              "MicroPython? Install MicroPython for the Pico, then run tallyboard deploy again")
    return Survey(machine, configured, hashes, inflates, romfs_size, romfs_sha256)


def definitions(files: list[fileset.FirmwareFile]) -> dict[str, boarddef.BoardDef]:
    """The board definitions in the file set, by name, each checked by the panel's
    own boarddef (a bad one is refused here, before the board is touched)."""
    found = {}
    for f in files:
        name = fileset.definition_name(f)
        if name is None:
            continue
        try:
            found[name] = boarddef.from_dict(load_json(f.data.decode("utf-8"), "board definition"))
        except ValueError as exc:     # JSON errors, not UTF-8, too deep or too big a number: ValueErrors too
            raise TallyboardError(f"{f.source}: {exc}; fix it or take it out of the board folder, "
                                  "then run tallyboard deploy again") from None
    return found


def choose_board(found: Survey, port: str, board: str | None, known: dict[str, boarddef.BoardDef]) -> str:
    """The definition the board is to run (board, else the configured one, else
    the default), refused when it is for another chip."""
    for_chip = sorted(name for name, d in known.items()
                      if found.mcu in (None, d.mcu) and (found.wifi is None or found.wifi or not d.wifi))
    choices = ", ".join(for_chip) or "none in this checkout"
    if board is not None:
        if board not in known:
            raise TallyboardError(f"there is no board definition {board!r}; the definitions for this "
                                  f"{found.mcu or 'chip'} are: {choices}")
        chosen, why = board, "chosen with --board"
    else:
        chosen = found.configured_board or DEFAULT_BOARD.decode()
        why = "the board's setting" if found.configured_board else "the default"
        if chosen not in known:
            return chosen     # the board's own file (not in this checkout): it keeps it, and checks it at boot
    mcu = known[chosen].mcu
    if found.mcu is not None and mcu != found.mcu:
        raise TallyboardError(
            f"board definition {chosen} ({why}) is for an {mcu}, and the board on {port} is an {found.mcu} "
            f"({found.machine}); nothing was copied. Choose a definition for an {found.mcu}: "
            f"tallyboard deploy --board NAME, one of: {choices}")
    definition = known[chosen]
    if found.wifi is False and definition.wifi:
        raise TallyboardError(
            f"board definition {chosen} ({why}) is for a Pico W or Pico 2 W, and the board on {port} "
            f"({found.machine}) has no Wi-Fi; nothing was copied. Choose one of: {choices}")
    if found.wifi and not definition.wifi and definition.wireless_pin != boarddef.NO_PIN:
        raise TallyboardError(
            f"board definition {chosen} ({why}) wires GPIO {definition.wireless_pin}, which the wireless chip "
            f"of the board on {port} ({found.machine}) takes; nothing was copied. Choose a definition made "
            f"for a Pico W (\"wifi\": true): tallyboard deploy --board NAME, one of: "
            + (", ".join(n for n in for_chip if known[n].wifi) or "none in this checkout"))
    return chosen


def for_chip(files: list[fileset.FirmwareFile], known: dict[str, boarddef.BoardDef],
             mcu: str | None, wifi: bool | None = None) -> list[fileset.FirmwareFile]:
    """The files the board runs: the firmware and the definitions for its chip
    (a Pico W's only where there is the wireless chip)."""
    return [f for f in files if (name := fileset.definition_name(f)) is None or (
        mcu in (None, known[name].mcu) and (wifi is None or wifi or not known[name].wifi))]


def stage(files: list[fileset.FirmwareFile], staging: Path, inflates: bool,
          before: Sequence[tuple[str, str]] = ()) -> list[Path]:
    """One writing script per file, in order, after the steps `before` (name,
    code: the ROMFS's); their paths."""
    steps = list(before) + [(f.dest.replace("/", "."), write_script(f, inflates)) for f in files]
    scripts = []
    for number, (name, code) in enumerate(steps):
        script = staging / f"{number:03d}-{name}.py"
        script.write_text(code)
        scripts.append(script)
    return scripts


def copy_sessions(port: str, files: list[fileset.FirmwareFile], scripts: list[Path],
                  board_to_set: str | None, drop_after: int | None = None) -> list[list[str]]:
    """Session 2: the mpremote command lines that prepare, run the staged
    writing scripts, set the board and reset: one, unless the command line
    would pass the budget. Each resumes (no soft reset: the app stays stopped)
    and first defines tallyboard_write. drop_after: after that many scripts
    (the ROMFS's), delete the packages' littlefs copy."""
    commands = [["run", str(script)] for script in scripts]
    if drop_after is not None:
        commands.insert(drop_after, ["exec", drop_packages_script()])
    if board_to_set is not None:
        commands.append(["exec", set_board_script(board_to_set)])
    commands.append(["reset"])
    sessions = [["connect", port, "resume", "exec", prepare_script(files) + "\n" + WRITER_SCRIPT]]
    opened = True        # the session holds only its opening so far
    for command in commands:
        if not opened and _length(sessions[-1] + ["+", *command]) > COMMAND_LINE_BUDGET:
            sessions.append(["connect", port, "resume", "exec", WRITER_SCRIPT])
            opened = True
        sessions[-1] += ["+", *command]
        opened = False
    return sessions


def _length(argv: list[str]) -> int:
    return sum(len(arg) + 3 for arg in argv)    # a space and quotes around each


class _Following:
    """Follows the copy session's lines: counts the steps done, tells progress."""

    def __init__(self, chosen: str, steps_total: int, progress: Progress | None, written: list[str]) -> None:
        self.chosen = chosen
        self.steps_total = steps_total
        self.progress = progress
        self.written = written
        self.done = 1            # the survey
        self.rom_blocks = 0      # ROMFS steps done

    def rom_blocks_left(self, steps: int) -> bool:
        return self.rom_blocks < steps

    def step(self, what: str) -> None:
        self.done += 1
        if self.progress:
            self.progress(what, self.done, self.steps_total)

    def hear(self, line: str) -> None:
        text = line.strip()
        if text == PREPARED_LINE:
            self.step("prepared the board's folders")
        elif text.startswith(WROTE_LINE):
            self.written.append(text[len(WROTE_LINE):])
            self.step(f"copied {self.written[-1]}")
        elif text == BOARD_SET_LINE:
            self.step(f"set the board to run {self.chosen}")
        elif text.startswith(ROM_BLOCK_LINE):
            self.rom_blocks += 1
            self.step(f"ROMFS block {text[len(ROM_BLOCK_LINE):]}")
        elif text == DROPPED_LINE:
            self.step("deleted the packages' littlefs copy (the ROMFS holds them)")


def deploy(port: str, files: list[fileset.FirmwareFile], runner: Runner | None = None,
           progress: Progress | None = None, board: str | None = None) -> Deployed:
    """Copy the file set to the board on port, set to run the definition
    `board` (default: the one it is set to, else pico-reference).
    `runner` runs one mpremote session (default: mpremote itself); `progress`
    is told after each step (the survey, the folders prepared, each file
    written, the board set, the reset)."""
    runner = runner or mpremote_runner
    known = definitions(files)
    image = fileset.romfs_image(files)
    try:
        found = survey(port, [f.dest for f in files], runner, len(image))
    except MpremoteFailed as exc:
        raise _in_user_words(exc, "while asking the board which chip it is") from None
    chosen = choose_board(found, port, board, known)
    runs = for_chip(files, known, found.mcu, found.wifi)
    in_rom = 0 < len(image) <= found.romfs_size
    rom_steps: list[tuple[str, str]] = []
    if in_rom:
        on_flash = [f for f in runs if not fileset.is_package_file(f)]
        if found.romfs_sha256 != hashlib.sha256(image).hexdigest():
            rom_steps = rom_scripts(image, ROM_BLOCK, found.inflates)
    else:
        on_flash = runs
    to_write = [f for f in on_flash if found.sha256.get(f.dest) != f.sha256]
    board_to_set = chosen if board is not None and board != found.configured_board else None
    result = Deployed(found, chosen, board_to_set is not None, runs, sessions=1, romfs=len(image) if in_rom else 0,
                      joins_wifi=chosen in known and known[chosen].wifi)
    drop = in_rom and (bool(rom_steps) or any(fileset.is_package_file(f) for f in runs
                                              if f.dest in found.sha256))
    steps_total = 2 + len(rom_steps) + drop + len(to_write) + (board_to_set is not None) + 1
    if progress:
        rom = "" if not in_rom else (" its ROMFS needs the packages" if rom_steps
                                     else " its ROMFS holds the packages already;")
        progress(f"the board is an {found.mcu or found.machine};{rom} {len(on_flash) - len(to_write)} of "
                 f"{len(on_flash)} files already there", 1, steps_total)
    following = _Following(chosen, steps_total, progress, result.written)
    with tempfile.TemporaryDirectory(prefix="tallyboard-deploy-") as tmp:
        scripts = stage(to_write, Path(tmp), found.inflates, rom_steps)
        for argv in copy_sessions(port, on_flash, scripts, board_to_set, len(rom_steps) if drop else None):
            try:
                runner(argv, following.hear)
            except MpremoteFailed as exc:
                if following.rom_blocks_left(len(rom_steps)):
                    raise _in_user_words(exc, "while writing the ROMFS image", "the board has no ROMFS now "
                                         "and runs the packages' littlefs copy, if it has one; ") from None
                cut_short = len(result.written) < len(to_write)
                raise _in_user_words(exc, f"after copying {len(result.written)} of {len(to_write)} files",
                                     "the board keeps its old main.py (main.py comes last); " if cut_short
                                     else "") from None
            result.sessions += 1
    if rom_steps:      # the packages, written as the ROMFS image
        result.written += [f.dest for f in runs if fileset.is_package_file(f)]
    following.step("reset the board")
    return result


def _in_user_words(exc: MpremoteFailed, when: str, left: str = "") -> TallyboardError:
    """The failure, what it left on the board, and what to do."""
    if "ENOSPC" in exc.said or "Errno 28" in exc.said:
        return TallyboardError(f"the board's flash is full ({when}); {left}make room (mpremote fs ls, "
                               "mpremote fs rm FILE), then run tallyboard deploy again")
    return TallyboardError(f"mpremote failed {when} ({exc.said}); {left}check the cable and that no "
                           "other program has the port open, then run tallyboard deploy again")
