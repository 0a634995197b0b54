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
    """p + q (add-2008-hwcd-3: complete on this curve)."""
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


def _added(p, q):
    """p + q, q affine as (y + x, y - x, 2 d x y) (madd-2008-hwcd-3): the comb's additions."""
    x1, y1, z1, t1 = p
    a = (y1 - x1) * q[1] % _P
    b = (y1 + x1) * q[0] % _P
    c = t1 * q[2] % _P
    d = 2 * z1
    e = b - a
    f = d - c
    g = d + c
    h = b + a
    return e * f % _P, g * h % _P, f * g % _P, e * h % _P


def _double(p):
    """2p (dbl-2008-hwcd with a = -1): four squares and four products, against _add's nine."""
    x1, y1, z1, _ = p
    a = x1 * x1 % _P
    b = y1 * y1 % _P
    c = 2 * z1 * z1 % _P
    e = ((x1 + y1) * (x1 + y1) - a - b) % _P
    g = b - a
    f = g - c
    h = -a - b
    return e * f % _P, g * h % _P, f * g % _P, e * h % _P


def _mul(s, p):
    q = (0, 1, 1, 0)
    while s:
        if s & 1:
            q = _add(q, p)
        p = _double(p)
        s >>= 1
    return q


# [s]B, the base point's multiples (a key, a signature's R, a check's [s]B) by a comb: the scalar's
# 256 bits as four strips of 64; bit i of each strip picks one of the 15 points
# (b0 + 2**64 b1 + 2**128 b2 + 2**192 b3)B below, each (y + x, y - x, 2 d x y) mod p as three 32-byte
# numbers, little endian: 1,440 bytes (tests/mp/test_ed25519.py makes them again from B). 64 doublings and at most
# 64 additions, against 255 and about 128 for the double-and-add: a signature in a third of the time.
_COMB = (
    b"\x85\x3b\x8c\xf5\xc6\x93\xbc\x2f\x19\x0e\x8c\xfb\xc6\x2d\x93\xcf\xc2\x42\x3d\x64\x98\x48\x0b\x27"
    b"\x65\xba\xd4\x33\x3a\x9d\xcf\x07\x3e\x91\x40\xd7\x05\x39\x10\x9d\xb3\xbe\x40\xd1\x05\x9f\x39\xfd"
    b"\x09\x8a\x8f\x68\x34\x84\xc1\xa5\x67\x12\xf8\x98\x92\x2f\xfd\x44\x68\xaa\x7a\x87\x05\x12\xc9\xab"
    b"\x9e\xc4\xaa\xcc\x23\xe8\xd9\x26\x8c\x59\x43\xdd\xcb\x7d\x1b\x5a\xa8\x65\x0c\x9f\x68\x7b\x11\x6f"
    b"\x15\xf5\xd1\x77\xe7\x65\x2a\xcd\xf1\x60\xaa\x8f\x87\x91\x89\x54\xe5\x06\xbc\xda\xbc\x3b\xb7\xb1"
    b"\xfb\xc9\x7c\xa9\xcb\x78\x48\x65\xfe\xb0\xf6\x8d\xc7\x8e\x13\x51\x1b\xf5\x75\xe5\x89\xda\x97\x53"
    b"\xb9\xf1\x7a\x71\x1d\x7a\x20\x09\x50\xd6\x20\x2b\xba\xfd\x02\x21\xa1\xe6\x5c\x05\x05\xe4\x9e\x96"
    b"\x29\xad\x51\x12\x68\xa7\xbc\x36\x15\xa4\x7d\xaa\x17\xf5\x1a\x3a\xba\xb2\xec\x29\xdb\x25\xd7\x0a"
    b"\xe8\x59\x1e\x60\x85\xc5\x55\x00\x60\x0e\x48\x66\x2b\x34\x93\x87\x4c\xe4\x45\xfe\xd0\xaa\x14\x3e"
    b"\x2b\xcf\x13\x48\xe6\xd8\xea\x26\xa4\x62\x84\x9c\xb6\xb8\x75\xcb\xd7\x1c\xd3\x67\xc5\x6f\xd8\x2d"
    b"\xf6\x42\x13\x88\xec\x72\x19\xcd\x2f\x2f\xc1\x0f\x97\xb5\x75\x09\x43\xa7\x5b\xda\x03\x23\xcf\x63"
    b"\x6e\xba\xf1\x52\x81\x9d\xbf\x04\xda\x67\x73\xaa\xd0\x90\x37\x33\xea\xc5\xf6\x9d\x47\x70\x46\x53"
    b"\xa2\x8e\xad\xac\xbf\x04\x3b\x58\x84\xe8\x8b\x14\xe8\x43\xb7\x29\xdb\xc5\x10\x08\x3b\x58\x1e\x2b"
    b"\xaa\xbb\xb3\x8e\xe5\x49\x54\x2b\x47\xbe\x3d\xeb\x62\x75\x3a\x5f\xb8\xa0\xbd\x8e\x54\x38\xea\xf7"
    b"\x99\x72\x74\x45\x31\xe5\xc3\x00\x51\xd5\x27\x16\xe7\xe9\x04\x13\xfe\x9c\xdc\x6a\xd2\x14\x98\x78"
    b"\x0b\xdd\x48\x8b\x3f\xab\x1b\x3c\x0a\xc6\x79\xf9\xff\xe1\x0f\xda\x93\xd6\x2d\x7c\x2d\xde\x68\x44"
    b"\x48\x67\xbc\xe3\x8d\x27\x18\x21\xf7\x0e\xb2\xd0\x60\xfd\x1f\xe7\x98\xb1\x7b\xc6\x51\xbe\x51\xf5"
    b"\x4d\x3d\x54\xd0\x64\x36\xa1\x26\xee\x39\xa3\x13\x3b\x2d\x52\x29\x29\x95\xd8\x6c\x50\x25\x52\x85"
    b"\xf1\xf0\xf4\xac\xd4\x3a\xea\xdf\x2e\x74\x42\x79\xba\x6b\xd7\x49\x1d\xe6\x56\x8d\x33\x42\xfa\x14"
    b"\x9a\x29\x51\xc3\x46\x39\x1d\x19\x85\xb1\xad\xa7\x6d\x57\x7d\x24\xc2\xed\xfc\xa8\xe3\xaf\x1f\x4e"
    b"\x4c\x04\x6a\x23\x3d\x05\xe7\x15\xe3\x87\x8d\x3b\xb1\xbc\xdd\x3c\x28\xa8\x21\xd3\xd2\x60\x99\x51"
    b"\xa4\xbb\xc5\x0f\x0f\x9a\x55\x4e\x1c\x70\x12\x9c\x76\xe8\x00\xfe\x5f\x3b\x9c\x03\x0a\xdc\xdc\x95"
    b"\x1b\xeb\x02\x0c\x4b\x45\x69\xc1\x0c\x53\x87\x5f\xd3\x21\x70\x72\x1e\x24\xdf\x27\x07\x04\x71\xa5"
    b"\x36\x0d\x90\xb2\xaa\xef\x45\xdf\xde\x9a\xa6\x60\x5c\xdb\x6e\xfe\x1d\xc0\xbb\x07\x30\xb7\xfc\x64"
    b"\xca\x90\xd3\x6f\xcc\x58\xef\x38\xfc\x98\x1a\x17\x75\x65\x78\xef\x5f\xd6\x42\xc4\x8f\xb7\x50\x88"
    b"\xef\x86\xd0\x6f\x6d\xc6\x34\x6f\x04\xdc\x98\x38\xb4\xcb\xf3\x93\x27\xb7\x07\x43\xb2\xff\x91\x07"
    b"\x1d\x98\x34\xce\x96\x80\xbd\xd7\x6d\x9f\x84\x8b\x8e\x8b\x59\x0b\x89\xf6\xc2\x0c\x8a\xc1\xcf\x11"
    b"\x2a\xce\x29\xb5\x07\x46\x11\x81\x40\x59\x0b\xc0\x46\xc0\x9b\x0a\xc8\x66\xac\xb1\xb0\x28\x21\x41"
    b"\xc0\x1a\x0c\xc8\x9d\xcc\x6d\xa6\x36\xa4\x38\x1b\xf4\x5c\xa0\x97\xc6\xd7\xdb\x95\xbe\xf3\xeb\xa7"
    b"\xab\x7d\x7e\x8d\xf6\xb8\xa0\x7d\xa6\x75\x56\x38\x14\x20\x78\xef\xe8\xa9\xfd\xaa\x30\x9f\x64\xa2"
    b"\xcb\xa8\xdf\x5c\x50\xeb\xd1\x4c\xb3\xc0\x4d\x1d\xba\x5a\x11\x46\x76\xda\xb5\xc3\x53\x19\x0f\xd4"
    b"\x9b\x9e\x11\x21\x73\x6f\xac\x1d\x60\x59\xb2\xfe\x21\x60\xcc\x03\x4b\x4b\x67\x83\x7e\x88\x5f\x5a"
    b"\xf4\xc1\xa2\x0c\x18\x60\x8d\x0a\x40\xdf\x68\xcc\xdb\xb0\x5e\x81\x99\x4e\x2f\xb8\x47\x7a\xe6\xd7"
    b"\xc0\x15\x7f\x60\x90\x28\xa0\x45\x84\xf1\x41\xfd\xd1\x66\xf3\xfe\x1e\xe1\xcf\x01\x11\x4a\x69\x8b"
    b"\x4d\xa7\x50\x01\x5e\xe1\x39\x4b\xba\x51\xd3\x6a\x3d\xf0\x13\x40\xcc\x65\xe0\x6e\xdc\x82\x02\xbd"
    b"\x46\xe6\x4a\x22\xfd\x94\xb9\x36\x74\xe8\xbc\xfe\xd8\x9a\x4e\x53\x4f\x6e\xf0\xd9\xc1\x55\x22\x48"
    b"\x00\xf8\xce\x71\xcf\xea\x03\x3c\xbb\xfe\x8a\xca\x44\x75\x36\x90\x77\xc4\x29\x6a\x28\xea\x3f\x38"
    b"\x62\x54\x65\xbc\xb0\x93\x85\x4e\x8c\x63\xe5\xa3\x4a\x11\xde\x12\x0d\xf2\xc4\x29\xa9\x4a\x2a\xba"
    b"\xa3\x13\x8b\x7b\x9d\xd2\xb0\x56\x44\x79\x9b\x7b\x49\x1a\xb9\x6b\x06\xd2\xe7\xc5\x46\xe6\x49\x2a"
    b"\x45\xc4\x63\x92\xcd\xf9\x3e\xb1\x9e\x52\xab\xed\xe8\x6c\xab\x50\x9b\xe3\xeb\xb0\x79\x7d\xcf\x20"
    b"\x48\x5c\xe7\x8a\x4e\x8f\xd2\xcb\x60\x0b\x00\x44\x91\x02\xde\x3c\x70\x21\xbc\x98\xc8\xb9\x3b\x37"
    b"\x86\x08\x57\x9f\x53\x88\x11\x7c\xca\x7d\xfe\xf0\x9d\x93\xb4\x7d\xce\x51\xa9\xcb\x0f\xb9\x0e\xf5"
    b"\x1d\x1d\x7e\x35\x1c\xe6\x8b\x09\x9d\x46\x99\x88\x37\x62\x35\x02\x03\x4c\x5a\xe1\xfa\xef\xf6\x20"
    b"\x05\x8e\x77\x3c\x94\x0a\x47\x2f\x67\xde\x99\xfc\x03\x0a\xf5\x79\x83\x14\x06\xd1\x88\x01\xd2\x38"
    b"\xdf\x15\x63\x0e\xad\x11\xe8\x23\x90\xb2\xae\xe2\x05\x0d\x65\x0b\x6c\x58\x5d\xa7\x59\x0f\xba\xb7"
    b"\xee\x4d\x1f\x5e\xd4\xed\x3e\x04\x17\x32\x07\xc7\xf2\x47\xc1\xf6\x0c\xd2\xaf\xf3\x19\xb9\x51\xc6"
    b"\x02\xf8\x41\x70\xfd\xdb\x8f\x25\x3e\x07\x45\x4f\xa9\x4f\x3c\x17\xc4\xf9\x8d\x92\x60\xea\x71\x3d"
    b"\x2d\x56\x73\x33\x06\x78\x7e\x5b\xb2\x52\x95\xa2\x4c\x51\xb0\xd9\x72\xc4\x3c\x99\x24\x70\x2a\x1e"
    b"\x1f\x81\x5c\xd4\xbc\x0f\x1a\x60\x03\x08\xec\x92\x7d\xbc\xb7\x24\x7f\x40\xd2\x17\x2b\xe6\xca\xa0"
    b"\x26\x5b\x22\x06\xee\x43\xcb\x5f\xa4\xfb\x09\x35\xb9\x09\x05\x31\x75\x1b\x63\x05\x76\xb3\x8d\x0d"
    b"\x87\x1c\x40\x52\xba\xcc\xde\x97\x73\xe7\xb2\x11\xf4\x49\x46\x04\x5f\x21\x98\x95\xad\x24\x0d\x0c"
    b"\x8c\x62\x36\xcc\x26\x90\x7f\x1b\xea\xdc\x16\x70\x55\x2f\x8e\x33\x8f\xe5\xc0\x5c\xfa\x1b\x8a\x0c"
    b"\x4c\x10\x1d\x68\xb5\x03\xe7\x8d\x45\xcb\x63\x12\x59\x7a\x2f\x3d\x63\x6c\xe5\x1c\x17\x0c\x71\xae"
    b"\xca\xe6\xc3\xfc\x7e\x7c\x85\x6b\xc0\x01\x28\x8b\xb4\x56\xd2\x79\xc4\x0f\x40\x3c\xac\xbe\x9f\x7e"
    b"\x41\xba\x33\x47\x1d\xab\x51\xa7\xca\x8a\x41\xdd\xf5\x2b\xde\x09\x7f\x68\xf0\xef\xf3\x0f\xf1\x3b"
    b"\xa2\x7b\xe3\xf1\x34\xea\xba\x5e\x4d\x03\x66\x1d\x26\x61\x9e\xe4\xca\x42\xb2\xc3\x2a\x6e\x46\x5b"
    b"\x42\xb8\xfb\x47\x67\xeb\x7e\x13\x8b\x1a\x81\x60\x75\x5c\xdf\x79\x9a\xc8\xf8\x71\x6f\xa7\x2b\x5a"
    b"\xc2\xff\xc8\x3b\x56\x2a\x95\x09\x3c\xf8\x7e\xdc\x4b\xcb\xa8\xa2\x26\xc2\x93\x5f\xfa\xc6\xb5\x96"
    b"\xa5\xe3\x64\x06\x1b\xeb\xeb\xd4\x2f\xcf\xc6\xe5\xdc\x4a\x9b\x40\xc4\x50\x43\x83\xb9\x3d\xd5\x44"
    b"\xb4\x05\xf5\xa5\x05\x93\x29\x89\x2f\xff\x49\x59\xa2\xfa\x22\xfb\x64\x7d\x65\x04\xa7\x68\xb9\x69"
)


def _base(s):
    """[s]B for 0 <= s < 2**256."""
    table = _COMB
    points = []                      # point k at k - 1
    for at in range(0, 1440, 96):
        points.append((int.from_bytes(table[at:at + 32], "little"), int.from_bytes(table[at + 32:at + 64], "little"),
                       int.from_bytes(table[at + 64:at + 96], "little")))
    strips = [s >> shift & _M for shift in (0, 64, 128, 192)]
    q = (0, 1, 1, 0)
    for i in range(63, -1, -1):
        q = _double(q)
        k = (strips[0] >> i & 1) | (strips[1] >> i & 1) << 1 | (strips[2] >> i & 1) << 2 | (strips[3] >> i & 1) << 3
        if k:
            q = _added(q, points[k - 1])
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


def _small(p):
    """Whether p's order divides 8 (the identity among them): a public key any signature
    with R = [s]B passes for, since [k]p adds nothing the check could see. Refused."""
    for _ in range(3):
        p = _double(p)
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
    return _equal(_base(s), _add(r, _mul(k, a)))


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
    return _encode(_base(_expand(seed)[0]))


def sign(seed, public, message):
    """The signature (64 bytes) of message by the key of seed, whose public
    key is public (5.1.6)."""
    a, prefix = _expand(seed)
    r = int.from_bytes(sha512(prefix + message), "little") % _L
    big_r = _encode(_base(r))
    k = int.from_bytes(sha512(big_r + public + message), "little") % _L
    return big_r + ((r + k * a) % _L).to_bytes(32, "little")
