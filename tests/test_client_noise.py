"""Bad input from the host side, against the real firmware in the emulator:
random line noise changes nothing and is answered with seq-0 errors; random
well-checksummed requests with junk verbs and arguments each get exactly one
reply, never crash the board, and leave a consistent game behind."""
import random

import pytest
from emu_fixtures import emulated_board

from tallyrun import protocol
from tallyboard.boardlink import wire
from tallyboard.common.errors import BoardError

pytestmark = [pytest.mark.emulator]

# never in-band: 0x01/0x03/0x04 reach the REPL (0x03 stops the app by design)
NOISE_BYTES = bytes(b for b in range(256) if b not in (0x01, 0x03, 0x04, 0x0A))


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    with emulated_board(tmp_path_factory.mktemp("noise") / "flash") as pair:
        yield pair


def test_line_noise_changes_nothing(emu):
    emulator, board = emu
    board.new("roquet", 2)
    board.game_verb("PEG", 0, 7)
    before = board.rebuild()
    rng = random.Random(3)
    lines = 0
    for _ in range(150):
        kind = rng.randrange(4)
        if kind == 0:
            line = bytes(rng.choice(NOISE_BYTES) for _ in range(rng.randint(0, 60)))
        elif kind == 1:      # a real request with its checksum broken
            good = wire.encode_request(rng.randint(1, 65535), "PEG 1 9").rstrip(b"\n")
            line = good[:-1] + (b"0" if good[-1:] != b"0" else b"1")
        elif kind == 2:      # longer than a frame
            line = b"1 PEG 1 9 " + b"9" * rng.randint(120, 400)
        else:                # no checksum at all
            line = b"%d PEG 1 9" % rng.randint(1, 65535)
        board.link.write(line + b"\n")
        lines += 1
    errors = 0
    while True:
        reply = board.link.read_line(0.5)
        if reply is None:
            break
        body = wire.check_frame(reply)       # every answer is itself a good frame
        assert body.startswith(b"0 ERR "), reply  # seq 0: the line could not be trusted
        errors += 1
    # one error per line, but a line of nothing at all may be let pass
    assert lines - 10 <= errors <= lines
    after = board.rebuild()
    assert after.log == before.log and (after.n, after.top) == (before.n, before.top)
    assert emulator.running


def test_junk_requests_get_one_reply_each_and_no_crash(emu):
    emulator, board = emu
    board.new("skicket", 4)
    rng = random.Random(11)
    verbs = [row[0].decode() for row in protocol.VERBS] + ["FOO", "peg", "hand", ""]
    words = ["-", "0", "1", "3", "4", "99", "100", "65536", "4294967296", "7NK", "8H", "0C", "1x",
             "skicket", "roquet", "nogame", "GET", "SET", "name", "colour", "FF00ZZ", "board",
             "brightness", "=", "a=b", "Ann", "x" * 40]
    for _ in range(300):
        verb = rng.choice(verbs)
        if verb == "NEW":
            continue           # a valid NEW would only start games; the rest is the point
        args = [rng.choice(words) for _ in range(rng.randint(0, 8))]
        text = " ".join([verb] + args).strip() or "HELLO"
        seq = board.next_seq()
        frame = wire.encode_request(seq, text)
        if len(frame) > protocol.MAX_FRAME:
            continue
        try:
            board.send_frame(seq, frame, timeout=2.0)
        except BoardError as exc:
            assert exc.code in {code.decode() for code in protocol.ERRORS}, exc
    assert emulator.running
    current = board.rebuild()          # replays with the host core and checks the board's figures
    assert current.name == "skicket"
