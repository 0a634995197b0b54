"""Property tests of the core (hypothesis): undo/redo, totals, packed ranges."""
from array import array

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tallycore import game, roquet, skicket

hand_fields = st.tuples(
    st.integers(0, 3),                      # purchaser
    st.integers(1, 7),                      # level
    st.integers(0, 5),                      # strain
    st.one_of(st.none(), st.integers(0, 3)),  # doubled_by
    st.one_of(st.none(), st.integers(0, 3)),  # redoubled_by
    st.booleans(),                          # lone
    st.integers(0, 13),                     # tricks
)


@st.composite
def skicket_games(draw):
    """A list of events the core accepts, misdeals included."""
    g = game.Game()
    g.new(skicket, 4)
    events = []
    for _ in range(draw(st.integers(0, 9))):
        if g.complete():
            break
        if draw(st.integers(0, 9)) == 0:
            event = skicket.MISDEAL
        else:
            event = skicket.pack_hand(*draw(hand_fields))
        try:
            g.apply(event)
        except ValueError:
            continue
        events.append(event)
    return events


@st.composite
def roquet_games(draw):
    options = draw(st.integers(0, 3))
    g = game.Game()
    g.new(roquet, 2, options)
    events = []
    for _ in range(draw(st.integers(0, 40))):
        if draw(st.integers(0, 6)) == 0:
            event = roquet.HAND_END
        else:
            event = roquet.pack_peg(draw(st.integers(0, 1)), draw(st.integers(1, 30)))
        try:
            g.apply(event)
        except ValueError:
            continue
        events.append(event)
    return options, events


def replay(rules, players, options, events):
    g = game.Game()
    g.new(rules, players, options)
    for event in events:
        g.apply(event)
    return g


@settings(max_examples=150, deadline=None)
@given(skicket_games(), st.data())
def test_skicket_undo_then_redo_restores_the_exact_state(events, data):
    g = replay(skicket, 4, 0, events)
    final = bytes(g.state)
    steps = data.draw(st.integers(0, len(events)))
    history = []
    for _ in range(steps):
        g.undo()
        history.append(bytes(g.state))
    # each undone state equals the game replayed up to that point
    for k, state in enumerate(history, 1):
        assert state == bytes(replay(skicket, 4, 0, events[: len(events) - k]).state)
    for _ in range(steps):
        g.redo()
    assert bytes(g.state) == final


@settings(max_examples=150, deadline=None)
@given(roquet_games(), st.data())
def test_roquet_undo_then_redo_restores_the_exact_state(game_def, data):
    options, events = game_def
    g = replay(roquet, 2, options, events)
    final = bytes(g.state)
    steps = data.draw(st.integers(0, len(events)))
    for _ in range(steps):
        g.undo()
    assert bytes(g.state) == bytes(replay(roquet, 2, options, events[: len(events) - steps]).state)
    for _ in range(steps):
        g.redo()
    assert bytes(g.state) == final


@settings(max_examples=200, deadline=None)
@given(skicket_games())
def test_skicket_totals_are_the_sum_of_hand_scores(events):
    g = replay(skicket, 4, 0, events)
    sums = [0, 0, 0, 0]
    out = array("i", [0, 0, 0, 0])
    hand = 0
    for event in events:
        if event == skicket.MISDEAL:
            continue
        skicket.score_hand(event, hand, out)
        sums = [s + o for s, o in zip(sums, out)]
        hand += 1
    assert [g.total(p) for p in range(4)] == sums
    assert g.hands() == hand


@settings(max_examples=200, deadline=None)
@given(roquet_games())
def test_roquet_totals_are_the_sum_of_pegs_without_bonuses(game_def):
    options, events = game_def
    options &= ~roquet.OPT_LANDMARK_BONUS
    g = game.Game()
    g.new(roquet, 2, options)
    sums = [0, 0]
    pegs = 0
    for event in events:
        try:
            g.apply(event)
        except ValueError:
            continue
        if event != roquet.HAND_END:
            sums[roquet.peg_player(event)] += roquet.peg_points(event)
            pegs += 1
    # a game of no peg proves nothing: a core that refused every peg would leave none (Unsatisfiable)
    assume(pegs > 0)
    assert [g.total(0), g.total(1)] == sums
    # the hand rows add up to the banked totals
    out = [0, 0]
    rows = [0, 0]
    for hand in range(g.hands()):
        g.hand_scores(hand, out)
        rows = [r + o for r, o in zip(rows, out)]
    assert rows == [roquet.king_total(g.state, 0), roquet.king_total(g.state, 1)]


@settings(max_examples=300, deadline=None)
@given(hand_fields, st.integers(0, 5))
def test_every_valid_skicket_hand_stays_in_its_packed_ranges(fields, hand):
    event = skicket.pack_hand(*fields)
    assert 0 <= event < 2**20 < 2**30
    g = game.Game()
    g.new(skicket, 4)
    for _ in range(hand):
        g.apply(skicket.MISDEAL)  # misdeals keep the hand index; use real hands below
    for _ in range(hand):
        g.apply(skicket.pack_hand(0, 1, 0, None, None, False, 7))
    try:
        g.check(event)
    except ValueError:
        # not a hand the rules allow here; a core that refused every hand leaves no example (Unsatisfiable)
        assume(False)
    g.apply(event)
    out = array("i", [0, 0, 0, 0])
    skicket.score_hand(event, hand, out)
    # the biggest hand score is a redoubled 7: 4 * 130 = 520
    assert all(0 <= s <= 520 for s in out)
    assert all(0 <= g.total(p) < 2**16 for p in range(4))
    assert skicket.hand_event(g.state, hand) == event
    assert len(g.state) <= game.STATE_CAPACITY and skicket.STATE_SIZE <= 64
