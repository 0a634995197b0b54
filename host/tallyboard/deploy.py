"""`tallyboard deploy`: copy THE file set (fileset.py) to a board with mpremote.

mpremote interrupts the running app with Ctrl-C (the wire protocol never
sends 0x03, so the app always lets it through), enters the raw REPL and
writes files. The steps, each one `mpremote` run so a progress bar can follow:

  1. prepare: make the folders, delete a stale tallycore/*.py (it would
     shadow the new .mpy) and .mpy files that are no longer part of the set;
  2. one `fs cp` per file, the core first and main.py last, so a deploy cut
     short never boots a new main.py on an old core;
  3. a hard reset, so the new firmware boots.

The game journal and the board's configuration are left alone."""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Sequence

from . import fileset
from .errors import TallyboardError

Runner = Callable[[Sequence[str]], None]


def mpremote_runner(argv: Sequence[str]) -> None:
    """Run mpremote (the one installed with this Python); raise with its words on failure."""
    proc = subprocess.run([sys.executable, "-m", "mpremote", *argv], capture_output=True, text=True,
                          timeout=120)
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        said = lines[-1] if lines else f"exit status {proc.returncode}"
        raise TallyboardError(f"mpremote failed ({said}); check the cable and that no other "
                              "program has the port open, then run tallyboard deploy again")


def prepare_script(files: list[fileset.FirmwareFile]) -> str:
    """MicroPython code run on the board before copying (step 1)."""
    keep = sorted(f.dest for f in files)
    lines = ["import os"]
    for folder in fileset.folders(files):
        lines += ["try:", f" os.mkdir({folder!r})", "except OSError:", " pass"]
    for package in fileset.PACKAGES:
        lines += [f"for n in os.listdir({package!r}):",
                  f" p={package!r}+'/'+n",
                  f" if n.endswith('.py') or (n.endswith('.mpy') and p not in {keep!r}):",
                  "  os.remove(p)"]
    return "\n".join(lines)


def plan(port: str, files: list[fileset.FirmwareFile], staging: Path) -> list[list[str]]:
    """The mpremote command lines a deploy runs, in order (files staged under staging)."""
    steps = [["connect", port, "exec", prepare_script(files)]]
    for f in files:
        steps.append(["connect", port, "resume", "fs", "cp", str(staging / f.dest), ":" + f.dest])
    steps.append(["connect", port, "reset"])
    return steps


def stage(files: list[fileset.FirmwareFile], staging: Path) -> None:
    for f in files:
        target = staging / f.dest
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(f.data)


def deploy(port: str, files: list[fileset.FirmwareFile], runner: Runner | None = None,
           progress: Callable[[str], None] | None = None) -> int:
    """Copy the file set to the board on port; returns the bytes copied.
    `runner` runs one mpremote command line (default: mpremote itself);
    `progress` is called once per step with a short description."""
    runner = runner or mpremote_runner
    with tempfile.TemporaryDirectory(prefix="tallyboard-deploy-") as tmp:
        staging = Path(tmp)
        stage(files, staging)
        for argv in plan(port, files, staging):
            runner(argv)
            if progress:
                progress(_describe(argv))
    return sum(len(f.data) for f in files)


def _describe(argv: Sequence[str]) -> str:
    if "cp" in argv:
        return f"copied {argv[-1][1:]}"
    if "reset" in argv:
        return "reset the board"
    return "prepared the board's folders"
