"""Noise on the wire, generated: the board-side parser and the app never
raise, answer every line with one well-formed frame, and change nothing
unless a request is valid."""
import io

from hypothesis import given, settings, strategies as st

from tallyrun import protocol as P
from tallyboard.boardlink import wire
from tallyrun.app import App
from tallyrun.incoming import Request

VERB_WORDS = [row[0].decode() for row in P.VERBS] + ["GET", "SET", "name", "colour", "board",
                                                     "brightness", "roquet", "skicket", "-", "4H"]
word = st.one_of(st.sampled_from(VERB_WORDS), st.integers(-5, 2 ** 31).map(str),
                 st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), max_size=14))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_parse_never_raises_on_bytes(data):
    req = Request()
    line = bytearray(data[:P.MAX_FRAME])
    code = req.parse(line, len(line))
    assert 0 <= code <= len(P.ERRORS)
    if code:
        assert req.message


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 70000), st.lists(word, max_size=9))
def test_checksummed_garbage_is_answered_with_one_frame(seq, words):
    out = io.BytesIO()
    app = App(out, "/nonexistent-flash-folder/", "test")   # no flash: nothing can be written
    frame = wire.encode_request(seq, " ".join(words))
    app.feed_bytes(frame)
    lines = out.getvalue().split(b"\n")[:-1]
    replies = [line for line in lines if not line.startswith(b"!")]
    assert len(replies) == 1
    body = wire.check_frame(replies[0])
    assert len(replies[0]) + 1 <= P.MAX_FRAME
    head = body.split(b" ")
    assert head[1:3] != [b"ERR", b"BOARD"], body   # an internal error is a firmware bug
    if len(frame) > P.MAX_FRAME:
        assert head[:3] == [b"0", b"ERR", b"FRAME"]
    elif head[1] == b"OK":
        assert head[0] == str(seq).encode()
    for line in lines:
        assert all(32 <= c <= 126 for c in line)
    # with no flash to write to, nothing can have changed
    assert app.game.rules is None or app.game.n == 0


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_noise_bytes_never_change_a_game(noise):
    out = io.BytesIO()
    app = App(out, "/nonexistent-flash-folder/", "test")
    app.game.new(__import__("tallycore.roquet", None, None, ["roquet"]), 2, 0)
    app.feed_bytes(noise + b"\n")
    assert app.game.n == 0
    for line in out.getvalue().split(b"\n")[:-1]:
        wire.check_frame(line)


ROQUET_REQUESTS = st.sampled_from(["PEG 0 1", "PEG 1 7", "PEG 0 13", "END", "UNDO", "UNDO", "REDO",
                                   "SCORE", "EV 1", "EV 2", "PEG 1 99"])


@settings(max_examples=60, deadline=None)
@given(st.lists(ROQUET_REQUESTS, max_size=60), st.booleans())
def test_any_sequence_of_requests_is_restored_exactly(requests, landmarks):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = tmp + "/"
        out = io.BytesIO()
        app = App(out, root, "test")
        app.boot()
        app.feed_bytes(wire.encode_request(1, "NEW roquet 2 %d" % (2 if landmarks else 0)))
        for i, text in enumerate(requests):
            app.feed_bytes(wire.encode_request(i + 2, text))
        app.journal.close()
        again = App(io.BytesIO(), root, "test")
        again.boot()
        again.journal.close()
        g, h = app.game, again.game
        assert (h.rules, h.players, h.options, h.n, h.top) == (g.rules, g.players, g.options, g.n, g.top)
        assert list(h.log[:h.top]) == list(g.log[:g.top])
        assert bytes(h.state) == bytes(g.state)
        # the last state-changing request is known after the restart (retries)
        assert (again.last_seq, again.last_crc) == (app.journal.last_seq, app.journal.last_crc)
