# Stand-in for MicroPython's `neopixel` on the unix port (the emulator; never
# deployed). write() puts the raw frame (GRB bytes in chain order, as on the
# wire to the WS2812s) in $TALLYBOARD_EMU_IO/leds.bin, write then rename.
from machine import write_atomic


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.writes = 0

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        offset = i * self.bpp
        for j in range(self.bpp):
            self.buf[offset + self.ORDER[j]] = v[j]

    def __getitem__(self, i):
        offset = i * self.bpp
        return tuple(self.buf[offset + self.ORDER[j]] for j in range(self.bpp))

    def fill(self, v):
        for i in range(self.n):
            self[i] = v

    def write(self):
        self.writes += 1
        write_atomic("leds.bin", self.buf)
