# The wire protocol's board side (tallyrun/protocol.py, incoming.py, outgoing.py): CRC, line
# collection, request parsing, reply writing. Runs under CPython (pytest)
# and under the MicroPython unix port (tests/mp/run.py); the heap_lock
# proofs run only under MicroPython.
from mpfixtures import skip
import sys

from tallyrun import protocol as P
from tallyrun import incoming as request_reader
from tallyrun import outgoing as frame_writer
from tallycore import games
from tallycore.game import Game
from tallyboard.boardlink import wire


def _frame(body):
    """A request line (no newline) with its checksum, as a bytearray."""
    body = body.encode() if isinstance(body, str) else body
    crc = P.crc16(body)
    line = bytearray(body)
    line.extend(b"*")
    for shift in (12, 8, 4, 0):
        line.append(b"0123456789ABCDEF"[(crc >> shift) & 15])
    return line


_OWNERS = {"HAND": "skicket", "MISDEAL": "skicket", "PEG": "roquet", "END": "roquet"}


def _parse(text, game=None):
    """Parse a request with the game whose own verb it is in play (a game's
    verbs are parsed only then), or the game named."""
    line = _frame(text)
    req = request_reader.Request()
    words = text.split()
    name = game or (_OWNERS.get(words[1].upper()) if len(words) > 1 else None)
    if name:
        req.game = Game(8)
        req.game.new(games.index_of(name), 2 if name == "roquet" else 4)
    code = req.parse(line, len(line))
    return req, code


# --- CRC-16/CCITT-FALSE --------------------------------------------------------

def test_the_written_out_crc_table_is_the_polynomial_s():
    # CRC-16/CCITT-FALSE, polynomial 0x1021: the table entry of byte i is i
    # shifted through 8 rounds of "shift left, xor 0x1021 when the top bit was set"
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) & 0xFFFF if c & 0x8000 else (c << 1) & 0xFFFF
        assert P._CRC_TABLE[i] == c, i


def test_the_machine_code_crc_is_the_bytecode_one():
    if sys.implementation.name != "micropython":
        skip("needs MicroPython's viper emitter: runs in the MicroPython pass")
    # under MicroPython (the chip; here the unix port, from source) crc16 runs
    # tallyrun/native.py's machine code; it must agree with the plain loop
    assert P._crc16_loop is not P._crc16_bytecode
    data = bytes((i * 37 + 11) & 0xFF for i in range(300))
    for start, end in ((0, 0), (0, 1), (0, 300), (5, 77), (299, 300)):
        for seed in (0xFFFF, 0, 0x1D0F):
            assert P.crc16(data, start, end, seed) == P._crc16_bytecode(data, start, end, seed), (start, end)


def test_the_machine_code_scan_and_decimals_are_the_bytecode_ones():
    if sys.implementation.name != "micropython":
        skip("needs MicroPython's viper emitter: runs in the MicroPython pass")
    # under MicroPython (the chip; here the unix port, from source) the parser scans a line and reads a
    # decimal with tallyrun/native.py's machine code; each must agree with its bytecode loop
    assert request_reader._scan is not request_reader._scan_bytecode and request_reader._decimal is not request_reader._decimal_bytecode
    from array import array
    lines = [b"12 HAND 0 4H - - 0 10*ABCD", b"", b"*", b"  a  b ", b"1 PEG 0 5", b"x\x7fy", b"x\x1fy*1234",
             b"a*b*c", b"1 2 3 4 5 6 7 8 9 10 11*0000", b"1 2 3 4 5 6 7 8 9 10*0000", b"~" * 127]
    for line in lines:
        for most in (10, 3):
            got = [array("H", bytes(20)), array("H", bytes(20))]
            want = [array("H", bytes(20)), array("H", bytes(20))]
            native = request_reader._scan(bytearray(line), len(line), got[0], got[1], most)
            plain = request_reader._scan_bytecode(bytearray(line), len(line), want[0], want[1], most)
            assert native == plain and got == want, (line, most, native, plain)
    digits = bytearray(b"0 7 65535 65536 1073741823 1073741824 9999999999 12345678901 4x -")
    spans, start = [], 0
    for i in range(len(digits) + 1):
        if i == len(digits) or digits[i] == 32:
            spans.append(start << 16 | i)
            start = i + 1
    spans.append(0)                      # empty
    for span in spans:
        for limit in (65535, 0x3FFFFFFF, 9):
            assert request_reader._decimal(digits, span, limit) == request_reader._decimal_bytecode(digits, span, limit), (span, limit)


def test_the_line_scan_by_hand():
    from array import array
    starts, ends = array("H", bytes(20)), array("H", bytes(20))
    # "12 HAND 0*ABCD": star at 9 (9 + 1 = 10), three tokens before it: 12 [0,2), HAND [3,7), 0 [8,9)
    assert request_reader._scan(b"12 HAND 0*ABCD", 14, starts, ends, 10) == 10 | 3 << 8
    assert list(starts[:3]) == [0, 3, 8] and list(ends[:3]) == [2, 7, 9]
    # a byte below 32: -1; no star: 0 in the low byte, the tokens of the whole line
    assert request_reader._scan(b"1 \x09", 3, starts, ends, 10) == -1
    assert request_reader._scan(b"1 2", 3, starts, ends, 10) == 0 | 2 << 8
    # three tokens and room for two: the count stops at two, and bit 12 says there were more
    assert request_reader._scan(b"a b c*0000", 10, starts, ends, 2) == 6 | 2 << 8 | 1 << 12
    # decimals: "65535" is 6 5 5 3 5; one more than the limit, or a letter, is -1
    assert request_reader._decimal(b"65535", 5, 65535) == 65535
    assert request_reader._decimal(b"65536", 5, 65535) == -1
    assert request_reader._decimal(b"6a", 2, 65535) == -1


def test_crc_check_value():
    # The catalogue check value of CRC-16/CCITT-FALSE: "123456789" -> 0x29B1.
    assert P.crc16(b"123456789") == 0x29B1


def test_crc_of_nothing_is_the_init_value():
    assert P.crc16(b"") == 0xFFFF


def test_crc_of_one_byte_by_hand():
    # "A" = 0x41. crc = 0xFFFF; (crc >> 8) ^ 0x41 = 0xFF ^ 0x41 = 0xBE;
    # table[0xBE] is 0xBE << 8 = 0xBE00 shifted 8 times through poly 0x1021:
    # the published CRC-16/CCITT-FALSE of b"A" is 0xB915.
    assert P.crc16(b"A") == 0xB915


def test_crc_of_a_range_and_chaining():
    data = b"xx123456789yy"
    assert P.crc16(data, 2, 11) == 0x29B1
    first = P.crc16(b"12345")
    assert P.crc16(b"6789", 0, 4, first) == 0x29B1


def test_log_crc_is_crc_of_little_endian_words():
    # events 40 and 140: bytes 28 00 00 00 8C 00 00 00
    assert wire.log_crc([40, 140]) == P.crc16(b"\x28\x00\x00\x00\x8c\x00\x00\x00")
    assert wire.log_crc([]) == 0xFFFF


# --- lines ---------------------------------------------------------------------------

def _feed(reader, data):
    results = []
    for b in data:
        state = reader.feed(b)
        if state != request_reader.FEED_MORE:
            results.append((state, bytes(reader.line[:reader.length]) if state == request_reader.FEED_LINE else b""))
            reader.length = 0
    return results


def test_reader_strips_newline_and_carriage_return():
    reader = request_reader.LineReader()
    assert _feed(reader, b"1 HELLO*ABCD\r\n2 X\n") == [
        (request_reader.FEED_LINE, b"1 HELLO*ABCD"), (request_reader.FEED_LINE, b"2 X")]


def test_reader_overflow_discards_up_to_the_newline_and_resynchronises():
    reader = request_reader.LineReader()
    long_line = b"9" * 200 + b"\n"
    got = _feed(reader, long_line + b"3 OK\n")
    assert got == [(request_reader.FEED_OVERFLOW, b""), (request_reader.FEED_LINE, b"3 OK")]


def test_reader_limit_is_128_bytes_with_the_newline():
    reader = request_reader.LineReader()
    # 127 bytes + newline = 128: accepted; 128 bytes + newline: too long
    assert _feed(reader, b"a" * 127 + b"\n") == [(request_reader.FEED_LINE, b"a" * 127)]
    assert _feed(reader, b"a" * 128 + b"\n") == [(request_reader.FEED_OVERFLOW, b"")]


# --- requests --------------------------------------------------------------------------

def test_parse_hello():
    req, code = _parse("1 HELLO")
    assert code == P.E_OK
    assert req.seq == 1
    assert req.verb == P.V_HELLO
    assert req.nargs == 0


def test_parse_is_case_insensitive_for_verbs_and_words():
    req, code = _parse("7 new RoQuet 2 3")
    assert code == P.E_OK
    assert req.verb == P.V_NEW
    assert req.values[0] == 1          # roquet is GAMES[1]
    assert req.values[1] == 2
    assert req.values[2] == 3


def test_parse_new_options_are_optional():
    req, code = _parse("8 NEW skicket 4")
    assert code == P.E_OK and req.nargs == 2
    assert req.values[0] == 0          # skicket is GAMES[0]


def test_parse_hand_with_nobody_and_bid():
    req, code = _parse("65535 HAND 2 7NT - - 1 13")
    assert code == P.E_OK
    assert req.seq == 65535
    # 7NT: level 7, strain NT = 4 -> 7 | 4 << 3 = 39; "-": nobody, 4
    assert list(req.values[:6]) == [2, 39, 4, 4, 1, 13]


def test_parse_bid_strains():
    # 1C -> 1 | 0 << 3 = 1; 3S -> 3 | 8 = 11; 4H -> 4 | 16 = 20; 5D -> 5 | 24 = 29; 2NK -> 2 | 40 = 42
    for bid, value in (("1C", 1), ("3S", 11), ("4H", 20), ("5D", 29), ("2NK", 42), ("6nt", 38)):
        req, code = _parse("3 HAND 0 %s 1 - 0 7" % bid)
        assert code == P.E_OK, bid
        assert req.values[1] == value, bid


def test_parse_event_up_to_2_to_the_30():
    req, code = _parse("4 EV 1073741823")
    assert code == P.E_OK and req.values[0] == 1073741823
    req, code = _parse("4 EV 1073741824")
    assert code == P.E_RANGE   # a number, one past the range 0 to 2**30 - 1 (issue 32, item 11: not ARGS)


def test_parse_multiple_spaces():
    req, code = _parse("5   PEG  1   99")
    assert code == P.E_OK and list(req.values[:2]) == [1, 99]


def test_parse_cfg():
    req, code = _parse("6 CFG SET name 2 Ann_B")
    assert code == P.E_OK
    assert req.cfg_key == P.CFG_NAME and req.cfg_player == 2
    packed = req.values[3]
    assert bytes(req.line[packed >> 8:packed & 0xFF]) == b"Ann_B"
    req, code = _parse("6 CFG SET colour 7 00ff80")
    assert code == P.E_OK and req.values[3] == 0x00FF80 and req.cfg_player == 7
    req, code = _parse("6 CFG GET brightness")
    assert code == P.E_OK and req.values[0] == 0 and req.cfg_key == P.CFG_BRIGHTNESS
    req, code = _parse("6 CFG SET table 99")
    assert code == P.E_OK and req.cfg_key == P.CFG_TABLE and req.values[3] == 99
    req, code = _parse("6 CFG SET event 65535")
    assert code == P.E_OK and req.cfg_key == P.CFG_EVENT and req.values[3] == 65535
    req, code = _parse("6 CFG SET budget_ma 3000")
    assert code == P.E_OK and req.values[3] == 3000


def test_parse_errors():
    cases = (
        ("1 HELLO extra", P.E_ARGS),
        ("0 HELLO", P.E_SEQ),
        ("65536 HELLO", P.E_SEQ),
        ("x HELLO", P.E_SEQ),
        ("1", P.E_VERB),
        ("1 FLY 2", P.E_VERB),
        ("1 PEG 2 5", P.E_RANGE),       # Roquet has players 0 and 1
        ("1 PEG 0 100", P.E_RANGE),     # one pegging is 1..99
        ("1 PEG 0 0", P.E_RANGE),
        ("1 PEG 0 -5", P.E_ARGS),
        ("1 PEG 0", P.E_ARGS),
        ("1 NEW chess 2", P.E_RANGE),
        ("1 NEW roquet 9", P.E_RANGE),
        ("1 HAND 0 8H - - 0 7", P.E_RANGE),
        ("1 HAND 0 4X - - 0 7", P.E_RANGE),
        ("1 HAND 0 4H 5 - 0 7", P.E_RANGE),
        ("1 HAND 0 4H - - 2 7", P.E_RANGE),
        ("1 HAND 0 4H - - 0 14", P.E_RANGE),
        ("1 CFG SET brightness 256", P.E_RANGE),
        ("1 CFG SET budget_ma 99", P.E_RANGE),
        ("1 CFG SET event 65536", P.E_RANGE),      # a 16-bit tag
        ("1 CFG SET table 100", P.E_RANGE),        # tables and rounds 0..99
        ("1 CFG SET round 100", P.E_RANGE),
        ("1 CFG SET table 1 3", P.E_ARGS),         # not a per-player key
        ("1 CFG SET name 8 Ann", P.E_RANGE),
        ("1 CFG SET name 1 ThirteenChars", P.E_RANGE),
        ("1 CFG SET name 1 a*b", P.E_RANGE),   # the last star starts the checksum; "a*b" is no name
        ("1 CFG SET name 1 a=b", P.E_RANGE),
        ("1 CFG SET colour 1 12345", P.E_ARGS),
        ("1 CFG SET colour 1 12345G", P.E_ARGS),
        ("1 CFG GET volume", P.E_RANGE),
        ("1 CFG PUT brightness 3", P.E_RANGE),
        ("1 CFG SET brightness", P.E_ARGS),
        ("1 CFG GET name", P.E_ARGS),
        ("1 EV 1 2 3 4 5 6 7 8 9", P.E_ARGS),  # more than 10 words
    )
    for text, want in cases:
        req, code = _parse(text)
        assert code == want, (text, code, req.message)
        assert len(req.message) > 0, text


def test_parse_rejects_a_wrong_or_missing_checksum():
    req = request_reader.Request()
    line = _frame("1 HELLO")
    line[-1] = line[-1] + 1 if line[-1] != 70 else 48   # change the last hex digit
    assert req.parse(line, len(line)) == P.E_CRC
    line = bytearray(b"1 HELLO")
    assert req.parse(line, len(line)) == P.E_CRC
    line = bytearray(b"1 HELLO*29b1")      # lowercase hex is not the contract
    assert req.parse(line, len(line)) == P.E_CRC
    assert req.seq == 0                     # an untrusted line has no seq


def test_parse_rejects_control_bytes():
    req = request_reader.Request()
    line = _frame(b"1 HEL\x03LO")
    assert req.parse(line, len(line)) == P.E_FRAME
    line = bytearray(b"\xff\xfe\x01")
    assert req.parse(line, len(line)) == P.E_FRAME


def test_int_at_limits():
    req, code = _parse("12345 HELLO")
    assert req.int_at(0, 65535) == 12345
    assert req.int_at(0, 12344) == -1
    assert req.int_at(1, 65535) == -1   # HELLO is not a number


# --- replies ---------------------------------------------------------------------------

def _written(w):
    return bytes(w.buf[:w.length])


def test_writer_reply_and_checksum():
    w = frame_writer.Writer()
    w.reply(42)
    w.key(b"n")
    w.number(0)
    w.key(b"top")
    w.number(1234567)
    w.key(b"neg")
    w.number(-15)
    w.finish()
    text = _written(w)
    assert text.startswith(b"42 OK n=0 top=1234567 neg=-15*")
    assert text.endswith(b"\n")
    body = text[:-6]
    assert int(text[-5:-1], 16) == P.crc16(body)
    assert wire.check_frame(text) == body
    assert wire.fields(body) == {"n": "0", "top": "1234567", "neg": "-15"}


def test_writer_error_and_event():
    w = frame_writer.Writer()
    w.error(0, P.E_CRC, b"checksum mismatch")
    w.finish()
    assert _written(w)[:-6] == b"0 ERR CRC checksum mismatch"
    w.event(9, P.EV_UNDO)
    w.key(b"n")
    w.number(3)
    w.finish()
    assert _written(w)[:-6] == b"! 9 UNDO n=3"


def test_writer_never_exceeds_the_frame_and_keeps_text_printable():
    w = frame_writer.Writer()
    w.error(7, P.E_RULE, "x" * 300 + "\x03")
    w.finish()
    out = _written(w)
    assert len(out) == P.MAX_FRAME
    for c in out[:-1]:
        assert 32 <= c <= 126
    w.error(7, P.E_RULE, "a\x03b*c")
    w.finish()
    assert _written(w)[:-6] == b"7 ERR RULE a?b?c"   # control byte and star replaced


def test_writer_hex():
    w = frame_writer.Writer()
    w.start()
    w.hex(0x00FF80, 6)
    w.hex(0xB, 4)
    assert _written(w) == b"00FF80000B"


def test_encode_request_round_trip():
    frame = wire.encode_request(3, "PEG 0 5")
    assert frame.startswith(b"3 PEG 0 5*") and frame.endswith(b"\n")
    req = request_reader.Request()
    line = bytearray(frame[:-1])
    # PEG is Roquet's own verb: taken only while Roquet is in play
    assert req.parse(line, len(line)) == P.E_VERB
    game = Game(8)
    game.new(games.index_of("roquet"), 2)
    req.game = game
    assert req.parse(line, len(line)) == P.E_OK
    assert req.verb == P.V_GAME_VERB + 0    # roquet.VERBS[0]: PEG
    assert (req.values[0], req.values[1]) == (0, 5)


def test_every_request_fits_a_frame_at_its_longest():
    # the longest HAND: "65535 HAND 3 7NK 3 3 1 13*XXXX\n" is well under 128
    assert len(wire.encode_request(65535, "HAND 3 7NK 3 3 1 13")) < P.MAX_FRAME
    assert len(wire.encode_request(65535, "CFG SET board " + "b" * 32)) < P.MAX_FRAME


# --- allocation-free (MicroPython only) ---------------------------------------------

def test_parse_and_reply_allocate_nothing():
    if sys.implementation.name != "micropython":
        skip("needs micropython.heap_lock: runs in the MicroPython pass (tests/test_micropython_port.py)")
    import micropython
    reader = request_reader.LineReader()
    req = request_reader.Request()
    w = frame_writer.Writer()
    skicket = Game(8)
    skicket.new(games.index_of("skicket"), 4)
    roquet = Game(8)
    roquet.new(games.index_of("roquet"), 2)
    # (frame, the game in play): a game's own verbs are parsed while it is
    lines = [(bytes(_frame(t)) + b"\n", g) for t, g in (
        ("65535 HAND 2 7NT 1 3 0 13", skicket), ("9 PEG 1 99", roquet), ("10 CFG SET name 3 Ann", None),
        ("11 EV 1073741823", None), ("12 CFG SET colour 1 A0B0C0", None), ("13 NEW skicket 4", None),
        ("14 LOG 0", roquet), ("15 KEPT 3 B0A1", roquet))]
    bad = [(b"noise \x7f\xff\n", None), (b"1 HELLO*0000\n", None), (bytes(_frame("1 FLY")) + b"\n", None),
           (bytes(_frame("2 PEG 2 5")) + b"\n", roquet), (bytes(_frame("3 HAND 0 4H 5 - 0 7")) + b"\n", skicket),
           (bytes(_frame("4 PEG 1 5")) + b"\n", skicket)]
    results = []
    for data, game in lines + bad:
        req.game = game
        codes = bytearray(4)
        count = 0
        micropython.heap_lock()
        try:
            for i in range(len(data)):
                if reader.feed(data[i]) == request_reader.FEED_LINE:
                    codes[count] = req.parse(reader.line, reader.length)
                    reader.length = 0
                    if codes[count] and req.arg is not None:
                        w.error_arg(req.seq, codes[count], req.message, req.arg)   # names the argument
                    elif codes[count]:
                        w.error(req.seq, codes[count], req.message)
                    else:
                        w.reply(req.seq)
                        w.key(b"n")
                        w.number(req.values[0])
                    w.finish()
                    count += 1
        finally:
            micropython.heap_unlock()
        results.append(codes[0])
    assert results[:len(lines)] == [0] * len(lines), results
    assert results[len(lines):] == [P.E_FRAME, P.E_CRC, P.E_VERB, P.E_RANGE, P.E_RANGE, P.E_VERB], results
    assert bytes(w.buf[:w.length]).startswith(b"4 ERR VERB unknown verb")


def _error_line(text):
    # the ERR a parse failure is answered with, as the app writes it
    req, code = _parse(text)
    w = frame_writer.Writer()
    if req.arg is None:
        w.error(req.seq, code, req.message)
    else:
        w.error_arg(req.seq, code, req.message, req.arg)
    return bytes(w.buf[:w.length])


def test_range_and_args_errors_name_the_argument_and_its_range():
    # the ranges are the declarations': roquet.py PEG player 0-1, points 1-99;
    # skicket.py HAND doubled_by a player 0-3 or -; protocol.py GAME 0 to 15 (16 games)
    assert _error_line("1 PEG 2 5") == b"1 ERR RANGE player: must be 0 to 1"
    assert _error_line("1 PEG 0 100") == b"1 ERR RANGE points: must be 1 to 99"
    assert _error_line("1 PEG 0 -5") == b"1 ERR ARGS points: must be a decimal number"
    assert _error_line("1 HAND 0 4H 5 - 0 7") == b"1 ERR RANGE doubled_by: must be - or 0 to 3"
    assert _error_line("1 HAND 0 8H - - 0 7") == b"1 ERR RANGE bid: must be a level 1 to 7 then C, S, H, D, NT or NK"
    assert _error_line("1 GAME 16") == b"1 ERR RANGE index: must be 0 to 15"
    assert _error_line("1 CFG SET brightness 256") == b"1 ERR RANGE brightness: must be 0 to 255"
    assert _error_line("1 CFG SET name 8 Ann") == b"1 ERR RANGE player: must be 0 to 7"
    assert _error_line("1 CFG SET name 1 ThirteenChars") == b"1 ERR RANGE name: must be 1 to 12 characters"
    assert _error_line("1 KEPT 3 12G4") == b"1 ERR ARGS lcrc: must be 4 hex digits, as STATE writes it"


def test_kept_takes_lcrc_in_hex_as_state_writes_it():
    req, code = _parse("1 KEPT 3 B0A1")
    assert code == P.E_OK and (req.values[0], req.values[1]) == (3, 0xB0A1)


def test_a_frame_without_checksum_is_told_to_end_with_star():
    line = bytearray(b"1 HELLO")
    req = request_reader.Request()
    assert req.parse(line, len(line)) == P.E_CRC
    assert b"*XXXX" in req.message
    w = frame_writer.Writer()
    w.error(0, P.E_CRC, req.message)
    w.finish()
    # on the wire as the board says it (it was ?XXXX); the last * starts the checksum
    body = wire.check_frame(bytes(w.buf[:w.length]))
    assert body == b"0 ERR CRC no checksum; end the frame with *XXXX (4 hex digits of CRC-16/CCITT-FALSE)"
