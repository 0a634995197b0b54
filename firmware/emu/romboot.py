# What the rp2 port does before main.py on tallyboard's images (image/README.md),
# for an emulated board with a ROMFS partition (tooling/emulator.py, romfs=):
# the partition (machine.rom_ioctl, romfs.bin in the flash folder) mounted at
# /rom when it holds an image, then main.py run as the port runs it. The
# emulator runs this instead of main.py for such a board. Never deployed.
import sys

import machine
import vfs

if machine.rom_ioctl(1) > 0:
    partition = machine.rom_ioctl(2, 0)
    if bytes(partition[0:3]) == b"\xd2\xcd\x31":
        vfs.mount(vfs.VfsRom(partition), "/rom")
        sys.path.append("/rom")        # where the port puts it: after the flash's root and the frozen modules
        sys.path.append("/rom/lib")
    del partition
del machine, vfs


def _main():
    with open("main.py") as f:
        code = compile(f.read(), "main.py", "exec")     # the source let go before it runs, as the port does
    exec(code, {"__name__": "__main__"})


_main()
