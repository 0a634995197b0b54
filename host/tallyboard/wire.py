"""The host's side of the wire protocol's frames: encoding a request, checking
a received line's checksum, reading its key=value fields, the STATE lcrc.
The message table itself (VERBS, ERRORS, EVENTS, CONFIG_KEYS) is the board's,
tallyrun.protocol, shared by both sides; these helpers allocate freely, so
they stay off the board. Plain Python that MicroPython runs too (tests/mp
talk to the board's App in process with them)."""
from tallyrun.protocol import VERBS, crc16

def verb_spec(name):
    """The VERBS row of a verb name (str or bytes, any case); KeyError if unknown."""
    if isinstance(name, str):
        name = name.encode()
    name = name.upper()
    for row in VERBS:
        if row[0] == name:
            return row
    raise KeyError(name)


def encode_request(seq, text):
    """b'<seq> <text>*<CRC>\\n' for a request body like 'PEG 0 5'."""
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
