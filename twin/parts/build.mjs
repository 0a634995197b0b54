// The board as it was built, beside the board definition the firmware uses: the builder's wiring
// faults (--miswire, the control port's `miswire`; docs/twin.md), so that a self-test can be tried
// against faults planted on purpose. A spec is a comma-separated list of
//
//   dead:K           the WS2812 at chain index K (wire order, 0-based) is dead: it shows nothing and
//                    passes no data on, so every LED after it stays dark
//   swap:A/B         segments A and B of the chain change places along the wire: the LEDs the
//                    definition puts in A's holes sit in B's, and B's in A's (runs of unequal length:
//                    the runs between them move along by the difference)
//   reverse:A        segment A soldered the other way round: its first LED in its last hole
//   encoder-ab       the knob's A and B contacts on each other's pins (clockwise reads anticlockwise)
//   seats:S/T        seat buttons S and T (0-based) on each other's pins
//   oled:ADDR        the display answers at ADDR (0x3D, 61), not at the definition's address
//   stuck:NAME       a button (seat0..seat3, undo, shift, push, or a GPIO) stuck down from power-up:
//                    the fault switch's stuck button (control port `fault`), set at start
//
// A segment is a run of the definition's leds.chain ([player, row, first, last], in wire order):
// `P.ROW` (0.tally, 1.king, 0.station: player P's row, where the chain lays it as one run) or `runN`
// (the chain's run N, 0-based). The holes are named as tallypanel/boarddef.py and wiring.py name them:
// player, row (station, tally, king) and hole.
const WIRING = ['dead', 'swap', 'reverse', 'encoder-ab', 'seats', 'oled'];

export function parseMiswire(text) {
  const faults = [];
  for (const raw of String(text).split(',')) {
    const item = raw.trim();
    if (!item) continue;
    const at = item.indexOf(':');
    const kind = (at < 0 ? item : item.slice(0, at)).toLowerCase();
    const arg = at < 0 ? '' : item.slice(at + 1).trim();
    if (!WIRING.includes(kind) && kind !== 'stuck') {
      throw new Error(`miswire ${item}: give dead:K, swap:A/B, reverse:A, encoder-ab, seats:S/T, oled:ADDR or stuck:NAME`);
    }
    if (kind === 'encoder-ab' && arg) throw new Error(`miswire ${item}: encoder-ab takes nothing after it`);
    if (kind !== 'encoder-ab' && !arg) throw new Error(`miswire ${item}: ${kind}:… (what it applies to)`);
    faults.push({ kind, arg, text: kind === 'encoder-ab' ? kind : `${kind}:${arg}` });
  }
  return faults;
}

function whole(text, what, lo, hi) {
  const n = /^0x[0-9a-f]+$/i.test(text) ? parseInt(text, 16) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < lo || n > hi) throw new Error(`miswire: ${what} ${text} is not a whole number from ${lo} to ${hi}`);
  return n;
}

export class Build {
  constructor(board) {
    this.board = board;
    this.defined = board.leds.chain.map(([player, row, first, last], index) => ({ player, row, first, last, index }));
    this.count = board.leds.count;
    this.apply([]);
  }

  // the wiring faults now (stuck buttons are the controls' fault switch: not kept here)
  apply(faults) {
    const runs = this.defined.map((run) => ({ ...run }));
    let dead = null, encoderSwapped = false, oledAddress = null;
    const seats = (this.board.buttons?.seats ?? []).map((_, i) => i);   // seat -> the seat whose pin it is on
    for (const f of faults) {
      if (f.kind === 'dead') {                // the first dead LED darkens the rest
        const led = whole(f.arg, 'LED', 0, this.count - 1);
        dead = dead === null ? led : Math.min(dead, led);
      }
      else if (f.kind === 'swap') {
        const [a, b] = this.pair(f.arg, 'segments').map((name) => this.segment(runs, name));
        if (a === b) throw new Error(`miswire ${f.text}: a segment cannot change places with itself`);
        [runs[a], runs[b]] = [runs[b], runs[a]];
      } else if (f.kind === 'reverse') {
        const run = runs[this.segment(runs, f.arg)];
        [run.first, run.last] = [run.last, run.first];
      } else if (f.kind === 'encoder-ab') {
        if (!this.board.encoder) throw new Error('miswire encoder-ab: the board has no encoder');
        encoderSwapped = !encoderSwapped;
      } else if (f.kind === 'seats') {
        const [s, t] = this.pair(f.arg, 'seats').map((x) => whole(x, 'seat', 0, seats.length - 1));
        if (s === t) throw new Error(`miswire ${f.text}: two different seats`);
        [seats[s], seats[t]] = [seats[t], seats[s]];
      } else if (f.kind === 'oled') {
        if (!this.board.oled) throw new Error('miswire oled: the board has no OLED');
        oledAddress = whole(f.arg, 'I2C address', 8, 119);
      }
    }
    this.faults = faults.filter((f) => f.kind !== 'stuck');
    Object.assign(this, { runs, dead, encoderSwapped, oledAddress, seats });
    this.holeOf = this.lay(runs);
    this.definedHoleOf = this.lay(this.defined);
  }

  // the parts as built: the dead LED, the knob's and the seat buttons' pins, the display's address
  fit({ leds, controls, oled }) {
    leds.setDead(this.dead);
    controls.rewire({ encoderSwapped: this.encoderSwapped, seatPins: this.board.buttons?.seats ? this.seatPins() : null });
    if (this.board.oled) oled.address = this.oledAddress ?? this.board.oled.address ?? 0x3c;
  }

  pair(arg, what) {
    const parts = arg.split('/');
    if (parts.length !== 2) throw new Error(`miswire: ${arg}: two ${what}, A/B`);
    return parts.map((p) => p.trim());
  }

  // the index in runs of the run a segment name means
  segment(runs, name) {
    let found;
    const run = /^run(\d+)$/i.exec(name);
    if (run) {
      found = runs.findIndex((r) => r.index === Number(run[1]));
    } else {
      const m = /^(\d+)\.(station|tally|king)$/i.exec(name);
      if (!m) throw new Error(`miswire: segment ${name}: P.ROW (0.tally, 1.king, 0.station) or runN`);
      const [player, row] = [Number(m[1]), m[2].toLowerCase()];
      const of = this.defined.filter((r) => r.player === player && r.row === row);
      if (of.length > 1) {
        const names = of.map((r) => `run${r.index}`).join(', ');
        throw new Error(`miswire: player ${player}'s ${row} row is ${of.length} runs of the chain (${names}): name one`);
      }
      found = of.length ? runs.findIndex((r) => r.index === of[0].index) : -1;
    }
    if (found < 0) throw new Error(`miswire: the chain has no segment ${name} (runs 0 to ${this.defined.length - 1})`);
    return found;
  }

  // chain index -> {player, row, hole}, or a seat's light ({light: seat}), or null (no hole)
  lay(runs) {
    const out = new Array(this.count).fill(null);
    let led = 0;
    for (const { player, row, first, last } of runs) {
      const step = last >= first ? 1 : -1;
      for (let hole = first; led < this.count; hole += step) {
        out[led++] = { player, row, hole };
        if (hole === last) break;
      }
    }
    (this.board.buttons?.lights ?? []).forEach((led, seat) => {
      if (Number.isInteger(led) && led < this.count) out[led] = { light: seat };
    });
    return out;
  }

  // the seat buttons' GPIOs as built: seat s's button is on the pin the definition gives seat seats[s]
  seatPins() { return this.seats.map((s) => this.board.buttons.seats[s]); }

  // every LED in wire order with the hole it sits in and its colour (hex GRB); lit only: those not dark
  holes(grb, all = false) {
    const out = [];
    for (let led = 0; led < this.count; led++) {
      const colour = grb.subarray(3 * led, 3 * led + 3);
      if (!all && !colour.some((v) => v)) continue;
      out.push({ led, ...(this.holeOf[led] ?? { hole: null }), grb: Buffer.from(colour).toString('hex') });
    }
    return out;
  }

  // what each hole shows, laid out in the definition's chain order: the LED field as a builder sees
  // it, drawn with the definition's map (with no miswire, the chain's own colours)
  seen(grb) {
    const key = (h) => (h ? ('light' in h ? `light ${h.light}` : `${h.player} ${h.row} ${h.hole}`) : null);
    const at = new Map(this.holeOf.map((h, led) => [key(h), led]));
    const out = new Uint8Array(grb.length);
    this.definedHoleOf.forEach((h, led) => {
      const from = h ? at.get(key(h)) : led;
      if (from !== undefined) out.set(grb.subarray(3 * from, 3 * from + 3), 3 * led);
    });
    return out;
  }
}
