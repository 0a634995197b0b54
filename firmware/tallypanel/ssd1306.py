# SSD1306 128x64 OLED over I2C, after micropython-lib's ssd1306 driver.
#
# The driver is a framebuf.FrameBuffer over one 1024-byte buffer allocated
# here (MONO_VLSB: byte page * 128 + x holds pixels x, 8 * page .. 8 * page + 7,
# bit 0 at the top: the SSD1306's own page order). show(pages, lo, hi) sends
# only the pages whose bit is set, and of each only the 16-column blocks that
# hold its columns lo[p]..hi[p], from memoryviews made once: a redraw of a
# few characters sends a few dozen bytes and allocates nothing.
# The I2C bus is injected (machine.I2C on the board, a stand-in elsewhere):
# only writeto(addr, buf) and writevto(addr, bufs) are used.
import framebuf

from tallycore import const

_SET_CONTRAST = const(0x81)
_SET_ENTIRE_ON = const(0xA4)
_SET_NORM_INV = const(0xA6)
_SET_DISP = const(0xAE)
_SET_MEM_ADDR = const(0x20)
_SET_COL_ADDR = const(0x21)
_SET_PAGE_ADDR = const(0x22)
_SET_DISP_START_LINE = const(0x40)
_SET_SEG_REMAP = const(0xA0)
_SET_MUX_RATIO = const(0xA8)
_SET_COM_OUT_DIR = const(0xC0)
_SET_DISP_OFFSET = const(0xD3)
_SET_COM_PIN_CFG = const(0xDA)
_SET_DISP_CLK_DIV = const(0xD5)
_SET_PRECHARGE = const(0xD9)
_SET_VCOM_DESEL = const(0xDB)
_SET_CHARGE_PUMP = const(0x8D)

WIDTH = const(128)
HEIGHT = const(64)
PAGES = const(8)
_ALL_PAGES = const(0xFF)
_BLOCK = const(16)       # columns: a window is sent in whole blocks
_BLOCKS = const(8)       # WIDTH // _BLOCK

_INIT = bytes((
    _SET_DISP,                       # display off
    _SET_MEM_ADDR, 0x00,             # horizontal addressing
    _SET_DISP_START_LINE,
    _SET_SEG_REMAP | 0x01,           # column 127 mapped to SEG0
    _SET_MUX_RATIO, HEIGHT - 1,
    _SET_COM_OUT_DIR | 0x08,         # scan from COM[N] to COM0
    _SET_DISP_OFFSET, 0x00,
    _SET_COM_PIN_CFG, 0x12,
    _SET_DISP_CLK_DIV, 0x80,
    _SET_PRECHARGE, 0xF1,            # internal charge pump
    _SET_VCOM_DESEL, 0x30,
    _SET_CONTRAST, 0xFF,
    _SET_ENTIRE_ON,
    _SET_NORM_INV,
    _SET_CHARGE_PUMP, 0x14,
    _SET_DISP | 0x01,                # display on
))


class SSD1306_I2C(framebuf.FrameBuffer):
    def __init__(self, i2c, addr=0x3C):
        self.i2c = i2c
        self.addr = addr
        self.buffer = bytearray(PAGES * WIDTH)
        super().__init__(self.buffer, WIDTH, HEIGHT, framebuf.MONO_VLSB)
        self._cmd = bytearray(2)
        self._cmd[0] = 0x80  # Co = 1, D/C# = 0: one command byte follows
        # Co = 0, D/C# = 0: the six command bytes of a window in one write
        self._window = bytearray((0x00, _SET_COL_ADDR, 0, WIDTH - 1, _SET_PAGE_ADDR, 0, 0))
        mv = memoryview(self.buffer)
        self._pages = [mv[p * WIDTH:(p + 1) * WIDTH] for p in range(PAGES)]
        self._blocks = [mv[b * _BLOCK:(b + 1) * _BLOCK] for b in range(PAGES * _BLOCKS)]
        self._data = [b"\x40", self._pages[0]]  # D/C# = 1: display data follows
        self.init_display()

    def init_display(self):
        for cmd in _INIT:
            self.write_cmd(cmd)
        self.fill(0)
        self.show()

    def write_cmd(self, cmd):
        self._cmd[1] = cmd
        self.i2c.writeto(self.addr, self._cmd)

    def poweroff(self):
        self.write_cmd(_SET_DISP)

    def poweron(self):
        self.write_cmd(_SET_DISP | 0x01)

    def contrast(self, value):
        self.write_cmd(_SET_CONTRAST)
        self.write_cmd(value)

    def show(self, pages=_ALL_PAGES, lo=None, hi=None):
        """Send the pages whose bit is set in pages (bit p = rows 8p..8p+7):
        all of each, or with lo and hi (bytearrays by page) the blocks of
        columns lo[p]..hi[p]."""
        window = self._window
        data = self._data
        for p in range(PAGES):
            if not pages >> p & 1:
                continue
            first = 0
            last = _BLOCKS - 1
            if lo is not None and lo[p] <= hi[p]:
                first = lo[p] // _BLOCK
                last = hi[p] // _BLOCK
            window[2] = first * _BLOCK
            window[3] = last * _BLOCK + _BLOCK - 1
            window[5] = p
            window[6] = p
            self.i2c.writeto(self.addr, window)
            if first == 0 and last == _BLOCKS - 1:
                data[1] = self._pages[p]
                self.i2c.writevto(self.addr, data)
                continue
            for b in range(p * _BLOCKS + first, p * _BLOCKS + last + 1):
                data[1] = self._blocks[b]
                self.i2c.writevto(self.addr, data)
