"""The host's side of the wire protocol's frames: encoding a request, checking
a received line's checksum, reading its key=value fields, the STATE lcrc.
The message table itself (VERBS, ERRORS, EVENTS, CONFIG_KEYS) is the board's,
tallyrun.protocol, shared by both sides; these helpers allocate freely, so
they stay off the board. Plain Python that MicroPython runs too (tests/mp
talk to the board's App in process with them)."""
from tallyrun.protocol import VERBS, crc16

def game_verbs():
    """{verb: (its row in its rules module's VERBS, the rules module)} of every
    game's own verbs (tallycore.game: VERBS). Host only: it loads every game's rules."""
    import importlib
    from tallycore.games import GAMES
    out = {}
    for row in GAMES:
        rules = importlib.import_module("tallycore." + row[3])
        for verb in rules.VERBS:
            out[verb[0]] = (verb, rules)
    return out


# what a change does to n (the table's last column), by verb: NEW sets it to 0
_STEPS = {b"apply": 1, b"undo": -1, b"new": 0}


def n_steps():
    """{verb name: how it moves n} of every verb that changes the game (NEW:
    0, n goes to 0), the games' own verbs included (each applies an event)."""
    steps = {row[0].decode(): _STEPS[row[4]] for row in VERBS if row[4] in _STEPS}
    for verb in game_verbs():
        steps[verb.decode()] = 1
    return steps


def encode_request(seq, text):
    """b'<seq> <text>*<CRC>\\n' for a request body like 'EV 40'."""
    if isinstance(text, str):
        text = text.encode()
    body = b"%d %s" % (seq, text)
    return b"%s*%04X\n" % (body, crc16(body))


def check_frame(line):
    """The body of a received frame (bytes before '*'), checksum verified.

    Raises ValueError with a short reason if the line is not a valid frame."""
    if isinstance(line, str):
        line = line.encode()
    line = line.rstrip(b"\r\n")
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 5:
        raise ValueError("frame: no *XXXX checksum")
    try:
        given = int(line[star + 1:], 16)
    except ValueError:
        raise ValueError("frame: the checksum is not hex")
    if crc16(line, 0, star) != given:
        raise ValueError("frame: checksum mismatch")
    return line[:star]


def fields(body):
    """{'key': 'value'} of the key=value words of a frame body (str values)."""
    if isinstance(body, bytes):
        body = body.decode()
    out = {}
    for word in body.split(" "):
        eq = word.find("=")
        if eq > 0:
            out[word[:eq]] = word[eq + 1:]
    return out


def log_crc(events):
    """lcrc of STATE: CRC-16/CCITT-FALSE over each event as 4 bytes little-endian."""
    crc = 0xFFFF
    four = bytearray(4)
    for e in events:
        four[0] = e & 0xFF
        four[1] = (e >> 8) & 0xFF
        four[2] = (e >> 16) & 0xFF
        four[3] = (e >> 24) & 0xFF
        crc = crc16(four, 0, 4, crc)
    return crc
