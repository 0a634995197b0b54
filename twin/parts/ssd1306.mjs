// An SSD1306 128x64 OLED on an rp2040js I2C bus: the command and data stream decoded into
// the controller's 1024-byte display RAM (GDDRAM: byte page * 128 + column, bit 0 the page's
// top row), and every byte held on the bus for as long as the wire takes at the SCL
// frequency the firmware programmed (9 SCL clocks a byte, START and STOP a clock each), so
// the CPU waits as on a real bus. NAKs its address while absent (--no-oled) or faulted.
//
// Commands modelled (SSD1306 datasheet rev 1.1, section 9): everything the firmware's
// tallypanel/ssd1306.py sends. Anything else is an error naming the byte: the board would
// do something this model cannot show.
// The address is the board as built (a jumper the other way: parts/build.mjs): a write to any
// other address NAKs, counted as stray_naks with the last such address (nothing else is on the bus).
const W = 128, PAGES = 8;

// command byte -> how many argument bytes follow
const ARGS = new Map([
  [0x81, 1], // contrast
  [0x20, 1], // memory addressing mode
  [0x21, 2], // column address window
  [0x22, 2], // page address window
  [0xa8, 1], // multiplex ratio
  [0xd3, 1], // display offset
  [0xda, 1], // COM pins configuration
  [0xd5, 1], // display clock divide / oscillator
  [0xd9, 1], // pre-charge period
  [0xdb, 1], // VCOMH deselect level
  [0x8d, 1], // charge pump
]);

export class SSD1306 {
  constructor({ address = 0x3c, log = () => {} } = {}) {
    this.address = address;
    this.log = log;
    this.present = true;      // false: NAK (no display on the bus, or the fault switch)
    this.ram = new Uint8Array(W * PAGES);
    this.errors = [];
    this.stats = { transactions: 0, bytes: 0, data_bytes: 0, command_bytes: 0, naks: 0, bus_ns: 0, last_stop_ms: null,
      stray_naks: 0, stray_address: null };
    this.resetState();
  }

  resetState() {
    this.on = false; this.contrast = 0x7f; this.inverted = false; this.entireOn = false;
    this.addressing = 2;                       // page addressing after reset
    this.colStart = 0; this.colEnd = W - 1; this.pageStart = 0; this.pageEnd = PAGES - 1;
    this.col = 0; this.page = 0;
    this.startLine = 0; this.segRemap = false; this.comReversed = false; this.mux = 63; this.offset = 0;
    this.comPins = 0x12; this.clockDiv = 0x80; this.precharge = 0x22; this.vcomh = 0x20; this.chargePump = false;
    this.pending = null;       // [command, args so far, args needed]
  }

  state() {
    return {
      present: this.present, address: this.address, on: this.on, contrast: this.contrast, inverted: this.inverted,
      entire_on: this.entireOn, addressing: ['horizontal', 'vertical', 'page'][this.addressing] ?? 'invalid',
      columns: [this.colStart, this.colEnd], pages: [this.pageStart, this.pageEnd],
      start_line: this.startLine, segment_remap: this.segRemap, com_reversed: this.comReversed,
      multiplex: this.mux + 1, offset: this.offset, com_pins: this.comPins, clock_div: this.clockDiv,
      precharge: this.precharge, vcomh: this.vcomh, charge_pump: this.chargePump,
    };
  }

  error(text) {
    const line = `[rp2emu ssd1306] error: ${text}`;
    this.errors.push(text);
    if (this.errors.length > 100) this.errors.shift();
    this.log(line);
  }

  // ---- one I2C write transaction: control byte(s) then commands or data ----
  begin() { this.first = true; this.control = null; this.stats.transactions++; }

  byte(b) {
    this.stats.bytes++;
    if (this.control === null || this.continuation) {
      // a control byte: Co (bit 7) = another control byte follows after one byte; D/C# (bit 6)
      if (b & 0x3f) { this.error(`control byte 0x${hex(b)} has bits other than Co and D/C# set`); }
      this.control = b & 0x40 ? 'data' : 'command';
      this.continuation = false;
      this.co = !!(b & 0x80);
      return;
    }
    if (this.co) this.continuation = true;   // Co=1: one byte, then a control byte again
    if (this.control === 'data') this.data(b); else this.command(b);
  }

  data(b) {
    this.stats.data_bytes++;
    this.ram[this.page * W + this.col] = b;
    if (this.addressing === 0) {            // horizontal: column, then page, wrapping in the window
      if (this.col >= this.colEnd) { this.col = this.colStart; this.page = this.page >= this.pageEnd ? this.pageStart : this.page + 1; }
      else this.col++;
    } else if (this.addressing === 1) {     // vertical
      if (this.page >= this.pageEnd) { this.page = this.pageStart; this.col = this.col >= this.colEnd ? this.colStart : this.col + 1; }
      else this.page++;
    } else {                                // page: the column wraps within the page
      this.col = this.col >= W - 1 ? 0 : this.col + 1;
    }
  }

  command(b) {
    this.stats.command_bytes++;
    if (this.pending) {
      this.pending.args.push(b);
      if (this.pending.args.length === this.pending.need) { const { cmd, args } = this.pending; this.pending = null; this.apply(cmd, args); }
      return;
    }
    const need = ARGS.get(b);
    if (need) { this.pending = { cmd: b, args: [], need }; return; }
    this.apply(b, []);
  }

  apply(cmd, a) {
    switch (cmd) {
      case 0x81: this.contrast = a[0]; return;
      case 0x20:
        if ((a[0] & 3) === 3) { this.error(`addressing mode 0x${hex(a[0])} is invalid (0 horizontal, 1 vertical, 2 page)`); return; }
        this.addressing = a[0] & 3; return;
      case 0x21: this.colStart = a[0] & 0x7f; this.colEnd = a[1] & 0x7f; this.col = this.colStart; return;
      case 0x22: this.pageStart = a[0] & 7; this.pageEnd = a[1] & 7; this.page = this.pageStart; return;
      case 0xa8:
        if ((a[0] & 0x3f) < 15) this.error(`multiplex ratio ${(a[0] & 0x3f) + 1} is below the SSD1306's 16`);
        this.mux = a[0] & 0x3f; return;
      case 0xd3: this.offset = a[0] & 0x3f; return;
      case 0xda: this.comPins = a[0]; return;
      case 0xd5: this.clockDiv = a[0]; return;
      case 0xd9: this.precharge = a[0]; return;
      case 0xdb: this.vcomh = a[0]; return;
      case 0x8d: this.chargePump = !!(a[0] & 0x04); return;
      case 0xae: this.on = false; return;
      case 0xaf:
        if (!this.chargePump) this.error('display switched on (0xAF) with the charge pump off (0x8D 0x14 first): the panel stays dark on a board without an external VCC');
        this.on = true; return;
      case 0xa4: this.entireOn = false; return;
      case 0xa5: this.entireOn = true; return;
      case 0xa6: this.inverted = false; return;
      case 0xa7: this.inverted = true; return;
      case 0xa0: case 0xa1: this.segRemap = cmd === 0xa1; return;
      case 0xc0: case 0xc8: this.comReversed = cmd === 0xc8; return;
    }
    if (cmd >= 0x40 && cmd <= 0x7f) { this.startLine = cmd & 0x3f; return; }
    if (cmd >= 0xb0 && cmd <= 0xb7) { this.page = cmd & 7; return; }           // page mode: page start
    if (cmd <= 0x0f) { this.col = (this.col & 0xf0) | cmd; return; }           // page mode: column low nibble
    if (cmd >= 0x10 && cmd <= 0x17) { this.col = (this.col & 0x0f) | ((cmd & 7) << 4); return; }
    this.error(`command byte 0x${hex(cmd)} is not modelled (scrolling, fade, zoom and the like are not in this model)`);
  }

  end() {
    if (this.pending && this.control === 'command') { /* arguments may follow in the next transaction */ }
  }

  // ---- the bus: attach to one rp2040js RPI2C with bus timing ----
  attach(mcu, i2c) {
    const clock = mcu.clock;
    const sclNs = () => ((i2c.sclHighPeriod + i2c.sclLowPeriod) * 1e9) / mcu.clkSys;
    let selected = false;
    const later = (clocks, fn) => {
      const ns = clocks * sclNs();
      this.stats.bus_ns += ns;
      const alarm = clock.createAlarm(() => fn());
      alarm.schedule(ns);
    };
    i2c.onStart = () => later(1, () => i2c.completeStart());
    i2c.onConnect = (address, mode) => {
      selected = this.present && address === this.address && mode === 0;
      if (address === this.address && !this.present) this.stats.naks++;
      if (address !== this.address) { this.stats.stray_naks++; this.stats.stray_address = address; }
      if (selected) this.begin();
      later(9, () => i2c.completeConnect(selected));
    };
    i2c.onWriteByte = (b) => {
      const ack = selected && this.present;
      if (ack) this.byte(b);
      else if (selected) {
        // a byte NAKed (the fault switched on mid-transaction): the display takes nothing more
        // until the next START, so a fault switched off meanwhile never resumes mid-stream
        this.stats.naks++;
        selected = false;
      }
      later(9, () => i2c.completeWrite(ack));
    };
    i2c.onReadByte = () => later(9, () => i2c.completeRead(0xff));
    i2c.onStop = () => {
      if (selected) { this.end(); this.stats.last_stop_ms = clock.nanos / 1e6; }   // the display's last transaction ended
      selected = false;
      later(1, () => i2c.completeStop());
    };
  }
}

function hex(b) { return b.toString(16).padStart(2, '0').toUpperCase(); }
