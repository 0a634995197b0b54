"""An emulated board on tallyboard's own image (a ROMFS partition: Emulator(romfs=...), firmware/emu's
romboot and partition stand-in), with an update over the air staged on its flash as tallynet/update.py
stages one: at the next power-up tallyboot installs the new release (its HELLO says the new firmware
version) with the game intact; the new release never links (no Wi-Fi here), so once its trial's seconds
are gone the board restarts by itself (machine.reset(), which the emulator powers up again) on the old
release, and its flash says why. Issue 43."""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

import tallyboot
from emu_fixtures import until
from tallycore import cards, rummy
from tallyboard.boardlink.client import Board
from tallyboard.boardlink.transport import SerialTransport
from tallyboard.tooling import fileset
from tallyboard.tooling.emulator import ROMFS_FILE, Emulator
from tallyboard.tooling.mpunix import FIRMWARE_DIR

pytestmark = [pytest.mark.emulator]

PARTITION = 256 * 1024          # the Pico W image's (image/boards/TALLYBOARD_PICO_W/mpconfigboard.h)
BOOT_S = 60                     # bounds against a hang only


def release_b(tmp_path: Path) -> list[fileset.FirmwareFile]:
    """The checkout's file set with one visible change: its firmware version (HELLO's fw) 0.1.0-b."""
    copy = tmp_path / "firmware-b"
    shutil.copytree(FIRMWARE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    core = copy / "tallycore" / "__init__.py"
    text = core.read_text()
    assert 'VERSION = "0.1.0"' in text
    core.write_text(text.replace('VERSION = "0.1.0"', 'VERSION = "0.1.0-b"', 1))
    return fileset.build(copy)


def hello(emulator: Emulator) -> dict[str, str]:
    def answered() -> dict[str, str] | None:
        link = SerialTransport(emulator.port)
        try:
            return Board(link, timeout=1.0).connect()
        except Exception:        # booting, or restarting
            return None
        finally:
            link.close()
    return until(answered, BOOT_S, "the board's HELLO")


def test_a_staged_release_is_installed_tried_and_rolled_back_when_it_never_links(tmp_path: Path) -> None:
    flash = tmp_path / "flash"
    files_a = fileset.build()
    image_a = fileset.romfs_image(files_a)
    image_b = fileset.romfs_image(release_b(tmp_path))
    with Emulator(flash=flash, romfs=PARTITION, files=files_a) as emulator:
        assert hello(emulator)["fw"] == "0.1.0"
        assert not (flash / "tallycore").exists()          # the packages are in the partition only
        link = SerialTransport(emulator.port)
        board = Board(link, timeout=3.0)
        try:
            board.connect()
            board.new("rummy", 4)
            # a hand (docs/rules.md, Rummy): players 1, 2 and 3 hold a king, a queen and a jack, player 0 goes out
            for event in (rummy.pack_card(1, cards.card(13, 0)), rummy.pack_card(2, cards.card(12, 0)),
                          rummy.pack_card(3, cards.card(11, 0)), rummy.OUT | 0):
                board.event(event)
            before = board.state()
            before.pop("eseq")
            assert before["n"] == "4"
        finally:
            link.close()
        emulator.cut_power()
        # staged as the link stages one (tallynet.update: new.rom whole, old.rom saved, then the switch)
        (flash / "update").mkdir()
        (flash / tallyboot.NEW).write_bytes(image_b)
        (flash / tallyboot.OLD).write_bytes(image_a)
        tallyboot.write_state([tallyboot.INSTALL, "bbbbbbbbbbbb", str(len(image_b)), hashlib.sha256(image_b).hexdigest(),
                               "aaaaaaaaaaaa", str(len(image_a)), hashlib.sha256(image_a).hexdigest(), "-", "2"],
                              str(flash) + "/")
        emulator.power_on()
        assert hello(emulator)["fw"] == "0.1.0-b"          # B runs, on trial
        assert (flash / ROMFS_FILE).read_bytes()[:len(image_b)] == image_b
        assert tallyboot.read_state(str(flash) + "/")[0] == tallyboot.TRIAL
        link = SerialTransport(emulator.port)
        try:
            again = Board(link, timeout=3.0)
            again.connect()
            after = again.state()
            after.pop("eseq")                               # (a new power-up's events count from 1)
            assert after == before                          # the game, from the journal on littlefs
        finally:
            link.close()
        # no broker here: 2 s on, the trial's timer goes back to A, and the emulator powers the board up again
        until(lambda: emulator.resets == 1, BOOT_S, "the trial's own restart")
        assert hello(emulator)["fw"] == "0.1.0"
        words = tallyboot.read_state(str(flash) + "/")
        assert (words[0], words[1], words[7]) == (tallyboot.BACK, "bbbbbbbbbbbb", tallyboot.WHY_NO_LINK)
        assert (flash / ROMFS_FILE).read_bytes()[:len(image_a)] == image_a
