# What the board shows, tied to the hardware the app hands in.
#
#   view = View(board, pixels, oled, config, chain)
#   view.refresh(game, board_input)     # after every change (cheap when none)
#
# board: a tallypanel.wiring.BoardDef. pixels: a neopixel.NeoPixel for the
# chain (only .buf and .write() are used), or None. oled: a
# tallypanel.ssd1306.SSD1306_I2C (a framebuf with show(pages)), or None when
# the board has no display. config: the board's tallyrun.config.Config
# (brightness, budget_ma, colours, names, table, round), or None for the defaults.
# chain: what holds the game's hash chain as its .chain (the app), whose head
# the game's screen shows (sheetview.put_chain), or None: no head shown.
# board_input: the tallypanel.menu.BoardInput whose hand entry and messages
# are shown, or None. view.views: the game in play's view
# (tallypanel.gameview.Views), the View's own, which its LED field and sheet
# share, and tallypanel.powerup hands the controls.
#
# An LED frame goes out only when its bytes differ from the last one sent;
# the OLED sends only the pages of the rows that changed (frames_sent and
# pages_sent count them).
#
# An OLED that stops answering (a NAK: OSError from the bus) is let be: the
# LEDs and the scoring go on, problem() says so once for a NOTE, and every
# RETRY_MS the display is set up again; when it answers the whole sheet is
# drawn again and problem() says that too.
from tallypanel.gameview import Views
from tallypanel.ledfield import LedField
from tallypanel.screen import ENTRY

from tallycore import ticks_diff, ticks_ms

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RETRY_MS = 2000    # how often a silent OLED is asked again
_NAMES = ("P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8")   # the players' names without a config


class View:
    def __init__(self, board, pixels, oled, config=None, chain=None):
        self.board = board
        self.chain = chain
        self.pixels = pixels
        self.oled = oled
        self.views = Views()     # the game in play's view, shared by the LED field, the sheet and the controls
        self.leds = LedField(board, self.views)
        self.sheet = None
        self._note = None
        self.link_notice = None    # an update's words (set_link)
        self._error = None
        self.frames_sent = 0     # LED frames written
        self.pages_sent = 0      # OLED pages (8 pixel rows each) written
        self.stop = None
        self.config = config
        self.oled_down = False   # the OLED stopped answering; asked again RETRY_MS after tried_at
        self.tried_at = ticks_ms()
        self._problem = None     # what to tell the host (a NOTE) once, or None
        self._whyview = None     # type: Any  # tallypanel.whyview, once the why screen was first opened
        self._confirm = None     # type: Any  # tallypanel.confirm, once a hand has waited for its accept
        if config is not None:
            self.leds.configure(config)
        if oled is not None:
            self.attach_oled(oled)

    def attach_oled(self, oled, chain=None):
        """The OLED after the LEDs: the board lights its LEDs before it loads the
        sheet's code (and before the app, whose chain comes with the OLED)."""
        from tallypanel.sheetview import SheetView
        self.oled = oled
        if chain is not None:
            self.chain = chain
        self.sheet = SheetView(oled, self._show, self.views, self.stop, self.chain)
        if self.config is not None:
            self.configure(self.config)

    def _show(self, pages):
        sheet = self.sheet
        if self.oled_down or sheet is None:
            return
        try:
            self.oled.show(pages, sheet.lo, sheet.hi)
        except OSError as exc:
            self._oled_lost(exc)
            return
        while pages:
            self.pages_sent += pages & 1
            pages >>= 1

    def _oled_lost(self, exc):
        self.oled_down = True
        self.tried_at = ticks_ms()
        self._problem = ("display: the OLED stopped answering (%s): the LEDs, the buttons and USB keep "
                         "scoring; check its cable, it is tried again every %d s" % (exc, RETRY_MS // 1000))

    def retry_due(self):
        """True when a silent OLED is due to be asked again. Allocation-free."""
        return self.oled_down and ticks_diff(ticks_ms(), self.tried_at) >= RETRY_MS

    def problem(self):
        """What went wrong or came back since the last call (for a NOTE), or None."""
        text = self._problem
        self._problem = None
        return text

    def _oled_back(self):
        # set the display up again (it may have lost power) and draw the whole sheet
        sheet = self.sheet
        if sheet is None:
            return False
        try:
            self.oled.init_display()
        except OSError:
            self.tried_at = ticks_ms()
            return False
        self.oled_down = False
        sheet.layout = -1
        self._problem = "display: the OLED answers again"
        return True

    def configure(self, config):
        """Take the display settings of a Config; ValueError if one is out of range."""
        self.leds.configure(config)
        if self.sheet is not None:
            self.sheet.set_names(config.names)
            self.sheet.set_table(config.table, config.round)
            self.sheet.layout = -1  # redraw everything with the new names

    def set_link(self, mark, notice=None):
        """The club link's state (tallynet.link's MARK_*: one character, b"" for none) after the sheet's T3 R2;
        notice: an update's words (tallynet.update), on the sheet's last row when the board has no note of its own."""
        if self.sheet is not None:
            self.sheet.set_link(mark)
        self.link_notice = notice

    def refresh(self, game, board_input=None):
        self.refresh_leds(game)
        self.refresh_sheet(game, board_input)

    def set_stop(self, stop):
        """stop(): True when a request is arriving; a refresh then leaves what
        it has not sent yet for the next one (the LED frame, the OLED rows)."""
        self.stop = stop
        if self.sheet is not None:
            self.sheet.set_stop(stop)

    def pending(self):
        """True when the last refresh was cut short by stop()."""
        sheet = self.sheet
        if sheet is not None and sheet.lines_pending():
            return True
        return self.pixels is not None and self.leds.frame != self.pixels.buf

    def refresh_leds(self, game):
        """The LED field alone (the painter yields to the host between the two parts)."""
        frame = self.leds.compose(game)
        pixels = self.pixels
        if self.stop is not None and self.stop():
            return             # composed; sent next time
        if pixels is not None and frame != pixels.buf:
            pixels.buf[:] = frame
            pixels.write()
            self.frames_sent += 1

    def entry_rows(self, game, board_input):
        """The rows of the hand-entry screen as the OLED shows them, composed (and
        drawn) now, for the host (the protocol's ENTRY); None when the screen
        shows something else, or there is no OLED."""
        if self.sheet is None or board_input is None or game is None or game.rules is None or game.held:
            return None
        if board_input.question.active or not board_input.entry.open_on(game):
            return None
        self.refresh_sheet(game, board_input)
        return self.sheet.lines if self.sheet.layout == ENTRY else None

    def _why(self, game, why):
        """The why screen (tallypanel.whyview, loaded when it is first opened); False when
        there is nothing to explain and the screen was left."""
        if self._whyview is None:
            from tallypanel import whyview
            self._whyview = whyview
        config = self.config
        return self._whyview.draw(self.sheet, game, why, config.names if config is not None else _NAMES)

    def refresh_sheet(self, game, board_input=None):
        """The OLED sheet alone: the rows that changed."""
        sheet = self.sheet
        if sheet is None:
            return
        if self.oled_down and not (self.retry_due() and self._oled_back()):
            return
        note = None
        entry = None
        question = None
        why = None
        if board_input is not None:
            note = board_input.note
            if board_input.entry.open_on(game):
                entry = board_input.entry
            if board_input.question.active and game.rules is not None:
                question = board_input.question
            if board_input.why.active and game.rules is not None:
                why = board_input.why
        if note is None:
            note = self.link_notice
        if note is not self._note:
            self._note = note
            sheet.set_note(note)
        if game.rules is not None and game.held:
            confirm = self._confirm
            if confirm is None:   # loaded when a hand first waits (not before first light), and kept:
                from tallypanel import confirm   # an import allocates even when loaded already
                self._confirm = confirm
            confirm.draw(sheet, game, self.board.seat_letters, board_input)   # a hand waits for its confirmation
            sheet.flush()
        elif why is not None and self._why(game, why):
            pass
        elif question is not None:
            sheet.draw_question(question)
        elif entry is not None:
            if entry.error is not self._error:
                self._error = entry.error
                sheet.set_message(entry.error)
            sheet.draw_entry(entry, game)
        else:
            sheet.draw_game(game)
