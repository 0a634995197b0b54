# The request path's loops in machine code (MicroPython's viper emitter), for
# tallyrun.protocol: the CRC-16 over a table, the line's one scan (printable
# ASCII, the checksum's star, the tokens) and a token's decimal value. Alone in
# their module: an .mpy holding the RP2040's machine code does not load on
# another arch (the emulator's unix port), and protocol.py then keeps its
# bytecode loops, which say the same (tests/mp/test_protocol_frames.py).
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


@micropython.viper
def scan_line(line, length: int, starts, ends, most: int) -> int:
    """line[0:length] in one pass: -1 if a byte is not printable ASCII (32 to 126);
    else the last "*"'s index + 1 (0: none) | the tokens before it (split at spaces,
    their bounds into the u16 arrays starts and ends, at most `most`) << 8 | 1 << 12
    if there were more than `most`. No allocation."""
    buf = ptr8(line)  # type: ignore[name-defined]  # noqa: F821
    first = ptr16(starts)  # type: ignore[name-defined]  # noqa: F821
    last = ptr16(ends)  # type: ignore[name-defined]  # noqa: F821
    star = -1
    i = 0
    while i < length:
        c = buf[i]
        if c < 32 or c > 126:
            return -1
        if c == 42:
            star = i
        i += 1
    end = star if star >= 0 else length
    n = 0
    i = 0
    while i < end:
        if buf[i] == 32:
            i += 1
            continue
        if n >= most:
            return (star + 1) | (n << 8) | (1 << 12)
        first[n] = i
        while i < end and buf[i] != 32:
            i += 1
        last[n] = i
        n += 1
    return (star + 1) | (n << 8)


@micropython.viper
def decimal(line, span: int, limit: int) -> int:
    """line[span >> 16:span & 0xFFFF] as a decimal number 0..limit (limit < 2**30),
    or -1 if it is not one (empty, longer than 10 digits, another byte, too large)."""
    buf = ptr8(line)  # type: ignore[name-defined]  # noqa: F821
    i = span >> 16
    end = span & 0xFFFF
    if end - i < 1 or end - i > 10:
        return -1
    value = 0
    while i < end:
        d = buf[i] - 48
        if d < 0 or d > 9:
            return -1
        if value > 214748363:        # value * 10 + d would pass 2**31 - 1 (and any limit)
            return -1
        value = value * 10 + d
        if value > limit:
            return -1
        i += 1
    return value


