"""Ctrl-C ends watch, share and monitor even where Python drops it (issue 39's loaded run 4):
a KeyboardInterrupt raised inside a finalizer is cleared without a word (io.IOBase's runs
pyserial's close() for every Serial that failed to open), so the commands' loops also ask
live.CtrlC whether Ctrl-C was heard; and a port that is not there is said so before pyserial
makes such a Serial at all."""
from __future__ import annotations

import os
import signal

import pytest
import serial

from tallyboard.boardlink.transport import SerialTransport
from tallyboard.commands import live
from tallyboard.common.errors import TransportError

class UnpluggedBoard:
    """A board whose port is gone: each reconnect fails. `swallow` makes the first one take a
    Ctrl-C and lose it, as a finalizer would."""

    class link:
        name = "/dev/ttyACM9"

    def __init__(self, swallow: bool) -> None:
        self.swallow = swallow
        self.tries = 0
        self.dropped = False

    def reconnect(self) -> None:
        self.tries += 1
        if self.swallow and self.tries == 1:
            try:
                os.kill(os.getpid(), signal.SIGINT)     # delivered to this (the main) thread at once
                signal.sigtimedwait([], 0)              # a call: the handler runs here, before the except
            except KeyboardInterrupt:
                self.dropped = True                     # dropped, as io.IOBase's finalizer drops it
        raise TransportError("cannot open /dev/ttyACM9: there is no such port now")


def test_a_ctrl_c_dropped_by_a_library_still_ends_the_wait_for_the_board():
    board = UnpluggedBoard(swallow=True)
    with live.CtrlC() as ctrl_c, pytest.raises(KeyboardInterrupt):
        live._reconnect_until(board, None, ctrl_c)     # no deadline: only Ctrl-C ends it
    assert board.dropped and board.tries == 1           # no second try after the Ctrl-C
    assert ctrl_c.heard.is_set()


def test_without_ctrl_c_the_wait_ends_at_its_deadline_with_the_board_named():
    board = UnpluggedBoard(swallow=False)
    with live.CtrlC() as ctrl_c, pytest.raises(TransportError, match="the board on /dev/ttyACM9 did not come back"):
        live._reconnect_until(board, 0.0, ctrl_c)      # a deadline passed already: no try at all
    assert board.tries == 0


def test_the_handler_is_the_commands_only_while_it_runs_and_an_ignored_ctrl_c_stays_ignored():
    before = signal.getsignal(signal.SIGINT)
    with live.CtrlC():
        assert signal.getsignal(signal.SIGINT) not in (before, signal.SIG_IGN, signal.SIG_DFL)
    assert signal.getsignal(signal.SIGINT) is before
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # started under nohup
    try:
        with live.CtrlC() as ctrl_c:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert ctrl_c.running(None)
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_port_that_is_not_there_is_said_so_without_pyserial(monkeypatch, tmp_path):
    def no_serial(*args, **kwargs):
        raise AssertionError("pyserial was asked to open a port that is not there")

    monkeypatch.setattr(serial, "Serial", no_serial)
    gone = tmp_path / "ttyACM0"
    with pytest.raises(TransportError) as raised:
        SerialTransport(str(gone))
    assert str(raised.value) == (f"cannot open {gone}: there is no such port now; check the cable "
                                 "(a board unplugged, or an emulator stopped, takes its port away)")
