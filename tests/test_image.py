"""tallyboard's MicroPython images (image/README.md): each UF2 is the one SHA256SUMS names, each
board folder gives its ROMFS partition the size the device twin keeps (bench/twin_harness.py's ROM_BYTES),
and every UF2 block is for flash below that partition, so flashing an image leaves the partition
and the filesystem as they were."""
from __future__ import annotations

import hashlib
import re
import struct
from pathlib import Path

from twin_support import device_twin

IMAGE = Path(__file__).resolve().parent.parent / "image"
FLASH_BASE = 0x10000000
# the boards' flash storage (their mpconfigboard.h, MicroPython's own): 848 KiB on a Pico W, 1408 on a Pico
STORAGE_BYTES = {"TALLYBOARD_PICO_W": 848 * 1024, "TALLYBOARD_PICO": 1408 * 1024}
FLASH_BYTES = 2 * 1024 * 1024
UF2_NAMES = {"TALLYBOARD_PICO_W": "tallyboard-pico-w.uf2", "TALLYBOARD_PICO": "tallyboard-pico.uf2"}
STOCK = "stock-pico.uf2"     # MicroPython's own RPI_PICO, unchanged: the device twin's default image


def test_each_image_is_the_one_sha256sums_names():
    listed = dict(reversed(line.split()) for line in (IMAGE / "SHA256SUMS").read_text().splitlines())
    assert sorted(listed) == sorted([STOCK, *UF2_NAMES.values()])
    for name, digest in listed.items():
        assert hashlib.sha256((IMAGE / name).read_bytes()).hexdigest() == digest, name


def test_each_board_has_the_romfs_the_twin_keeps_and_its_image_stays_below_it():
    for board, uf2 in UF2_NAMES.items():
        header = (IMAGE / "boards" / board / "mpconfigboard.h").read_text()
        found = re.search(r"#define MICROPY_HW_ROMFS_BYTES\s+\((\d+) \* 1024\)", header)
        assert found, board
        rom = int(found.group(1)) * 1024
        assert rom == device_twin.ROM_BYTES
        assert f"({STORAGE_BYTES[board] // 1024} * 1024)" in header       # the filesystem as the stock image's
        romfs_base = FLASH_BYTES - STORAGE_BYTES[board] - rom           # rp2_flash.c: below the storage
        data = (IMAGE / uf2).read_bytes()
        highest = 0
        for at in range(0, len(data), 512):
            magic0, magic1, flags, address, size = struct.unpack_from("<IIIII", data, at)
            assert (magic0, magic1) == (0x0A324655, 0x9E5D5157), (uf2, at)
            if not flags & 1:
                highest = max(highest, address - FLASH_BASE + size)
        assert 0 < highest <= romfs_base, (uf2, highest, romfs_base)
