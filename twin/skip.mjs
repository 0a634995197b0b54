// A loop that polls the I2C bus, skipped to the bus's next event (twin/run.mjs applies it to both
// buses of every chip it boots, unless --no-skip).
// The SDK's I2C transfer waits for each byte by polling IC_RAW_INTR_STAT (and its timeout's TIMER)
// in a loop of a few instructions (pico-sdk i2c_write_blocking_internal): a fifth of all the
// instructions the twin ran for a display-heavy test. Nothing such a loop reads can change before
// the clock's next alarm: the bus's own events are alarms (parts/ssd1306.mjs), and the host's data
// comes between run-loop slices only. So when the same instruction reads the same status register
// with the same value a third time within a few hundred cycles, the clock jumps to that alarm and
// the time counts as busy, in cycles too, as if the core had spun through it: the firmware sees the
// same emulated times, to within one turn of its loop, and the host's CPU does none of the turns.
const POLLED = new Set([0x34, 0x70, 0x74, 0x78]);   // IC_RAW_INTR_STAT, IC_STATUS, IC_TXFLR, IC_RXFLR
const POLL_TURN_CYCLES = 400;
export function skipBusPolling(m, bus, st) {
  const read = bus.readUint32.bind(bus);
  let lastOffset = -1, lastValue = -1, lastPC = -1, lastCycles = 0, turns = 0;
  bus.readUint32 = (offset) => {
    let value = read(offset);
    const pc = m.core.PC;
    if (offset === lastOffset && value === lastValue && pc === lastPC && m.core.cycles - lastCycles < POLL_TURN_CYCLES
        && POLLED.has(offset)) {
      if (++turns >= 2) {
        turns = 0;
        const clock = m.clock, alarm = clock.nextAlarm;
        if (alarm && alarm.nanos > clock.nanos) {
          const dt = alarm.nanos - clock.nanos;
          clock.tick(dt);
          st.busyNs += dt; st.skippedNs += dt; st.cycles += Math.round(dt * m.clkSys / 1e9);
          value = read(offset);
        }
      }
    } else turns = 0;
    lastOffset = offset; lastValue = value; lastPC = pc; lastCycles = m.core.cycles;
    return value;
  };
}
