// The device twin: an emulated Raspberry Pi Pico (rp2040js) running a stock MicroPython UF2, with
// the board's own parts on its pins (twin/parts/): the SSD1306 OLED on its I2C bus with bus time,
// the WS2812 chain on the LED pin decoded and timed, the buttons and the knob's encoder driven
// with contact bounce. Its USB CDC serial is bridged to a TCP server on 127.0.0.1, its littlefs
// filesystem loaded from and written back to an image file, and a second TCP port (--control)
// takes JSON lines that press, turn, set faults and read what the parts show (docs/twin.md).
//
//   node twin/run.mjs [--uf2 firmware.uf2] [--fs littlefs.img] [--save out.img] [--rom-bytes N] [--port 5555]
//                [--control 5556] [--board board/pico-reference.json] [--seed 1]
//                [--stats] [--echo] [--no-oled] [--no-pace] [--hold GPIO] [--trace] [--profile FILE]
//                [--miswire SPEC] [--slow-core]
//
// --uf2     MicroPython firmware (default: $TALLYBOARD_RP2EMU/firmware.uf2 when that is set, else
//           the project's stock MicroPython v1.28.0 RPI_PICO image, image/stock-pico.uf2)
// --bootrom the RP2040 boot ROM as an ES module (default: bootrom.mjs beside a --uf2 or in
//           $TALLYBOARD_RP2EMU when there is one, else twin/bootrom/bootrom-b1.mjs)
// --board   the board definition whose parts are modelled (default: board/pico-reference.json)
// --control TCP port for the control interface (JSON lines; docs/twin.md); 0: one the system
//           chooses, printed on stderr as `[rp2emu] control on tcp 127.0.0.1:PORT`
// --seed    the contact bounce generator's seed (default 1): a run is reproducible
// --fs      littlefs image put into flash at the MicroPython storage offset (mklfs.py makes one)
// --save    write the storage region back to this file: every erased/programmed 4 KB sector as
//           soon as the flash command completes (so a SIGKILL is a power cut: the file holds
//           what the chip's flash held at that instant), and the whole region on exit
// --rom-bytes N  the image has a ROMFS partition of N bytes just below the storage (tallyboard's
//           own images, image/README.md): --fs and --save then hold it too, before the littlefs
// --port    TCP port for the USB CDC serial (one client at a time; a new one replaces the old);
//           serial-pty.sh PORT LINK turns it into a pty for pyserial/mpremote/tallyboard --port;
//           0: one the system chooses, printed on stderr as `... serial on tcp 127.0.0.1:PORT`
//           (no other process can take it between choosing and binding, as it could a port
//           found free beforehand)
// --stats   print emulated time / cycles vs wall time on exit and on SIGUSR1 (to stderr)
// --echo    copy everything the board sends to stdout
// --no-oled no display on the I2C bus: its address NAKs
// --no-pace let idle (WFI/WFE) time run faster than real time
// --no-skip spin through every turn of a loop that polls the I2C bus (see skipBusPolling)
// --slow-core every instruction through rp2040js' own decoder (by default the common ones go through
//           fastcore.mjs's table: the same results and cycles, checked by check-fastcore.mjs)
// --hold N  GPIO N reads low for the whole run (a button held down at power-up); repeat for more
// --miswire SPEC  the board as built differs from --board (parts/build.mjs, docs/twin.md): dead:K,
//           swap:A/B, reverse:A, encoder-ab, seats:S/T, oled:ADDR, stuck:NAME; comma-separated, repeatable
// --watch-gpio N  to stderr, once per reset: the emulated time since reset of the first burst of >= 24
//           rising edges on GPIO N no more than 50 us apart (a WS2812 chain's first LED of data):
//           "[rp2emu gpio] N first data since_reset_ms=X"
// --profile FILE  sample the PC once every run of up to 64 executed instructions; SIGUSR2 writes "pc count" lines to
//           FILE and clears the counts (symbolize with firmware.elf)
// --trace   to stderr, for every line the board sends: the emulated time since this chip's reset
//           and, for a reply, the emulated time and CPU cycles since the host's request reached
//           the chip (first byte handed to the USB OUT endpoint). Lines starting "!" are events.
//
// Flash: rp2040js models XIP reads only; the SSI here models the serial flash commands the
// boot ROM's flash_range_erase/program and the SDK's flash_do_cmd send while they force
// QSPI CS low through IO_QSPI (WREN, RDSR, PP 0x02, SE 0x20 / 0x52 / 0xD8, READ, 0x4B, 0x9F).
// A watchdog reset (machine.reset(), WDT timeout) starts a fresh chip with the same flash and
// the same parts (the OLED and the LEDs keep what they show, as they keep their power).
// Not modelled: flash busy time (program/erase finish at once), XIP cache misses, core 1 and
// the SIO FIFOs; emulated times are lower bounds for a real Pico.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { parseArgs } from './args.mjs';
import { loadRp2040js, loadUF2, newChip } from './chip.mjs';
import { SSD1306 } from './parts/ssd1306.mjs';
import { WS2812Chain } from './parts/ws2812.mjs';
import { Controls } from './parts/controls.mjs';
import { SpiFlash, flashPeripherals } from './parts/qspi-flash.mjs';
import { Build, parseMiswire } from './parts/build.mjs';
import { skipBusPolling } from './skip.mjs';
import { quicken } from './fastcore.mjs';
import { startControl } from './control.mjs';

const args = parseArgs(process.argv.slice(2));
const { rp } = await loadRp2040js();
const { bootromB1 } = await import(pathToFileURL(path.resolve(args.bootrom)).href);
const { USBCDC, BasePeripheral, GPIOPinState, I2CMode } = rp;

// rp2040js 1.4.1 bug: for a double-buffered IN endpoint (TinyUSB's RP2040 driver double-buffers
// device IN transfers longer than one 64-byte packet) RPUSBController.DPRAMUpdated queues buffer 1
// before buffer 0, so the host receives the second packet first: a 68-byte reply arrives as its
// last 4 bytes followed by its first 64. Here both buffers go out in wire order (0, then 1).
{
  const AVAILABLE = 1 << 10, FULL = 1 << 15, LEN = 0x3ff, DOUBLE_BUF = 1 << 30;
  const proto = rp.RPUSBController.prototype;
  const orig = proto.DPRAMUpdated;
  proto.DPRAMUpdated = function (offset, value) {
    if (!this.hostMode && (value & AVAILABLE) && (value & (AVAILABLE << 16)) &&
        offset > 0x84 && offset <= 0xfc && !(offset & 4)) {
      const endpoint = (offset - 0x80) >> 3;
      if (this.readEndpointControlReg(endpoint, false) & DOUBLE_BUF) {
        const base = this.getEndpointBufferOffset(endpoint, false);
        const len0 = value & LEN, len1 = (value >>> 16) & LEN;
        value &= ~(AVAILABLE | FULL | (AVAILABLE << 16) | (FULL << 16));
        this.rp2040.usbDPRAMView.setUint32(offset, value >>> 0, true);
        const b0 = this.rp2040.usbDPRAM.slice(base, base + len0);
        const b1 = this.rp2040.usbDPRAM.slice(base + 64, base + 64 + len1);
        this.indicateBufferReady(endpoint, false);
        this.endpointWriteAlarms[endpoint].schedule(b0, this.writeDelayMicroseconds * 1000);
        this.endpointWriteAlarms[endpoint].schedule(b1, this.writeDelayMicroseconds * 1000);
        return;
      }
    }
    return orig.call(this, offset, value);
  };
}

// MicroPython RPI_PICO: 2 MB flash, storage = the last MICROPY_HW_FLASH_STORAGE_BYTES (1408 KB).
const FLASH_SIZE = 2 * 1024 * 1024;
const FS_OFFSET = 0xa0000;
const FS_BLOCK = 4096;
const FS_BLOCKS = 352;
const FS_BYTES = FS_BLOCK * FS_BLOCKS;
// what --fs loads and --save keeps: the storage, and the ROMFS partition below it when there is one
const ROM_BYTES = Number(args.romBytes ?? 0);
if (!Number.isInteger(ROM_BYTES) || ROM_BYTES < 0 || ROM_BYTES % 4096 || ROM_BYTES > FS_OFFSET) {
  console.error(`--rom-bytes ${args.romBytes}: a multiple of 4096 below ${FS_OFFSET}`);
  process.exit(2);
}
const KEPT_OFFSET = FS_OFFSET - ROM_BYTES;
const KEPT_BYTES = FS_BYTES + ROM_BYTES;
const SECTOR = 4096;
const UNIQUE_ID = [0xe6, 0x61, 0x64, 0x08, 0x43, 0x2b, 0x8c, 0x29];

// ---- the persistent flash (survives watchdog resets) ----
const flash = new Uint8Array(16 * 1024 * 1024).fill(0xff);

const nblocks = loadUF2(args.uf2, flash);
if (args.fs) {
  const img = fs.readFileSync(args.fs);
  if (img.length > KEPT_BYTES) throw new Error(`${args.fs}: ${img.length} bytes, more than the ${KEPT_BYTES} of storage`);
  flash.set(img, KEPT_OFFSET);
}
let saveFd = null;
if (args.save) {
  saveFd = fs.openSync(args.save, fs.existsSync(args.save) ? 'r+' : 'w+');
  fs.writeSync(saveFd, flash, KEPT_OFFSET, KEPT_BYTES, 0);
  fs.ftruncateSync(saveFd, KEPT_BYTES);
}
function saveSectors(first, last) {
  if (saveFd === null) return;
  for (let s = first; s <= last; s++) {
    const off = s * SECTOR;
    if (off < KEPT_OFFSET || off >= KEPT_OFFSET + KEPT_BYTES) continue;
    fs.writeSync(saveFd, flash, off, SECTOR, off - KEPT_OFFSET);
  }
}
function saveAll() {
  if (saveFd === null) return;
  fs.writeSync(saveFd, flash, KEPT_OFFSET, KEPT_BYTES, 0);
  fs.fsyncSync(saveFd);
}

// ---- serial NOR flash behind the SSI (W25Q16JV-like): parts/qspi-flash.mjs ----
const spiFlash = new SpiFlash({ bytes: flash, size: FLASH_SIZE, uniqueId: UNIQUE_ID, sector: SECTOR,
  changed: saveSectors, erasedAll: saveAll });
const flashParts = flashPeripherals(BasePeripheral, spiFlash);

// ---- statistics ----
const wallStart = process.hrtime.bigint();
const st = { busyNs: 0, idleNs: 0, skippedNs: 0, cycles: 0, resets: 0, emuBase: 0 };
function wallMs() { return Number(process.hrtime.bigint() - wallStart) / 1e6; }
function statsLine(tag) {
  const emuNs = st.emuBase + (mcu ? mcu.clock.nanos : 0);
  const wall = wallMs();
  return `[rp2emu ${tag}] wall_ms=${wall.toFixed(0)} emu_ms=${(emuNs / 1e6).toFixed(3)} busy_ms=${(st.busyNs / 1e6).toFixed(3)} ` +
    `idle_ms=${(st.idleNs / 1e6).toFixed(3)} skipped_ms=${(st.skippedNs / 1e6).toFixed(3)} cycles=${st.cycles} clk_sys_hz=${mcu ? mcu.clkSys : 0} ` +
    `emu/wall=${(emuNs / 1e6 / wall).toFixed(3)} busy/wall=${(st.busyNs / 1e6 / wall).toFixed(3)} ` +
    `resets=${st.resets} flash_erases=${spiFlash.stats.erases} flash_programs=${spiFlash.stats.programs} ` +
    `i2c_bus_ms=${(oled.stats.bus_ns / 1e6).toFixed(3)} oled_bytes=${oled.stats.bytes} led_frames=${leds.stats.frames} ` +
    `led_wire_ms=${(leds.stats.wire_ns / 1e6).toFixed(3)} led_timing_errors=${leds.stats.timing_errors}` +
    (mcu ? ` pc=0x${(mcu.core.PC >>> 0).toString(16)} waiting=${mcu.core.waiting}` : '');
}

// ---- the board's parts (they keep their power through a watchdog reset of the chip) ----
const board = JSON.parse(fs.readFileSync(args.board, 'utf8'));
const partLog = (line) => console.error(line);
const oled = new SSD1306({ address: board.oled?.address ?? 0x3c, log: partLog });
oled.present = !!board.oled && args.oled;
const leds = new WS2812Chain({ count: board.leds.count, log: partLog });
const controls = new Controls({ board, seed: args.seed, log: partLog });
// the board as built (--miswire): the parts fitted so, and the buttons stuck from power-up
const build = new Build(board);
try {
  const faults = args.miswire.flatMap(parseMiswire);
  build.apply(faults);
  build.fit({ leds, controls, oled });
  for (const f of faults) if (f.kind === 'stuck') controls.stick(f.arg);
} catch (e) { console.error(`--miswire ${args.miswire.join(',')}: ${e.message.replace(/^miswire:? /, '')}`); process.exit(2); }

// ---- the chip ----
let mcu = null, cdc = null, outEndpoint = -1, pendingRead = null;
const hostQueue = [];   // bytes from TCP, waiting for the device to take an OUT packet
let client = null;

// --trace: when the pending request's first byte went to the chip
const tr = { startNs: null, startCycles: 0, line: [] };
function traceOut(data) {
  for (const b of data) {
    if (b !== 0x0a) { if (tr.line.length < 200) tr.line.push(b); continue; }
    const text = Buffer.from(tr.line).toString('latin1').replace(/\r$/, '');
    tr.line = [];
    const now = mcu.clock.nanos;
    let msg = `[rp2emu line] since_reset_ms=${(now / 1e6).toFixed(3)}`;
    if (tr.startNs !== null) {
      msg += ` since_request_us=${((now - tr.startNs) / 1e3).toFixed(1)} cycles=${st.cycles - tr.startCycles}`;
      if (!text.startsWith('!')) tr.startNs = null;
    }
    console.error(`${msg} ${text.slice(0, 60)}`);
  }
}

function feedDevice() {
  if (!pendingRead || !hostQueue.length || !mcu) return;
  const { usb, size } = pendingRead;
  if (usb !== mcu.usbCtrl) { pendingRead = null; return; }
  if (args.trace && tr.startNs === null) { tr.startNs = mcu.clock.nanos; tr.startCycles = st.cycles; }
  const n = Math.min(size, hostQueue.length);
  const buf = Uint8Array.from(hostQueue.splice(0, n));
  pendingRead = null;
  usb.endpointReadDone(outEndpoint, buf);
  wake();
  if (client && client.isPaused() && hostQueue.length < 4096) client.resume();
}

function boot() {
  if (mcu) st.emuBase += mcu.clock.nanos;
  mcu = newChip(rp, bootromB1, flash, flashParts);     // the emulated flash array IS the persistent flash
  if (args.quick) quicken(mcu);

  // pads: pull-ups/pull-downs drive an undriven input, as on the chip; a closed contact (a
  // pressed button, an encoder contact, --hold) pulls its pin to ground over the pull-up
  const padLevel = (pin) => {
    const state = pin.value;
    let pulled = state === GPIOPinState.InputPullUp || state === GPIOPinState.High ? true
      : state === GPIOPinState.InputPullDown || state === GPIOPinState.Low ? false : null;
    if (state === GPIOPinState.High || state === GPIOPinState.Low) return pulled;   // driven by the chip
    if (args.hold.includes(pin.index)) return false;
    return controls.level(pin.index, pulled ?? true);
  };
  const applyPad = (gpio) => { const pin = mcu.gpio[gpio]; pin.setInputValue(padLevel(pin)); };
  for (const pin of mcu.gpio) {
    if (args.hold.includes(pin.index)) pin.setInputValue(false);
    pin.addListener(() => pin.setInputValue(padLevel(pin)));
  }
  controls.attach(mcu, applyPad);
  leds.reset();
  leds.attach(mcu, mcu.gpio[board.leds.pin], GPIOPinState);
  // --watch-gpio: the first burst of data on a pin (first light on a WS2812 chain)
  for (const n of args.watch) {
    const w = { last: -1e12, start: 0, count: 0, done: false };
    mcu.gpio[n].addListener((state, old) => {
      if (w.done || state !== GPIOPinState.High || old === GPIOPinState.High) return;
      const now = mcu.clock.nanos;
      if (now - w.last > 50000) { w.start = now; w.count = 0; }
      w.last = now;
      if (++w.count === 24) { w.done = true; console.error(`[rp2emu gpio] ${n} first data since_reset_ms=${(w.start / 1e6).toFixed(3)}`); }
    });
  }
  // the SSD1306 on the bus the board definition names (its address NAKs while absent or faulted)
  if (board.oled) oled.attach(mcu, mcu.i2c[board.oled.bus]);
  if (args.skip) for (const bus of mcu.i2c) skipBusPolling(mcu, bus, st);
  mcu.watchdog = mcu.peripherals[0x40058];
  mcu.watchdog.onWatchdogTrigger = () => {
    const reason = mcu.watchdog.reason;
    const scratch = Uint32Array.from(mcu.watchdog.scratchData);
    st.resets++;
    mcu.core.stopped = true;      // (its run of instructions ends here)
    if (args.stats) console.error(statsLine(`watchdog reset reason=${reason}`));
    running = false;
    for (const fn of resetWaiters) fn();
    resetWaiters.clear();
    setImmediate(() => { boot(); mcu.watchdog.reason = reason; mcu.watchdog.scratchData.set(scratch); start(); });
  };

  cdc = new USBCDC(mcu.usbCtrl);
  const usb = mcu.usbCtrl;
  const cdcRead = usb.onEndpointRead;
  pendingRead = null;
  hostQueue.length = 0;
  usb.onEndpointRead = (endpoint, size) => {
    outEndpoint = cdc.outEndpoint;
    if (endpoint === cdc.outEndpoint) {
      pendingRead = { usb, size };   // NAK until the host has data, as a real host does
      feedDevice();
    } else {
      cdcRead(endpoint, size);
    }
  };
  tr.startNs = null; tr.line = [];
  cdc.onSerialData = (data) => {
    if (args.trace) traceOut(data);
    if (args.echo) process.stdout.write(data);
    if (client) client.write(Buffer.from(data));
  };
  mcu.core.PC = 0x10000000;   // straight into boot2, as rp2040js' own MicroPython demo does
}

// ---- PC sampling (--profile) ----
let prof = args.profile ? new Map() : null;
process.on('SIGUSR2', () => {
  if (!prof) return;
  fs.writeFileSync(args.profile, [...prof].map(([pc, n]) => `${pc.toString(16)} ${n}`).join('\n') + '\n');
  console.error(`[rp2emu profile] ${prof.size} PCs written to ${args.profile}`);
  prof.clear();
});

// ---- run loop: executes instructions, skips idle time to the next alarm (no faster than real time) ----
let running = false;
let anchorWall = 0, anchorEmu = 0;
// Hurried: while a host waits on the chip's own time and talks to it meanwhile through nothing (a settle,
// control.mjs; its `hurry` for so many ms of the chip's time), idle time runs to the next alarm at once,
// as --no-pace has it, up to the emulated time the host waits for and no further: a wait for quiet parts
// or a button held ten seconds ends when the chip's time has passed, however little of it was busy. The
// chip's own times are the same; the wall clock is not theirs.
let hurryEmuNs = 0, hurried = false;
const hurrying = () => emuNs() < hurryEmuNs;
// Asleep (WFI/WFE), paced: the loop naps until the wall clock reaches the chip's next alarm (20 ms at
// most); whatever can wake the chip sooner (the host's bytes, a control request) ends the nap (wake()).
let napping = null;
function nap(ms) { napping = setTimeout(() => { napping = null; loop(); }, Math.min(20, Math.max(1, ms))); }
function wake() { if (napping !== null) { clearTimeout(napping); napping = null; setImmediate(loop); } }
function start() {
  running = true;
  if (napping !== null) { clearTimeout(napping); napping = null; }
  anchorWall = wallMs(); anchorEmu = mcu.clock.nanos;
  setImmediate(loop);
}
function loop() {
  if (!running) return;
  const m = mcu, core = m.core, clock = m.clock;
  const t0 = wallMs();
  let n = 0, slice = 0x4000;
  for (;;) {
    const cycleNanos = 1e9 / m.clkSys;
    if (core.waiting) {
      // a hurry begun or ended: paced from here (else the chip, ahead of the old anchor, would
      // sleep until the wall clock caught up with all the idle time the hurry ran through)
      if (args.pace && hurried !== hurrying()) { hurried = !hurried; anchorWall = wallMs(); anchorEmu = clock.nanos; }
      let dt = clock.nanosToNextAlarm;
      if (!clock.nextAlarm) {
        // asleep with no alarm armed: only an outside event (USB data) can wake the core.
        // Let emulated time follow wall time (paced) or stand still (--no-pace), and give
        // the event loop a turn so that event can come.
        if (args.pace) {
          const allowed = anchorEmu + (wallMs() - anchorWall) * 1e6;
          const step = Math.max(0, allowed - clock.nanos);
          if (step > 0) { clock.tick(step); st.idleNs += step; }
        }
        nap(args.pace ? 20 : 1);
        return;
      }
      if (hurried) {
        const left = hurryEmuNs - emuNs();
        if (dt > left) { clock.tick(left); st.idleNs += left; continue; }   // to the hurry's end, paced after it
      } else if (args.pace) {
        const allowed = anchorEmu + (wallMs() - anchorWall) * 1e6 + 2e6;
        if (clock.nanos + dt > allowed) {
          const alarmNs = clock.nanos + dt;
          const step = Math.max(0, allowed - clock.nanos);
          if (step > 0) { clock.tick(step); st.idleNs += step; }
          nap((alarmNs - clock.nanos) / 1e6);
          return;
        }
      }
      clock.tick(dt);
      st.idleNs += dt;
    } else {
      if (prof) { const pc = core.PC >>> 0; prof.set(pc, (prof.get(pc) || 0) + 1); }   // once a run of up to 64
      // a run of up to 64 instructions between the checks below, the clock ticked after each (a
      // watchdog reset ends it: running is false, the core stopped): fastcore.mjs's own loop, or this
      let k = 0, cycles = 0;
      if (args.quick) {
        cycles = core.executeInstruction(64, clock, cycleNanos);
        k = core.ran;
      } else {
        do {
          const spent = core.executeInstruction();
          cycles += spent;
          clock.tick(spent * cycleNanos);
        } while (++k < 64 && !core.waiting && running);
      }
      st.cycles += cycles;
      st.busyNs += cycles * cycleNanos;
      n += k;
    }
    if (!running || m !== mcu) return;
    if (++n >= slice) { slice = n + 0x4000; if (wallMs() - t0 > 20) break; }
  }
  // keep the pacing anchor from building up a debt while the CPU is busy (slower than real time)
  const lag = (wallMs() - anchorWall) * 1e6 - (clock.nanos - anchorEmu);
  if (lag > 50e6) { anchorWall = wallMs(); anchorEmu = clock.nanos; }
  setImmediate(loop);
}

// ---- TCP bridge ----
const server = net.createServer((sock) => {
  if (client) client.destroy();
  client = sock;
  sock.setNoDelay(true);
  sock.on('data', (d) => {
    for (const b of d) hostQueue.push(b);
    if (hostQueue.length > 65536) sock.pause();
    feedDevice();
  });
  sock.on('close', () => { if (client === sock) client = null; });
  sock.on('error', () => {});
});
server.on('error', (e) => {
  console.error(`[rp2emu] serial: cannot listen on tcp 127.0.0.1:${args.port}: ${e.message}`);
  shutdown(3);
});
// the port bound, not the one asked for: with --port 0 the system chooses it (bench/twin_harness.py reads this line)
server.listen(args.port, '127.0.0.1', () => {
  console.error(`[rp2emu] uf2 ${args.uf2} (${nblocks} blocks), fs ${args.fs ?? '(none: flash erased)'}, serial on tcp 127.0.0.1:${server.address().port}`);
});

function shutdown(code) {
  running = false;
  try { saveAll(); } catch (e) { console.error(e); }
  if (args.stats) console.error(statsLine('exit'));
  process.exit(code);
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));
process.on('SIGUSR1', () => console.error(statsLine('stats')));

// ---- the control interface (--control PORT) ----
const resetWaiters = new Set();
const emuNs = () => st.emuBase + (mcu ? mcu.clock.nanos : 0);
const twin = {
  board, oled, leds, controls, build, oledWanted: oled.present,
  emuNs, emuMs: () => emuNs() / 1e6,
  activity: () => `${oled.stats.bytes}/${leds.stats.frames}/${leds.incoming.length}/${leds.stats.bits}`,
  faults: () => ({ oled: board.oled ? !oled.present && twin.oledWanted : false, stuck: [...controls.stuck],
    encoder: !!controls.chatter }),
  onReset: (fn) => { resetWaiters.add(fn); return () => resetWaiters.delete(fn); },
  hurryUntil: (ns) => { hurryEmuNs = ns; wake(); },   // idle time unpaced until emuNs() reaches ns (0: no more)
  wake,                                           // a control request: the chip's loop runs now, not after its nap
  stats: () => ({
    emu_ms: emuNs() / 1e6, since_reset_ms: mcu ? mcu.clock.nanos / 1e6 : 0, busy_ms: st.busyNs / 1e6,
    idle_ms: st.idleNs / 1e6, skipped_ms: st.skippedNs / 1e6, cycles: st.cycles, resets: st.resets, wall_ms: wallMs(),
    flash_erases: spiFlash.stats.erases, flash_programs: spiFlash.stats.programs,
    i2c_bus_ms: oled.stats.bus_ns / 1e6, oled_transactions: oled.stats.transactions, oled_bytes: oled.stats.bytes,
    oled_data_bytes: oled.stats.data_bytes, oled_command_bytes: oled.stats.command_bytes, oled_naks: oled.stats.naks,
    oled_errors: oled.errors.length, oled_stray_naks: oled.stats.stray_naks,
    led_frames: leds.stats.frames, led_bytes: leds.stats.bytes, led_wire_ms: leds.stats.wire_ns / 1e6,
    led_timing_errors: leds.stats.timing_errors, led_short_frames: leds.stats.short_frames,
    led_long_frames: leds.stats.long_frames, led_last_frame_ms: leds.stats.last_frame_ms,
    led_first_frame_since_reset_ms: leds.stats.first_frame_since_reset_ms,
    presses: controls.stats.presses, detents: controls.stats.detents, faults: twin.faults(),
    // since the chip's last reset, as led_last_frame_ms: the last press's first closing and opening
    // edges, and the end of the display's last transaction (what a latency is measured between)
    last_press_ms: controls.stats.last_press_ms, last_release_ms: controls.stats.last_release_ms,
    oled_last_ms: oled.stats.last_stop_ms,
  }),
};
if (Number.isInteger(args.control)) startControl(args.control, twin);     // --control 0: a port the system chooses

boot();
start();
