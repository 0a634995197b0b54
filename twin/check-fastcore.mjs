// Checks twin/fastcore.mjs against rp2040js itself (tests/test_twin_fastcore.py runs it):
//
// 1. the decoder table: for every 16-bit opcode fastcore handles, the first encoding rp2040js'
//    executeInstruction matches (its tests read from its own source, in its order) is the one
//    fastcore names for it;
// 2. lockstep: two chips built alike from the same UF2, one quickened, run MicroPython's boot and
//    then a few lines of Python typed at its REPL, instruction by instruction (half the time the
//    quickened one runs many at once, its clock ticked after each, as twin/run.mjs drives it); after
//    each instruction or run their registers, flags, cycle counts and clocks must be equal, and at the
//    end their RAM.
//
//   node twin/check-fastcore.mjs [--uf2 firmware.uf2] [--instructions N]
// prints one line of figures; exits 1 naming the first difference.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { parseArgs } from './args.mjs';
import { loadRp2040js, loadUF2, newChip } from './chip.mjs';
import { ENCODINGS, KIND, quicken } from './fastcore.mjs';
import { SpiFlash, flashPeripherals } from './parts/qspi-flash.mjs';

const argv = process.argv.slice(2);
const at = argv.indexOf('--instructions');
const most = at >= 0 ? Number(argv.splice(at, 2)[1]) : 40e6;
const args = parseArgs(argv);
const { rp, source } = await loadRp2040js();
const fail = (text) => { console.error(`check-fastcore: ${text}`); process.exit(1); };

// ---- 1. the table against rp2040js' own chain of tests ----
const text = fs.readFileSync(path.join(source, 'cortex-m0-core.js'), 'utf8');
const body = text.slice(text.indexOf('    executeInstruction() {'));
const chain = [];
for (const m of body.matchAll(/\n {8}\/\/ ([^\n]+)\n {8}(?:else )?if \((.+)\) \{\n/g)) {
  if (/[^\w\s()&|=!<>~^+\-*/]/.test(m[2].replace(/0b[01]+|0x[0-9a-f]+/gi, '0'))) fail(`cannot read the test for ${m[1]}: ${m[2]}`);
  chain.push([m[1], new Function('opcode', 'opcode2', `return (${m[2]});`)]);
}
if (chain.length < 70) fail(`found ${chain.length} encodings in rp2040js' executeInstruction, not the eighty or so it has`);
const names = new Map(ENCODINGS.map(([kind, name]) => [kind, name]));
let handled = 0;
for (let op = 0; op < 0x10000; op++) {
  if (!KIND[op]) continue;
  handled++;
  const opcode2 = names.get(KIND[op]) === 'BL' ? 0xf800 : 0;     // a BL's second half
  const first = chain.find(([, test]) => test(op, opcode2));
  if (!first || first[0] !== names.get(KIND[op])) {
    fail(`opcode 0x${op.toString(16)}: fastcore runs it as ${names.get(KIND[op])}, rp2040js as ${first ? first[0] : 'nothing'}`);
  }
}

// ---- 2. lockstep ----
const { bootromB1 } = await import(pathToFileURL(path.resolve(args.bootrom)).href);
const image = new Uint8Array(16 * 1024 * 1024).fill(0xff);
loadUF2(args.uf2, image);
function chip(quick) {
  const flash = image.slice();
  const spiFlash = new SpiFlash({ bytes: flash, size: 2 * 1024 * 1024, uniqueId: [1, 2, 3, 4, 5, 6, 7, 8], sector: 4096,
    changed: () => {}, erasedAll: () => {} });
  const mcu = newChip(rp, bootromB1, flash, flashPeripherals(rp.BasePeripheral, spiFlash));
  if (quick) quicken(mcu);
  const cdc = new rp.USBCDC(mcu.usbCtrl);
  const one = { mcu, cdc, said: [], connected: false };
  cdc.onSerialData = (data) => one.said.push(...data);
  cdc.onDeviceConnected = () => { one.connected = true; };
  mcu.core.PC = 0x10000000;
  return one;
}
const slow = chip(false), quick = chip(true);
const FLAGS = ['N', 'Z', 'C', 'V', 'waiting', 'PM', 'IPSR', 'SPSEL', 'currentMode', 'bankedSP', 'cycles'];
function compare(step, pc, opcode) {
  const a = slow.mcu.core, b = quick.mcu.core;
  for (let r = 0; r < 16; r++) {
    if (a.registers[r] !== b.registers[r]) fail(`instruction ${step} (0x${opcode.toString(16)} at 0x${pc.toString(16)}): r${r} 0x${a.registers[r].toString(16)} with rp2040js, 0x${b.registers[r].toString(16)} quickened`);
  }
  for (const f of FLAGS) if (a[f] !== b[f]) fail(`instruction ${step} (0x${opcode.toString(16)} at 0x${pc.toString(16)}): ${f} ${a[f]} with rp2040js, ${b[f]} quickened`);
  if (slow.mcu.clock.nanos !== quick.mcu.clock.nanos) fail(`instruction ${step}: the clocks differ`);
}
// typed at the REPL once the host has the serial port (a line first: its prompt), the VM, the heap,
// strings and ints at work; the run ends at the prompt after the last line
const LINES = ['import gc, framebuf', 'l = [str(i) * 3 for i in range(300)]',
  'print(sum(len(s) for s in l), hash("tally") & 255, 7 ** 40 % 1000003)',
  'd = {str(i): i * i for i in range(100)}', 'print(len(d), sum(d.values()) % 9973, "%.3f" % (2 ** 0.5))',
  'exec("try:\\n 1 // 0\\nexcept ZeroDivisionError as e:\\n print(\'caught\', e)")',
  'b = bytearray(128 * 8); fb = framebuf.FrameBuffer(b, 128, 64, framebuf.MONO_VLSB); fb.text("tally", 0, 0, 1)',
  'print(sum(b), bytes(memoryview(b)[:8]).hex())', 'gc.collect()'];
const type = (text) => { for (const byte of Buffer.from(text)) { slow.cdc.sendSerialByte(byte); quick.cdc.sendSerialByte(byte); } };
const prompts = () => Buffer.from(slow.said).toString('latin1').split('>>> ').length - 1;
let typed = -1, waitFor = 0, steps = 0, looked = 0, singles = 0, quickHits = 0;
const started = Date.now();
while (steps < most) {
  const a = slow.mcu, b = quick.mcu;
  if (a.core.waiting) {
    if (!b.core.waiting) fail(`instruction ${steps}: only rp2040js' core waits`);
    const dt = a.clock.nanosToNextAlarm;
    if (!a.clock.nextAlarm) break;              // asleep for good: only the host could wake it
    a.clock.tick(dt); b.clock.tick(dt);
    continue;
  }
  const pc = a.core.PC >>> 0, opcode = a.readUint16(pc & ~1);
  if ((steps >> 9) & 1) {
    // every other 512: the quickened chip runs up to 61 at a time with its clock, as run.mjs drives it,
    // and rp2040js' as many one by one
    const cb = b.core.executeInstruction(1 + steps % 61, b.clock, 8);
    let ca = 0;
    for (let i = 0; i < b.core.ran; i++) { const spent = a.core.executeInstruction(); ca += spent; a.clock.tick(spent * 8); }
    if (ca !== cb) fail(`instructions ${steps} to ${steps + b.core.ran}: ${ca} cycles with rp2040js, ${cb} quickened`);
    steps += b.core.ran;
    compare(steps, pc, opcode);
  } else {
    singles++;
    if (KIND[opcode] && !a.core.interruptsUpdated) quickHits++;
    const ca = a.core.executeInstruction(), cb = b.core.executeInstruction();
    if (ca !== cb) fail(`instruction ${steps} (0x${opcode.toString(16)} at 0x${pc.toString(16)}): ${ca} cycles with rp2040js, ${cb} quickened`);
    a.clock.tick(ca * 8); b.clock.tick(cb * 8);
    compare(++steps, pc, opcode);
  }
  if (steps - looked < 1000) continue;
  looked = steps;
  if (slow.connected !== quick.connected) fail(`instruction ${steps}: only one chip's USB is connected`);
  if (!slow.connected) continue;
  if (typed < 0) { waitFor = prompts() + 1; type('\r\n'); typed = 0; }
  else if (prompts() >= waitFor) {
    if (typed === LINES.length) break;
    waitFor = prompts() + 1;
    type(LINES[typed++] + '\r\n');
  }
}
const ramA = slow.mcu.sram, ramB = quick.mcu.sram;
for (let i = 0; i < ramA.length; i++) if (ramA[i] !== ramB[i]) fail(`after ${steps} instructions RAM differs at 0x${(0x20000000 + i).toString(16)}`);
if (Buffer.from(slow.said).toString('latin1') !== Buffer.from(quick.said).toString('latin1')) fail('the two chips said different things');
const said = Buffer.from(slow.said).toString('latin1');
console.log(`table: ${handled} opcodes checked against ${chain.length} encodings; lockstep: ${steps} instructions ` +
  `(${(100 * quickHits / Math.max(singles, 1)).toFixed(1)} % of those run one by one quickened) in ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
  `${Math.max(typed, 0)} of ${LINES.length} lines typed at the REPL; it printed: ${JSON.stringify(said.slice(said.indexOf("import gc")))}`);
