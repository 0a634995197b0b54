// The board's controls on their GPIOs: push buttons to ground (the firmware's pull-ups read
// 1 when released, 0 when pressed) and the knob's quadrature encoder (A and B to ground
// through its contacts, both high at rest on a detent). Every action runs in emulated time
// on the chip's clock, with contact bounce from a seeded generator, so a run is reproducible.
//
// Bounce: a mechanical contact closes (and opens) with a few short edges before it settles;
// here 2 to 4 extra edges within bounceMs (1 to 5 ms) of the first.

export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Controls {
  constructor({ board, seed = 1, log = () => {} }) {
    this.log = log;
    this.random = mulberry32(seed);
    this.names = new Map();            // name -> GPIO
    (board.buttons?.seats ?? []).forEach((gpio, i) => this.names.set(`seat${i}`, gpio));
    if (board.buttons?.undo !== undefined) this.names.set('undo', board.buttons.undo);
    if (board.buttons?.shift !== undefined) this.names.set('shift', board.buttons.shift);
    if (board.encoder) {
      this.names.set('push', board.encoder.push);
      this.encoder = { a: board.encoder.a, b: board.encoder.b, steps: board.encoder.steps_per_detent ?? 4 };
    }
    this.forced = new Map();           // GPIO -> level a contact drives (false: to ground)
    this.stuck = new Set();
    this.chatter = null;
    this.stats = { presses: 0, detents: 0, edges: 0, last_press_ms: null, last_release_ms: null };
    this.mcu = null;
  }

  // the board as built (parts/build.mjs): the knob's A and B and the seat buttons on the pins they are
  // soldered to; seatPins[s]: the GPIO seat s's button closes to ground
  rewire({ encoderSwapped = false, seatPins = null } = {}) {
    if (seatPins) seatPins.forEach((gpio, i) => this.names.set(`seat${i}`, gpio));
    if (this.encoder) {
      const { a, b } = this.defined ??= { a: this.encoder.a, b: this.encoder.b };
      Object.assign(this.encoder, encoderSwapped ? { a: b, b: a } : { a, b });
    }
  }

  gpio(name) {
    if (typeof name === 'number') return name;
    if (/^\d+$/.test(String(name))) return Number(name);
    const gpio = this.names.get(name);
    if (gpio === undefined) throw new Error(`no control named ${name}: the board has ${[...this.names.keys()].join(', ')}`);
    return gpio;
  }

  // the level a pin reads: a closed contact pulls it to ground, else the pad's pull
  level(gpio, pulled) { return this.forced.has(gpio) ? this.forced.get(gpio) : pulled; }

  attach(mcu, applyPad) {
    this.mcu = mcu;
    this.applyPad = applyPad;          // (gpio) -> re-evaluate the pin's input level
    for (const gpio of this.forced.keys()) applyPad(gpio);
  }

  set(gpio, closed) {
    if (closed) this.forced.set(gpio, false); else this.forced.delete(gpio);
    this.stats.edges++;
    if (this.mcu) this.applyPad(gpio);
  }

  at(ns, fn) {
    const alarm = this.mcu.clock.createAlarm(fn);
    alarm.schedule(Math.max(0, ns));
  }

  // close (or open) a contact with bounce; done() once it has settled
  contact(gpio, closed, bounceMs, done) {
    if (!bounceMs) { this.set(gpio, closed); this.at(0, done); return; }
    const extra = 2 + Math.floor(this.random() * 3);           // 2-4 extra edges, an even number settles
    const times = Array.from({ length: extra + (extra % 2) }, () => this.random() * bounceMs * 1e6).sort((x, y) => x - y);
    this.set(gpio, closed);
    let level = closed;
    times.forEach((t, i) => this.at(t, () => { level = !level; this.set(gpio, level); if (i === times.length - 1 && level !== closed) this.set(gpio, closed); }));
    this.at(bounceMs * 1e6 + 1000, () => { this.set(gpio, closed); done(); });
  }

  press(name, { ms = 80, bounceMs = 3 } = {}, done = () => {}) {
    const gpio = this.gpio(name);
    if (this.stuck.has(gpio)) throw new Error(`${name} is stuck down (fault): release it first`);
    this.stats.presses++;
    // the first edge of each: when the contact closes, and when it opens again (a short press counts then)
    this.stats.last_press_ms = this.mcu.clock.nanos / 1e6;
    this.contact(gpio, true, bounceMs, () => this.at(ms * 1e6, () => {
      this.stats.last_release_ms = this.mcu.clock.nanos / 1e6;
      this.contact(gpio, false, bounceMs, done);
    }));
  }

  stick(name) { const gpio = this.gpio(name); this.stuck.add(gpio); this.set(gpio, true); }
  unstick(name) { const gpio = this.gpio(name); this.stuck.delete(gpio); this.set(gpio, false); }

  // detents > 0: the firmware's +1 direction (A,B: 11 -> 10 -> 00 -> 01 -> 11, tallypanel/inputs.py)
  turn(detents, { stepMs = 8, bounceMs = 0.3 } = {}, done = () => {}) {
    if (!this.encoder) throw new Error('the board has no encoder');
    if (this.chatter) throw new Error('the encoder is chattering (fault): stop it first');
    const { a, b, steps } = this.encoder;
    const cw = [[1, 0], [0, 0], [0, 1], [1, 1]];
    const ccw = [[0, 1], [0, 0], [1, 0], [1, 1]];
    const seq = detents > 0 ? cw : ccw;
    const total = Math.abs(detents) * steps;
    let t = 0;
    for (let i = 0; i < total; i++) {
      const [la, lb] = seq[i % 4];
      const prev = seq[(i + 3) % 4];
      const pin = la !== prev[0] ? a : b;     // one contact changes per step (Gray code)
      const closed = (pin === a ? la : lb) === 0;
      t += stepMs * 1e6;
      // a short bounce on the contact that moves: it goes, comes back once, goes again
      this.at(t, () => this.set(pin, closed));
      if (bounceMs) {
        this.at(t + bounceMs * 0.3e6, () => this.set(pin, !closed));
        this.at(t + bounceMs * 1e6, () => this.set(pin, closed));
      }
    }
    this.stats.detents += Math.abs(detents);
    this.at(t + stepMs * 1e6, done);
  }

  // the fault: A and B flip at random, 0.2-1 ms apart, until stopped
  startChatter() {
    if (!this.encoder || this.chatter) return;
    const { a, b } = this.encoder;
    this.chatter = { running: true };
    const run = this.chatter;
    const tick = () => {
      if (!run.running) return;
      const pin = this.random() < 0.5 ? a : b;
      this.set(pin, !this.forced.has(pin));
      this.at((0.2 + 0.8 * this.random()) * 1e6, tick);
    };
    this.at(0, tick);
  }

  stopChatter() {
    if (!this.chatter) return;
    this.chatter.running = false;
    this.chatter = null;
    const { a, b } = this.encoder;
    this.set(a, false); this.set(b, false);       // back on a detent: both contacts open
  }

  state() {
    const pins = {};
    for (const [name, gpio] of this.names) pins[name] = this.forced.has(gpio) ? 'down' : 'up';
    return { pins, stuck: [...this.stuck], chattering: !!this.chatter, ...this.stats };
  }
}
