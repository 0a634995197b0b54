"""The emulated boards of an evening: each table's a detached `tallyboard
emulate` on its own flash folder in the evening's folder, outliving the
command that started it (tables.Tables attaches them)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ..common.errors import TallyboardError, TransportError
from ..tooling import emulator as emu_mod

EMULATOR_START_S = 30.0    # how long an emulator may take to boot (its first file set is compiled)
EMULATOR_STOP_S = 10.0


def flash_folder(folder: Path, table: int) -> Path:
    """The flash folder of table `table`'s emulated board in the evening's folder (its emulator runs on it)."""
    return folder / f"table-{table}"


def emulated_flash(folder: Path, table: int) -> Path | None:
    """The flash folder of table `table`'s board when it is an emulated one (its folder is there in the
    evening's folder), else None."""
    flash = flash_folder(folder, table)
    return flash if flash.is_dir() else None


def running_port(table: int, flash: Path) -> str:
    """The port of the emulator running on table `table`'s flash folder now (a new one each time it
    starts, so never the one last stored); TransportError saying what to do when none is running."""
    running = emu_mod.running_on(flash)
    if running is None:
        raise TransportError(f"the emulated board of table {table} is not running: "
                             "tallyboard event resume starts it again")
    return str(running["port"])


def start(folder: Path, table: int, flash: Path) -> str:
    """The emulator of `table` running on `flash` (started if it is not, its
    log in `folder`); its port."""
    running = emu_mod.running_on(flash)
    if running:
        return str(running["port"])
    flash.mkdir(parents=True, exist_ok=True)
    log = open(folder / f"table-{table}.log", "ab")
    # its own emulator home: `--emulator` elsewhere keeps meaning the user's own emulator
    env = dict(os.environ, TALLYBOARD_EMULATOR_HOME=str(folder / "emulator"))
    try:
        proc = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "emulate", "--flash", str(flash)],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                                start_new_session=True)
    finally:
        log.close()
    deadline = time.monotonic() + EMULATOR_START_S
    while time.monotonic() < deadline:
        running = emu_mod.running_on(flash)
        if running and int(running["pid"]) == proc.pid:
            return str(running["port"])
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    else:
        proc.kill()
    tail = (folder / f"table-{table}.log").read_text(errors="replace").strip().splitlines()[-2:]
    raise TallyboardError(f"the emulated board of table {table} did not start"
                          + (f" ({' '.join(tail)})" if tail else "")
                          + f"; see {folder / f'table-{table}.log'}")


def stop(pids: list[int]) -> None:
    """Stop these emulators: asked first, killed when they do not go in time."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + EMULATOR_STOP_S
    for pid in pids:
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.05)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:   # a child of this process that has exited: reap it
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


