# The app's start (run by main.py): the board definition, safe mode, the
# app booted from flash, then the display and the board's controls attached
# after the BOOT event. A module rather than main.py itself so that it is
# loaded compiled (.mpy) at power-up instead of parsed from source.
#
# Safe mode: hold the undo button (seat 0's button on a board without one)
# while the board powers up and the app does not start: the REPL stays free
# for mpremote to repair a bad deploy. Ctrl-C (0x03) from mpremote always
# stops the app and the watchdog with it.
from tallycore import ticks_diff, ticks_ms
from tallycore.games import unload


def start():
    """Run the app; returns only in safe mode (why, for main.py's global) or
    when the emulator's input ends."""
    from tallypanel import hw, wiring
    from tallyrun.restore import Restored, BOARD_DIR

    restored = Restored(flash=hw.journal_flash())
    config = restored.config
    config.load()
    name = config.board
    definition, board_problem = _read_definition(wiring, name, BOARD_DIR)
    if definition is not None and hw.safe_mode_held(wiring.safe_mode_pin(definition)):
        print("tallyboard: safe mode (button held at power-up): the app is not running; "
              "use mpremote, or power-cycle to start it")
        hw.stay_at_repl()
        return "button held at power-up"
    # BOOT first: the game restored and said; then the lights, from what is restored;
    # the app's own code loads after both
    restored.restore()
    restored.send_boot()
    board = None
    if definition is not None:
        board, problem = _checked(definition, name)
        board_problem = problem or board_problem
    given = definition.get("name") if isinstance(definition, dict) else None
    definition = None
    problems = []                       # the display's, said (NOTE) once the app runs
    view = _first_light(restored, board, problems) if board is not None else None
    _compact()
    app = _new_app(restored, hw, given if isinstance(given, str) and 0 < len(given) <= 40 else name)
    watchdog = None
    finish = None
    try:
        app.boot(config_loaded=True, booted=True)
        if board_problem:
            app.note(board_problem + "; set another with config set board NAME")
        for problem in problems:
            app.note(problem)
        if board is not None and board.wifi:
            _attach_net(app)
        if view is not None:
            finish = _attach_views(app, board, view)
        watchdog = hw.Watchdog()
        _compact()
        app.run(watchdog)
    finally:
        if finish is not None:
            finish()
        # Ctrl-C, or the host closed the line (emulator): the REPL must not be
        # reset under mpremote's feet
        if watchdog is not None:
            watchdog.stop()


def _read_definition(wiring, name, folder):
    """The board definition's JSON and None, or None and what is wrong with it."""
    try:
        return wiring.read(wiring.path_of(name, folder)), None
    except ValueError as exc:
        return None, str(exc)


def _new_app(restored, hw, board_name):
    from tallyrun.app import App

    app = App(restored=restored)
    app.exit_on_eof = hw.is_emulator()
    app.board_name = board_name
    app.check_board = _check_board
    app.serve_net = serve_net
    return app


def _checked(definition, name):
    """(the board, None) from its definition checked for this chip, or (None, why not).
    The checks are loaded for it and let go: ~7 KB of heap back."""
    from tallypanel import hw, boarddef
    try:
        return boarddef.checked(definition, name, hw.mcu()), None
    except ValueError as exc:
        return None, str(exc)
    finally:
        del boarddef
        unload("tallypanel.boarddef")


def serve_net(app, seq, req):
    """NET, the club link's verb (tallynet.verb), for the app below it; rare (an
    enrolment): its code loads when asked."""
    from tallynet.verb import serve
    serve(app, seq, req)


def _compact():
    # What the imports so far left behind (the importer's path strings, littlefs's
    # file objects: no collection runs while the heap is this empty) goes before more
    # code loads, so the code fills those holes instead of starting above them: the
    # largest free block after boot is the margin every game switch loads into.
    import gc
    gc.collect()


def _check_board(name):
    """CFG SET board: the definition called name, checked for this chip
    (ValueError says what is wrong); the checks are loaded for it and let go."""
    from tallypanel import hw, boarddef
    from tallyrun.restore import BOARD_DIR
    try:
        return boarddef.find(name, BOARD_DIR, hw.mcu())
    finally:
        unload("tallypanel.boarddef")


def _attach_net(app):
    # The club link (tallynet) on a board with Wi-Fi: its settings always, so
    # NET enrols it over USB; the network layer itself only once it is
    # enrolled. A link that cannot start leaves a NOTE; the scoring goes on.
    try:
        from tallynet.settings import Net
    except ImportError:
        return
    net = Net(app.root)
    net.load()
    app.net = net

    def start_link():
        net.starter = None
        try:
            import gc
            from tallynet.settings import RX_BUFFER
            gc.collect()
            # the link's two large buffers first: once its modules are loaded the heap has no
            # block of 4 KB left (the twin: 2.6 KB)
            rx = bytearray(RX_BUFFER)
            from tallynet import envelope
            envelope.prepare()
            from tallypanel import hw
            from tallynet.link import Link
            task = Link(app, net, hw.link_led(), rx).run()
        except Exception as exc:   # MemoryError, a module missing: the board stays a USB board
            app.note("network: the club link cannot start (%s); the board scores over USB" % exc)
            return
        if app.running:
            try:
                import asyncio
            except ImportError:
                import uasyncio as asyncio  # type: ignore
            asyncio.create_task(task)
        else:
            app.add_task(task)

    net.starter = start_link
    if net.enrolled(app.config):
        start_link()


def _first_light(restored, board, problems):
    """The LED field showing the restored game, before the app's, the OLED's
    and the controls' code loads, whether or not a host is talking: the View,
    or None without one (no display code in this firmware, or it failed:
    problems says why)."""
    from tallypanel import hw
    try:
        from tallypanel.view import View
    except ImportError:
        return None
    pixels = None
    try:
        pixels = hw.Pixels(board.led_pin, board.led_count)
    except Exception as exc:
        problems.append("display: the LED chain on GPIO %d cannot start (%s): the OLED and buttons work "
                        "without it" % (board.led_pin, exc))
    try:
        view = View(board, pixels, None, restored.config)
        view.refresh_leds(restored.game)
    except Exception as exc:
        problems.append("display: %s" % exc)
        return None
    return view


def _attach_views(app, board, view):
    # The OLED (tallypanel.view) and the board's controls (tallypanel.inputs,
    # tallypanel.menu), if this firmware has them, beside the LED field that
    # _first_light lit. Each part that fails leaves a NOTE for the host and the
    # others working: no OLED, the LEDs and buttons still score; the scoring
    # and the protocol run on regardless. Returns what to do when the app stops.
    from tallypanel import hw
    from tallyrun import protocol
    try:
        bus = hw.oled_i2c(board)
        if bus is not None:
            from tallypanel.ssd1306 import SSD1306_I2C
            view.attach_oled(SSD1306_I2C(bus, board.oled_address))
    except Exception as exc:
        app.note("display: no OLED answering at 0x%02X (%s): the LEDs and buttons work without it"
                 % (board.oled_address, exc))
    painter = Painter(app, view)
    try:
        from tallypanel.menu import BoardInput, TURN
        from tallypanel.inputs import Inputs, fade_notes
        painter.board_input = BoardInput(lambda: app.game, app.local_event, app.local_undo,
                                         app.local_accept, app.local_reject, app.local_new, app.kept,
                                         app.say, board.seat_letters)
        app.entry_screen = lambda: view.entry_rows(app.game, painter.board_input)   # the protocol's ENTRY

        def handle(kind, value=0):
            painter.board_input.handle(kind, value)
            # a press is drawn at once (no host waits for its reply; its event went out first):
            # the painter's next look could be 40 ms away. A turn is left to the painter, which
            # draws a quick turn's detents once.
            painter.changed(kind != TURN)

        inputs = Inputs(board, hw.button, handle, hw.pin_irq, app.note)
        app.on_start(inputs.tasks)
        app.add_task(fade_notes(painter.board_input, painter.soon))   # a refused press's words leave the OLED
    except ImportError:
        pass
    except Exception as exc:
        app.note("inputs: %s" % exc)

    def changed(kind):
        if kind == protocol.EV_CFG:
            try:
                view.configure(app.config)
            except ValueError as exc:
                app.note("display: %s" % exc)
        painter.soon()

    app.on_change(changed)
    net = app.net
    if net is not None:          # the club link's state: a mark after the sheet's T3 R2
        def link_changed():
            view.set_link(net.mark)
            painter.soon()

        net.on_mark = link_changed
    app.add_task(painter.run())
    return painter.finish


_PAINT_MS = 40    # how often the painter looks (it costs the idle board ~1 % at this rate)
_QUIET_MS = 25    # and how long the host must have been quiet: a burst of requests is
#                   answered back to back and drawn once after it


class Painter:
    """The display catching up after the replies: a change only marks it due
    (soon); run() draws when no request is arriving, once for any number of
    changes; a press is drawn at once (changed). Each drawing is the LED field,
    then the OLED's sheet unless a request has begun to arrive meanwhile. A
    display bug never stops the scoring: it is counted (app.listener_errors)."""

    def __init__(self, app, view, board_input=None):
        self.app = app
        self.view = view
        self.board_input = board_input   # the controls' entry on the sheet (tallypanel.menu), or None
        self.due = True                  # a change waits to be drawn

    def soon(self):
        """A change: drawn at the painter's next look once the host is quiet."""
        self.due = True

    def changed(self, now):
        """A change; now: drawn at once if the host is quiet (a press)."""
        self.due = True
        if now and self.ready():
            if self._leds():
                self._sheet()

    def ready(self):
        """Whether to draw now: a change waits, no request is arriving, and the
        host has been quiet for _QUIET_MS. Allocation-free (the painter's poll)."""
        app = self.app
        return self.due and not app.receiving() and ticks_diff(ticks_ms(), app.last_request_ms) >= _QUIET_MS

    async def run(self):
        try:
            import asyncio
        except ImportError:
            import uasyncio as asyncio  # type: ignore
        app = self.app
        view = self.view
        view.set_stop(app.receiving)
        while True:
            if self.ready() or (view.retry_due() and not app.receiving()):
                if self._leds():
                    await asyncio.sleep_ms(0)     # a request that came meanwhile goes first
                    self._sheet()
            await asyncio.sleep_ms(_PAINT_MS)

    def finish(self):
        """The app stopped (the emulator's input ended): what is still due, drawn whole."""
        view = self.view
        view.set_stop(None)
        if self.due or view.pending():
            self.due = False
            try:
                view.refresh(self.app.game, self.board_input)
            except Exception:  # a display bug must not stop the scoring
                self.app.listener_errors += 1

    def _leds(self):
        """The change taken, the LED field drawn; False if the display failed."""
        self.due = False
        try:
            self.view.refresh_leds(self.app.game)
            return True
        except Exception:  # a display bug must not stop the scoring
            self.app.listener_errors += 1
            self._say_problem()
            return False

    def _sheet(self):
        """The OLED's sheet drawn, unless a request is arriving: then it (or
        what a request cut short of it) stays due for after the request."""
        view = self.view
        try:
            if self.app.receiving():
                self.due = True           # the sheet not even composed: all of it after the request
            else:
                view.refresh_sheet(self.app.game, self.board_input)
            if view.pending():
                self.due = True           # cut short by a request: the rest after it
        except Exception:  # a display bug must not stop the scoring
            self.app.listener_errors += 1
        self._say_problem()

    def _say_problem(self):
        problem = self.view.problem()     # the OLED lost or back: the host hears it
        if problem is not None:
            self.app.note(problem)
