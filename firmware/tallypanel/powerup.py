# The power-up's second half, run once by tallypanel.start after BOOT and
# first light, and let go before the app runs (its code is not needed again;
# with its collections, the twin's largest free block after boot is 7 KB
# larger: the room a game switch loads into):
# the app made and booted, then the club link, the OLED and the board's
# controls attached.
#
# The board's wiring diagram: every part of the board is made here (the
# View, which lights the LED field, by start before this module loads, and
# handed in) with what it needs, as constructor arguments, and no module sets
# an attribute of another object after it is made
# (tests/test_wiring_one_place.py). Where two parts need each other, the one
# made first is handed to the other, and the other registers with it: the
# painter is made before the app (the app is made with its entry screen, for
# the protocol's ENTRY, and the Net with its link_changed), then
# painter.use(app, controls, TURN) once they are made, and app.on_change for
# the app's changes; the Net is made before the app (app.net), and the link's
# starter, made after, registers with net.on_enrol. The game in play's view
# (gameview.Views) is the View's, which the controls are made with.
#
# Every callback it hands on is a method of an object of tallypanel.start's
# (the painter, the link's starter) or a function of start's (check_board),
# which start passes in: a function made here would keep this module's code
# in memory, and start, which loads this module, is not imported from here. A
# module of its own only after BOOT: each module before it costs the power-up
# its file's lookup on littlefs (the twin: 13 ms).
import gc

from tallypanel import hw


def attach(restored, board, view, board_name, notes, check_board, make_painter, make_link_starter, self_test=False):
    """The app booted from what the power-up restored, with its club link, its
    display (view: the LED field lit, or None) and its controls: (app, what to
    do when it stops or None). notes: the power-up's problems, said (NOTE) once
    the app is booted. check_board(name): CFG SET board's check of a board
    definition. make_painter(view) and make_link_starter(app, net, board) make
    tallypanel.start's painter and the club link's starter. self_test: the
    builder's self-test (tallypanel.boardtest) runs first, held by the painter."""
    from tallyrun.app import App

    painter = None if view is None else make_painter(view)
    net = _net(restored, painter) if board is not None and board.wifi else None
    app = App(restored=restored, board_name=board_name, exit_on_eof=hw.is_emulator(), check_board=check_board,
              entry_screen=None if painter is None else painter.entry_screen,   # the protocol's ENTRY
              net=net, panel=painter)   # the self-test's (tallypanel.selftest)
    app.boot(config_loaded=True, booted=True)
    gc.collect()   # the boot's leavings go before more code loads, which fills their holes (start.compact)
    for note in notes:
        app.note(note)
    if net is not None:
        starter = make_link_starter(app, net, board)
        net.on_enrol(starter.start)
        if net.enrolled(app.config):
            starter.start()
    finish = None
    if painter is not None:
        finish = _attach_views(app, board, view, painter)
        if self_test:
            from tallypanel.boardtest import OnBoard
            test = OnBoard(board, view, painter, app, hw.button)
            painter.hold(test)
            app.add_task(test.run())
    return app, finish


def _net(restored, painter):
    # The club link's settings (tallynet) on a board with Wi-Fi: always, so NET
    # enrols it over USB; the network layer itself only once it is enrolled
    # (tallypanel.start.LinkStarter). Its mark after the sheet's T3 R2: the
    # painter's. None when this firmware has no tallynet.
    try:
        from tallynet.settings import Net
    except ImportError:
        return None
    net = Net(restored.root, None if painter is None else painter.link_changed)
    net.load()
    return net


def _attach_views(app, board, view, painter):
    # The OLED (tallypanel.view) and the board's controls (tallypanel.inputs,
    # tallypanel.menu), if this firmware has them, beside the LED field that
    # _first_light lit. Each part that fails leaves a NOTE for the host and the
    # others working: no OLED, the LEDs and buttons still score; the scoring
    # and the protocol run on regardless. Returns what to do when the app stops.
    try:
        bus = hw.oled_i2c(board)
        if bus is not None:
            from tallypanel.ssd1306 import SSD1306_I2C
            view.attach_oled(SSD1306_I2C(bus, board.oled_address), app)   # its chain's head on the summary
    except Exception as exc:
        app.note("display: no OLED answering at 0x%02X (%s): the LEDs and buttons work without it"
                 % (board.oled_address, exc))
    gc.collect()
    board_input = None
    turn = None
    try:
        from tallypanel.menu import BoardInput, TURN
        from tallypanel.inputs import Inputs, fade_notes
        board_input = BoardInput(app, letters=board.seat_letters, views=view.views)
        turn = TURN
        inputs = Inputs(board, hw.button, painter.press, hw.pin_irq, app.note)
        app.on_start(inputs.tasks)
        app.add_task(fade_notes(board_input, painter.soon))   # a refused press's words leave the OLED
    except ImportError:
        pass
    except Exception as exc:
        app.note("inputs: %s" % exc)
    painter.use(app, board_input, turn)
    app.on_change(painter.app_changed)
    app.add_task(painter.run())
    return painter.finish
