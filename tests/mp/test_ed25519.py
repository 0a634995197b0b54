# The director's signature check (firmware/tallynet/ed25519.py, issue 43): the
# test vectors of RFC 8032 section 7.1 (TEST 1, 2 and 3: their public keys,
# messages and signatures as the RFC prints them) pass; a signature with one
# bit changed, another message, another key, a signature's s not below the
# group's order L and a public key off the curve are each refused. SHA-512 by
# the FIPS 180-2 examples ("abc", and the two-block 112-byte message).
from tallynet import ed25519

RFC8032 = (   # (public key, message, signature), hex, RFC 8032 7.1
    ("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    ("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ("fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
)
# L, the order of the base point: 2**252 + 27742317777372353535851937790883648493 (RFC 8032 5.1)
L_LITTLE = (2**252 + 27742317777372353535851937790883648493).to_bytes(32, "little")


def _b(text):
    return bytes.fromhex(text)


def test_the_rfc_8032_vectors_pass():
    for public, message, signature in RFC8032:
        assert ed25519.verify(_b(public), _b(message), _b(signature)), public


def test_a_changed_bit_another_message_or_another_key_is_refused():
    public, message, signature = (_b(x) for x in RFC8032[2])
    for at in (0, 31, 32, 63):                        # a bit of R, and of s
        bad = bytearray(signature)
        bad[at] ^= 0x01
        assert not ed25519.verify(public, message, bytes(bad)), at
    assert not ed25519.verify(public, b"\xaf\x83", signature)      # the message's last bit changed
    assert not ed25519.verify(_b(RFC8032[1][0]), message, signature)   # TEST 2's key
    assert not ed25519.verify(public, message, signature[:32] + L_LITTLE)   # s = L: not below the order
    assert not ed25519.verify(public, message, signature[:63])             # 63 bytes
    # y = 2: x^2 = (4 - 1) / (4d + 1) mod p has no square root, so no point of the curve has it
    off_curve = (2).to_bytes(32, "little")
    assert not ed25519.verify(off_curve, message, signature)


def test_sha512_by_the_fips_examples():
    assert ed25519.sha512(b"abc") == _b(
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
        "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
    two_blocks = (b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                  b"ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
    assert len(two_blocks) == 112
    assert ed25519.sha512(two_blocks) == _b(
        "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
        "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909")


# B, the base point, as RFC 8032 5.1 encodes it: y = 4/5 mod p, x even: 0x58 then 31 bytes 0x66
BASE = bytes((0x58,)) + bytes((0x66,)) * 31


def test_a_small_order_key_or_a_second_encoding_is_refused():
    # the identity as a public key (y = 1, x = 0): with R = [1]B and s = 1, [s]B = R + [k]A holds for any
    # message, since [k]A adds nothing: a forgery, refused
    identity = bytes((0x01,)) + bytes(31)
    forged = BASE + bytes((0x01,)) + bytes(31)
    assert not ed25519.verify(identity, b"run this", forged)
    # the point (0, -1) has order 2: y = p - 1 = 2**255 - 20, little endian 0xec then 0xff ... 0x7f
    order_two = bytes((0xEC,)) + bytes((0xFF,)) * 30 + bytes((0x7F,))
    assert not ed25519.verify(order_two, b"run this", forged)
    # y = 1 with the sign bit set says x is odd, but x = 0: no point, refused
    signed_identity = bytes((0x01,)) + bytes(30) + bytes((0x80,))
    assert not ed25519.verify(signed_identity, b"run this", forged)
    # a real key still passes (TEST 1)
    public, message, signature = (_b(x) for x in RFC8032[0])
    assert ed25519.verify(public, message, signature)



# RFC 8032 7.1's private keys (the 32-byte seeds) of TEST 1, 2 and 3: their public keys and
# signatures are RFC8032's above (the board's own signature, tallynet/boardkey.py, issue 44)
RFC8032_SEEDS = ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
                 "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
                 "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7")


def test_signing_makes_the_rfc_8032_keys_and_signatures():
    for seed, (public, message, signature) in zip(RFC8032_SEEDS, RFC8032):
        assert ed25519.public_key(_b(seed)) == _b(public), seed
        assert ed25519.sign(_b(seed), _b(public), _b(message)) == _b(signature), seed


def test_the_combs_points_are_the_base_points_multiples():
    # The comb's 15 points (ed25519._COMB): point k is (b0 + 2**64 b1 + 2**128 b2 + 2**192 b3)B for
    # k's bits b0..b3, each as (y + x, y - x, 2 d x y) mod p. Made again here from B in affine
    # coordinates, by the curve's addition law (RFC 8032 5.1.4, a = -1):
    #   x3 = (x1 y2 + y1 x2) / (1 + d x1 x2 y1 y2),  y3 = (y1 y2 + x1 x2) / (1 - d x1 x2 y1 y2)
    p = 2**255 - 19
    d = -121665 * pow(121666, p - 2, p) % p

    def add(one, two):
        (x1, y1), (x2, y2) = one, two
        k = d * x1 * x2 * y1 * y2 % p
        return (x1 * y2 + y1 * x2) * pow(1 + k, p - 2, p) % p, (y1 * y2 + x1 * x2) * pow(1 - k, p - 2, p) % p

    # B: y = 4/5, x the even root of x^2 = (y^2 - 1) / (d y^2 + 1) (5.1.3's recovery)
    y = 4 * pow(5, p - 2, p) % p
    xx = (y * y - 1) * pow(d * y * y + 1, p - 2, p) % p
    x = pow(xx, (p + 3) // 8, p)
    if (x * x - xx) % p:
        x = x * pow(2, (p - 1) // 4, p) % p
    if x & 1:
        x = p - x
    strips = [(x, y)]
    for _ in range(3):                       # 2**64 B, 2**128 B, 2**192 B: 64 doublings apiece
        q = strips[-1]
        for _ in range(64):
            q = add(q, q)
        strips.append(q)
    table = ed25519._COMB
    assert len(table) == 15 * 96
    for k in range(1, 16):
        point = None
        for j in range(4):
            if k >> j & 1:
                point = strips[j] if point is None else add(point, strips[j])
        px, py = point
        want = b"".join(v.to_bytes(32, "little") for v in ((py + px) % p, (py - px) % p, 2 * d * px * py % p))
        assert table[96 * (k - 1):96 * k] == want, k
    # point 1 is B itself: y + x begins 85 3b 8c f5, as ref10's table of B's multiples begins
    assert table[:4] == bytes((0x85, 0x3B, 0x8C, 0xF5))
