# KEPT, the archive mark (docs/protocol.md, "The archive mark"): the host says
# its archive holds the game as it stands; the board checks n and the log CRC,
# journals the mark before it replies, keeps it through a restart, counts the
# game as archived exactly while its n events in force are those, and drops it
# with a new game (its own, app.local_new, too). Runs under CPython and the
# MicroPython unix port.
from tallyboard.boardlink import wire
from mpfixtures import booted_app, cleanup, folder, send, shut
from mpfixtures import bodies as read_bodies

# Roquet pegs, packed player << 2 | points << 3: PEG 0 5 = 40, PEG 1 3 = 4 + 24 = 28
LCRC_2 = wire.log_crc([40, 28])     # the CRC the host sends for log[0:2]


def test_kept_is_checked_journaled_answered_and_survives_a_restart():
    root = folder("kept")
    try:
        app, out = booted_app(root)
        send(app, 1, "NEW roquet 2", "PEG 0 5", "PEG 1 3")
        assert not app.kept()
        send(app, 4, "KEPT 2 %04X" % LCRC_2)
        assert app.kept()
        records = app.journal.records
        send(app, 4, "KEPT 2 %04X" % LCRC_2)       # a retry: answered again, not journaled twice
        assert app.journal.records == records
        send(app, 5, "PEG 0 1")                 # scored on: the archive holds the game before it
        assert not app.kept()
        send(app, 6, "UNDO")                    # back to the game the archive holds
        assert app.kept()
        shut(app, out)
        bodies = read_bodies(root)
        # BOOT is eseq 1, NEW 2, the pegs 3 and 4: the mark is event 5
        assert b"4 OK n=2 top=2 eseq=5" in bodies
        assert b"! 5 KEPT n=2" in bodies
        again, out = booted_app(root)           # a restart keeps the mark with its game
        assert again.game.n == 2 and again.game.top == 3 and again.kept()
        shut(again, out)
    finally:
        cleanup(root)


def test_a_mark_that_is_not_the_games_is_refused_and_changes_nothing():
    root = folder("kept")
    try:
        app, out = booted_app(root)
        send(app, 1, "KEPT 0 FFFF")            # no game yet
        send(app, 2, "NEW roquet 2", "PEG 0 5", "PEG 1 3")
        records = app.journal.records
        send(app, 5, "KEPT 2 %04X" % (LCRC_2 ^ 1), "KEPT 1 %04X" % LCRC_2, "KEPT 601 0000", "KEPT 2 10000")
        assert app.journal.records == records and not app.kept()
        shut(app, out)
        bodies = read_bodies(root)
        assert b"1 ERR RULE no game in progress; start one with NEW" in bodies
        assert b"5 ERR RULE the game changed since the host read it; archive it again" in bodies
        assert b"6 ERR RULE the game changed since the host read it; archive it again" in bodies
        assert [b[:11] for b in bodies if b[:2] in (b"7 ", b"8 ")] == [b"7 ERR RANGE", b"8 ERR ARGS "]   # lcrc: 4 hex digits, as STATE writes it
    finally:
        cleanup(root)


def test_a_new_game_drops_the_mark_the_boards_own_too():
    root = folder("kept")
    try:
        app, out = booted_app(root)
        send(app, 1, "NEW roquet 2", "PEG 0 5", "PEG 1 3", "KEPT 2 %04X" % LCRC_2)
        assert app.kept()
        app.local_new()                         # the knob's new game: the same game, empty
        assert app.game.name() == "roquet" and app.game.n == 0 and app.journal.kept == 0
        shut(app, out)
        bodies = read_bodies(root)
        assert bodies[-1] == b"! 6 NEW game=roquet players=2 options=0 n=0 top=0"
        again, out = booted_app(root)
        assert again.game.name() == "roquet" and again.game.n == 0 and again.journal.kept == 0
        shut(again, out)
    finally:
        cleanup(root)
