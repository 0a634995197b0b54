// The board's serial NOR flash (W25Q16JV-like, as on a Pico) behind the RP2040's SSI, its chip select
// driven through IO_QSPI's GPIO_QSPI_SS_CTRL: the commands MicroPython's rp2 port and the boot ROM send
// (read 0x03/0x0b, program 0x02 within a 256-byte page, erase 0x20/0x52/0xd8 and the whole chip, write
// enable, status, JEDEC id, unique id). `bytes` is the flash's memory (the chip's XIP reads see it);
// changed(first, last) is told the sectors a program or an erase changed, erasedAll() a chip erase, so
// the twin keeps its saved image in step. Never busy: every write is done when its command ends.
export class SpiFlash {
  constructor({ bytes, size, uniqueId, sector = 4096, changed = () => {}, erasedAll = () => {} }) {
    this.bytes = bytes; this.size = size; this.uniqueId = uniqueId; this.sector = sector;
    this.changed = changed; this.erasedAll = erasedAll;
    this.wel = false; this.cmd = -1; this.selected = false; this.stats = { erases: 0, programs: 0 };
  }
  select() { this.selected = true; this.cmd = -1; this.i = 0; this.addr = 0; this.dirtyLo = -1; this.dirtyHi = -1; }
  deselect() {
    if (!this.selected) return;
    this.selected = false;
    const c = this.cmd;
    if ((c === 0x20 || c === 0x52 || c === 0xd8) && this.i >= 3 && this.wel) {
      const size = c === 0x20 ? 4096 : c === 0x52 ? 32768 : 65536;
      const start = (this.addr & (this.size - 1)) & ~(size - 1);
      this.bytes.fill(0xff, start, start + size);
      this.stats.erases++;
      this.changed(start / this.sector, (start + size) / this.sector - 1);
    } else if ((c === 0xc7 || c === 0x60) && this.wel) {
      this.bytes.fill(0xff, 0, this.size);
      this.erasedAll();
    } else if (c === 0x02 && this.dirtyLo >= 0) {
      this.stats.programs++;
      this.changed(Math.floor(this.dirtyLo / this.sector), Math.floor(this.dirtyHi / this.sector));
    }
    if ([0x02, 0x20, 0x52, 0xd8, 0xc7, 0x60, 0x01, 0x31, 0x11, 0x04].includes(c)) this.wel = false;
    this.cmd = -1;
  }
  xfer(b) {
    if (!this.selected) return 0xff;
    if (this.cmd < 0) {
      this.cmd = b; this.i = 0;
      if (b === 0x06) this.wel = true;
      return 0xff;
    }
    const i = this.i++;
    switch (this.cmd) {
      case 0x05: return this.wel ? 0x02 : 0x00;   // status 1: never busy
      case 0x35: return 0x02;                       // status 2: QE set
      case 0x15: return 0x00;
      case 0x9f: return [0xef, 0x40, 0x15][i] ?? 0xff;
      case 0x4b: return i < 4 ? 0xff : (this.uniqueId[i - 4] ?? 0xff);
      case 0x03:
        if (i < 3) { this.addr = (this.addr << 8) | b; return 0xff; }
        return this.bytes[(this.addr + i - 3) & (this.size - 1)];
      case 0x0b:
        if (i < 3) { this.addr = (this.addr << 8) | b; return 0xff; }
        if (i === 3) return 0xff;
        return this.bytes[(this.addr + i - 4) & (this.size - 1)];
      case 0x02: {
        if (i < 3) { this.addr = (this.addr << 8) | b; return 0xff; }
        if (!this.wel) return 0xff;
        const a = this.addr & (this.size - 1);
        const at = (a & ~0xff) | ((a + i - 3) & 0xff);  // wraps within the 256-byte page
        this.bytes[at] &= b;
        if (this.dirtyLo < 0 || at < this.dirtyLo) this.dirtyLo = at;
        if (at > this.dirtyHi) this.dirtyHi = at;
        return 0xff;
      }
      case 0x20: case 0x52: case 0xd8:
        if (i < 3) this.addr = (this.addr << 8) | b;
        return 0xff;
      default:
        return 0xff;
    }
  }
}

// The SSI and IO_QSPI peripherals around spiFlash, as classes of the rp2040js in use (its
// BasePeripheral is given: the twin loads rp2040js at run time). SSI's data register shifts a byte
// through the flash while IO_QSPI holds its chip select low.
export function flashPeripherals(BasePeripheral, spiFlash) {
  class SSI extends BasePeripheral {
    constructor(mcu, qspi) { super(mcu, 'SSI'); this.qspi = qspi; this.regs = new Map(); this.rx = []; this.ctrlr0 = 0; this.ssienr = 0; }
    readUint32(offset) {
      switch (offset) {
        case 0x00: return this.ctrlr0;
        case 0x08: return this.ssienr;
        case 0x20: return 0;                       // TXFLR: the TX FIFO drains at once
        case 0x24: return this.rx.length;          // RXFLR
        case 0x28: return 0x6 | (this.rx.length ? 0x8 : 0); // SR: TFE | TFNF | RFNE, never BUSY
        case 0x58: return 0x51535049;
        case 0x5c: return 0x3430312a;
      }
      if (offset >= 0x60 && offset < 0xf0) return this.rx.length ? this.rx.shift() : 0; // DR0..DR35
      return this.regs.get(offset) ?? 0;
    }
    writeUint32(offset, value) {
      switch (offset) {
        case 0x00: this.ctrlr0 = value; return;
        case 0x08: this.ssienr = value & 1; if (!this.ssienr) this.rx.length = 0; return;
      }
      if (offset >= 0x60 && offset < 0xf0) {
        const tmod = (this.ctrlr0 >> 8) & 3;
        const resp = this.qspi.csLow ? spiFlash.xfer(value & 0xff) : 0;
        if (tmod === 0 && this.rx.length < 16) this.rx.push(resp);
        return;
      }
      this.regs.set(offset, value);
    }
  }

  // IO_QSPI: remember the registers; GPIO_QSPI_SS_CTRL's OUTOVER is the flash chip select.
  class IOQSPI extends BasePeripheral {
    constructor(mcu) { super(mcu, 'IO_QSPI'); this.regs = new Map(); }
    get csLow() { return (((this.regs.get(0x0c) ?? 0) >> 8) & 3) === 2; }
    readUint32(offset) { return this.regs.get(offset) ?? 0; }
    writeUint32(offset, value) {
      const was = this.csLow;
      this.regs.set(offset, value >>> 0);
      const now = this.csLow;
      if (!was && now) spiFlash.select();
      if (was && !now) spiFlash.deselect();
    }
  }
  return { SSI, IOQSPI };
}
