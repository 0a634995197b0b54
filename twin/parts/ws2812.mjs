// A chain of WS2812B LEDs on one GPIO: the bitstream decoded from the emulated time of each
// edge (MicroPython's machine.bitstream drives the pin through SIO with interrupts off) into
// GRB bytes, latched into the chain when the line stays low for the reset time. Every high
// pulse and every bit period is checked against the datasheet's windows (WS2812B rev 5:
// T0H 0.4 us, T1H 0.8 us, +-150 ns; a bit 1.25 us +-600 ns; reset >= 50 us low): outside
// them the model prints an error naming the bit and the time measured, and counts it.
// A dead LED (the board as built, parts/build.mjs) shows nothing and passes nothing on: it and
// every LED after it keep what they showed (dark from power-up), whatever the wire carries.
export const WINDOWS = {
  t0h: [250, 550],        // ns
  t1h: [650, 950],
  bit: [650, 1850],
  reset: 50000,
};

export class WS2812Chain {
  constructor({ count, log = () => {} }) {
    this.count = count;
    this.log = log;
    this.grb = new Uint8Array(3 * count);      // what the chain shows
    this.sent = new Uint8Array(3 * count);     // the last frame as it left the pin (what the firmware sent)
    this.dead = null;                          // the chain index of a dead LED, or null
    this.incoming = [];                        // bytes of the frame on the wire now
    this.bits = 0; this.byte = 0;
    this.riseAt = null; this.lastRise = null; this.high = false;
    this.frameStartNs = null; this.lastFallNs = null;
    this.errors = [];
    this.stats = { frames: 0, bytes: 0, bits: 0, wire_ns: 0, timing_errors: 0, short_frames: 0, long_frames: 0,
      last_frame_ms: null, first_frame_since_reset_ms: null };
  }

  error(text) {
    this.stats.timing_errors++;
    this.errors.push(text);
    if (this.errors.length > 100) this.errors.shift();
    this.log(`[rp2emu ws2812] error: ${text}`);
  }

  attach(mcu, pin, GPIOPinState) {
    const clock = mcu.clock;
    this.mcu = mcu;
    this.latchAlarm = clock.createAlarm(() => this.latch());
    this.high = false; this.riseAt = null; this.lastRise = null;
    pin.addListener((state) => {
      const high = state === GPIOPinState.High;
      if (state !== GPIOPinState.High && state !== GPIOPinState.Low) return;   // input / not driven
      if (high === this.high) return;
      this.high = high;
      const now = clock.nanos;
      if (high) this.rise(now); else this.fall(now);
    });
  }

  rise(now) {
    this.latchAlarm.cancel();
    if (this.lastRise !== null && this.lastFallNs !== null) {
      const period = now - this.lastRise;
      const [lo, hi] = WINDOWS.bit;
      if (period < lo || period > hi) {
        this.error(`bit ${this.stats.bits - 1} of frame ${this.stats.frames + 1} (LED ${Math.floor((this.stats.bits - 1) / 24)}): ` +
          `period ${(period / 1000).toFixed(3)} us, outside ${lo / 1000}-${hi / 1000} us, and the line was low ` +
          `${((now - this.lastFallNs) / 1000).toFixed(3)} us: not a latch (>= ${WINDOWS.reset / 1000} us)`);
      }
    }
    if (this.frameStartNs === null) this.frameStartNs = now;
    this.riseAt = now; this.lastRise = now;
  }

  fall(now) {
    if (this.riseAt === null) return;           // the pin set low at start-up
    const width = now - this.riseAt;
    const bitIndex = this.stats.bits;
    const one = width >= 600;                   // the chip samples at about 0.6 us
    const [lo, hi] = one ? WINDOWS.t1h : WINDOWS.t0h;
    if (width < lo || width > hi) {
      this.error(`bit ${bitIndex} of frame ${this.stats.frames + 1} (LED ${Math.floor(bitIndex / 24)}, bit ${7 - (bitIndex % 8)} ` +
        `of its ${['green', 'red', 'blue'][Math.floor(bitIndex / 8) % 3]} byte): high for ${(width / 1000).toFixed(3)} us, ` +
        `outside T${one ? 1 : 0}H ${lo / 1000}-${hi / 1000} us`);
    }
    this.byte = (this.byte << 1) | (one ? 1 : 0);
    this.stats.bits++;
    if (++this.bits === 8) { this.incoming.push(this.byte); this.bits = 0; this.byte = 0; }
    this.riseAt = null;
    this.lastFallNs = now;
    this.latchAlarm.cancel();
    this.latchAlarm.schedule(WINDOWS.reset);
  }

  latch() {
    // the line has been low for the reset time: the chain shows what it received
    const n = this.incoming.length;
    if (n === 0 && this.bits === 0) return;
    if (this.bits) this.error(`frame ${this.stats.frames + 1} ended after ${this.stats.bits} bits, not a whole number of bytes`);
    const wire = this.lastFallNs - this.frameStartNs;
    this.stats.wire_ns += wire;
    this.stats.bytes += n;
    this.stats.frames++;
    if (n < this.grb.length) this.stats.short_frames++;
    if (n > this.grb.length) this.stats.long_frames++;
    const frame = this.incoming.slice(0, this.grb.length);
    this.sent.fill(0); this.sent.set(frame);
    // LEDs past the frame keep their colour, and so do a dead LED and those after it
    this.grb.set(this.dead === null ? frame : frame.slice(0, 3 * this.dead));
    this.stats.last_frame_ms = this.mcu.clock.nanos / 1e6;
    this.stats.last_frame_wire_us = wire / 1000;
    this.stats.last_frame_bytes = n;
    if (this.stats.first_frame_since_reset_ms === null) this.stats.first_frame_since_reset_ms = this.stats.last_frame_ms;
    this.incoming = []; this.bits = 0; this.byte = 0; this.stats.bits = 0;
    this.frameStartNs = null; this.lastRise = null; this.lastFallNs = null;
    this.onFrame?.();
  }

  setDead(led) {  // null: none; the dead LED goes dark, those after it keep what they show
    this.dead = led;
    if (led !== null) this.grb.fill(0, 3 * led, 3 * led + 3);
  }

  reset() {  // the MCU reset: the chain keeps its colours; a frame in flight is lost
    this.incoming = []; this.bits = 0; this.byte = 0; this.stats.bits = 0;
    this.frameStartNs = null; this.lastRise = null; this.lastFallNs = null; this.riseAt = null; this.high = false;
    this.stats.first_frame_since_reset_ms = null;
  }
}
