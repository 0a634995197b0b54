# The power-up's second half, run once by tallypanel.start after BOOT and
# first light, and let go before the app runs (its code is not needed again;
# with its collections, the twin's largest free block after boot is 7 KB
# larger: the room a game switch loads into):
# the app made and booted, then the club link, the OLED and the board's
# controls attached. Every callback it hands on is a method of an object of
# tallypanel.start's (the painter, the link's starter), which start passes in:
# a function made here would keep this module's code in memory, and start,
# which loads this module, is not imported from here. A module of its own
# only after BOOT: each module before it costs the power-up its file's lookup
# on littlefs (the twin: 13 ms).
import gc

from tallypanel import hw


def attach(restored, board, view, board_name, notes, make_painter, make_link_starter):
    """The app booted from what the power-up restored, with its club link, its
    display (view: the LED field lit, or None) and its controls: (app, what to
    do when it stops or None). notes: the power-up's problems, said (NOTE) once
    the app is booted. make_painter(app, view) and make_link_starter(app, net)
    make tallypanel.start's painter and the club link's starter."""
    from tallyrun.app import App

    app = App(restored=restored)
    app.exit_on_eof = hw.is_emulator()
    app.board_name = board_name
    app.boot(config_loaded=True, booted=True)
    gc.collect()   # the boot's leavings go before more code loads, which fills their holes (start.compact)
    for note in notes:
        app.note(note)
    if board is not None and board.wifi:
        _attach_net(app, make_link_starter)
    finish = None
    if view is not None:
        finish = _attach_views(app, board, view, make_painter)
    return app, finish


def _attach_net(app, make_link_starter):
    # The club link (tallynet) on a board with Wi-Fi: its settings always, so
    # NET enrols it over USB; the network layer itself only once it is
    # enrolled (tallypanel.start.LinkStarter).
    try:
        from tallynet.settings import Net
    except ImportError:
        return
    net = Net(app.root)
    net.load()
    app.net = net
    net.starter = make_link_starter(app, net).start
    if net.enrolled(app.config):
        net.starter()


def _attach_views(app, board, view, make_painter):
    # The OLED (tallypanel.view) and the board's controls (tallypanel.inputs,
    # tallypanel.menu), if this firmware has them, beside the LED field that
    # _first_light lit. Each part that fails leaves a NOTE for the host and the
    # others working: no OLED, the LEDs and buttons still score; the scoring
    # and the protocol run on regardless. Returns what to do when the app stops.
    try:
        bus = hw.oled_i2c(board)
        if bus is not None:
            from tallypanel.ssd1306 import SSD1306_I2C
            view.attach_oled(SSD1306_I2C(bus, board.oled_address))
    except Exception as exc:
        app.note("display: no OLED answering at 0x%02X (%s): the LEDs and buttons work without it"
                 % (board.oled_address, exc))
    painter = make_painter(app, view)
    gc.collect()
    try:
        from tallypanel.menu import BoardInput, TURN
        from tallypanel.inputs import Inputs, fade_notes
        painter.board_input = BoardInput(painter.game, app.local_event, app.local_undo,
                                         app.local_accept, app.local_reject, app.local_new, app.kept,
                                         app.say, board.seat_letters)
        painter.turn = TURN
        app.entry_screen = painter.entry_screen        # the protocol's ENTRY
        inputs = Inputs(board, hw.button, painter.press, hw.pin_irq, app.note)
        app.on_start(inputs.tasks)
        app.add_task(fade_notes(painter.board_input, painter.soon))   # a refused press's words leave the OLED
    except ImportError:
        pass
    except Exception as exc:
        app.note("inputs: %s" % exc)
    app.on_change(painter.app_changed)
    net = app.net
    if net is not None:          # the club link's state: a mark after the sheet's T3 R2
        net.on_mark = painter.link_changed
    app.add_task(painter.run())
    return painter.finish
