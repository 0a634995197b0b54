// The twin's control interface: JSON lines on a TCP port of 127.0.0.1 (docs/twin.md).
// A request is one object with "cmd" (and an optional "id", echoed); the reply is one line
// {"id", "ok": true, ...} or {"id", "ok": false, "error": "..."}. Actions that take time on
// the board (press, turn, settle) reply once they are done in emulated time. Several
// clients may connect; each gets its own replies.
import net from 'node:net';
import { parseMiswire } from './parts/build.mjs';

const hex = (bytes) => Buffer.from(bytes).toString('hex');

export function startControl(port, twin) {
  const handlers = {
    hello: () => ({ protocol: 1, controls: [...twin.controls.names.keys()], leds: twin.leds.count,
      oled: !!twin.board.oled, oled_address: twin.board.oled ? twin.oled.address : null, board: twin.board.name,
      miswire: twin.build.faults.map((f) => f.text) }),
    press: (req, reply) => {
      const ms = num(req.ms ?? 80, 0, 60000, 'ms'), bounceMs = num(req.bounce_ms ?? 3, 0, 5, 'bounce_ms');
      twin.controls.press(req.control, { ms, bounceMs }, () => reply({ at_ms: twin.emuMs() }));
    },
    turn: (req, reply) => {
      const detents = num(req.detents, -100, 100, 'detents');
      if (!Number.isInteger(detents) || detents === 0) throw new Error('detents: a whole number of detents, not 0');
      twin.controls.turn(detents, { stepMs: num(req.step_ms ?? 8, 0.5, 100, 'step_ms'),
        bounceMs: num(req.bounce_ms ?? 0.3, 0, 1, 'bounce_ms') }, () => reply({ at_ms: twin.emuMs() }));
    },
    fault: (req) => {
      const on = !!req.on;
      if (req.part === 'oled') { if (!twin.board.oled) throw new Error('the board has no OLED'); twin.oled.present = on ? false : twin.oledWanted; }
      else if (req.part === 'button') { if (on) twin.controls.stick(req.control); else twin.controls.unstick(req.control); }
      else if (req.part === 'encoder') { if (on) twin.controls.startChatter(); else twin.controls.stopChatter(); }
      else throw new Error(`part ${req.part}: give oled, button (with control) or encoder`);
      return { faults: twin.faults() };
    },
    oled: () => ({ ram: hex(twin.oled.ram), ...twin.oled.state(), stats: twin.oled.stats }),
    leds: () => ({ grb: hex(twin.leds.grb), sent: hex(twin.leds.sent), seen: hex(twin.build.seen(twin.leds.grb)),
      stats: twin.leds.stats }),
    // the LED field as a builder sees it: the hole each lit LED sits in as the board was built (all: every LED)
    holes: (req) => ({ holes: twin.build.holes(twin.leds.grb, !!req.all) }),
    // the board's wiring faults (parts/build.mjs): set replaces them all ("": built as defined)
    miswire: (req) => {
      if (req.set !== undefined) {
        const faults = parseMiswire(req.set);
        if (faults.some((f) => f.kind === 'stuck')) throw new Error('a stuck button is the fault switch: {"cmd": "fault", "part": "button", ...}');
        twin.build.apply(faults);
        twin.build.fit(twin);
      }
      return { miswire: twin.build.faults.map((f) => f.text) };
    },
    stats: () => twin.stats(),
    errors: () => ({ ssd1306: twin.oled.errors, ws2812: twin.leds.errors }),
    clear_errors: () => { twin.oled.errors.length = 0; twin.leds.errors.length = 0; return {}; },
    // the chip's idle time unpaced for the next ms of its own time (0: paced again), while the host
    // waits on the chip's clock (a note due after a button is held ten seconds) and sends it nothing
    hurry: (req) => {
      const ms = num(req.ms, 0, 600000, 'ms');
      twin.hurryUntil(ms > 0 ? twin.emuNs() + ms * 1e6 : 0);
      return { at_ms: twin.emuMs() };
    },
    settle: (req, done) => {
      const quietNs = num(req.quiet_ms ?? 100, 1, 10000, 'quiet_ms') * 1e6;
      const mostWall = num(req.most_s ?? 30, 0.1, 600, 'most_s') * 1000;
      const started = Date.now();
      let seen = twin.activity(), since = twin.emuNs();
      const atLeast = req.at_least ?? {};     // counters (stats names) to reach before the quiet counts
      // the host waits and sends nothing: the chip's idle time hurries (run.mjs) to the end of the quiet
      // this settle waits for (while the counters are short, 50 ms at a time), and no further
      const reply = (fields, error) => { twin.hurryUntil(0); done(fields, error); };
      const check = () => {
        const stats = Object.keys(atLeast).length ? twin.stats() : {};
        if (Object.entries(atLeast).some(([k, v]) => !(stats[k] >= v))) {
          since = twin.emuNs();
          twin.hurryUntil(since + 50e6);
          if (Date.now() - started > mostWall) return reply(null, `the counters did not reach ${JSON.stringify(atLeast)} within ${mostWall / 1000} s`);
          return setTimeout(check, 2);
        }
        const now = twin.activity();
        if (now !== seen) { seen = now; since = twin.emuNs(); }
        twin.hurryUntil(since + quietNs);
        if (twin.emuNs() - since >= quietNs) return reply({ at_ms: twin.emuMs() });
        if (Date.now() - started > mostWall) return reply(null, `the parts were still busy after ${mostWall / 1000} s`);
        setTimeout(check, 2);
      };
      check();
    },
  };

  const server = net.createServer((sock) => {
    let buffer = '';
    sock.setEncoding('utf8');
    sock.on('error', () => {});
    sock.on('data', (chunk) => {
      buffer += chunk;
      let at;
      while ((at = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, at); buffer = buffer.slice(at + 1);
        if (line.trim()) handle(line, sock);
      }
    });
  });

  function handle(line, sock) {
    let req;
    const send = (obj) => { if (!sock.destroyed) sock.write(JSON.stringify(obj) + '\n'); };
    try { req = JSON.parse(line); } catch { send({ ok: false, error: `not a JSON line: ${line.slice(0, 60)}` }); return; }
    const id = req.id ?? null;
    const handler = handlers[req.cmd];
    if (!handler) { send({ id, ok: false, error: `no command ${req.cmd}: ${Object.keys(handlers).join(', ')}` }); return; }
    let replied = false, forget = () => {};
    const reply = (fields, error) => {
      if (replied) return; replied = true; forget();
      send(error ? { id, ok: false, error } : { id, ok: true, ...fields });
    };
    try {
      const out = handler(req, reply);
      twin.wake();
      if (out !== undefined) reply(out);
      else if (!replied) forget = twin.onReset(() => reply(null, 'the chip reset before the action ended'));
    } catch (e) {
      reply(null, e.message);
    }
  }

  server.on('error', (e) => {
    console.error(`[rp2emu] control: cannot listen on tcp 127.0.0.1:${port}: ${e.message}`);
    process.exit(3);
  });
  // the port bound (port 0: the system chooses it; bench/twin_harness.py reads this line)
  server.listen(port, '127.0.0.1', () => console.error(`[rp2emu] control on tcp 127.0.0.1:${server.address().port}`));
  return server;
}

function num(value, lo, hi, name) {
  const n = Number(value);
  if (!Number.isFinite(n) || n < lo || n > hi) throw new Error(`${name}: ${value} is not a number from ${lo} to ${hi}`);
  return n;
}
