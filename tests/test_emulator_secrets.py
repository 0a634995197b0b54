"""The emulated Wi-Fi board's secrets are its user's alone (issue 30's finding 6):
it kept its keys and the Wi-Fi passphrase in a net.txt of 0644, which every
user of the machine could read. Run under umask 022 (the common default), as
`tallyboard emulate` or an evening's emulated boards are: the net.txt the
firmware writes is 0600, and one an older version left 0644 is tightened
before the board powers on."""
from __future__ import annotations

import os
import stat

import pytest

import wifi_boards as wb
from waiting import until
from tallynet import settings

pytestmark = [pytest.mark.emulator]


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def common_umask():
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def test_the_net_txt_the_firmware_writes_is_0600_and_an_old_one_is_tightened(tmp_path, common_umask):
    flash = wb.wifi_flash(tmp_path / "flash", 0x1A2B, 2)
    net = flash / settings.NET_FILE
    with wb.wifi_board(flash) as (emulator, board):
        board.request("NET", "SET", "wifi_password", settings.escape(wb.PASSPHRASE.encode()).decode())
        until(lambda: net.exists() and b"wifi_password" in net.read_bytes(), 60, "the passphrase on the flash")
        assert oct(mode(net)) == oct(0o600)
        # a net.txt an older version left open to others: made private before the board powers on again
        emulator.cut_power()
        net.chmod(0o644)
        emulator.power_on()
        until(lambda: mode(net) == 0o600, 60, "net.txt made private at power-on",
              explain=lambda: oct(mode(net)))
        board.connect()
        assert board.request("NET", "GET", "wifi_password") == {"key": "wifi_password", "value": "set"}   # still read
