# Confirmation by an opponent (docs/rules.md CF) in the board's runtime: a
# hand held until one of the other side accepts it on the board; journaled as
# held, kept through a power cut (the ring, the snapshot, the earlier TBS2
# snapshot), refused work while it waits, and accept/reject allocating nothing
# (micropython.heap_lock, in the MicroPython pass). Runs under CPython too.
import sys

from tallyboard.boardlink import wire
from tallycore import despised_nines, roquet, rummy, skicket
from tallycore.game import Game, CONFIRM, HELD_APPLY, HELD_UNDO
from tallycore.games import GAMES
from tallyrun import journal as J
from mpfixtures import booted_app, bodies, cleanup, folder, send, shut

# B (player 1) bids 4 hearts and takes 10 tricks: docs/rules.md SK2, A = 60 + 10 * 4 = 100;
# SK7 made undoubled: B and partner D (hand 1: A+C, B+D) 100 each, A and C 10 * (13 - 10) = 30.
B_4H_10 = skicket.pack_hand(1, 4, skicket.HEARTS, None, None, False, 10)
NAMES = ("Ann", "Bob", "Cy", "Dee")


def _skicket_app(root, forced=True):
    app, out = booted_app(root)
    seq = 1
    for p in range(4):
        send(app, seq, "CFG SET name %d %s" % (p, NAMES[p]))
        seq += 1
    send(app, seq, "NEW skicket 4 %d" % (CONFIRM if forced else 0))
    return app, out


def _totals(game):
    return [game.total(p) for p in range(game.players)]


def test_a_held_hand_counts_only_when_an_opponent_accepts_it():
    root = folder("confirm")
    try:
        app, out = _skicket_app(root)
        send(app, 10, "HAND 1 4H - - 0 10")
        game = app.game
        assert (game.n, game.held, game.held_event) == (0, HELD_APPLY, B_4H_10)
        assert _totals(game) == [0, 0, 0, 0]            # pending: nothing counted
        assert game.hands() == 0
        # its arithmetic (SK7 above), and who accepts: Bob's opponents Ann and Cy (bits 0 and 2)
        assert list(game.held_scores)[:4] == [30, 100, 30, 100]
        assert game.held_by == 1 | 4
        # Bob (purchaser) and Dee (his partner) cannot accept it
        for player in (1, 3):
            try:
                app.local_accept(player)
                raise AssertionError("accepted by player %d" % player)
            except ValueError as exc:
                assert "hand 1 is pending: it waits for Ann or Cy to accept on the board" in str(exc), exc
        app.local_accept(2)                             # Cy
        assert (game.n, game.held) == (1, 0)
        assert _totals(game) == [30, 100, 30, 100]
        shut(app, out)
        lines = bodies(root)
        eseq = int(lines[-2].split()[1])                # the reply names the event that follows it
        assert lines[-3] == b"10 OK n=0 top=0 eseq=%d held=1,%d" % (eseq, B_4H_10)
        assert lines[-2] == b"! %d HELD n=0 top=0 held=1,%d by=5 src=host" % (eseq, B_4H_10)
        # who=2: Cy's accept (docs/rules.md CF2), the event's own field
        assert lines[-1] == b"! %d ACCEPT held=1,%d n=1 top=1 src=board who=2 totals=30,100,30,100" % (
            eseq + 1, B_4H_10)
        assert game.accepted_by(0) == 2
    finally:
        cleanup(root)


def test_a_rejected_hand_counts_nothing_and_the_next_one_is_held_again():
    root = folder("confirm")
    try:
        app, out = _skicket_app(root)
        send(app, 10, "HAND 1 4H - - 0 10")
        app.local_reject()
        game = app.game
        assert (game.n, game.top, game.held) == (0, 0, 0)
        assert _totals(game) == [0, 0, 0, 0]
        # corrected: Bob took 9 tricks, one short of the 6 + 4 he bid (SK2): failed; SK8: Bob
        # nothing, his partner Dee 10 * 9 = 90, Ann and Cy 10 * (13 - 9) = 40 each
        send(app, 11, "HAND 1 4H - - 0 9")
        assert game.held == HELD_APPLY and game.n == 0
        app.local_accept(0)                             # Ann
        assert _totals(game) == [40, 0, 40, 90]
        shut(app, out)
        assert bodies(root)[-4].endswith(b"REJECT held=1,%d n=0 top=0 src=board" % B_4H_10)
    finally:
        cleanup(root)


def test_nothing_else_is_entered_while_a_hand_waits():
    root = folder("confirm")
    try:
        app, out = _skicket_app(root)
        send(app, 10, "HAND 1 4H - - 0 10", "HAND 0 1C - - 0 7", "MISDEAL", "UNDO", "REDO")
        shut(app, out)
        words = b"hand 1 is pending: it waits for Ann or Cy to accept on the board (a long press rejects)"
        refusals = [line for line in bodies(root) if b" ERR RULE " in line]
        assert refusals == [b"%d ERR RULE %s" % (seq, words) for seq in (11, 12, 13, 14)]
        assert (app.game.n, app.game.held) == (0, HELD_APPLY)
        try:
            app.local_event(skicket.MISDEAL)
            raise AssertionError("a misdeal was entered while a hand waits")
        except ValueError as exc:
            assert str(exc) == words.decode()
    finally:
        cleanup(root)


def test_the_board_setting_turns_it_on_and_off():
    root = folder("confirm")
    try:
        app, out = _skicket_app(root, forced=False)
        send(app, 10, "HAND 1 4H - - 0 10")
        assert (app.game.n, app.game.held) == (1, 0)     # off: counts at once
        send(app, 11, "CFG SET confirm 1", "HAND 1 4H - - 0 10")
        assert (app.game.n, app.game.held) == (1, HELD_APPLY)
        app.local_accept(0)
        send(app, 13, "CFG SET confirm 0")
        # a misdeal closes no hand (SK3): never held
        send(app, 14, "CFG SET confirm 1", "MISDEAL")
        assert (app.game.n, app.game.held) == (3, 0)
        shut(app, out)
        with open(root + "config.txt") as f:
            assert "confirm 1" in f.read().split("\n")
    finally:
        cleanup(root)


def test_a_power_cut_keeps_a_hand_pending_then_accept_works():
    root = folder("confirm")
    try:
        app, out = _skicket_app(root)
        send(app, 10, "HAND 1 4H - - 0 10")
        shut(app, out)                                  # the power goes
        app, out = booted_app(root)
        game = app.game
        assert (game.n, game.held, game.held_event, game.held_by) == (0, HELD_APPLY, B_4H_10, 5)
        assert list(game.held_scores)[:4] == [30, 100, 30, 100]
        # a retry of the HAND after the boot is not applied again, and says it is held
        app.feed_bytes(wire.encode_request(10, "HAND 1 4H - - 0 10"))
        assert game.held == HELD_APPLY and game.n == 0
        app.local_accept(2)
        shut(app, out)
        app, out = booted_app(root)
        assert (app.game.n, app.game.held, _totals(app.game)) == (1, 0, [30, 100, 30, 100])
        shut(app, out)
        lines = bodies(root)
        assert b"10 OK n=0 top=0 eseq=1 held=1,%d" % B_4H_10 in lines
    finally:
        cleanup(root)


def test_a_snapshot_keeps_the_held_hand_and_an_earlier_snapshot_still_loads():
    root = folder("confirm")
    try:
        app, out = _skicket_app(root)
        send(app, 10, "HAND 1 4H - - 0 10")
        app.journal.compact()                           # the ring came round: a snapshot with the hand held
        shut(app, out)
        snapshot = open(root + J.SNAPSHOT, "rb").read()
        assert snapshot[0:4] == b"TBS4"
        app, out = booted_app(root)
        assert (app.game.n, app.game.held, app.game.held_event) == (0, HELD_APPLY, B_4H_10)
        app.local_accept(0)
        app.journal.compact()
        shut(app, out)
        data = bytearray(open(root + J.SNAPSHOT, "rb").read())
        # TBS4: one event (4 bytes), then a nibble (the low half of a byte) of who accepted it: 1 + Ann (player 0)
        events_end = len(data) - 16 - 1
        assert data[events_end] == 1
        # the snapshot an earlier firmware wrote: TBS2, no accepted_by, no held change in its tail
        data = data[:events_end] + data[events_end + 1:]
        body = len(data) - 16
        old = bytearray(data[:body + 8])
        old[0:4] = b"TBS2"
        old += b"\0\0"
        J.put16(old, body + 8, J.crc16(old, 0, body + 8))
        for name in (J.SNAPSHOT, J.SNAPSHOT_COPY):
            with open(root + name, "wb") as f:
                f.write(old)
        app, out = booted_app(root)
        assert (app.game.n, app.game.held, _totals(app.game)) == (1, 0, [30, 100, 30, 100])
        assert app.game.accepted_by(0) == -1            # TBS2 did not say who accepted it
        assert app.journal.problems == []
        shut(app, out)
        # TBS3 (before accepted_by): the held change in its tail, no byte per event
        old = bytearray(data)
        old[0:4] = b"TBS3"
        J.put16(old, body + 14, J.crc16(old, 0, body + 14))
        for name in (J.SNAPSHOT, J.SNAPSHOT_COPY):
            with open(root + name, "wb") as f:
                f.write(old)
        app, out = booted_app(root)
        assert (app.game.n, app.game.held, _totals(app.game)) == (1, 0, [30, 100, 30, 100])
        assert app.game.accepted_by(0) == -1
        assert app.journal.problems == []
        shut(app, out)
    finally:
        cleanup(root)


def test_who_accepted_is_journaled_and_replayed_and_an_earlier_accept_record_still_replays():
    root = folder("confirm")
    try:
        app, out = _skicket_app(root)
        send(app, 10, "HAND 1 4H - - 0 10")
        app.local_accept(2)                             # Cy
        shut(app, out)
        app, out = booted_app(root)                     # a power cut: the ring replayed
        assert (app.game.n, app.game.accepted_by(0)) == (1, 2)
        send(app, 11, "LOG 0")
        shut(app, out)
        assert bodies(root)[-1] == b"11 OK at=0 count=001 top=1 ev=%d who=2" % B_4H_10
        # an accept record of the journal before accepted_by (kind 6) replays as accepted by nobody known
        app, out = _skicket_app(root)
        send(app, 20, "HAND 1 4H - - 0 10")
        app.journal.append(J.KIND_ACCEPT, app.game.held_event)
        shut(app, out)
        app, out = booted_app(root)
        assert (app.game.n, app.game.held, app.game.accepted_by(0)) == (1, 0, -1)
        assert app.journal.problems == []
        shut(app, out)
    finally:
        cleanup(root)


def test_undo_of_a_confirmed_hand_waits_too():
    root = folder("confirm")
    try:
        app, out = _skicket_app(root)
        send(app, 10, "HAND 1 4H - - 0 10")
        app.local_accept(0)
        send(app, 11, "UNDO")
        game = app.game
        assert (game.n, game.held, game.held_hand()) == (1, HELD_UNDO, 1)
        assert _totals(game) == [30, 100, 30, 100]      # still counts while its undo waits
        assert list(game.held_scores)[:4] == [-30, -100, -30, -100]
        assert game.held_by == 5                        # the same opponents, Ann and Cy
        app.local_reject()                              # the undo rejected: the hand stays
        assert (game.n, game.held, _totals(game)) == (1, 0, [30, 100, 30, 100])
        send(app, 12, "UNDO")
        shut(app, out)
        app, out = booted_app(root)                     # and through a power cut
        game = app.game
        assert (game.n, game.held) == (1, HELD_UNDO)
        app.local_accept(2)
        assert (game.n, game.top, _totals(game)) == (0, 1, [0, 0, 0, 0])
        # its redo is a hand counting again: held as well, then accepted
        app.local_redo()
        assert (game.n, game.held) == (0, 3)
        app.local_accept(0)
        assert (game.n, _totals(game)) == (1, [30, 100, 30, 100])
        shut(app, out)
    finally:
        cleanup(root)


def test_roquet_pegs_count_at_once_and_the_end_of_the_hand_waits():
    game = Game()
    game.new(roquet, 2, CONFIRM)
    assert game.forced()
    game.apply(roquet.pack_peg(0, 5))
    game.apply(roquet.pack_peg(1, 9))
    # the hand so far gives player 0 5 and player 1 9 (docs/rules.md RQ6); the END
    # closes it. Roquet names no confirmers: all but the hand's best (player 1) accept
    assert game.hold(HELD_APPLY, roquet.HAND_END) == 1
    assert list(game.held_scores)[:2] == [5, 9]
    game.accept()
    assert game.n == 3 and game.held == 0


def test_where_the_lowest_total_wins_the_hand_is_confirmed_by_those_it_scored_against():
    game = Game()
    game.new(rummy, 3, 0)
    # docs/rules.md RU2, RU3: Bob is left with 10, 3 and 4 (17 against), Cy with a king (13);
    # Ann goes out and scores nothing: the best of the hand, so Bob and Cy accept (bits 1, 2)
    for player, rank in ((1, 10), (1, 3), (1, 4), (2, 13)):
        game.apply(rummy.pack_card(player, rank | 4 << 4))
    assert game.hold(HELD_APPLY, rummy.pack_out(0)) == 2 | 4
    assert list(game.held_scores)[:3] == [0, 17, 13]


def test_the_longest_state_and_open_keep_every_field():
    # the longest game name, eight players, options with the confirmation flag, a held hand whose
    # event has 9 digits: no field is cut from a 128-byte frame
    root = folder("confirm")
    try:
        app, out = booted_app(root)
        send(app, 65530, "NEW despised_nines 8 %d" % (CONFIRM | 7))
        # the last player took all four nines, 4 points against him each (docs/rules.md DN): 4 * 4 = 16
        event = despised_nines.pack_hand([0, 0, 0, 0, 0, 0, 0, 4])
        send(app, 65531, "EV %d" % event, "STATE", "OPEN")
        assert app.game.held == HELD_APPLY and list(app.game.held_scores) == [0, 0, 0, 0, 0, 0, 0, 16]
        assert app.game.held_by == 0x80          # the lowest total wins: all but the last did best
        shut(app, out)
        lines = bodies(root)
        state = [line for line in lines if line.startswith(b"65532 OK")][0]
        opened = [line for line in lines if line.startswith(b"65533 OK")][0]
        # the chain after no event is its first link's: SHA-256 of 32 zero bytes, the NEW packed as the
        # journal packs it (game index | players << 5 | options << 9, the options without the
        # confirmation flag: 7) little-endian, and 0xFF (docs/records.md, The chain); STATE shows its
        # first 4 bytes
        import hashlib
        index = [row[0] for row in GAMES].index("despised_nines")
        first = hashlib.sha256(bytes(32) + (index | 8 << 5 | 7 << 9).to_bytes(4, "little") + b"\xff")
        short = "".join("%02X" % b for b in first.digest()[:4]).encode()
        assert state.endswith(b" held=1,%d eseq=3 chain=%s notes=0" % (event, short)), state
        assert len(state) + 6 <= 128
        assert b" held=1 ccrc=" in opened and opened.endswith(b" notes=0"), opened
        assert len(opened) + 6 <= 128
    finally:
        cleanup(root)


def test_accept_and_reject_allocate_nothing():
    if sys.implementation.name != "micropython":
        from mpfixtures import skip
        skip("needs micropython.heap_lock: runs in the MicroPython pass (tests/test_micropython_port.py)")
    import micropython

    root = folder("confirm")
    try:
        app, out = _skicket_app(root)
        frames = [wire.encode_request(seq, "HAND 1 4H - - 0 10") for seq in (10, 11)]
        for frame, settle in ((frames[0], app.local_reject), (frames[1], None)):
            micropython.heap_lock()
            try:
                for i in range(len(frame)):
                    app.feed(frame[i])          # held: journaled, answered, pushed
                if settle is not None:
                    settle()
                else:
                    app.local_accept(0)
            finally:
                micropython.heap_unlock()
        assert (app.game.n, _totals(app.game)) == (1, [30, 100, 30, 100])
        shut(app, out)
    finally:
        cleanup(root)


def test_a_rejected_hand_takes_its_earlier_events_back_but_roquet_keeps_its_pegs():
    game = Game()
    game.new(rummy, 3, CONFIRM)
    # hand 1 counted: Bob left with a 2 (docs/rules.md RU2), Ann out
    for event in (rummy.pack_card(1, 2 | 4 << 4), rummy.pack_card(2, 3 | 4 << 4), rummy.pack_out(0)):
        game.apply(event)
    assert game.open_hand() == 0                    # a hand just closed: nothing open
    game.apply(rummy.pack_card(0, 5 | 4 << 4))
    game.apply(rummy.pack_card(2, 9 | 4 << 4))
    assert game.open_hand() == 2                    # hand 2's two cards, since hand 1's OUT
    game.new(roquet, 2, CONFIRM)
    game.apply(roquet.pack_peg(0, 5))
    assert game.open_hand() == 0                    # CF1 (Board): pegs are the table's own record
    game.new(skicket, 4, CONFIRM)
    game.apply(skicket.MISDEAL)
    assert game.open_hand() == 0                    # SK3: a misdeal is no part of the next hand


def _rummy_app(root):
    app, out = booted_app(root)
    send(app, 1, "NEW rummy 3 %d" % CONFIRM)
    return app, out


# Bob is left with 10, 3 and 4, Cy with a king (no suits), Ann goes out: RU2, RU3
RUMMY_HAND = (rummy.pack_card(1, 10 | 4 << 4), rummy.pack_card(1, 3 | 4 << 4), rummy.pack_card(1, 4 | 4 << 4),
              rummy.pack_card(2, 13 | 4 << 4), rummy.pack_out(0))


def test_a_rejected_rummy_hand_leaves_nothing_in_one_journal_record():
    root = folder("confirm")
    try:
        app, out = _rummy_app(root)
        send(app, 10, *["EV %d" % event for event in RUMMY_HAND])
        game = app.game
        assert (game.n, game.held) == (4, HELD_APPLY)
        records = app.journal.records
        assert app.local_reject() == 4                  # the four cards go with the OUT
        assert (game.n, game.top, game.held, _totals(game)) == (0, 0, 0, [0, 0, 0])   # nothing to redo either
        assert app.journal.records == records + 1       # one record: a cut keeps the hand whole or gone
        shut(app, out)
        lines = bodies(root)
        # one REJECT, the game as it is after it: n and top 0
        assert lines[-1].endswith(b"REJECT held=1,%d n=0 top=0 src=board" % rummy.pack_out(0)), lines[-1]
        app, out = booted_app(root)                     # and so after a power cut
        assert (app.game.n, app.game.top, app.game.held, _totals(app.game)) == (0, 0, 0, [0, 0, 0])
        shut(app, out)
    finally:
        cleanup(root)


def test_a_rejected_hand_of_several_events_allocates_nothing():
    if sys.implementation.name != "micropython":
        from mpfixtures import skip
        skip("needs micropython.heap_lock: runs in the MicroPython pass (tests/test_micropython_port.py)")
    import micropython

    root = folder("confirm")
    try:
        app, out = _rummy_app(root)
        send(app, 10, *["EV %d" % event for event in RUMMY_HAND])
        micropython.heap_lock()
        try:
            taken = app.local_reject()
        finally:
            micropython.heap_unlock()
        assert (taken, app.game.n, app.game.held) == (4, 0, 0)
        shut(app, out)
    finally:
        cleanup(root)
