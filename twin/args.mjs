// The runner's command line (twin/run.mjs's opening comment says what each option does): the options
// read, and the image, boot ROM and board definition each defaulted to the project's own and checked.
import fs from 'node:fs';
import path from 'node:path';

const HERE = path.dirname(new URL(import.meta.url).pathname);
// a builder's own image and boot ROM: named, or in the folder $TALLYBOARD_RP2EMU; else the project's
const OUTSIDE = process.env.TALLYBOARD_RP2EMU;
const STOCK_UF2 = path.resolve(HERE, '..', 'image', 'stock-pico.uf2');
const BOOTROM = path.join(HERE, 'bootrom', 'bootrom-b1.mjs');

export function parseArgs(argv) {
  const args = { port: 5555, stats: false, echo: false, oled: true, pace: true, skip: true, quick: true, trace: false, hold: [], watch: [], seed: 1, miswire: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => argv[++i];
    if (a === '--uf2') args.uf2 = val();
    else if (a === '--fs') args.fs = val();
    else if (a === '--save') args.save = val();
    else if (a === '--rom-bytes') args.romBytes = val();
    else if (a === '--port') args.port = Number(val());
    else if (a === '--stats') args.stats = true;
    else if (a === '--echo') args.echo = true;
    else if (a === '--no-oled') args.oled = false;
    else if (a === '--no-pace') args.pace = false;
    else if (a === '--no-skip') args.skip = false;
    else if (a === '--slow-core') args.quick = false;
    else if (a === '--trace') args.trace = true;
    else if (a === '--hold') args.hold.push(Number(val()));
    else if (a === '--miswire') args.miswire.push(val());
    else if (a === '--watch-gpio') args.watch.push(Number(val()));
    else if (a === '--profile') args.profile = val();
    else if (a === '--bootrom') args.bootrom = val();
    else if (a === '--board') args.board = val();
    else if (a === '--control') args.control = Number(val());
    else if (a === '--seed') args.seed = Number(val());
    else { console.error(`unknown argument ${a}`); process.exit(2); }
  }
  args.uf2 ??= OUTSIDE ? path.join(OUTSIDE, 'firmware.uf2') : STOCK_UF2;
  if (!args.bootrom) {
    const beside = [path.join(path.dirname(args.uf2), 'bootrom.mjs'), OUTSIDE && path.join(OUTSIDE, 'bootrom.mjs')];
    args.bootrom = beside.filter(Boolean).find((f) => fs.existsSync(f)) ?? BOOTROM;
  }
  args.board ??= path.resolve(HERE, '..', 'board', 'pico-reference.json');
  for (const [what, file] of [['MicroPython image (--uf2)', args.uf2], ['boot ROM (--bootrom)', args.bootrom], ['board definition (--board)', args.board]]) {
    if (!fs.existsSync(file)) { console.error(`the ${what} is not at ${file}: name one with that option (the project's own are image/stock-pico.uf2 and twin/bootrom/bootrom-b1.mjs)`); process.exit(2); }
  }
  return args;
}
