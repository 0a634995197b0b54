# The app's start (run by main.py): the board definition, safe mode, the
# game restored and BOOT sent, the LED field lit; then tallypanel.powerup
# makes the app and attaches the club link, the OLED and the board's controls,
# and is let go; then the app runs. The board's wiring is powerup.attach's
# alone: every part is made there with what it needs, and nothing here sets
# an attribute of another object. Here is what stays while the app runs,
# which start passes attach to wire: the painter (Painter), the club link's
# starter (LinkStarter) and the app's check for CFG SET board (check_board).
# A module rather than main.py itself so that it is loaded compiled (.mpy) at
# power-up instead of parsed from source.
#
# The self-test: hold the definition's test button (buttons.test) while the
# board powers up, and the board tests its own wiring (tallypanel.boardtest).
#
# Safe mode: hold the undo button (seat 0's button on a board without one)
# while the board powers up and the app does not start: the REPL stays free
# for mpremote to repair a bad deploy. Ctrl-C (0x03) from mpremote always
# stops the app and the watchdog with it.
from tallycore import ticks_diff, ticks_ms
from tallycore.games import unload
from tallyrun.protocol import EV_CFG

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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
    if definition is not None and hw.held_at_power_up(wiring.safe_mode_pin(definition)):
        print("tallyboard: safe mode (button held at power-up): the app is not running; "
              "use mpremote, or power-cycle to start it")
        hw.stay_at_repl()
        return "button held at power-up"
    # BOOT first: the game restored and said; then the lights, from what is restored;
    # the app's own code loads after both (tallypanel.powerup)
    restored.restore()
    restored.send_boot()
    board = None
    if definition is not None:
        board, problem = _checked(definition, name)
        board_problem = problem or board_problem
    # the builder's self-test (tallypanel.boardtest): the definition's test button held as it powers up
    self_test = board is not None and hw.held_at_power_up(board.test_pin)
    given = definition.get("name") if isinstance(definition, dict) else None
    definition = None
    notes = []                          # the power-up's problems, said (NOTE) once the app runs
    view = _first_light(restored, board, notes) if board is not None else None
    if board_problem:
        notes.insert(0, board_problem + "; set another with config set board NAME")
    compact()
    from tallypanel import powerup
    app, finish = powerup.attach(restored, board, view, given if isinstance(given, str) and 0 < len(given) <= 40
                                 else name, notes, check_board, Painter, LinkStarter, self_test)
    del powerup
    unload("tallypanel.powerup")   # its code is not needed again: its heap goes to the games
    watchdog = None
    try:
        watchdog = hw.Watchdog()
        compact()
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


def compact():
    # What the imports so far left behind (the importer's path strings, littlefs's
    # file objects: no collection runs while the heap is this empty) goes before more
    # code loads, so the code fills those holes instead of starting above them: the
    # largest free block after boot is the margin every game switch loads into.
    import gc
    gc.collect()


def check_board(name):
    """CFG SET board: the definition called name, checked for this chip
    (ValueError says what is wrong); the checks are loaded for it and let go."""
    from tallypanel import hw, boarddef
    from tallyrun.restore import BOARD_DIR
    try:
        return boarddef.find(name, BOARD_DIR, hw.mcu())
    finally:
        unload("tallypanel.boarddef")


class LinkStarter:
    """The club link (tallynet) on a board with Wi-Fi, started once the board
    is enrolled (start(): at the power-up, or when NET enrols it: the Net's
    on_enrol), and tried once only. A link that cannot start leaves a NOTE;
    the scoring goes on."""

    def __init__(self, app, net, board):
        self.app = app
        self.net = net
        self.board = board               # the definition: its VSYS pin, for the health
        self.tried = False
        # this power-up counted for the health. Here, not at BOOT: only a board with
        # the link publishes it, and its file's leavings, left below the first light's
        # view, were a 6.5 KB hole in every board's heap (docs/benchmarks.md)
        from tallyrun.restore import count_reset
        self.resets = count_reset(app.root)
        compact()

    def start(self):
        if self.tried:
            return
        self.tried = True
        app = self.app
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
            task = Link(app, self.net, hw.link_led(), rx, hw.health_cause(), hw.supply_reader(self.board.vsys_adc),
                        self.resets).run()
        except Exception as exc:   # MemoryError, a module missing: the board stays a USB board
            app.note("network: the club link cannot start (%s); the board scores over USB" % exc)
            return
        if app.running:
            import asyncio
            asyncio.create_task(task)
        else:
            app.add_task(task)


_PAINT_MS = 40    # how often the painter looks while a change waits (idle, it sleeps until one comes)
_QUIET_MS = 25    # and how long the host must have been quiet: a burst of requests is
#                   answered back to back and drawn once after it
_TEST_LEFT_MS = 300000   # a self-test no host has asked anything of this long is over (its host gone)


class Painter:
    """The display catching up after the replies: a change only marks it due
    (soon); run() draws when no request is arriving, once for any number of
    changes; a press is drawn at once (changed). Each drawing is the LED field,
    then the OLED's sheet unless a request has begun to arrive meanwhile. A
    display bug never stops the scoring: it is counted (app.listener_errors).

    Made with the View before the app, which is made with its entry_screen
    (the protocol's ENTRY) and its link_changed (the club link's Net); use()
    then gives it the app and the controls (tallypanel.powerup)."""

    def __init__(self, view):
        self.view = view
        self.app = None                  # type: Any  # the app whose game is drawn (use())
        self.board_input = None          # type: Any  # the controls' entry on the sheet (tallypanel.menu), or None
        self.turn = None                 # the controls' kind of a turn of the knob (tallypanel.menu.TURN)
        self.due = True                  # a change waits to be drawn
        self.test = None                 # type: Any  # the builder's self-test while it runs (tallypanel.selftest)
        self.woken = None                # type: Any  # run()'s asyncio.Event: set by a change while it sleeps

    def use(self, app, board_input, turn=None):
        """The painter's registration: the app whose game it draws and whose
        changes it hears (app.on_change(app_changed)), and the controls whose
        screens it shows (a tallypanel.menu.BoardInput, or None) and their kind
        of a turn of the knob (tallypanel.menu.TURN: start does not load menu)."""
        self.app = app
        self.board_input = board_input
        self.turn = turn

    def hold(self, test):
        """The builder's self-test (tallypanel.selftest.Test) holds the display
        and the controls: nothing drawn, every press handed to it; None gives
        them back and the game is drawn again."""
        self.test = test
        self._due()

    def end_left_test(self, now):
        """A self-test whose host has asked nothing for _TEST_LEFT_MS (a cable pulled, a laptop
        closed mid-test) ends: the game is drawn and played again, not held until a power cycle.
        True when it ended one. Allocation-free while none ends (the painter's poll)."""
        test = self.test
        if test is None or not test.from_host or ticks_diff(now, self.app.last_request_ms) < _TEST_LEFT_MS:
            return False
        self.hold(None)
        self.app.say("self-test over: no host asked anything for 5 minutes; the game is back")
        return True

    def soon(self):
        """A change: drawn at the painter's next look once the host is quiet."""
        self._due()

    def press(self, kind, value=0):
        """A press on the board's controls (tallypanel.inputs): handled, and
        drawn at once (no host waits for its reply; its event went out first):
        the painter's next look could be 40 ms away. A turn is left to the
        painter, which draws a quick turn's detents once. During a self-test
        the press is the test's, not the game's."""
        if self.test is not None:
            self.test.press(kind, value)
            return
        self.board_input.handle(kind, value)
        self.changed(kind != self.turn)

    def entry_screen(self):
        """The protocol's ENTRY: the entry screen's rows (tallypanel.view); none during a self-test
        (its rows would draw the game's sheet under the test)."""
        if self.test is not None:
            return None
        return self.view.entry_rows(self.app.game, self.board_input)

    def app_changed(self, kind):
        """The app changed something (app.on_change): a setting reconfigures the
        display first; drawn at the next look."""
        if kind == EV_CFG:
            try:
                self.view.configure(self.app.config)
            except ValueError as exc:
                self.app.note("display: %s" % exc)
        self._due()

    def link_changed(self):
        """The club link's state changed: its mark after the sheet's T3 R2, an update's notice."""
        net = self.app.net
        self.view.set_link(net.mark, net.notice)
        self._due()

    def changed(self, now):
        """A change; now: drawn at once if the host is quiet (a press)."""
        self._due()
        if now and self.ready():
            if self._leds():
                self._sheet()

    def ready(self):
        """Whether to draw now: a change waits, no request is arriving, and the
        host has been quiet for _QUIET_MS. Allocation-free (the painter's poll)."""
        app = self.app
        return self.due and self.test is None and not app.receiving() and ticks_diff(ticks_ms(), app.last_request_ms) >= _QUIET_MS

    def _due(self):
        # a change to draw: marked, and the painter woken if it sleeps (allocation-free)
        self.due = True
        woken = self.woken
        if woken is not None:
            woken.set()

    async def run(self):
        import asyncio
        app = self.app
        view = self.view
        view.set_stop(app.receiving)
        woken = self.woken = asyncio.Event()
        while True:
            self.end_left_test(ticks_ms())
            if self.ready() or (view.retry_due() and self.test is None and not app.receiving()):
                if self._leds():
                    await asyncio.sleep_ms(0)     # a request that came meanwhile goes first
                    self._sheet()
            if self.due or self.test is not None or view.oled_down:
                await asyncio.sleep_ms(_PAINT_MS)   # a change waits for a quiet host, a self-test's time, a retry
            else:
                woken.clear()
                await woken.wait()                # nothing to draw: asleep until a change comes

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
