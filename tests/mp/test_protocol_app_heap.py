# The whole path of a scoring request on the board, from the bytes of the
# frame to the journal record, the pushed event and the reply, allocates
# nothing (MicroPython only: micropython.heap_lock). Under CPython the same
# checks run for the replies without the heap lock.
import sys

from tallyboard.boardlink import wire
from mpfixtures import booted_app, cleanup, folder, lines, send, shut


def _run(requests, locked):
    """Feed requests after a NEW roquet 2; returns the output lines."""
    root = folder("app")
    try:
        app, out = booted_app(root)
        send(app, 1, "NEW roquet 2")
        app.chain.head_of(app.game, 0)   # the first head loads the chain's machine code: before the lock
        frames = [wire.encode_request(seq, text) for seq, text in requests]
        heap = None
        if locked and sys.implementation.name == "micropython":
            import micropython
            heap = micropython
        for frame in frames:
            if heap:
                heap.heap_lock()
            try:
                for i in range(len(frame)):
                    app.feed(frame[i])
            finally:
                if heap:
                    heap.heap_unlock()
        shut(app, out)
        return lines(root + "out.txt")
    finally:
        cleanup(root)


def test_scoring_requests_allocate_nothing():
    lines = _run([(2, "PEG 0 5"), (3, "PEG 1 17"), (4, "UNDO"), (5, "REDO"), (6, "EV 96"),
                  (7, "END"), (8, "STATE"), (9, "SCORE"), (10, "LOG 0"), (10, "LOG 0"),
                  (11, "HELLO"), (12, "GAME 1"), (13, "OPEN")], True)
    bodies = [wire.check_frame(line) for line in lines]
    # BOOT, NEW's reply and event, then per change its reply and then its event
    assert bodies[3] == b"2 OK n=1 top=1 eseq=3 ev=40"
    assert bodies[4] == b"! 3 EV n=1 top=1 ev=40 src=host totals=5,0"
    assert bodies[5] == b"3 OK n=2 top=2 eseq=4 ev=140"
    assert bodies[8] == b"! 5 UNDO n=1 top=2 src=host totals=5,0"
    assert bodies[10] == b"! 6 REDO n=2 top=2 ev=140 src=host totals=5,17"
    # EV 96 = player 0 pegs 12: 5 + 12 = 17; END banks both tallies (king 17 and 17)
    assert bodies[12] == b"! 7 EV n=3 top=3 ev=96 src=host totals=17,17"
    assert bodies[14] == b"! 8 EV n=4 top=4 ev=1 src=host totals=17,17"
    assert bodies[15].startswith(b"8 OK game=roquet players=2 options=0 n=4 top=4 lcrc=")
    assert bodies[16] == b"9 OK hands=1 complete=0 winners=3 totals=17,17"
    assert bodies[17] == b"10 OK at=0 count=004 top=4 ev=40,140,96,1 who=----"   # none accepted on the board
    assert bodies[18] == bodies[17]   # the retry is answered again from the stored reply
    assert bodies[19].startswith(b"11 OK fw=")
    # the reads written from their rows (replies.fields), the heap locked as well: GAME 1 is Roquet
    # (tallycore.games: index 1, 2 players, its options end and landmark_bonus); OPEN's held is the kind alone
    assert bodies[20] == b"12 OK index=1 name=roquet min=2 max=2 options=end,landmark_bonus"
    assert bodies[21].startswith(b"13 OK proto=6 seqs=") and b" game=roquet players=2 options=0 n=4 top=4 " in bodies[21]
    assert bodies[21].split(b" ")[-3:][0] == b"held=-" and bodies[21].endswith(b" notes=0")


def test_bad_frames_allocate_nothing_either():
    lines = _run([(2, "PEG 0 100"), (3, "FLY"), (4, "HAND 0 4H - - 0 10")], True)
    bodies = [wire.check_frame(line) for line in lines]
    # the argument named with its range (roquet.py VERBS: points 1 to 99), allocation-free
    assert bodies[3] == b"2 ERR RANGE points: must be 1 to 99"
    assert bodies[4].startswith(b"3 ERR VERB ")
    assert bodies[5].startswith(b"4 ERR VERB unknown verb, or not the game in play's")


def test_a_request_the_heap_cannot_take_is_answered_and_the_board_serves_on():
    # NEW of another game with the heap locked: its rules module cannot load
    # (MemoryError). The answer is put together from words made beforehand
    # (formatting the exception's own would need the heap too, and failing
    # there stopped the app: issue 20), and once memory is back the same NEW
    # and the requests after it are served.
    if sys.implementation.name != "micropython":
        from mpfixtures import skip
        skip("needs micropython.heap_lock: runs in the MicroPython pass")
    import micropython
    root = folder("app")
    try:
        app, out = booted_app(root)
        send(app, 1, "NEW roquet 2")
        frame = wire.encode_request(2, "NEW skicket 4")
        micropython.heap_lock()
        try:
            for i in range(len(frame)):
                app.feed(frame[i])
        finally:
            micropython.heap_unlock()
        send(app, 3, "STATE", "NEW skicket 4", "STATE")
        shut(app, out)
        bodies = [wire.check_frame(line) for line in lines(root + "out.txt")]
    finally:
        cleanup(root)
    # BOOT, NEW roquet's reply and event; then the refused NEW: nothing else came of it
    assert bodies[3] == (b"2 ERR BOARD MemoryError: the board ran out of memory answering this; read STATE to "
                         b"see whether it was done")
    assert bodies[4].startswith(b"3 OK game=roquet players=2 ")     # the game in play is kept
    assert bodies[5].startswith(b"4 OK ") and bodies[6].startswith(b"! ") and b" NEW " in bodies[6]
    assert bodies[7].startswith(b"5 OK game=skicket players=4 ")
    assert app.internal_errors == 1
