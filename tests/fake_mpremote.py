"""A stand-in for mpremote in the deploy tests: the board is a folder that
stands for its flash, and the MicroPython code deploy sends (exec and run)
runs on it with the MicroPython unix port, one process per session, as the
scripts of one raw-REPL session share their globals on a board. The unix
port is no RP2040, so the chip's name the survey prints is the one the fake
was given. A session that fails stops there and says its last line, as
mpremote does."""
from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Callable, Sequence

from tallyboard import deploy
from tallyboard.mpunix import micropython_binary

RP2040 = "Raspberry Pi Pico with RP2040"
RP2350 = "Raspberry Pi Pico 2 with RP2350"


class FakeMpremote:
    def __init__(self, flash: Path, machine: str = RP2040, on_reset: Callable[[], None] | None = None,
                 inflates: bool = True) -> None:
        self.flash = Path(flash)
        self.flash.mkdir(parents=True, exist_ok=True)
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
        script.write_text("import sys\nsys.path[0] = \"\"\n" + code)   # the flash folder first, as -c has it
        try:
            done = subprocess.run([micropython_binary(), str(script)], cwd=self.flash, capture_output=True,
                                  text=True, env={"MICROPYPATH": ""}, timeout=60)
        finally:
            script.unlink()
        for line in done.stdout.splitlines():
            if line.startswith(deploy.CHIP_LINE):
                line = deploy.CHIP_LINE + self.machine
            if line == deploy.INFLATES_LINE and not self.inflates:
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
