# The engine's log: undo and redo any number of steps, byte for byte.
from mpfixtures import skip
from tallycore import game, roquet, skicket


def test_undo_redo_restore_exact_states():
    g = game.Game()
    g.new(skicket, 4)
    snapshots = [bytes(g.state)]
    hands = [(0, 3, 2, 9), (1, 2, 1, 7), (2, 1, 5, 5), (3, 4, 3, 10)]
    for p, level, strain, tricks in hands:
        g.apply(skicket.pack_hand(p, level, strain, None, None, False, tricks))
        snapshots.append(bytes(g.state))
    g.apply(skicket.MISDEAL)
    snapshots.append(bytes(g.state))
    for k in range(len(snapshots) - 1, 0, -1):
        g.undo()
        assert bytes(g.state) == snapshots[k - 1], k
    for k in range(1, len(snapshots)):
        g.redo()
        assert bytes(g.state) == snapshots[k], k


def test_nothing_to_undo_or_redo():
    g = game.Game()
    g.new(roquet, 2)
    for action, field in ((g.undo, "undo"), (g.redo, "redo")):
        try:
            action()
        except ValueError as exc:
            assert str(exc).startswith(field + ":")
        else:
            raise AssertionError(field + " with nothing to do")


def test_a_new_event_after_undo_drops_the_redo_stack():
    g = game.Game()
    g.new(roquet, 2)
    g.apply(roquet.pack_peg(0, 5))
    g.apply(roquet.pack_peg(0, 7))
    g.undo()
    assert g.can_redo()
    g.apply(roquet.pack_peg(1, 2))
    assert not g.can_redo()
    assert (g.total(0), g.total(1)) == (5, 2)


def test_no_game_means_a_clear_error():
    g = game.Game()
    try:
        g.apply(1)
    except ValueError as exc:
        assert str(exc).startswith("game:")
    else:
        raise AssertionError("applied an event with no game")


def test_wrong_player_count_is_refused():
    g = game.Game()
    try:
        g.new(skicket, 3)
    except ValueError as exc:
        assert str(exc).startswith("players:")
    else:
        raise AssertionError("skicket with 3 players")


def test_hand_scores_from_the_log():
    g = game.Game()
    g.new(roquet, 2)
    for player, points in ((0, 3), (1, 4), (0, 2)):
        g.apply(roquet.pack_peg(player, points))
    g.apply(roquet.HAND_END)
    g.apply(roquet.pack_peg(1, 9))
    g.apply(roquet.HAND_END)
    out = [0, 0]
    g.hand_scores(0, out)
    assert out == [5, 4]   # 3 + 2 and 4
    g.hand_scores(1, out)
    assert out == [0, 9]


def test_scoring_allocates_nothing():
    import sys
    if sys.implementation.name != "micropython":
        skip("needs micropython.heap_lock: runs in the MicroPython pass (tests/test_micropython_port.py)")
    import micropython
    g = game.Game()
    g.new(skicket, 4)
    hand = skicket.pack_hand(1, 4, 5, 0, 1, False, 3)
    misdeal = skicket.MISDEAL
    micropython.heap_lock()
    try:
        g.apply(misdeal)
        g.apply(hand)
        g.undo()
        g.redo()
    finally:
        micropython.heap_unlock()
    assert g.hands() == 1
    g.new(roquet, 2, roquet.OPT_LANDMARK_BONUS)
    peg = roquet.pack_peg(0, 31)
    end = roquet.HAND_END
    micropython.heap_lock()
    try:
        g.apply(peg)
        g.apply(end)
        g.undo()
        g.redo()
    finally:
        micropython.heap_unlock()
    assert g.total(0) == 40  # 31 + 9 landmark bonus (opponent below 15)


def test_hand_scores_says_whether_the_hand_is_finished():
    g = game.Game()
    g.new(roquet, 2)
    g.apply(roquet.pack_peg(0, 4))
    g.apply(roquet.HAND_END)
    g.apply(roquet.pack_peg(1, 6))
    out = [0, 0]
    assert g.hand_scores(0, out) is True and out == [4, 0]
    assert g.hand_scores(1, out) is False and out == [0, 6]   # in progress: 6 so far


def test_an_undo_replays_fewer_than_a_checkpoint_of_events_whatever_the_game_s_length():
    # issue 11: an undo replayed the whole log (600 applies in a long game);
    # it now starts from the state kept every 32 events
    g = game.Game()
    g.new(roquet, 2, 0)
    pegs = [roquet.pack_peg(k % 2, 1) for k in range(90)]   # 45 points each: nobody reaches 100
    for e in pegs:
        g.apply(e)
    calls = [0]
    real = roquet.apply

    def counting(state, players, event):
        calls[0] += 1
        real(state, players, event)

    roquet.apply = counting
    try:
        g.undo()                       # n 90 -> 89: from the checkpoint at 64, 89 - 64 = 25 applies
        assert calls[0] == 25 and g.n == 89
        calls[0] = 0
        for _ in range(89 - 63):       # down to 63: from the checkpoint at 32, 31 applies
            g.undo()
        assert g.n == 63 and calls[0] <= 26 * 31
    finally:
        roquet.apply = real
    # every undone state is the state of a fresh replay of the same events
    for n in range(63, -1, -1):
        fresh = game.Game()
        fresh.new(roquet, 2, 0)
        for i in range(n):
            fresh.apply(pegs[i])
        assert g.n == n and bytes(g.state) == bytes(fresh.state), n
        if n:
            g.undo()
    # a different history after undoing below a checkpoint: its state is kept anew
    other = roquet.pack_peg(0, 7)
    for _ in range(40):
        g.apply(other)                 # pegs of 7 for player 0 until the game ends (15: 105 >= 100)
        if g.complete():
            break
    n = g.n
    assert n == 15
    g.undo()
    fresh = game.Game()
    fresh.new(roquet, 2, 0)
    for i in range(n - 1):
        fresh.apply(g.log[i])
    assert bytes(g.state) == bytes(fresh.state)
