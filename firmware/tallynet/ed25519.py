# Ed25519 (RFC 8032): the check of a director's signature (issue 43: only the
# director can make a board run code; 5.1.7), and the board's own signature
# of its games (issue 44: tallynet.boardkey; 5.1.5, 5.1.6). A release's
# manifest is signed with the club's update key, whose private half only the
# director holds; a board holds the public half (32 bytes) and checks the
# signature before it stages a release. No table's key (HMAC, shared with
# the director) and no stranger can make one that passes.
#
# The field's numbers are MicroPython's big ints (mpz): the one place in the
# firmware that needs them; SHA-512 is written here, since the rp2 port's
# hashlib has SHA-256 only. The point arithmetic is in extended coordinates
# (x, y, z, t), with no inversion but the decoding's and the encoding's.
# Loaded only to check a release or to sign a game's chain: a board that does
# neither holds none of it. Not constant time: a check reads public data; a
# signature's time could tell a listener of many about the key, but a board
# signs only what its own host asks over USB, at the end of a game, and its
# key signs nothing but its own games' heads.
_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_I = pow(2, (_P - 1) // 4, _P)

_K = (
    0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc, 0x3956c25bf348b538,
    0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118, 0xd807aa98a3030242, 0x12835b0145706fbe,
    0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2, 0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235,
    0xc19bf174cf692694, 0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
    0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5, 0x983e5152ee66dfab,
    0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4, 0xc6e00bf33da88fc2, 0xd5a79147930aa725,
    0x06ca6351e003826f, 0x142929670a0e6e70, 0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed,
    0x53380d139d95b3df, 0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
    0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30, 0xd192e819d6ef5218,
    0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8, 0x19a4c116b8d2d0c8, 0x1e376c085141ab53,
    0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8, 0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373,
    0x682e6ff3d6b2b8a3, 0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
    0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b, 0xca273eceea26619c,
    0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178, 0x06f067aa72176fba, 0x0a637dc5a2c898a6,
    0x113f9804bef90dae, 0x1b710b35131c471b, 0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc,
    0x431d67c49c100d4c, 0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817)
_M = 0xFFFFFFFFFFFFFFFF


def _rotr(x, n):
    return ((x >> n) | (x << (64 - n))) & _M


def sha512(data):
    """SHA-512 (FIPS 180-4) of bytes: the 64-byte digest."""
    h = [0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
         0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179]
    n = len(data)
    data = bytes(data) + b"\x80" + bytes((111 - n) % 128) + (8 * n).to_bytes(16, "big")
    w = [0] * 80
    for at in range(0, len(data), 128):
        for t in range(16):
            w[t] = int.from_bytes(data[at + 8 * t:at + 8 * t + 8], "big")
        for t in range(16, 80):
            a = w[t - 15]
            b = w[t - 2]
            s0 = _rotr(a, 1) ^ _rotr(a, 8) ^ (a >> 7)
            s1 = _rotr(b, 19) ^ _rotr(b, 61) ^ (b >> 6)
            w[t] = (w[t - 16] + s0 + w[t - 7] + s1) & _M
        a, b, c, d, e, f, g, hh = h
        for t in range(80):
            t1 = (hh + (_rotr(e, 14) ^ _rotr(e, 18) ^ _rotr(e, 41)) + ((e & f) ^ (~e & g)) + _K[t] + w[t]) & _M
            t2 = ((_rotr(a, 28) ^ _rotr(a, 34) ^ _rotr(a, 39)) + ((a & b) ^ (a & c) ^ (b & c))) & _M
            hh = g
            g = f
            f = e
            e = (d + t1) & _M
            d = c
            c = b
            b = a
            a = (t1 + t2) & _M
        h = [(x + y) & _M for x, y in zip(h, (a, b, c, d, e, f, g, hh))]
    return b"".join(x.to_bytes(8, "big") for x in h)


def _add(p, q):
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % _P
    b = (y1 + x1) * (y2 + x2) % _P
    c = 2 * t1 * t2 * _D % _P
    d = 2 * z1 * z2 % _P
    e = b - a
    f = d - c
    g = d + c
    h = b + a
    return e * f % _P, g * h % _P, f * g % _P, e * h % _P


def _mul(s, p):
    q = (0, 1, 1, 0)
    while s:
        if s & 1:
            q = _add(q, p)
        p = _add(p, p)
        s >>= 1
    return q


def _equal(p, q):
    return (p[0] * q[2] - q[0] * p[2]) % _P == 0 and (p[1] * q[2] - q[1] * p[2]) % _P == 0


def _point(b):
    y = int.from_bytes(b, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _I % _P
    if (x * x - x2) % _P:
        return None
    if x == 0 and sign:
        return None          # no point has x = 0 and x odd: a second encoding of (0, +-1), refused (5.1.3, step 4)
    if x & 1 != sign:
        x = _P - x
    return x, y, 1, x * y % _P


_GY = 4 * pow(5, _P - 2, _P) % _P
_G = _point(_GY.to_bytes(32, "little"))


def _small(p):
    """Whether p's order divides 8 (the identity among them): a public key any signature
    with R = [s]B passes for, since [k]p adds nothing the check could see. Refused."""
    for _ in range(3):
        p = _add(p, p)
    return p[0] % _P == 0 and (p[1] - p[2]) % _P == 0


def verify(public, message, signature):
    """Whether signature (64 bytes) is public's (32 bytes) over message: False for
    anything malformed (a point off the curve, s not below the group's order)."""
    if len(public) != 32 or len(signature) != 64:
        return False
    a = _point(public)
    r = _point(signature[:32])
    if a is None or r is None or _small(a):
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= _L:
        return False
    k = int.from_bytes(sha512(signature[:32] + public + message), "little") % _L
    return _equal(_mul(s, _G), _add(r, _mul(k, a)))


# --- signing: the board's own key (tallynet.boardkey, issue 44) -------------
def _encode(p):
    x, y, z, _ = p
    inverse = pow(z, _P - 2, _P)
    x = x * inverse % _P
    y = y * inverse % _P
    return (y | (x & 1) << 255).to_bytes(32, "little")


def _expand(seed):
    """The secret scalar (clamped, 5.1.5) and the prefix of a 32-byte seed."""
    h = sha512(seed)
    a = int.from_bytes(h[:32], "little")
    a = (a & ((1 << 254) - 8)) | (1 << 254)
    return a, h[32:]


def public_key(seed):
    """The public key (32 bytes) of a private key's 32-byte seed (5.1.5)."""
    return _encode(_mul(_expand(seed)[0], _G))


def sign(seed, public, message):
    """The signature (64 bytes) of message by the key of seed, whose public
    key is public (5.1.6)."""
    a, prefix = _expand(seed)
    r = int.from_bytes(sha512(prefix + message), "little") % _L
    big_r = _encode(_mul(r, _G))
    k = int.from_bytes(sha512(big_r + public + message), "little") % _L
    return big_r + ((r + k * a) % _L).to_bytes(32, "little")
