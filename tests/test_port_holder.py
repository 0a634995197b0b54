"""The program in the way of a port is named, never the emulated board at the
port's other end (issue 32, item 11: with the port held by another program,
`status` named the emulator's pid)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tallyboard.boardlink import portsocket

pytestmark = [pytest.mark.process, pytest.mark.skipif(not sys.platform.startswith("linux"),
                                                       reason="the holder is found in Linux's /proc")]

# an emulated board's side of a pseudo-terminal: it holds the master and, as the emulator does, the slave
BOARD = ("import os, sys\n"
         "master, slave = os.openpty()\n"
         "print(os.ttyname(slave), flush=True)\n"
         "sys.stdin.read()\n")
# another program with the port open (a terminal, mpremote, a script)
OTHER = "import sys\nport = open(sys.argv[1], 'rb+', buffering=0)\nprint('open', flush=True)\nsys.stdin.read()\n"


def test_the_program_holding_an_emulated_boards_port_is_named_not_the_emulator():
    board = subprocess.Popen([sys.executable, "-c", BOARD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    other = None
    try:
        port = board.stdout.readline().strip()
        assert port.startswith("/dev/pts/")
        # nobody else has it: the board's own end is not "a program in the way"
        assert portsocket.holder_of(port) is None
        other = subprocess.Popen([sys.executable, "-c", OTHER, port], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True)
        assert other.stdout.readline() == "open\n"
        holder = portsocket.holder_of(port)
        assert holder is not None and holder.startswith(f"pid {other.pid} ("), (holder, board.pid, other.pid)
    finally:
        for process in (other, board):
            if process is not None:
                process.kill()
                process.wait(10)
