"""`tallyboard deploy`: compile the firmware with mpy-cross and copy it to
the board with mpremote (or onto the emulator's flash folder)."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import click

from ..common.console import Console
from ..tooling import deploy as deploy_mod
from ..tooling import emulator as emu_mod
from ..tooling import fileset
from ..boardlink import portshare
from ..boardlink.client import Board
from ..common.errors import TallyboardError, TransportError
from .reporting import reply_timeout_option, reports_errors
from ..boardlink.transport import SerialTransport, find_board_port
from .connect import progress_bar


@click.command("deploy")
@click.option("--port", "-p", metavar="PORT", help="The board's serial port (default: the one board on USB).")
@click.option("--emulator", "use_emulator", is_flag=True, help="Install on the emulator's flash folder instead.")
@click.option("--board", "-b", metavar="NAME",
              help="The board definition to run (board/NAME.json), one for the board's chip; set on the "
                   "board as its board setting (default: the board's setting, else pico-reference).")
@reply_timeout_option()
@reports_errors
def deploy_cmd(port: str | None, use_emulator: bool, board: str | None, timeout: float) -> None:
    """Compile the firmware with mpy-cross and copy it to the board with mpremote."""
    console = Console(stderr=True)
    if use_emulator and board:
        raise click.UsageError("--board is for a board on USB; the emulator plays any definition: "
                               "tallyboard config set board NAME --emulator")
    sources = [s for package in fileset.PACKAGES for s in fileset.package_sources(emu_mod.FIRMWARE_DIR, package)]
    with progress_bar(console) as progress:
        task = progress.add_task("compiling with mpy-cross", total=len(sources))
        files = fileset.build(progress=lambda name: progress.update(task, advance=1, description=f"compiled {name}"))
    if use_emulator:
        if port:
            raise click.UsageError("give either --port or --emulator, not both")
        running = emu_mod.find_running()
        flash = Path(running["flash"]) if running else emu_mod.state_home() / "flash"
        changed = fileset.install(files, flash)
        if not running:
            click.echo(f"installed {len(files)} files on the emulator's flash {flash} ({changed} changed); "
                       "the next command with --emulator boots them")
            return
        hello = restart_emulator(running)
        click.echo(f"installed {len(files)} files on the emulator's flash {flash} ({changed} changed) and "
                   f"reset it; it runs firmware {hello.get('fw')} (protocol {hello.get('proto')})")
        return
    rediscover = port is None
    port = port or find_board_port()
    server = portshare.server_of(port)
    if server is not None:
        raise TallyboardError(f"{port} is served to other commands by {server}; "
                              "stop it first: deploy needs the port for mpremote")
    with progress_bar(console) as progress:
        task = progress.add_task(f"asking the board on {port} which chip it is and what it holds", total=None)
        deployed = deploy_mod.deploy(port, files, board=board, progress=lambda step, done, total: progress.update(
            task, completed=done, total=total, description=step))
    hello = _wait_for_board(port, rediscover=rediscover, reply_s=timeout)
    unchanged = len(deployed.files) - len(deployed.written)
    already = "" if not unchanged else (", all of them already there" if not deployed.written
                                        else f", {unchanged} of them already there")
    set_now = " (set by this deploy)" if deployed.board_set else ""
    rom = f", the packages in its ROMFS partition ({deployed.romfs} bytes)" if deployed.romfs else ""
    click.echo(f"deployed {len(deployed.files)} files ({deployed.bytes} bytes{already}{rom}) to the "
               f"{deployed.survey.mcu or deployed.survey.machine} on {port}; the board runs firmware "
               f"{hello.get('fw')} (protocol {hello.get('proto')}) with board definition "
               f"{hello.get('board', deployed.board)}{set_now}")
    if deployed.advice:
        click.echo(f"tallyboard: {deployed.advice}", err=True)


def restart_emulator(running: dict[str, Any], seconds: float = 15.0) -> dict[str, str]:
    """Reset the running `tallyboard emulate`'s board (its SIGHUP is the reset button); its HELLO once it
    has started again (its record counts its boots: a HELLO before that would be the old board's)."""
    boots = running.get("boots", 0)
    os.kill(int(running["pid"]), signal.SIGHUP)
    deadline = time.monotonic() + seconds
    while True:
        now = emu_mod.running_on(Path(running["flash"]))
        if now is not None and now.get("boots", 0) > boots:
            break
        if time.monotonic() > deadline:
            raise TransportError(f"the emulator (pid {running['pid']}) did not start its board again in "
                                 f"{seconds:g} s; stop it (Ctrl-C) and start it again: tallyboard emulate")
        time.sleep(0.05)
    return _wait_for_board(running["port"])


def _wait_for_board(port: str, seconds: float | None = None, rediscover: bool = False,
                    reply_s: float = 1.0) -> dict[str, str]:
    """After a reset the Pico re-enumerates (found again by its USB id when
    rediscover: it may come back on another port); HELLO once it is back, each try
    waiting reply_s for the reply. A board slow enough to need a longer reply_s
    (--timeout) is given as much longer to start: 15 of them, 15 s for a Pico."""
    seconds = 15 * reply_s if seconds is None else seconds
    deadline = time.monotonic() + seconds
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            if rediscover:
                port = find_board_port()
            link = SerialTransport(port)
        except TallyboardError as exc:     # not back yet: no such port, no board on USB
            last = exc
            time.sleep(0.5)
            continue
        try:
            board = Board(link, timeout=reply_s)
            link.drain()
            return board.hello()
        except TallyboardError as exc:
            last = exc
            time.sleep(0.5)
        finally:
            link.close()
    raise TransportError(f"the board on {port} did not answer after the deploy ({last}); "
                         "unplug it and plug it in again, then run tallyboard status")


def register(group: click.Group) -> None:
    group.add_command(deploy_cmd)
