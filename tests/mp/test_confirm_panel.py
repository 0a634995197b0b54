# Confirmation by an opponent on the board's own controls and display
# (tallypanel.confirm, docs/display.md): a Skicket hand entered with the knob
# waits; a seat of the purchaser's side is refused (why on the OLED for a
# moment, and a NOTE to the host), a long press rejects and reopens the entry
# with the hand's values, an opponent's seat accepts (seats pivot:
# docs/rules.md SK5); the OLED shows the hand's arithmetic and names the
# accepting buttons by their letters, the LED field both station holes white
# and the lights beside the accepting buttons. The app, its journal and its
# menu wired as tallypanel/start.py wires them.
import sys

from mpfixtures import Hands, bodies, booted_app, cleanup, folder, send, shut, skip
from tallypanel import boarddef, confirm, menu, screen, skicketview
from tallypanel.ledfield import LedField
from tallycore import cards, rummy, skicket
from tallycore.game import CONFIRM, HELD_APPLY

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
BOARD_DIR = _HERE + "/../../board"
NAMES = ("Ann", "Bob", "Cy", "Dee")


def _wired(root, letters=b"ABCD"):
    app, out = booted_app(root)
    for p in range(4):
        send(app, 1 + p, "CFG SET name %d %s" % (p, NAMES[p]))
    send(app, 5, "NEW skicket 4 %d" % CONFIRM)
    board_input = menu.BoardInput(app, letters=letters)
    return app, out, board_input


def _notes(root):
    """The texts of the NOTE events the app pushed, spaces back."""
    found = []
    for body in bodies(root):
        if body.startswith(b"! ") and body.split(b" ")[2] == b"NOTE":
            found.append(body.split(b"text=", 1)[1].decode().replace("_", " "))
    return found


def _do(board_input, *steps):
    for step in steps:
        if isinstance(step, tuple):
            board_input.handle(step[0], step[1])
        else:
            board_input.handle(step)


def _enter(board_input, purchaser, level_turns, strain_turns):
    """A hand on the knob: purchaser, level 1 + level_turns, strain, nobody doubles,
    not lone, the tricks the bid needs (suggested), saved."""
    _do(board_input, menu.PUSH, (menu.TURN, purchaser), menu.PUSH, (menu.TURN, level_turns), menu.PUSH,
        (menu.TURN, strain_turns), menu.PUSH, menu.PUSH, menu.PUSH, menu.PUSH, menu.PUSH)


def _totals(game):
    return [game.total(p) for p in range(4)]


def _no_suit(player, rank):
    """A Rummy card of no suit (its rank alone), as the board's entry makes it."""
    return rummy.pack_card(player, rank | cards.NO_SUIT << 4)


def test_seats_accept_or_reject_the_hand_entered_on_the_knob():
    root = folder("confirmpanel")
    try:
        app, out, board_input = _wired(root)
        game = app.game
        entry = board_input.entry
        _enter(board_input, 1, 3, 2)                    # Bob, 4 hearts, 10 tricks
        assert not entry.active
        assert (game.held, game.held_event) == (HELD_APPLY, skicket.pack_hand(1, 4, skicket.HEARTS, None,
                                                                              None, False, 10))
        assert game.n == 0
        _do(board_input, (menu.SEAT, 1))                # Bob bought it: he cannot accept it
        assert (board_input.refused, board_input.refused_seat) == (confirm.NOT_AN_OPPONENT, 1)
        _do(board_input, menu.PUSH)                     # the knob waits too
        assert board_input.refused == confirm.WAITING
        assert game.held and not entry.active
        # both said to the host: hand 1, seats A-D hold Ann, Bob, Cy, Dee; Bob (B) bought it, so
        # his opponents Ann (A) and Cy (C) accept
        assert _notes(root) == [
            "button B may not accept hand 1: its player is not an opponent; button A or C accepts it",
            "hand 1 is pending: button A or C accepts it, a long press of a seat button rejects it"]
        _do(board_input, (menu.SEAT_LONG, 3))           # rejected: the entry reopens with its values
        assert game.held == 0 and game.n == 0 and entry.active
        assert entry.step == skicketview.PURCHASER
        v = entry.values
        assert (v[skicketview.PURCHASER], v[skicketview.LEVEL], v[skicketview.STRAIN],
                v[skicketview.DOUBLED], v[skicketview.TRICKS]) == (1, 4, skicket.HEARTS, skicketview.NOBODY, 10)
        # corrected to 9 tricks: push to the tricks (doubled by nobody skips the redouble), one less, save
        _do(board_input, menu.PUSH, menu.PUSH, menu.PUSH, menu.PUSH, menu.PUSH, (menu.TURN, -1), menu.PUSH,
            menu.PUSH)
        assert game.held == HELD_APPLY and skicket.tricks_of(game.held_event) == 9
        _do(board_input, (menu.SEAT, 2))                # Cy accepts
        assert game.held == 0 and game.n == 1
        # 4H is 6 + 4 = 10 tricks (docs/rules.md SK2); 9 fails, SK8: Bob nothing, Dee 10 * 9 = 90,
        # Ann and Cy 10 * (13 - 9) = 40
        assert _totals(game) == [40, 0, 40, 90]
        shut(app, out)
    finally:
        cleanup(root)


def test_the_seats_of_the_opponents_after_the_pivot():
    root = folder("confirmpanel")
    try:
        app, out, board_input = _wired(root)
        game = app.game
        for _ in range(2):                              # two hands of Ann's 1 club, accepted by Bob
            _enter(board_input, 0, 0, 0)
            _do(board_input, (menu.SEAT, 1))
        assert game.n == 2 and game.held == 0
        # hand 3 (docs/rules.md SK5): Bob swaps with seat 2, so seats 0-3 hold Ann, Cy, Bob, Dee
        # and Ann's partner is Bob. Ann's 1 club: her opponents are Cy (seat 1) and Dee (seat 3)
        _enter(board_input, 0, 0, 0)
        _do(board_input, (menu.SEAT, 2))                # Bob, in seat 2: refused
        assert game.held and board_input.refused == confirm.NOT_AN_OPPONENT
        # seat 1 (button B) is Cy's now, seat 2 (button C) Bob's: Cy and Dee accept with B and D
        assert _notes(root)[-1] == ("button C may not accept hand 3: its player is not an opponent; "
                                    "button B or D accepts it")
        _do(board_input, (menu.SEAT, 1))                # Cy, in seat 1
        assert game.held == 0 and game.n == 3
        shut(app, out)
    finally:
        cleanup(root)


def test_undo_on_the_board_waits_for_the_same_confirmation():
    root = folder("confirmpanel")
    try:
        app, out, board_input = _wired(root)
        game = app.game
        _enter(board_input, 1, 3, 2)
        _do(board_input, (menu.SEAT, 0))                # Ann accepts: 30, 100, 30, 100 (SK7)
        _do(board_input, menu.UNDO)
        assert game.held == 2 and game.n == 1 and _totals(game) == [30, 100, 30, 100]
        _do(board_input, (menu.SEAT_LONG, 0))           # rejected: the hand stays, no entry opens
        assert game.held == 0 and game.n == 1 and not board_input.entry.active
        _do(board_input, menu.UNDO, (menu.SEAT, 2))     # again, and Cy accepts: nothing counts
        assert game.n == 0 and _totals(game) == [0, 0, 0, 0]
        shut(app, out)
    finally:
        cleanup(root)


def test_the_led_field_marks_a_held_hand():
    root = folder("confirmpanel")
    try:
        app, out, board_input = _wired(root)
        board = boarddef.find("pico-reference", BOARD_DIR)
        field = LedField(board)
        _enter(board_input, 1, 3, 2)
        frame = field.compose(app.game)
        # white (255, 255, 255) at full: brightness 64 * 256 = 16384; 255 * 16384 >> 16 = 63
        for slot in (boarddef.STATION, boarddef.SLOTS_PER_PLAYER + boarddef.STATION):
            at = 3 * board.led_of[slot]
            assert bytes(frame[at:at + 3]) == bytes((63, 63, 63)), slot
        _do(board_input, (menu.SEAT, 0))
        frame = field.compose(app.game)
        at = 3 * board.led_of[boarddef.STATION]
        assert bytes(frame[at:at + 3]) != bytes((63, 63, 63))
        shut(app, out)
    finally:
        cleanup(root)


def test_the_oled_shows_the_arithmetic_and_who_accepts():
    try:
        import framebuf  # noqa: F401
    except ImportError:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    from tallypanel.view import View
    from test_view import Oled

    class Config:
        brightness = 64
        budget_ma = 500
        colours = [0xFF2000, 0x0040FF, 0x00C000, 0xC000C0]
        names = list(NAMES)
        table = 0
        round = 0

    root = folder("confirmpanel")
    try:
        app, out, board_input = _wired(root)
        board = boarddef.find("pico-reference", BOARD_DIR)
        view = View(board, None, Oled(), Config())
        _enter(board_input, 1, 3, 2)
        view.refresh(app.game, board_input)
        rows = [bytes(line).decode().rstrip() for line in view.sheet.lines]
        # SK7: Bob and Dee 100 each, Ann and Cy 30; the totals after it are the same (the first hand)
        # (names as set, drawn in capitals; the gain right-aligned before column 12, the total before 26)
        assert rows[:9] == ["HAND 1: CONFIRM?",
                            "Bob BID 4H 10 TRICKS MADE",
                            "Ann      +30  TOTAL     30",
                            "Bob     +100  TOTAL    100",
                            "Cy       +30  TOTAL     30",
                            "Dee     +100  TOTAL    100",
                            "",
                            "ACCEPT: A (Ann) OR C (Cy)",
                            "REJECT: HOLD A SEAT BUTTON"], rows
        _do(board_input, (menu.SEAT, 0))
        view.refresh(app.game, board_input)
        assert not bytes(view.sheet.lines[0]).startswith(b"HAND 1: CONFIRM")
        shut(app, out)
    finally:
        cleanup(root)


class _Config:
    brightness = 64
    budget_ma = 500
    colours = [0xFF2000, 0x0040FF, 0x00C000, 0xC000C0]
    names = list(NAMES)
    table = 0
    round = 0


def _lit_board(letters=None):
    """The reference board with four more LEDs on the chain (132 to 135), one
    beside each seat button, and a budget that never scales a frame."""
    d = boarddef.read(BOARD_DIR + "/pico-reference.json")
    d["leds"]["count"] = 136
    d["buttons"]["lights"] = [132, 133, 134, 135]
    if letters is not None:
        d["buttons"]["letters"] = letters
    d["power"]["budget_ma"] = 20000
    return boarddef.from_dict(d)


def _rows(view):
    return [bytes(line).decode().rstrip() for line in view.sheet.lines]


def _third_hand_of_ann(board_input):
    """Two hands of Ann's 1 club accepted by Bob (seat 1 before the pivot),
    then hand 3, Ann's 1 club again, held."""
    for _ in range(2):
        _enter(board_input, 0, 0, 0)
        _do(board_input, (menu.SEAT, 1))
    _enter(board_input, 0, 0, 0)


def test_the_oled_names_the_accepting_buttons_after_the_pivot_and_says_why_a_press_is_refused():
    try:
        import framebuf  # noqa: F401
    except ImportError:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    from tallypanel.view import View
    from test_view import Oled

    root = folder("confirmpanel")
    try:
        # a board whose buttons are lettered W X Y Z, seat 0 first
        board = _lit_board("WXYZ")
        app, out, board_input = _wired(root, board.seat_letters)
        view = View(board, None, Oled(), _Config())
        _third_hand_of_ann(board_input)
        # hand 3 (docs/rules.md SK5): Bob has swapped with seat 2: seats 0-3 hold Ann, Cy, Bob, Dee.
        # Ann bought it with her partner Bob; her opponents Cy (seat 1: X) and Dee (seat 3: Z) accept
        view.refresh(app.game, board_input)
        rows = _rows(view)
        assert rows[0] == "HAND 3: CONFIRM?" and rows[6] == "", rows
        assert rows[7:] == ["ACCEPT: X (Cy) OR Z (Dee)", "REJECT: HOLD A SEAT BUTTON", ""], rows
        # Bob presses the button of seat 2 (Y), his now: refused, and the OLED says why
        _do(board_input, (menu.SEAT, 2))
        view.refresh(app.game, board_input)
        assert _rows(view)[9] == "BUTTON Y: Bob IS NOT AN OPPONENT", _rows(view)
        assert _notes(root)[-1] == ("button Y may not accept hand 3: its player is not an opponent; "
                                    "button X or Z accepts it")
        # for a moment: the poll sees it at t=1000, clears it NOTE_MS (3000 ms) after, not before
        assert not board_input.fade(1000)
        assert not board_input.fade(1000 + 2999)
        view.refresh(app.game, board_input)
        assert _rows(view)[9] == "BUTTON Y: Bob IS NOT AN OPPONENT"
        assert board_input.fade(1000 + 3000)
        view.refresh(app.game, board_input)
        assert _rows(view)[7:] == ["ACCEPT: X (Cy) OR Z (Dee)", "REJECT: HOLD A SEAT BUTTON", ""]
        assert app.game.held                           # nothing changed by the refusal
        # the knob is refused too; a roquet-free board has no seat 4, but a 4-seat game has every seat
        _do(board_input, (menu.TURN, 1))
        view.refresh(app.game, board_input)
        assert _rows(view)[9] == "FIRST ACCEPT OR REJECT THE HAND"
        _do(board_input, (menu.SEAT, 3))               # Dee (Z) accepts: the sheet is back
        view.refresh(app.game, board_input)
        assert app.game.held == 0 and app.game.n == 3
        assert not _rows(view)[0].startswith("HAND 3: CONFIRM")
        shut(app, out)
    finally:
        cleanup(root)


def test_three_accepting_buttons_take_two_rows():
    try:
        import framebuf  # noqa: F401
    except ImportError:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    from tallypanel.view import View
    from test_view import Oled

    root = folder("confirmpanel")
    try:
        app, out = booted_app(root)
        for p in range(4):
            send(app, 1 + p, "CFG SET name %d %s" % (p, NAMES[p]))
        send(app, 5, "NEW rummy 4 %d" % CONFIRM)
        # Ann goes out holding nothing (RU2): the best of the hand, so Bob, Cy and Dee accept (CF2)
        send(app, 6, "EV %d" % _no_suit(1, 3), "EV %d" % _no_suit(2, 4), "EV %d" % _no_suit(3, 5),
             "EV %d" % rummy.pack_out(0))
        assert app.game.held_by == 2 | 4 | 8
        board = boarddef.find("pico-reference", BOARD_DIR)
        view = View(board, None, Oled(), _Config())
        view.refresh(app.game, menu.BoardInput(Hands(app.game), views=view.views))
        rows = _rows(view)
        # "ACCEPT: B (Bob), C (Cy) OR D (Dee)" is 34 characters, 2 more than a row: the last
        # button goes to the next row, under the first
        assert rows[6:9] == ["ACCEPT: B (Bob), C (Cy)", "        OR D (Dee)", "REJECT: HOLD A SEAT BUTTON"], rows
        shut(app, out)
    finally:
        cleanup(root)


def test_a_seat_nobody_plays_is_refused_with_why():
    try:
        import framebuf  # noqa: F401
    except ImportError:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    from tallypanel.view import View
    from test_view import Oled

    root = folder("confirmpanel")
    try:
        app, out = booted_app(root)
        for p in range(2):
            send(app, 1 + p, "CFG SET name %d %s" % (p, NAMES[p]))
        send(app, 3, "NEW roquet 2 %d" % CONFIRM, "PEG 0 5", "END")
        # Roquet (RQ3): the END closes the hand; Ann pegged 5, Bob nothing: the hand did best by
        # Ann, so Bob (seat 1, button B) accepts (CF2). Seats C and D have no player in a game of two
        assert app.game.held and app.game.held_by == 2
        board = boarddef.find("pico-reference", BOARD_DIR)
        board_input = menu.BoardInput(app, letters=board.seat_letters)
        view = View(board, None, Oled(), _Config())
        _do(board_input, (menu.SEAT, 2))
        view.refresh(app.game, board_input)
        rows = _rows(view)
        assert rows[7:] == ["ACCEPT: B (Bob)", "REJECT: HOLD A SEAT BUTTON", "BUTTON C: NOBODY PLAYS THERE"], rows
        assert _notes(root)[-1] == "button C: nobody plays in that seat in this game; button B accepts hand 1"
        _do(board_input, (menu.SEAT, 0))               # Ann: not an opponent
        view.refresh(app.game, board_input)
        assert _rows(view)[9] == "BUTTON A: Ann IS NOT AN OPPONENT"
        _do(board_input, (menu.SEAT, 1))               # Bob accepts
        assert app.game.held == 0 and app.game.n == 2
        shut(app, out)
    finally:
        cleanup(root)


def test_the_lights_beside_the_accepting_buttons():
    root = folder("confirmpanel")
    try:
        board = _lit_board()
        app, out, board_input = _wired(root, board.seat_letters)
        field = LedField(board)
        _third_hand_of_ann(board_input)
        frame = field.compose(app.game)
        # hand 3: Cy (seat 1) and Dee (seat 3) accept: the LEDs beside seats 1 and 3 (133, 135)
        # in their colours at full, GRB; brightness 64 of 255 at level 256: v * 64 * 256 >> 16 = v // 4.
        # Cy 00C000: G 0xC0 = 192 -> 48; Dee C000C0: R 192 -> 48, B 192 -> 48
        assert bytes(frame[3 * 133:3 * 133 + 3]) == bytes((48, 0, 0))
        assert bytes(frame[3 * 135:3 * 135 + 3]) == bytes((0, 48, 48))
        assert bytes(frame[3 * 132:3 * 132 + 3]) == bytes(3)      # Ann bought it: dark
        assert bytes(frame[3 * 134:3 * 134 + 3]) == bytes(3)      # Bob, her partner: dark
        _do(board_input, (menu.SEAT, 1))               # Cy accepts: every light beside a button dark
        frame = field.compose(app.game)
        assert bytes(frame[3 * 132:3 * 136]) == bytes(12)
        shut(app, out)
    finally:
        cleanup(root)


def test_drawing_a_held_hand_and_fading_a_refusal_allocate_nothing():
    if sys.implementation.name != "micropython":
        skip("needs micropython.heap_lock: runs in the MicroPython pass (tests/test_display_micropython.py)")
    import micropython
    from tallypanel.view import View
    from test_view import Oled

    root = folder("confirmpanel")
    try:
        board = _lit_board()
        app, out, board_input = _wired(root, board.seat_letters)
        view = View(board, None, Oled(), _Config())
        _third_hand_of_ann(board_input)
        _do(board_input, (menu.SEAT, 2))               # refused: its words on the OLED
        view.refresh(app.game, board_input)
        board_input.fade(0)
        game = app.game
        micropython.heap_lock()
        try:
            view.leds.compose(game)                    # the LED frame with the lights
            confirm.draw(view.sheet, game, board.seat_letters, board_input)   # the sheet redraw
            view.sheet.flush()
            faded = board_input.fade(10)               # the poll, before and at its time
            faded_later = board_input.fade(screen.NOTE_MS)
            confirm.draw(view.sheet, game, board.seat_letters, board_input)
        finally:
            micropython.heap_unlock()
        assert (faded, faded_later) == (False, True)
        assert _rows(view)[9] == ""
        # the refused press itself: nothing but its words for the host (app.say, a NOTE) allocates.
        # Without a host to tell, Bob's button (C: seat 2) and the knob are refused allocation-free
        quiet = menu.BoardInput(Hands(app.game, app.local_event, app.local_undo, app.local_accept,
                                      app.local_reject), letters=board.seat_letters)
        quiet.handle(menu.SEAT, 2)
        micropython.heap_lock()
        try:
            quiet.handle(menu.SEAT, 2)
            refused_seat = quiet.refused
            quiet.handle(menu.TURN, 1)
            refused_knob = quiet.refused
        finally:
            micropython.heap_unlock()
        assert (refused_seat, refused_knob) == (confirm.NOT_AN_OPPONENT, confirm.WAITING)
        assert app.game.held
        shut(app, out)
    finally:
        cleanup(root)
