"""A stand-in for mpremote in the deploy tests: the board is a folder that
stands for its flash, and the MicroPython code deploy sends (exec and run)
runs on it with the MicroPython unix port, one process per session, as the
scripts of one raw-REPL session share their globals on a board. The unix
port is no RP2040, so the chip's name the survey prints is the one the fake
was given. A session that fails stops there and says its last line, as
mpremote does. With romfs_blocks the board's image has a ROMFS partition of
that many 4 KB blocks, a file beside the folder, behaving as NOR flash does
(an erase sets a block's bits, a write can only clear them), reached through
a stand-in for rp2's vfs.rom_ioctl."""
from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Callable, Sequence

from tallyboard.tooling import deploy, deploy_scripts
from tallyboard.tooling.mpunix import micropython_binary

RP2040 = "Raspberry Pi Pico with RP2040"
RP2350 = "Raspberry Pi Pico 2 with RP2350"


ROM_BLOCK = 4096
# vfs as rp2's image with a ROMFS partition has it, for the code deploy sends: rom_ioctl(1) the number of
# partitions, rom_ioctl(2, 0) the partition as a block device (ioctl 4: blocks, 5: block size, 6: erase)
ROM_PRELUDE = """
import vfs as _vfs
_writes_left = [%(writes)d]     # the session's, across every rom_ioctl(2, 0)
class _Partition:
    def __init__(self, path, blocks):
        self.path, self.blocks = path, blocks
    def ioctl(self, op, arg):
        if op == 4:
            return self.blocks
        if op == 5:
            return %(block)d
        if op == 6:
            with open(self.path, "r+b") as f:
                f.seek(arg * %(block)d)
                f.write(b"\\xff" * %(block)d)
            return 0
    def readblocks(self, block, buf, offset=0):
        with open(self.path, "rb") as f:
            f.seek(block * %(block)d + offset)
            f.readinto(buf)
    def writeblocks(self, block, buf, offset=0):
        if _writes_left[0] == 0:
            raise OSError(5)
        _writes_left[0] -= 1
        at = block * %(block)d + offset
        with open(self.path, "r+b") as f:
            f.seek(at)
            old = f.read(len(buf))
            f.seek(at)
            f.write(bytes(a & b for a, b in zip(old, buf)))
class _Vfs:
    def rom_ioctl(self, op, *args):
        if op == 1:
            return 1
        if op == 2 and args[0] == 0:
            return _Partition(%(path)r, %(blocks)d)
        return -22
    def umount(self, point):
        raise OSError(22)
import sys
sys.modules["vfs"] = _Vfs()
"""


class FakeMpremote:
    def __init__(self, flash: Path, machine: str = RP2040, on_reset: Callable[[], None] | None = None,
                 inflates: bool = True, romfs_blocks: int = 0, rom_writes_before_failing: int = -1) -> None:
        self.flash = Path(flash)
        self.flash.mkdir(parents=True, exist_ok=True)
        self.rom = self.flash.parent / f".{self.flash.name}-romfs.bin"
        self.romfs_blocks = romfs_blocks
        self.rom_writes_left = rom_writes_before_failing     # -1: never fails
        if romfs_blocks and not self.rom.exists():
            self.rom.write_bytes(b"\xff" * romfs_blocks * ROM_BLOCK)
        self.machine = machine
        self.on_reset = on_reset
        self.inflates = inflates        # False: a MicroPython without the deflate module
        self.sessions: list[list[str]] = []
        self.scripts_run: list[str] = []     # what each `run` sent (read before deploy removes it)
        self.resets = 0

    def __call__(self, argv: Sequence[str], on_line: Callable[[str], None]) -> None:
        argv = list(argv)
        self.sessions.append(argv)
        commands = commands_of(argv)
        assert commands[0][0] == "connect" and commands[0][1] != "auto", commands[0]
        code = []
        reset = False
        for command in commands[1:]:
            assert not reset, "a command after the reset: the board is gone by then"
            if command[0] == "exec":
                code.append(command[1])
            elif command[0] == "run":
                self.scripts_run.append(Path(command[1]).read_text())
                code.append(self.scripts_run[-1])
            elif command[0] == "reset":
                reset = True
            else:
                assert command[0] == "resume", command
        if code:
            self._run("\n".join(code), on_line)
        if reset:
            self.resets += 1
            if self.on_reset:
                self.on_reset()

    def _run(self, code: str, on_line: Callable[[str], None]) -> None:
        # the session's code from a file: a whole firmware's writes pass Linux's 128 KiB for one argument
        script = self.flash.parent / f".{self.flash.name}-session.py"
        prelude = "import sys\nsys.path[0] = \"\"\n"      # the flash folder first, as -c has it
        if self.romfs_blocks:
            prelude += ROM_PRELUDE % {"block": ROM_BLOCK, "path": str(self.rom), "blocks": self.romfs_blocks,
                                      "writes": self.rom_writes_left}
        script.write_text(prelude + code)
        try:
            done = subprocess.run([micropython_binary(), str(script)], cwd=self.flash, capture_output=True,
                                  text=True, env={"MICROPYPATH": ""}, timeout=60)
        finally:
            script.unlink()
        for line in done.stdout.splitlines():
            if line.startswith(deploy_scripts.CHIP_LINE):
                line = deploy_scripts.CHIP_LINE + self.machine
            if line == deploy_scripts.INFLATES_LINE and not self.inflates:
                continue
            on_line(line)
        if done.returncode != 0:
            lines = (done.stdout + done.stderr).strip().splitlines()
            raise deploy.MpremoteFailed(lines[-1] if lines else f"exit status {done.returncode}")


# how many arguments each mpremote command the deploy uses takes
ARITY = {"connect": 1, "resume": 0, "exec": 1, "run": 1, "reset": 0}


def commands_of(argv: Sequence[str]) -> list[list[str]]:
    """An mpremote command line as its commands, each with its arguments ("+" between
    commands is optional, as in mpremote)."""
    commands = []
    rest = list(argv)
    while rest:
        name = rest.pop(0)
        if name == "+":
            continue
        assert name in ARITY, f"the fake mpremote does not know {name!r}"
        commands.append([name, *rest[:ARITY[name]]])
        rest = rest[ARITY[name]:]
    return commands
