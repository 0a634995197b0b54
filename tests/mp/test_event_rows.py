# Every event the board pushes carries exactly the fields its row of
# protocol.EVENTS names, in that order, and every change's reply the fields
# of its verb's row (docs/protocol.md, generated from those rows): one writer
# (tallyrun.replies.fields) follows the rows. Runs under CPython and the
# MicroPython unix port; the board's own changes (buttons) are pushed with
# the heap locked there.
import sys

from tallyrun import protocol as P
from mpfixtures import booted_app, bodies, cleanup, folder, send, shut


def _keys(body):
    return [word.split(b"=")[0] for word in body.split(b" ") if b"=" in word]


_MADE = []   # the bodies _every_kind made: made once, for the three tests that read them


def _every_kind(root):
    """Make the board push every kind of event; returns the checked bodies."""
    if _MADE:
        return _MADE[0]
    app, out = booted_app(root)                       # BOOT
    app.note("a test note")                           # NOTE
    send(app, 1, "NEW roquet 2", "PEG 0 5", "UNDO", "REDO", "CFG SET brightness 9",
         "CFG SET name 1 Bo", "CFG GET brightness")
    # KEPT 2 with the CRC of log[0:1] = [40] is refused; of the game as it stands:
    send(app, 8, "STATE")
    shut_lines = None
    heap = None
    if sys.implementation.name == "micropython":
        import micropython
        heap = micropython
    # the board's own changes and a confirmation, the heap locked on MicroPython
    send(app, 9, "CFG SET confirm 1")
    for step in range(3):
        if heap:
            heap.heap_lock()
        try:
            if step == 0:
                app.local_event(40)                   # player 0 pegs 5 (EV, src=board)
            elif step == 1:
                app.local_event(1)                    # END: held (HELD)
            else:
                app.local_accept(1)                   # ACCEPT: by player 1 (Bo), the opponent
        finally:
            if heap:
                heap.heap_unlock()
    app.local_event(1 << 2 | 3 << 3)                  # player 1 pegs 3
    app.local_event(1)                                # END held again
    app.local_reject()                                # REJECT
    from tallyboard.boardlink import wire
    log = [app.game.log[i] for i in range(app.game.n)]
    send(app, 10, "KEPT %d %04X" % (app.game.n, wire.log_crc(log)))   # KEPT
    shut(app, out)
    _MADE.append(bodies(root))
    return _MADE[0]


def test_every_pushed_event_has_the_fields_of_its_row():
    root = folder("rows")
    try:
        lines = _every_kind(root)
        rows = {kind: fields for kind, fields in P.EVENTS}
        seen = set()
        for body in lines:
            if not body.startswith(b"! "):
                continue
            kind = body.split(b" ")[2]
            seen.add(kind)
            assert _keys(body) == [f.split(".")[-1].encode() for f in rows[kind]], body
        assert seen == set(rows), sorted(set(rows) - seen)
    finally:
        cleanup(root)


def test_every_change_reply_has_the_fields_of_its_verbs_row():
    root = folder("rows")
    try:
        lines = _every_kind(root)
        replies = {}
        for body in lines:
            words = body.split(b" ")
            if words[0] != b"!" and words[1] == b"OK":
                replies[int(words[0])] = _keys(body)
        rows = {row[0]: row[3] for row in P.VERBS}
        # seq -> its verb: 1 NEW, 2 PEG (a game's own verb: the APPLIED row), 3 UNDO, 4 REDO, 5 and 6
        # CFG SET, 7 CFG GET, 8 STATE, 10 KEPT
        for seq, verb in ((1, b"NEW"), (3, b"UNDO"), (4, b"REDO"), (5, b"CFG"), (6, b"CFG"), (7, b"CFG"),
                          (8, b"STATE"), (10, b"KEPT")):
            assert replies[seq] == [f.split(".")[-1].encode() for f in rows[verb]], (seq, replies[seq])
        assert replies[2] == [f.encode() for f in P.APPLIED]
    finally:
        cleanup(root)


def test_a_setting_is_answered_before_its_event():
    root = folder("rows")
    try:
        lines = _every_kind(root)
        at = [i for i, b in enumerate(lines) if b.startswith(b"5 OK key=brightness")][0]
        assert lines[at + 1].split(b" ")[2:] == [b"CFG", b"key=brightness", b"player=-", b"value=9"]
    finally:
        cleanup(root)


def test_every_read_reply_has_the_fields_of_its_verbs_row():
    root = folder("rows")
    try:
        app, out = booted_app(root)
        app.note("a test note")
        send(app, 1, "HELLO", "GAME 1", "NEW roquet 2", "PEG 0 5", "OPEN", "STATE", "SCORE", "LOG 0", "STATS",
             "NOTE 0")
        shut(app, out)
        replies = {}
        for body in bodies(root):
            words = body.split(b" ")
            if words[0] != b"!" and words[1] == b"OK":
                replies[int(words[0])] = _keys(body)
        rows = {row[0]: row[3] for row in P.VERBS}
        for seq, verb in ((1, b"HELLO"), (2, b"GAME"), (5, b"OPEN"), (6, b"STATE"), (7, b"SCORE"), (8, b"LOG"),
                          (9, b"STATS"), (10, b"NOTE")):
            assert replies[seq] == [f.split(".")[-1].encode() for f in rows[verb]], (verb, replies[seq])
    finally:
        cleanup(root)


def test_state_says_nothing_is_held_once_the_held_change_went():
    root = folder("rows")
    try:
        app, out = booted_app(root)
        send(app, 1, "NEW roquet 2", "CFG SET confirm 1", "PEG 0 5", "END")
        app.local_accept(1)                      # Roquet's END, held: accepted by player 1
        send(app, 5, "STATE")
        app.local_event(1 << 2 | 3 << 3)         # player 1 pegs 3
        app.local_event(1)                       # END held again
        app.local_reject()
        send(app, 6, "STATE")
        shut(app, out)
        lines = bodies(root)
        states = [b for b in lines if b.startswith(b"5 OK") or b.startswith(b"6 OK")]
        assert len(states) == 2 and all(b" held=- " in b for b in states), states
        accept = [b for b in lines if b" ACCEPT " in b][0]
        assert b" held=1,1 " in accept       # what was held: kind 1 (apply), event 1 (END)
    finally:
        cleanup(root)
