# SIGN (docs/protocol.md; docs/records.md, "The chain"): the game's chain head
# after its first n events, signed with the board's own Ed25519 key, whose
# private half is made on the board the first time it signs and never leaves
# it. A part of the answer a frame (SIGN's part): the head, the key's public
# half, the tag's first and last 32 bytes; the tag is made once for the head
# and kept for the parts that follow. Rare (a game's end, its export): may
# allocate, and takes the chip a second or two a new tag.
from tallycore import binascii, os
from tallyrun import protocol
from tallyrun.chain import SHORT
from tallyrun.ring import write_atomic

KEY_FILE = "board.key"           # the private key's seed (32 bytes), then its public key (32)
MESSAGE = b"tallyboard chain "   # what the tag signs: this, then the head (32 bytes)

_signed = None                   # (head, public key, tag) of the last SIGN


def _key(root):
    """The board's (seed, public key): read, or made and kept the first time."""
    from tallynet import ed25519
    path = root + KEY_FILE
    try:
        with open(path, "rb") as f:
            data = f.read()
        if len(data) == 64:
            return data[:32], data[32:]
    except OSError:
        pass
    seed = os.urandom(32)
    data = seed + ed25519.public_key(seed)
    write_atomic(path, data, 64)
    return seed, data[32:]


def tag(root, head):
    """(public key, tag) of a chain head (32 bytes), kept for the next ask."""
    global _signed
    head = bytes(head)
    if _signed is None or _signed[0] != head:
        from tallynet import ed25519
        seed, public = _key(root)
        _signed = (head, public, ed25519.sign(seed, public, MESSAGE + head))
    return _signed[1], _signed[2]


def _hex(data):
    return binascii.hexlify(data).decode()


def record_chain(app, n):
    """A record's chain (docs/records.md, The chain) of the board's game whose
    every event is one of its record's hands (the club game's record:
    tablestate.board_body): the head after its n events, signed with the
    board's key, and the head's short form after each hand."""
    game = app.game
    links = app.chain
    hands = []
    for end in range(1, n + 1):
        hands.append(_hex(links.head_of(game, end)[0:SHORT]).upper())
    head = bytes(links.head_of(game, n))
    public, signature = tag(app.root, head)
    return {"head": _hex(head), "key": _hex(public), "tag": _hex(signature), "hands": hands}


def serve(app, seq, req):
    n = req.values[0]
    part = req.values[1]
    game = app.game
    if game.rules is None:
        app.error(seq, protocol.E_RULE, b"no game in progress; start one with NEW")
        return
    if n > game.n:
        w = app.writer
        w.error(seq, protocol.E_RANGE, b"n: must be 0 to ")
        w.number(game.n)
        w.text(b" (the events applied, as STATE's n says)")
        app.send_reply()
        return
    head = app.chain.head_of(game, n)
    try:
        public, signature = tag(app.root, head)
    except OSError as exc:
        app.error(seq, protocol.E_FLASH, "the board could not keep its key (%s); nothing signed" % exc)
        return
    w = app.writer
    w.reply(seq)
    w.key(b"n")
    w.number(n)
    w.key(b"part")
    w.number(part)
    w.key(b"hex")
    data = head if part == 0 else public if part == 1 else memoryview(signature)[32 * (part - 2):32 * (part - 1)]
    for i in range(32):
        w.hex(data[i], 2)
    app.send_reply()
