# CRC-16 over a table in machine code (MicroPython's viper emitter), for
# tallyrun.protocol.crc16. Alone in its module: an .mpy holding the RP2040's
# machine code does not load on another arch (the emulator's unix port),
# and protocol.py then keeps its bytecode loop.
import micropython


@micropython.viper
def crc16_table(data, table, span: int, crc: int) -> int:
    """CRC-16 of data[span >> 16:span & 0xFFFF] with the 256-entry u16 table
    (an array("H")), from crc. No allocation."""
    buf = ptr8(data)  # type: ignore[name-defined]  # noqa: F821 - viper's own
    entries = ptr16(table)  # type: ignore[name-defined]  # noqa: F821
    i = span >> 16
    end = span & 0xFFFF
    while i < end:
        crc = ((crc << 8) & 0xFFFF) ^ entries[((crc >> 8) ^ buf[i]) & 0xFF]
        i += 1
    return crc
