"""The scripts a deploy runs on the board through mpremote (deploy.py says
when): the survey, the preparation, the writer each file is handed to, the
ROMFS blocks, the board setting, and the lines they print, which deploy.py
follows."""
from __future__ import annotations

import binascii
import hashlib
import zlib
from typing import Sequence

import tallyboot
from tallynet import update

from . import fileset

CHIP_LINE = "chip "
BOARD_LINE = "board "
SHA256_LINE = "sha256 "
INFLATES_LINE = "inflates"     # the board has MicroPython's deflate module
# zlib window for packed files: 2**10 bytes is all the board allocates to unpack one
PACK_WBITS = 10
ROM_BLOCK = 4096    # rp2's ROMFS partition is written a 4 KB flash sector at a time
PREPARED_LINE = "tallyboard: prepared"
WROTE_LINE = "tallyboard: wrote "
BOARD_SET_LINE = "tallyboard: board set"
ROMFS_LINE = "romfs "                       # the partition's size and the SHA-256 of its first bytes
ROM_BLOCK_LINE = "tallyboard: rom block "
DROPPED_LINE = "tallyboard: dropped the packages' littlefs copy"


def survey_script(paths: Sequence[str], rom_length: int = 0) -> str:
    """MicroPython code that says the chip, the board setting, whether it can
    unpack deflate streams, the SHA-256 of each of paths it holds (none if
    it has no hashlib) and, when its image has a ROMFS partition, the
    partition's size and the SHA-256 of its first rom_length bytes."""
    return "\n".join([
        "import sys",
        f"print({CHIP_LINE!r} + sys.implementation._machine)",
        "try:",              # a damaged config.txt: the board runs its default, and so does this
        " for line in open('config.txt'):",
        f"  if line.startswith({BOARD_LINE!r}):",
        "   print(line.strip())",
        "except (OSError, ValueError):",
        " pass",
        "try:",
        " import deflate",
        f" print({INFLATES_LINE!r})",
        "except ImportError:",
        " pass",
        "try:",
        " from hashlib import sha256",
        " from binascii import hexlify",
        "except ImportError:",
        " sha256 = None",
        "b = bytearray(512)",
        f"for p in {list(paths)!r} if sha256 else ():",
        " h = sha256()",
        " try:",           # not there, or not a file: it is written
        "  with open(p, 'rb') as f:",
        "   while True:",
        "    n = f.readinto(b)",
        "    if not n:",
        "     break",
        "    h.update(memoryview(b)[:n])",
        " except OSError:",
        "  continue",
        f" print({SHA256_LINE!r} + hexlify(h.digest()).decode() + ' ' + p)",
        "try:",             # an image with a ROMFS partition: rp2's is a block device
        " import vfs",
        " d = vfs.rom_ioctl(2, 0)",
        " size = d.ioctl(4, 0) * d.ioctl(5, 0)",
        "except Exception:",
        " size = 0",
        "if size:",
        f" h = sha256() if sha256 and {rom_length} <= size else None",     # an image too large is not read
        " at = 0",
        f" while h and at < {rom_length}:",
        f"  n = min(512, {rom_length} - at)",
        "  d.readblocks(0, b, at)",
        "  h.update(memoryview(b)[:n])",
        "  at += n",
        f" print({ROMFS_LINE!r} + str(size) + ' ' + (hexlify(h.digest()).decode() if h else ''))",
    ])


def prepare_script(files: list[fileset.FirmwareFile]) -> str:
    """MicroPython code run on the board before writing: the folders, and
    stale files away (an update over the air's too)."""
    keep = sorted(f.dest for f in files)
    lines = ["import os"]
    for folder in fileset.folders(files):
        lines += ["try:", f" os.mkdir({folder!r})", "except OSError:", " pass"]
    for package in (p for p in fileset.folders(files) if p.split("/")[0] in fileset.PACKAGES):
        lines += [f"for n in os.listdir({package!r}):",
                  f" p={package!r}+'/'+n",
                  f" if n.endswith('.py') or (n.endswith('.mpy') and p not in {keep!r}):",
                  "  os.remove(p)"]
    for folder in fileset.RETIRED:                # an earlier deploy's, no longer in the set
        lines += ["try:",
                  f" for n in os.listdir({folder!r}):",
                  f"  os.remove({folder!r}+'/'+n)",
                  f" os.rmdir({folder!r})",
                  "except OSError:",
                  " pass"]
    lines += ["for n in os.listdir():",          # the root
              " if n.endswith('.part'):",
              "  os.remove(n)"]
    # an update over the air under way or ended (tallyboot) is over: what deploy writes is what runs
    update_files = [tallyboot.STATE, tallyboot.STATE + ".tmp", tallyboot.NEW, tallyboot.OLD, update.MANIFEST_FILE,
                    update.POSITION_FILE]
    lines += [f"for p in {update_files!r}:",
              " try:",
              "  os.remove(p)",
              " except OSError:",
              "  pass"]
    for folder in fileset.folders(files):
        lines += [f"for n in os.listdir({folder!r}):",
                  " if n.endswith('.part'):",
                  f"  os.remove({folder!r}+'/'+n)"]
    lines.append(f"print({PREPARED_LINE!r})")
    return "\n".join(lines)


def drop_packages_script() -> str:
    """MicroPython code that deletes the packages' littlefs copy (the ROMFS holds them now)."""
    return "\n".join([
        "import os",
        f"for p in {list(fileset.SUBPACKAGES + fileset.PACKAGES)!r}:",   # a package's folders before it
        " try:",
        "  for n in os.listdir(p):",
        "   os.remove(p + '/' + n)",
        "  os.rmdir(p)",
        " except OSError:",
        "  pass",
        f"print({DROPPED_LINE!r})",
    ])


# tallyboard_write() and tallyboard_rom() for the writing scripts: defined at the start of each copy session
WRITER_SCRIPT = "\n".join([
    "import os",
    "from binascii import a2b_base64",
    "try:",
    " from hashlib import sha256",
    "except ImportError:",
    " sha256 = None",
    "def tallyboard_data(what, text, digest, packed):",
    " data = a2b_base64(text)",
    " if packed:",
    "  from deflate import DeflateIO, ZLIB",
    "  from io import BytesIO",
    "  data = DeflateIO(BytesIO(data), ZLIB).read()",
    " if sha256 and sha256(data).digest() != a2b_base64(digest):",
    "  raise OSError('tallyboard: ' + what + ' arrived damaged; run tallyboard deploy again')",
    " return data",
    "def tallyboard_write(path, text, digest, packed=False):",
    " data = tallyboard_data(path, text, digest, packed)",
    " f = open(path + '.part', 'wb')",
    " try:",
    "  f.write(data)",
    " finally:",
    "  f.close()",
    " os.rename(path + '.part', path)",
    f" print({WROTE_LINE!r} + path)",
    "def tallyboard_rom(block, text=None, digest=None, packed=False):",
    " import vfs",         # the partition unmounted: nothing reads it while it is written
    " try:",
    "  vfs.umount('/rom')",
    " except OSError:",
    "  pass",
    " d = vfs.rom_ioctl(2, 0)",
    " d.ioctl(6, block)",
    " if text is not None:",
    "  d.writeblocks(block, tallyboard_data('block ' + str(block) + ' of the ROMFS image', text, digest, packed))",
    f" print({ROM_BLOCK_LINE!r} + str(block) + (' written' if text is not None else ' erased'))",
])


def _encoded(data: bytes, inflates: bool) -> str:
    """The arguments that carry data to the board: its bytes in base64, deflated when the
    board can unpack them and they get smaller, and their SHA-256."""
    digest = binascii.b2a_base64(hashlib.sha256(data).digest(), newline=False).decode()
    packer = zlib.compressobj(9, zlib.DEFLATED, PACK_WBITS)
    packed = packer.compress(data) + packer.flush()
    if inflates and len(packed) < len(data):
        return f"{binascii.b2a_base64(packed, newline=False).decode()!r}, {digest!r}, True"
    return f"{binascii.b2a_base64(data, newline=False).decode()!r}, {digest!r}"


def write_script(f: fileset.FirmwareFile, inflates: bool) -> str:
    """MicroPython code that writes one file (with tallyboard_write from the
    prepare step): deflated when the board can unpack it and it gets smaller."""
    return f"tallyboard_write({f.dest!r}, {_encoded(f.data, inflates)})\n"


def rom_scripts(image: bytes, block_size: int, inflates: bool) -> list[tuple[str, str]]:
    """(name, MicroPython code) of each step that writes the ROMFS image, in
    order: block 0 (the image's header) erased first, the others written, block
    0 written last, so the partition holds a ROMFS only once all of it is there."""
    blocks = [image[at:at + block_size] for at in range(0, len(image), block_size)]
    steps = [("rom-0-erase", "tallyboard_rom(0)\n")]
    for number in list(range(1, len(blocks))) + [0]:
        block = blocks[number] + bytes(block_size - len(blocks[number]))    # the rest of it left blank
        steps.append((f"rom-{number}", f"tallyboard_rom({number}, {_encoded(block, inflates)})\n"))
    return steps


def set_board_script(name: str) -> str:
    """MicroPython code that sets the board setting with the firmware just
    written (its own Config: the same checks and the same file as CFG SET)."""
    return "\n".join([
        "from tallyrun.config import Config",
        "from tallyrun.protocol import CFG_BOARD",
        "c = Config()",
        "c.load()",
        f"c.set(CFG_BOARD, 0, {name!r})",
        "c.save()",
        f"print({BOARD_SET_LINE!r})",
    ])
