// What every emulated chip is made from: rp2040js (found where the project installs it), a MicroPython
// UF2 image laid into a flash array, and the chip itself with that array as its flash behind the
// modelled serial flash (parts/qspi-flash.mjs). twin/run.mjs and twin/check-fastcore.mjs share it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const CACHE = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'tallyboard-rp2emu');

// rp2040js: $RP2EMU_NODE_MODULES, else twin/node_modules, else <cache>/node/node_modules (setup.sh installs it there)
export async function loadRp2040js() {
  const index = [process.env.RP2EMU_NODE_MODULES, path.join(HERE, 'node_modules'), path.join(CACHE, 'node', 'node_modules')]
    .filter(Boolean).map((d) => path.join(d, 'rp2040js', 'dist', 'esm', 'index.js')).find((f) => fs.existsSync(f));
  if (!index) { console.error('rp2040js is not installed: run npm ci in twin/'); process.exit(2); }
  return { rp: await import(pathToFileURL(index).href), source: path.dirname(index) };
}

// the UF2's blocks for the main flash into flash (offset 0 = 0x10000000); how many there were
export function loadUF2(file, flash) {
  const data = fs.readFileSync(file);
  let n = 0;
  for (let off = 0; off + 512 <= data.length; off += 512) {
    const magic0 = data.readUInt32LE(off), magic1 = data.readUInt32LE(off + 4);
    if (magic0 !== 0x0a324655 || magic1 !== 0x9e5d5157) continue;
    const flags = data.readUInt32LE(off + 8);
    if (flags & 1) continue; // not for the main flash
    const addr = data.readUInt32LE(off + 12), size = data.readUInt32LE(off + 16);
    flash.set(data.subarray(off + 32, off + 32 + size), addr - 0x10000000);
    n++;
  }
  return n;
}

// A chip booting from `flash` (its own array from now on: the persistent flash, kept by the caller
// across resets) through the serial flash's SSI and QSPI pads (flashPeripherals' classes)
export function newChip(rp, bootrom, flash, { SSI, IOQSPI }) {
  const mcu = new rp.RP2040();
  mcu.loadBootrom(bootrom);      // resets the chip, which erases its own flash array: replaced below
  mcu.logger = new rp.ConsoleLogger(rp.LogLevel.Error);
  mcu.flash = flash;
  mcu.flash16 = new Uint16Array(flash.buffer);
  mcu.flashView = new DataView(flash.buffer);
  const qspi = new IOQSPI(mcu);
  mcu.peripherals[0x18000] = new SSI(mcu, qspi);
  mcu.peripherals[0x40018] = qspi;
  return mcu;
}
