# A link of the game's hash chain (tallyrun.chain) in machine code (MicroPython's
# viper emitter): one SHA-256 block, allocation-free, with its constants. Alone
# in its module, loaded with the chain once a game is in play: an .mpy holding
# the RP2040's machine code does not load on another arch (the emulator's unix
# port), and chain.py then keeps hashlib, which says the same
# (tests/mp/test_chain.py); a board with no game holds none of it.
import micropython

# SHA-256's initial hash value (FIPS 180-4 5.3.3) and round constants (4.2.2)
# as u32 little-endian, then the 32-bit mask: for the machine code, written out
# (tests/mp/test_chain.py computes them from the primes and compares)
CONSTANTS = bytes.fromhex(
    "67e6096a85ae67bb72f36e3c3af54fa57f520e518c68059babd9831f19cde05b982f8a4291443771cffbc0b5a5dbb5e9"
    "5bc25639f111f159a4823f92d55e1cab98aa07d8015b8312be853124c37d0c55745dbe72feb1de80a706dc9b74f19bc1"
    "c1699be48647beefc69dc10fcca10c246f2ce92daa84744adca9b05cda88f97652513e986dc631a8c82703b0c77f59bf"
    "f30be0c64791a7d55163ca0667292914850ab72738211b2efc6d2c4d130d385354730a65bb0a6a762ec9c281852c7292"
    "a1e8bfa24b661aa8708b4bc2a3516cc719e892d1240699d685350ef470a06a1016c1a419086c371e4c774827b5bcb034"
    "b30c1c394aaad84e4fca9c5bf36f2e68ee828f746f63a5781478c8840802c78cfaffbe90eb6c50a4f7a3f9bef27871c6"
    "ffffffff")


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
