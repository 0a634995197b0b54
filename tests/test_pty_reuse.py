"""An emulated board's port is a pseudo-terminal (/dev/pts/N). When its emulator stops, the system gives
the number to the next program that asks for a pty; a link that opens the port again then (watch
waiting for the board to come back) would write the protocol into that program's terminal, or into
another emulated board. A link holds its pty while it lives (transport.PtyHold): the number is not
given away, and a reopen finds the board or nothing."""
from __future__ import annotations

import os
import select

import pytest
from emu_fixtures import until

from tallyboard.boardlink.portshare import HubTransport
from tallyboard.boardlink.transport import SerialTransport, TransportError


def _ptys_after(count: int) -> list[tuple[int, int]]:
    return [os.openpty() for _ in range(count)]


@pytest.mark.parametrize("link_kind", [SerialTransport, HubTransport])
def test_a_link_reopening_a_stopped_emulators_port_never_opens_another_programs_pty(link_kind, tmp_path,
                                                                                   monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))      # the hub's socket, for HubTransport
    master, slave = os.openpty()
    port = os.ttyname(slave)
    link = link_kind(port)
    os.close(slave)
    os.close(master)                # the emulator stopped: the system removes /dev/pts/N
    if link_kind is HubTransport:   # its hub hears the board go (a hub still reaching it is kept)
        until(lambda: link.hub.failure is not None, 60, "the hub hearing its board go")
    with pytest.raises(TransportError):
        link.reopen()               # watch's first try: nothing there, the board has not come back
    others = _ptys_after(8)         # other programs ask for ptys: the lowest free numbers first
    try:
        assert port not in [os.ttyname(s) for _, s in others]    # the link holds its number
        with pytest.raises(TransportError):
            link.reopen()           # and the next: still nothing, never another program's pty
        assert not any(select.select([m], [], [], 0)[0] for m, _ in others)   # nobody was written to
        link.close()                # a link closed for good lets the number go
        again = os.openpty()
        others.append(again)
        assert os.ttyname(again[1]) == port
    finally:
        link.close()
        for m, s in others:
            os.close(s)
            os.close(m)


def test_a_link_to_a_running_emulators_pty_reopens_it(tmp_path):
    master, slave = os.openpty()
    port = os.ttyname(slave)
    link = SerialTransport(port)
    try:
        link.reopen()               # a pulled cable's reopen on a port still there
        os.write(master, b"1 OK*0000\n")
        assert link.read_line(2.0) == b"1 OK*0000"
    finally:
        link.close()
        os.close(slave)
        os.close(master)
