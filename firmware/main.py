# tallyboard: the app. MicroPython runs this after boot.py, from the flash
# root (on the emulator: from the flash folder, with firmware/emu first on
# the module path). Output on stdout is the wire protocol (docs/protocol.md).
#
# Safe mode: hold the undo button (seat 0's button on a board without one)
# while the board powers up and the app does not start: the REPL stays free
# for mpremote to repair a bad deploy. Ctrl-C (0x03) from mpremote always
# stops the app and the watchdog with it.
import sys

# Why the app did not start, for the host to ask at the REPL (main.py's
# globals are the REPL's): a host that gets the REPL's answer to HELLO reads
# it over the raw REPL, as mpremote would, and says the board is in safe mode
# rather than that the app failed (host/tallyboard/repl.py). None: the app
# started (and if the REPL answers, it stopped).
tallyboard_safe_mode = None


def start():
    global tallyboard_safe_mode
    from tallypanel import hw, boarddef
    from tallyrun.app import App, BOARD_DIR

    app = App()
    app.exit_on_eof = hw.is_emulator()
    app.config.load()
    board = None
    board_problem = None
    try:
        board = boarddef.find(app.config.board, BOARD_DIR, hw.mcu())
    except (ValueError, OSError) as exc:
        board_problem = str(exc)
    if board is not None and hw.safe_mode_held(board):
        tallyboard_safe_mode = "button held at power-up"
        print("tallyboard: safe mode (button held at power-up): the app is not running; "
              "use mpremote, or power-cycle to start it")
        hw.stay_at_repl()
        return
    app.board_name = board.name if board is not None else app.config.board
    app.check_board = lambda name: boarddef.find(name, BOARD_DIR, hw.mcu())
    watchdog = None
    try:
        app.boot()
        if board_problem:
            app.note(board_problem + "; set another with config set board NAME")
        if board is not None:
            _attach_views(app, board)
        watchdog = hw.Watchdog()
        app.run(watchdog)
    finally:
        # Ctrl-C, or the host closed the line (emulator): the REPL must not be
        # reset under mpremote's feet
        if watchdog is not None:
            watchdog.stop()


def _attach_views(app, board):
    # The display (tallypanel.view) and the board's controls (tallypanel.inputs,
    # tallypanel.menu), if this firmware has them. A failure here leaves a
    # NOTE for the host; the scoring and the protocol run on regardless.
    from tallypanel import hw
    from tallyrun import protocol as P
    try:
        from tallypanel.view import View
    except ImportError:
        return
    try:
        oled = None
        bus = hw.oled_i2c(board)
        if bus is not None:
            from tallypanel.ssd1306 import SSD1306_I2C
            oled = SSD1306_I2C(bus, board.oled_address)
        view = View(board, hw.Pixels(board.led_pin, board.led_count), oled, app.config)
    except Exception as exc:
        app.note("display: %s" % exc)
        return
    board_input = None
    try:
        from tallypanel.menu import BoardInput
        from tallypanel.inputs import Inputs
        board_input = BoardInput(lambda: app.game, app.local_event, app.local_undo)

        def handle(kind, value=0):
            board_input.handle(kind, value)
            _refresh(app, view, board_input)

        inputs = Inputs(board, hw.button, handle, hw.pin_irq)
        app.on_start(inputs.tasks)
    except ImportError:
        pass
    except Exception as exc:
        app.note("inputs: %s" % exc)

    def changed(kind):
        if kind == P.EV_CFG:
            try:
                view.configure(app.config)
            except ValueError as exc:
                app.note("display: %s" % exc)
        _refresh(app, view, board_input)

    app.on_change(changed)
    _refresh(app, view, board_input)


def _refresh(app, view, board_input):
    try:
        view.refresh(app.game, board_input)
    except Exception:  # a display bug must not stop the scoring
        app.listener_errors += 1


start()
