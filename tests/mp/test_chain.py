# The game's hash chain (firmware/tallyrun/chain.py, docs/records.md "The
# chain", issue 44) and SIGN, the board's signature of its head
# (tallynet/boardkey.py). Each expected head is the definition spelled out
# with hashlib's SHA-256: the first link SHA-256(32 zero bytes || the NEW
# packed, 4 bytes little-endian || 0xFF), then per event SHA-256(head || the
# event, 4 bytes LE || 1 + who accepted it, 0: nobody). Under the MicroPython
# unix port the link is tallyrun.chainlink's machine code (viper), and extending
# the chain allocates nothing; under CPython it is hashlib, the host's.
import hashlib
import sys

from tallyboard.boardlink import wire
from tallycore.game import Game
from tallynet import boardkey, ed25519
from tallyrun import chain
from mpfixtures import booted_app, bodies, cleanup, folder, read_file, send, shut

ROQUET = 1            # tallycore.games: GAME 1 is Roquet
PEG_5 = 40            # Roquet's EV for player 0 pegging 5 (tests/mp/test_protocol_app_heap.py)
PEG_17 = 140          # player 1 pegging 17
PEG_12 = 96           # player 0 pegging 12
END = 1               # the hand's end


def _sha(data):
    return hashlib.sha256(data).digest()


def _le(value):
    return bytes((value & 0xFF, (value >> 8) & 0xFF, (value >> 16) & 0xFF, (value >> 24) & 0xFF))


def _first(index, players, options):
    return _sha(bytes(32) + _le(index | players << 5 | options << 9) + b"\xff")


def _link(head, event, who=0):
    return _sha(head + _le(event) + bytes((who,)))


def _hex(data):
    return "".join("%02X" % b for b in data)


def _is_prime(p):
    d = 2
    while d * d <= p:
        if p % d == 0:
            return False
        d += 1
    return True


def _root_fraction(p, r):
    """The first 32 bits of the fraction of p's r-th root (FIPS 180-4 4.2.2, 5.3.3), in integers."""
    n = p << (32 * r)
    lo = 0
    hi = 1 << (32 + 12)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if mid ** r <= n:
            lo = mid
        else:
            hi = mid - 1
    return lo & 0xFFFFFFFF


def test_the_constants_are_sha_256_s():
    primes = []
    p = 2
    while len(primes) < 64:
        if _is_prime(p):
            primes.append(p)
        p += 1
    words = [_root_fraction(p, 2) for p in primes[:8]] + [_root_fraction(p, 3) for p in primes] + [0xFFFFFFFF]
    if sys.implementation.name != "micropython":
        from mpfixtures import skip
        skip("tallyrun/chainlink.py is machine code: runs in the MicroPython pass (tests/test_micropython_port.py)")
    from tallyrun import chainlink
    constants = chainlink.CONSTANTS
    assert len(constants) == 4 * len(words)
    for i in range(len(words)):
        assert constants[4 * i:4 * i + 4] == _le(words[i]), i


def test_a_link_is_one_sha_256_of_the_head_the_event_and_who():
    scratch = bytearray(chain.HEAD_SIZE + 64)
    head = bytes(32)
    link, constants = chain._machine()
    for event, who in ((0, 0), (1, 1), (PEG_17, 4), (0x3FFFFFFF, 8), (123456789, chain.FIRST)):
        link(constants, scratch, event, who)
        head = _link(head, event, who)
        assert bytes(scratch[0:32]) == head, (event, who)


def test_the_chain_follows_the_game_through_an_undo_and_an_accept():
    game = Game()
    game.new("roquet", 2, 0)
    links = chain.Chain()
    h0 = _first(ROQUET, 2, 0)
    assert bytes(links.head_of(game, 0)) == h0
    game.apply(PEG_5)
    game.apply(PEG_17)
    h2 = _link(_link(h0, PEG_5), PEG_17)
    assert bytes(links.head_of(game, 2)) == h2
    assert bytes(links.head_of(game, 1)) == _link(h0, PEG_5)       # a shorter prefix: made again
    assert bytes(links.head_of(game, 2)) == h2
    # PEG 17 undone and PEG 12 applied in its place: the app says the log changed from event 1 on
    game.undo()
    links.rewritten(game.n)
    game.apply(PEG_12)
    assert bytes(links.head_of(game, 2)) == _link(_link(h0, PEG_5), PEG_12)
    # the hand's END accepted by player 1 (docs/rules.md CF2): its who byte is 1 + 1 = 2
    links.rewritten(game.n)
    game.apply(END)
    game.mark_accepted(2, 1 + 1)
    assert bytes(links.head_of(game, 3)) == _link(_link(_link(h0, PEG_5), PEG_12), END, 2)
    # a new game of two players with other options starts another chain
    game.new("roquet", 2, 1)
    links.rewritten(-1)
    assert bytes(links.head_of(game, 0)) == _first(ROQUET, 2, 1)


def test_extending_the_chain_allocates_nothing():
    if sys.implementation.name != "micropython":
        from mpfixtures import skip
        skip("needs micropython.heap_lock: runs in the MicroPython pass (tests/test_micropython_port.py)")
    import micropython
    game = Game()
    game.new("roquet", 2, 0)
    for _ in range(20):
        game.apply(PEG_5)
    links = chain.Chain()
    links.head_of(game, 0)          # the first head loads the link's machine code (the one allocation)
    micropython.heap_lock()
    try:
        links.head_of(game, 20)     # twenty links more
        links.head_of(game, 10)     # made again from the start
    finally:
        micropython.heap_unlock()
    head = _first(ROQUET, 2, 0)
    for _ in range(10):
        head = _link(head, PEG_5)
    assert bytes(links.head) == head


def test_state_shows_the_head_and_sign_signs_it_with_the_board_s_own_key():
    root = folder("chain")
    try:
        app, out = booted_app(root)
        send(app, 1, "NEW roquet 2", "EV %d" % PEG_5, "EV %d" % PEG_17, "STATE",
             "SIGN 2 0", "SIGN 2 1", "SIGN 2 2", "SIGN 2 3", "SIGN 1 0", "SIGN 3 0")
        key_file = read_file(root + boardkey.KEY_FILE)
        shut(app, out)
        replies = {}
        for line in bodies(root):
            seq, _, rest = line.partition(b" ")
            if seq != b"!":
                replies[int(seq)] = rest
        h2 = _link(_link(_first(ROQUET, 2, 0), PEG_5), PEG_17)
        assert replies[4].startswith(b"OK game=roquet players=2 options=0 n=2 top=2 ")
        assert (b" chain=%s " % _hex(h2[:4]).encode()) in replies[4], replies[4]
        parts = []
        for seq in (5, 6, 7, 8):
            fields = dict(item.split(b"=") for item in replies[seq].split(b" ")[1:])
            assert fields[b"n"] == b"2" and fields[b"part"] == b"%d" % (seq - 5)
            parts.append(bytes.fromhex(fields[b"hex"].decode()))
        head, public, tag = parts[0], parts[1], parts[2] + parts[3]
        assert head == h2
        # the key kept on the board: the private key's seed, then its public half, which SIGN says
        assert len(key_file) == 64 and key_file[32:] == public
        assert public == ed25519.public_key(key_file[:32])
        assert ed25519.verify(public, boardkey.MESSAGE + h2, tag)
        assert not ed25519.verify(public, boardkey.MESSAGE + _link(_first(ROQUET, 2, 0), PEG_5), tag)
        assert replies[9].endswith(b" hex=%s" % _hex(_link(_first(ROQUET, 2, 0), PEG_5)).encode())
        assert replies[10].startswith(b"ERR RANGE n: must be 0 to 2 (the events applied")
    finally:
        cleanup(root)
