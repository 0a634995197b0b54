// rp2040js' instruction decoder, sped up: its executeInstruction tests an opcode against some
// eighty encodings in turn (alphabetical order), about twenty-four tests for the average
// instruction MicroPython runs. quicken() puts a table in front of it: the 16-bit opcodes of the
// forty instructions that make up 98 % of what the firmware runs (a conditional branch, CMP,
// LSLS, LDR, ...) go straight to their own code, which is rp2040js' own for that encoding (the
// same results, flags and cycle counts), and RAM loads and stores skip rp2040js' lookup of a
// peripheral. Everything else (the wide instructions but BL, exceptions, interrupts pending,
// WFI/WFE, SVC, breakpoints, special registers, the rest) goes to rp2040js' executeInstruction
// unchanged. twin/run.mjs quickens every chip it boots (--slow-core: not);
// tests/test_twin_fastcore.py checks the table against rp2040js' own decoder, encoding by
// encoding, and runs a chip both ways in lockstep through MicroPython's boot.

// the kinds handled here; 0: rp2040js decodes the opcode
const ADDS_T1 = 1, ADDS_T2 = 2, ADDS_REG = 3, ADD_HI = 4, ADD_SP_IMM = 5, ADD_RD_SP = 6, ANDS = 7, B_COND = 8,
  B = 9, BL = 10, BX = 11, CMP_IMM = 12, CMP_REG = 13, CMP_HI = 14, EORS = 15, LDR_IMM = 16, LDR_SP = 17,
  LDR_LIT = 18, LDR_REG = 19, LDRB_IMM = 20, LDRB_REG = 21, LDRH_IMM = 22, LSLS_IMM = 23, LSRS_IMM = 24,
  MOV_HI = 25, MOVS = 26, MULS = 27, ORRS = 28, POP = 29, PUSH = 30, STR_IMM = 31, STR_SP = 32, STR_REG = 33,
  STRB_IMM = 34, STRH_IMM = 35, SUB_SP = 36, SUBS_T1 = 37, SUBS_T2 = 38, SUBS_REG = 39, TST = 40, UXTB = 41,
  LDRH_REG = 42, STRB_REG = 43, UXTH = 44;

// each kind's encoding, as rp2040js' executeInstruction tests it (its comment names it there)
export const ENCODINGS = [
  [ADDS_T1, 'ADDS (Encoding T1)', (op) => op >> 9 === 0b0001110],
  [ADDS_T2, 'ADDS (Encoding T2)', (op) => op >> 11 === 0b00110],
  [ADDS_REG, 'ADDS (register)', (op) => op >> 9 === 0b0001100],
  [ADD_HI, 'ADD (register)', (op) => op >> 8 === 0b01000100],
  [ADD_SP_IMM, 'ADD (SP plus immediate)', (op) => op >> 7 === 0b101100000],
  [ADD_RD_SP, 'ADD (register = SP plus immediate)', (op) => op >> 11 === 0b10101],
  [ANDS, 'ANDS (Encoding T2)', (op) => op >> 6 === 0b0100000000],
  [B_COND, 'B (with cond)', (op) => op >> 12 === 0b1101 && ((op >> 9) & 0x7) !== 0b111],
  [B, 'B', (op) => op >> 11 === 0b11100],
  [BL, 'BL', (op) => op >> 11 === 0b11110],          // and its second half says BL: checked when run
  [BX, 'BX', (op) => op >> 7 === 0b010001110 && (op & 0x7) === 0],
  [CMP_IMM, 'CMP immediate', (op) => op >> 11 === 0b00101],
  [CMP_REG, 'CMP (register)', (op) => op >> 6 === 0b0100001010],
  [CMP_HI, 'CMP (register) encoding T2', (op) => op >> 8 === 0b01000101],
  [EORS, 'EORS', (op) => op >> 6 === 0b0100000001],
  [LDR_IMM, 'LDR (immediate)', (op) => op >> 11 === 0b01101],
  [LDR_SP, 'LDR (sp + immediate)', (op) => op >> 11 === 0b10011],
  [LDR_LIT, 'LDR (literal)', (op) => op >> 11 === 0b01001],
  [LDR_REG, 'LDR (register)', (op) => op >> 9 === 0b0101100],
  [LDRB_IMM, 'LDRB (immediate)', (op) => op >> 11 === 0b01111],
  [LDRB_REG, 'LDRB (register)', (op) => op >> 9 === 0b0101110],
  [LDRH_IMM, 'LDRH (immediate)', (op) => op >> 11 === 0b10001],
  [LDRH_REG, 'LDRH (register)', (op) => op >> 9 === 0b0101101],
  [LSLS_IMM, 'LSLS (immediate)', (op) => op >> 11 === 0b00000],
  [LSRS_IMM, 'LSRS (immediate)', (op) => op >> 11 === 0b00001],
  [MOV_HI, 'MOV', (op) => op >> 8 === 0b01000110],
  [MOVS, 'MOVS', (op) => op >> 11 === 0b00100],
  [MULS, 'MULS', (op) => op >> 6 === 0b0100001101],
  [ORRS, 'ORRS (Encoding T2)', (op) => op >> 6 === 0b0100001100],
  [POP, 'POP', (op) => op >> 9 === 0b1011110],
  [PUSH, 'PUSH', (op) => op >> 9 === 0b1011010],
  [STR_IMM, 'STR (immediate)', (op) => op >> 11 === 0b01100],
  [STR_SP, 'STR (sp + immediate)', (op) => op >> 11 === 0b10010],
  [STR_REG, 'STR (register)', (op) => op >> 9 === 0b0101000],
  [STRB_IMM, 'STRB (immediate)', (op) => op >> 11 === 0b01110],
  [STRB_REG, 'STRB (register)', (op) => op >> 9 === 0b0101010],
  [STRH_IMM, 'STRH (immediate)', (op) => op >> 11 === 0b10000],
  [SUB_SP, 'SUB (SP minus immediate)', (op) => op >> 7 === 0b101100001],
  [SUBS_T1, 'SUBS (Encoding T1)', (op) => op >> 9 === 0b0001111],
  [SUBS_T2, 'SUBS (Encoding T2)', (op) => op >> 11 === 0b00111],
  [SUBS_REG, 'SUBS (register)', (op) => op >> 9 === 0b0001101],
  [TST, 'TST', (op) => op >> 6 === 0b0100001000],
  [UXTB, 'UXTB', (op) => op >> 6 === 0b1011001011],
  [UXTH, 'UXTH', (op) => op >> 6 === 0b1011001010],
];

// the kind of every 16-bit opcode (the first half of a wide one: BL only)
export const KIND = new Uint8Array(0x10000);
for (let op = 0; op < 0x10000; op++) {
  const found = ENCODINGS.filter(([, , test]) => test(op));
  if (found.length > 1) throw new Error(`fastcore: opcode ${op.toString(16)} is ${found.map((f) => f[1]).join(' and ')}`);
  if (found.length) KIND[op] = found[0][0];
}

const RAM = 0x20000000, SP_REG = 13, PC_REG = 15;

export function quicken(mcu) {
  const core = mcu.core;
  const slow = core.executeInstruction;            // rp2040js' own, for everything not below
  const regs = core.registers;
  const ram = mcu.sramView, ramEnd = RAM + mcu.sram.length;
  // rp2040js' cyclesIO: no wait state for SIO, three or four for the APB peripherals, one for the rest
  const io = (addr, write) => {
    addr = addr >>> 0;
    if (addr >= 0xd0000000 && addr < 0xe0000000) return 0;
    if (addr >= 0x40000000 && addr < 0x50000000) return write ? 4 : 3;
    return 1;
  };
  // word loads and stores: RAM directly (aligned), anything else through rp2040js (peripherals, faults' logs)
  const load32 = (addr) => (addr >= RAM && addr + 3 < ramEnd && (addr & 3) === 0
    ? ram.getUint32(addr - RAM, true) : core.readUint32(addr));
  const store32 = (addr, value) => {
    if (addr >= RAM && addr + 3 < ramEnd && (addr & 3) === 0) ram.setUint32(addr - RAM, value, true);
    else core.writeUint32(addr, value);
  };

  // One instruction, as rp2040js' executeInstruction (its cycles); or, given a clock, up to `most` of
  // them, the clock ticked after each (as a run loop would), until the core waits (WFI/WFE) or is
  // stopped (core.stopped: a watchdog reset ended the chip): their cycles, and core.ran their count.
  core.stopped = false;
  core.ran = 0;
  core.executeInstruction = function executeQuick(most = 1, clock = null, nanosPerCycle = 0) {
    let total = 0, ran = 0;
    for (;;) {
      let deltaCycles = -1;            // -1: rp2040js runs it
      if (!this.interruptsUpdated) {
        const opcodePC = regs[PC_REG] & ~1;
        const opcode = mcu.readUint16(opcodePC);
        const kind = KIND[opcode];
        deltaCycles = 1;
        if (kind !== 0) regs[PC_REG] += 2;   // past the opcode, as rp2040js does first (BL passes its second half itself)
        switch (kind) {
          case B_COND: {
            let imm8 = (opcode & 0xff) << 1;
            if (imm8 & (1 << 8)) imm8 = (imm8 & 0x1ff) - 0x200;
            if (this.checkCondition((opcode >> 8) & 0xf)) { regs[PC_REG] += imm8 + 2; deltaCycles++; }
            break;
          }
          case CMP_REG:
            this.substractUpdateFlags(regs[opcode & 0x7], regs[(opcode >> 3) & 0x7]);
            break;
          case LSLS_IMM: {
            const imm5 = (opcode >> 6) & 0x1f;
            const input = regs[(opcode >> 3) & 0x7];
            const result = input << imm5;
            regs[opcode & 0x7] = result;
            this.N = !!(result & 0x80000000);
            this.Z = result === 0;
            this.C = imm5 ? !!(input & (1 << (32 - imm5))) : this.C;
            break;
          }
          case LDR_IMM: {
            const addr = regs[(opcode >> 3) & 0x7] + (((opcode >> 6) & 0x1f) << 2);
            deltaCycles += io(addr, false);
            regs[opcode & 0x7] = load32(addr);
            break;
          }
          case B: {
            let imm11 = (opcode & 0x7ff) << 1;
            if (imm11 & (1 << 11)) imm11 = (imm11 & 0x7ff) - 0x800;
            regs[PC_REG] += imm11 + 2;
            deltaCycles++;
            break;
          }
          case LDR_SP: {
            const addr = regs[SP_REG] + ((opcode & 0xff) << 2);
            deltaCycles += io(addr, false);
            regs[(opcode >> 8) & 0x7] = load32(addr);
            break;
          }
          case ADDS_T2: {
            const Rdn = (opcode >> 8) & 0x7;
            regs[Rdn] = this.addUpdateFlags(regs[Rdn], opcode & 0xff);
            break;
          }
          case CMP_IMM:
            this.substractUpdateFlags(regs[(opcode >> 8) & 0x7], opcode & 0xff);
            break;
          case LDRB_REG: {
            const addr = regs[(opcode >> 6) & 0x7] + regs[(opcode >> 3) & 0x7];
            deltaCycles += io(addr, false);
            regs[opcode & 0x7] = core.readUint8(addr);
            break;
          }
          case MOVS: {
            const value = opcode & 0xff;
            regs[(opcode >> 8) & 7] = value;
            this.N = false;            // (value & 0x80000000 of an 8-bit value)
            this.Z = value === 0;
            break;
          }
          case MOV_HI: {
            const Rm = (opcode >> 3) & 0xf;
            const Rd = ((opcode >> 4) & 0x8) | (opcode & 0x7);
            let value = Rm === PC_REG ? regs[PC_REG] + 2 : regs[Rm];
            if (Rd === PC_REG) { deltaCycles++; value &= ~1; } else if (Rd === SP_REG) value &= ~3;
            regs[Rd] = value;
            break;
          }
          case BL: {
            const opcode2 = mcu.readUint16(opcodePC + 2);
            if (!(opcode2 >> 14 === 0b11 && ((opcode2 >> 12) & 0x1) === 1)) { regs[PC_REG] -= 2; deltaCycles = -1; break; }
            const imm11 = opcode2 & 0x7ff, J2 = (opcode2 >> 11) & 0x1, J1 = (opcode2 >> 13) & 0x1;
            const imm10 = opcode & 0x3ff, S = (opcode >> 10) & 0x1;
            const I1 = 1 - (S ^ J1), I2 = 1 - (S ^ J2);
            const imm32 = ((S ? 0b11111111 : 0) << 24) | ((I1 << 23) | (I2 << 22) | (imm10 << 12) | (imm11 << 1));
            regs[14] = (regs[PC_REG] + 2) | 0x1;
            regs[PC_REG] += 2 + imm32;
            deltaCycles += 2;
            this.blTaken(this, false);
            break;
          }
          case LDRB_IMM: {
            const addr = regs[(opcode >> 3) & 0x7] + ((opcode >> 6) & 0x1f);
            deltaCycles += io(addr, false);
            regs[opcode & 0x7] = core.readUint8(addr);
            break;
          }
          case STR_IMM: {
            const address = regs[(opcode >> 3) & 0x7] + (((opcode >> 6) & 0x1f) << 2);
            deltaCycles += io(address, true);
            store32(address, regs[opcode & 0x7]);
            break;
          }
          case POP: {
            let address = regs[SP_REG];
            for (let i = 0; i <= 7; i++) {
              if (opcode & (1 << i)) { regs[i] = load32(address); address += 4; deltaCycles++; }
            }
            if ((opcode >> 8) & 1) {
              regs[SP_REG] = (address + 4) & ~0x3;
              this.BXWritePC(load32(address));
              deltaCycles += 2;
            } else {
              regs[SP_REG] = address & ~0x3;
            }
            break;
          }
          case PUSH: {
            let bitCount = 0;
            for (let i = 0; i <= 8; i++) if (opcode & (1 << i)) bitCount++;
            let address = regs[SP_REG] - 4 * bitCount;
            for (let i = 0; i <= 7; i++) {
              if (opcode & (1 << i)) { store32(address, regs[i]); deltaCycles++; address += 4; }
            }
            if (opcode & (1 << 8)) store32(address, regs[14]);
            regs[SP_REG] = (regs[SP_REG] - 4 * bitCount) & ~0x3;
            break;
          }
          case LSRS_IMM: {
            const imm5 = (opcode >> 6) & 0x1f;
            const input = regs[(opcode >> 3) & 0x7];
            const result = imm5 ? input >>> imm5 : 0;
            regs[opcode & 0x7] = result;
            this.N = !!(result & 0x80000000);
            this.Z = result === 0;
            this.C = !!((input >>> (imm5 ? imm5 - 1 : 31)) & 0x1);
            break;
          }
          case LDR_LIT: {
            const addr = ((regs[PC_REG] + 2) & 0xfffffffc) + ((opcode & 0xff) << 2);
            deltaCycles += io(addr, false);
            regs[(opcode >> 8) & 7] = core.readUint32(addr);
            break;
          }
          case LDR_REG: {
            const addr = regs[(opcode >> 6) & 0x7] + regs[(opcode >> 3) & 0x7];
            deltaCycles += io(addr, false);
            regs[opcode & 0x7] = load32(addr);
            break;
          }
          case ADDS_REG:
            regs[opcode & 0x7] = this.addUpdateFlags(regs[(opcode >> 3) & 0x7], regs[(opcode >> 6) & 0x7]);
            break;
          case BX:
            this.BXWritePC(regs[(opcode >> 3) & 0xf]);
            deltaCycles++;
            break;
          case SUBS_REG:
            regs[opcode & 0x7] = this.substractUpdateFlags(regs[(opcode >> 3) & 0x7], regs[(opcode >> 6) & 0x7]);
            break;
          case STR_SP: {
            const address = regs[SP_REG] + ((opcode & 0xff) << 2);
            deltaCycles += io(address, true);
            store32(address, regs[(opcode >> 8) & 0x7]);
            break;
          }
          case ADDS_T1:
            regs[opcode & 0x7] = this.addUpdateFlags(regs[(opcode >> 3) & 0x7], (opcode >> 6) & 0x7);
            break;
          case ANDS: {
            const Rdn = opcode & 0x7;
            const result = regs[Rdn] & regs[(opcode >> 3) & 0x7];
            regs[Rdn] = result;
            this.N = !!(result & 0x80000000);
            this.Z = (result & 0xffffffff) === 0;
            break;
          }
          case ORRS: {
            const Rdn = opcode & 0x7;
            const result = regs[Rdn] | regs[(opcode >> 3) & 0x7];
            regs[Rdn] = result;
            this.N = !!(result & 0x80000000);
            this.Z = (result & 0xffffffff) === 0;
            break;
          }
          case EORS: {
            const Rdn = opcode & 0x7;
            const result = regs[(opcode >> 3) & 0x7] ^ regs[Rdn];
            regs[Rdn] = result;
            this.N = !!(result & 0x80000000);
            this.Z = result === 0;
            break;
          }
          case SUBS_T2: {
            const Rdn = (opcode >> 8) & 0x7;
            regs[Rdn] = this.substractUpdateFlags(regs[Rdn], opcode & 0xff);
            break;
          }
          case SUBS_T1:
            regs[opcode & 0x7] = this.substractUpdateFlags(regs[(opcode >> 3) & 0x7], (opcode >> 6) & 0x7);
            break;
          case STRB_IMM: {
            const address = regs[(opcode >> 3) & 0x7] + ((opcode >> 6) & 0x1f);
            deltaCycles += io(address, true);
            core.writeUint8(address, regs[opcode & 0x7]);
            break;
          }
          case STRB_REG: {
            const address = regs[(opcode >> 6) & 0x7] + regs[(opcode >> 3) & 0x7];
            deltaCycles += io(address, true);
            core.writeUint8(address, regs[opcode & 0x7]);
            break;
          }
          case TST: {
            const result = regs[opcode & 0x7] & regs[(opcode >> 3) & 0x7];
            this.N = !!(result & 0x80000000);
            this.Z = result === 0;
            break;
          }
          case ADD_SP_IMM:
            regs[SP_REG] = (regs[SP_REG] + ((opcode & 0x7f) << 2)) & ~0x3;
            break;
          case SUB_SP:
            regs[SP_REG] = (regs[SP_REG] - ((opcode & 0x7f) << 2)) & ~0x3;
            break;
          case ADD_RD_SP:
            regs[(opcode >> 8) & 0x7] = regs[SP_REG] + ((opcode & 0xff) << 2);
            break;
          case LDRH_IMM: {
            const addr = regs[(opcode >> 3) & 0x7] + (((opcode >> 6) & 0x1f) << 1);
            deltaCycles += io(addr, false);
            regs[opcode & 0x7] = core.readUint16(addr);
            break;
          }
          case LDRH_REG: {
            const addr = regs[(opcode >> 6) & 0x7] + regs[(opcode >> 3) & 0x7];
            deltaCycles += io(addr, false);
            regs[opcode & 0x7] = core.readUint16(addr);
            break;
          }
          case STRH_IMM: {
            const address = regs[(opcode >> 3) & 0x7] + (((opcode >> 6) & 0x1f) << 1);
            deltaCycles += io(address, true);
            core.writeUint16(address, regs[opcode & 0x7]);
            break;
          }
          case ADD_HI: {
            const Rm = (opcode >> 3) & 0xf;
            const Rdn = ((opcode & 0x80) >> 4) | (opcode & 0x7);
            const leftValue = Rdn === PC_REG ? regs[PC_REG] + 2 : regs[Rdn];
            const rightValue = Rm === PC_REG ? regs[PC_REG] + 2 : regs[Rm];
            const result = leftValue + rightValue;
            if (Rdn !== SP_REG && Rdn !== PC_REG) regs[Rdn] = result;
            else if (Rdn === PC_REG) { regs[Rdn] = result & ~0x1; deltaCycles++; }
            else regs[Rdn] = result & ~0x3;
            break;
          }
          case CMP_HI:
            this.substractUpdateFlags(regs[((opcode >> 4) & 0x8) | (opcode & 0x7)], regs[(opcode >> 3) & 0xf]);
            break;
          case MULS: {
            const Rdm = opcode & 0x7;
            const result = Math.imul(regs[(opcode >> 3) & 0x7], regs[Rdm]);
            regs[Rdm] = result;
            this.N = !!(result & 0x80000000);
            this.Z = (result & 0xffffffff) === 0;
            break;
          }
          case STR_REG: {
            const address = regs[(opcode >> 6) & 0x7] + regs[(opcode >> 3) & 0x7];
            deltaCycles += io(address, true);
            store32(address, regs[opcode & 0x7]);
            break;
          }
          case UXTB:
            regs[opcode & 0x7] = regs[(opcode >> 3) & 0x7] & 0xff;
            break;
          case UXTH:
            regs[opcode & 0x7] = regs[(opcode >> 3) & 0x7] & 0xffff;
            break;
          default:
            deltaCycles = -1;
        }
      }
      if (deltaCycles < 0) deltaCycles = slow.call(this);
      else this.cycles += deltaCycles;
      total += deltaCycles;
      ran++;
      if (clock !== null) clock.tick(deltaCycles * nanosPerCycle);
      if (ran >= most || this.waiting || this.stopped) { this.ran = ran; return total; }
    }
  };
  return core;
}
