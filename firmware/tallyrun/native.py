# The request path's loops in machine code (MicroPython's viper emitter), for
# tallyrun.protocol: the CRC-16 over a table, the line's one scan (printable
# ASCII, the checksum's star, the tokens) and a token's decimal value; and for
# tallyrun.chain, a link of the game's hash chain (one SHA-256 block). Alone in
# their module: an .mpy holding the RP2040's machine code does not load on
# another arch (the emulator's unix port), and protocol.py then keeps its
# bytecode loops, which say the same (tests/mp/test_protocol_frames.py), as
# chain.py keeps hashlib (tests/mp/test_chain.py).
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



# size: one SHA-256 block in machine code, its 64 rounds and schedule in one loop over locals
@micropython.viper
def sha256_link(constants, scratch, event: int, who: int):
    """scratch[0:32] = SHA-256(scratch[0:32] || event, 4 bytes little-endian ||
    who): the one 64-byte block of a 37-byte message, in place (FIPS 180-4
    6.2.2), for tallyrun.chain. constants: the initial hash value and the 64
    round constants as u32, then the 32-bit mask (a machine word is wider on
    the unix port); scratch[32:96]: the message schedule's 16 words, rolled.
    No allocation."""
    k = ptr32(constants)  # type: ignore[name-defined]  # noqa: F821 - viper's own
    h = ptr8(scratch)  # type: ignore[name-defined]  # noqa: F821
    w = ptr32(scratch)  # type: ignore[name-defined]  # noqa: F821 - w[8 + i]: the schedule's word i
    m = uint(k[72])  # type: ignore[name-defined]  # noqa: F821
    i = 0
    while i < 8:       # the block: the head as 8 big-endian words,
        j = 4 * i
        w[8 + i] = (h[j] << 24) | (h[j + 1] << 16) | (h[j + 2] << 8) | h[j + 3]
        i += 1
    w[16] = ((event & 0xFF) << 24) | (((event >> 8) & 0xFF) << 16) | (((event >> 16) & 0xFF) << 8) | (
        (event >> 24) & 0xFF)                                            # the event's bytes, who, the
    w[17] = ((who & 0xFF) << 24) | 0x800000                             # padding's 1 bit, zeros and
    i = 18
    while i < 23:
        w[i] = 0
        i += 1
    w[23] = 296                                                           # the length: 37 * 8 bits
    a = uint(k[0])  # type: ignore[name-defined]  # noqa: F821
    b = uint(k[1])  # type: ignore[name-defined]  # noqa: F821
    c = uint(k[2])  # type: ignore[name-defined]  # noqa: F821
    d = uint(k[3])  # type: ignore[name-defined]  # noqa: F821
    e = uint(k[4])  # type: ignore[name-defined]  # noqa: F821
    f = uint(k[5])  # type: ignore[name-defined]  # noqa: F821
    g = uint(k[6])  # type: ignore[name-defined]  # noqa: F821
    z = uint(k[7])  # type: ignore[name-defined]  # noqa: F821
    t = 0
    while t < 64:
        if t >= 16:     # the schedule's word t, over the one of t - 16
            x = uint(w[8 + ((t - 15) & 15)])  # type: ignore[name-defined]  # noqa: F821
            y = uint(w[8 + ((t - 2) & 15)])  # type: ignore[name-defined]  # noqa: F821
            s0 = (((x >> 7) | (x << 25)) ^ ((x >> 18) | (x << 14)) ^ (x >> 3)) & m
            s1 = (((y >> 17) | (y << 15)) ^ ((y >> 19) | (y << 13)) ^ (y >> 10)) & m
            w[8 + (t & 15)] = (uint(w[8 + (t & 15)]) + s0 + uint(w[8 + ((t - 7) & 15)]) + s1) & m  # type: ignore[name-defined]  # noqa: F821,E501
        s1 = (((e >> 6) | (e << 26)) ^ ((e >> 11) | (e << 21)) ^ ((e >> 25) | (e << 7))) & m
        t1 = (z + s1 + (g ^ (e & (f ^ g))) + uint(k[8 + t]) + uint(w[8 + (t & 15)])) & m  # type: ignore[name-defined]  # noqa: F821,E501
        s0 = (((a >> 2) | (a << 30)) ^ ((a >> 13) | (a << 19)) ^ ((a >> 22) | (a << 10))) & m
        t2 = (s0 + ((a & b) | (c & (a | b)))) & m
        z = g
        g = f
        f = e
        e = (d + t1) & m
        d = c
        c = b
        b = a
        a = (t1 + t2) & m
        t += 1
    w[8] = uint(k[0]) + a  # type: ignore[name-defined]  # noqa: F821
    w[9] = uint(k[1]) + b  # type: ignore[name-defined]  # noqa: F821
    w[10] = uint(k[2]) + c  # type: ignore[name-defined]  # noqa: F821
    w[11] = uint(k[3]) + d  # type: ignore[name-defined]  # noqa: F821
    w[12] = uint(k[4]) + e  # type: ignore[name-defined]  # noqa: F821
    w[13] = uint(k[5]) + f  # type: ignore[name-defined]  # noqa: F821
    w[14] = uint(k[6]) + g  # type: ignore[name-defined]  # noqa: F821
    w[15] = uint(k[7]) + z  # type: ignore[name-defined]  # noqa: F821
    i = 0
    while i < 8:       # the new head, big-endian
        v = uint(w[8 + i])  # type: ignore[name-defined]  # noqa: F821
        j = 4 * i
        h[j] = v >> 24
        h[j + 1] = v >> 16
        h[j + 2] = v >> 8
        h[j + 3] = v
        i += 1
