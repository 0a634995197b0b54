# The app on the board: serves the wire protocol (protocol.py) on USB CDC
# (stdin/stdout), keeps the game in RAM and on flash (journal.py, config.py),
# pushes an event for every change, and tells the display and the inputs.
# Here: dispatch, the retry cache and host sessions, the change path, and the
# board's own changes (local_*). Some 590 lines, past the ~500 the rest keep:
# the board's own changes were a module of their own (a base class of App)
# and that cost the twin's heap after boot a largest free block 1.9 KB smaller
# (bench/bench_device_twin.py: the room every game switch loads into).
# Beside it: serve.py (the loop), confirming.py (a hand held for an
# opponent's accept), configuring.py (CFG), replies.py (the replies, and the
# one writer of every event's fields).
#
# Hooks for the display and input code:
#   app.on_change(callback)   callback(kind) after every change; kind is a
#                             protocol EV_* event kind (EV_BOOT, EV_NEW, EV_EVENT,
#                             EV_UNDO, EV_REDO, EV_CFG). A failing listener is
#                             counted in app.listener_errors, never fatal.
#   app.local_event(event)    a packed core event from the board's buttons:
#   app.local_undo()          journaled, applied and pushed exactly like a
#   app.local_redo()          host request; each raises ValueError with the
#                             core's message when refused (nothing changed).
#   app.local_accept(player)  the held change (confirmation by an opponent,
#   app.local_reject()        docs/rules.md CF) accepted by player, or rejected
#                             (with the hand's earlier events taken back).
#   app.local_new()           the game in play started again (ValueError with
#                             the core's message when refused).
#   app.kept()                whether the host's archive holds the game as it
#                             stands (the host said so with KEPT).
#   app.add_task(coroutine)   another task to run in the app's asyncio loop;
#   app.on_start(starter)     or starter() called in the loop, returning tasks.
from tallycore import array

from tallycore import ticks_ms as _ticks_ms

import asyncio
import sys

from tallyrun import protocol
from tallyrun.incoming import FEED_LINE, FEED_OVERFLOW, TOO_LONG, LineReader, Request
from tallyrun.outgoing import Writer
from tallyrun import replies
from tallycore.game import LOG_CAPACITY
from tallyrun.journal import KIND_APPLY, KIND_UNDO, KIND_REDO, KIND_ACCEPT, KIND_REJECT_HAND
from tallyrun.restore import Restored, emit as _emit
# The loop (tallyrun/serve.py) loads when the app runs (App.run(), or the
# first poll that needs it), not with the app: loaded any earlier it leaves
# the heap after boot in smaller pieces (the twin: a largest free block 6.5 KB
# smaller with this and the two below, the room every game switch loads
# into). A held hand's code (confirming.py) and CFG's (configuring.py, the
# handler of its row) load when first needed: a board that never confirms a
# hand nor takes a setting never pays their heap (the twin: 2 KB after boot).
# The app holds each once loaded (App.module): an import statement allocates
# even for a module loaded already.


def _load(name):
    """The module called name ("tallyrun.serve"); ImportError when this firmware lacks it."""
    return __import__(name, None, None, ("*",))


def _loaded_handler(path):
    """The function called path if its module is loaded already, else None."""
    dot = path.rfind(".")
    module = sys.modules.get(path[:dot])
    return None if module is None else getattr(module, path[dot + 1:])


def _load_handler(path):
    """The function called path ("tallyrun.replies.score"), its module imported by name."""
    dot = path.rfind(".")
    return getattr(_load(path[:dot]), path[dot + 1:])


_SRC_HOST = b"host"
_SRC_BOARD = b"board"


def _raise_if(message):
    if message is not None:
        raise ValueError(message if isinstance(message, str) else message.decode())


_PUSHED = (0, protocol.EV_EVENT, protocol.EV_UNDO, protocol.EV_REDO)   # by journal kind: the event pushed
# ERR BOARD's words when there is no memory left to put them together
_OUT_OF_MEMORY = b"MemoryError: the board ran out of memory answering this; read STATE to see whether it was done"
_UNSAID = b"the board failed here and had no memory left to say why; read STATE to see whether it was done"


class App:
    def __init__(self, out=None, root="", board_name="", flash=None, restored=None, exit_on_eof=True,
                 check_board=None, entry_screen=None, net=None, panel=None):
        # restored: the game, its journal and the settings as the power-up made them
        # (tallyrun.restore: BOOT went out before this module loaded); else made here.
        # flash: the chip's block device (hw.journal_flash()) for the journal's raw
        # ring; None keeps the ring in a plain file (the emulator, tests).
        # exit_on_eof, check_board, entry_screen, net, panel: as tallypanel.powerup makes
        # the board's app (each is described where it is kept, below)
        if restored is None:
            restored = Restored(out, root, flash)
        self.restored = restored
        self.out = restored.out
        self.root = restored.root
        self.game = restored.game
        self.journal = restored.journal
        self.config = restored.config
        self.board_name = board_name
        self.reader = LineReader()
        self.request = Request(self.game)   # the game in play's own verbs are parsed too
        self.writer = Writer()        # replies
        self.events = restored.events   # pushed events
        self.last_reply = bytearray(protocol.MAX_FRAME + 8)
        self.last_reply_length = 0      # 0: rebuild from the state (after a boot)
        self.last_seq = 0
        self.last_crc = 0
        self.session_next = 1           # the first seq of the next session HELLO opens
        self.eseq = 0
        self.listeners = []
        self.why_parts = None       # tallycore.why.Parts, made by the first WHY
        self.entry_screen = entry_screen   # () -> the entry screen's rows, or None when none is open (the painter's)
        self.notes = []                 # problems found at boot (NOTE), spaces as _
        # CRC-16 of log[0:i + 1] for each i, right up to log_crcs_valid: the
        # log CRC (STATE, OPEN) costs one step per new event, not the whole log
        self.log_crcs = array("H", bytearray(2 * LOG_CAPACITY))
        self.log_crcs_valid = 0
        self.chain = None               # the game's hash chain (tallyrun.chain), once a game is in play
        # check_board(name): raises ValueError (why) unless board/<name>.json is
        # a definition this board can run (the panel's own check, tallypanel.start's).
        # None: the file is on the flash (tallyrun.configuring.board_exists)
        self.check_board = check_board
        self.listener_errors = 0
        self.tasks = []
        self.starters = []
        self.served = 0                 # requests answered (any outcome)
        self.byte = bytearray(1)
        self.poller = None              # the input's poller, while serve() runs
        self.last_request_ms = _ticks_ms()   # when the last request was read (the display waits for quiet)
        self.running = False
        self.internal_errors = 0
        # the end of input ends the app under the emulator (its process
        # exits); on a board a read of nothing is only "nothing yet"
        self.exit_on_eof = exit_on_eof
        # the club link's settings and state (tallynet.settings.Net) on a board with Wi-Fi; None without
        self.net = net
        self.panel = panel   # the display and controls (start.Painter) for the self-test (tallypanel.selftest)
        # the handler of each runtime verb (its row of protocol.VERBS names it): those of the modules
        # loaded with the app found now, so that no request of theirs allocates; the others (CFG's,
        # WHY's, NET's) loaded when first asked
        self.handlers = [_loaded_handler(row[5]) for row in protocol.VERBS]
        self.modules = {}               # App.module's: the modules loaded after boot, by name

    # --- start ---------------------------------------------------------------
    def boot(self, config_loaded=False, booted=False):
        """Load the config (unless the caller just did), restore the game in
        progress from flash and send BOOT; booted: the power-up did all three
        (tallyrun.restore) and the app goes on from there."""
        if not config_loaded:
            self.config.load()
        if not self.board_name:
            self.board_name = self.config.board
        if not booted:
            self.restored.restore()
            self.restored.send_boot()   # BOOT's one writer, the power-up's too
        self.last_seq = self.journal.last_seq
        self.last_crc = self.journal.last_crc
        self.session_next = self.journal.last_seq % protocol.MAX_SEQ + 1
        self.last_reply_length = 0
        self.eseq = self.restored.eseq
        if not booted:
            self._tell_listeners(protocol.EV_BOOT)
        for problem in self.journal.problems:
            self.note(problem)
        if self.config.problems:
            self.note("config.txt: %d line%s not understood (line %s): %s" % (
                self.config.problems, "s" if self.config.problems > 1 else "",
                ", ".join(str(n) for n in self.config.bad_lines),
                "those settings keep their defaults"))
        self.ready_to_confirm()
        self.log_changed(-1)      # the game restored: its chain

    def note(self, text):
        """A problem for people to read (a bad board definition, damaged
        storage): kept for NOTE until the next boot, and pushed as an event."""
        text = text.replace(" ", "_")
        if len(self.notes) < protocol.MAX_NOTES:
            self.notes.append(text)
        self.tell(protocol.EV_NOTE, False, text=text)

    def say(self, text):
        """Words for people that pass (why the board refused a press of its
        buttons): pushed as a NOTE event, not kept for NOTE (the problems
        the board has noted). One str allocated, as note() does."""
        self.tell(protocol.EV_NOTE, False, text=text.replace(" ", "_"))

    def on_change(self, callback):
        self.listeners.append(callback)

    def add_task(self, coroutine):
        self.tasks.append(coroutine)

    # --- bytes in ---------------------------------------------------------------
    def feed(self, byte):
        """One byte from the host. Allocation-free for a valid frame."""
        state = self.reader.feed(byte)
        if state:
            self.line_ended(state)

    def line_ended(self, state):
        """The reader's line ended (FEED_LINE, or FEED_OVERFLOW: too long)."""
        if state == FEED_LINE:
            length = self.reader.length
            self.reader.length = 0
            if length:
                try:
                    self.handle_line(self.reader.line, length)
                except MemoryError:
                    # not even the answer could be made: the line goes unanswered
                    # (the host's timeout and retry) and the board serves on
                    self.internal_errors += 1
        elif state == FEED_OVERFLOW:
            self.error(0, protocol.E_FRAME, TOO_LONG)

    def feed_bytes(self, data):
        for i in range(len(data)):
            self.feed(data[i])

    def handle_line(self, line, length):
        req = self.request
        code = req.parse(line, length)
        self.served += 1
        self.last_request_ms = _ticks_ms()
        if code:
            seq = req.seq if code > protocol.E_SEQ else 0
            if req.arg is None:
                self.error(seq, code, req.message)
            else:
                self.writer.error_arg(seq, code, req.message, req.arg)
                self.send_reply()
            if seq:
                self._store(seq, req.crc)
            return
        seq = req.seq
        if seq == self.last_seq and req.crc == self.last_crc:
            self._repeat(seq)
            return
        journal = self.journal
        if seq == journal.last_seq and req.crc == journal.last_crc:
            # a retry of the last change after other requests (a HELLO on
            # reconnecting, say): it is in the journal, so it is not applied again
            replies.change(self, seq)
            self._store(seq, req.crc)
            return
        try:
            self._dispatch(req, seq)
        except MemoryError:
            # the heap could not take what this request needed: answered in
            # words made beforehand (formatting the exception would allocate
            # too, and a failure there would stop the app), and the board serves on
            self.internal_errors += 1
            self.error(seq, protocol.E_BOARD, _OUT_OF_MEMORY)
        except Exception as exc:  # a firmware bug: answer, and keep serving
            self.internal_errors += 1
            try:
                message = "%s: %s" % (type(exc).__name__, exc)
            except MemoryError:
                message = _UNSAID
            self.error(seq, protocol.E_BOARD, message)
        self._store(seq, req.crc)

    def open_session(self):
        """The first of SESSION_SEQS seqs for a host session (HELLO): never the
        seq of the last change journaled, so a new session's request is never
        taken for a retry of it, and disjoint from the last 63 sessions' seqs."""
        first = self.session_next
        last_change = self.journal.last_seq
        if last_change and (last_change - first) % protocol.MAX_SEQ < protocol.SESSION_SEQS:
            first = last_change % protocol.MAX_SEQ + 1
        after = first + protocol.SESSION_SEQS
        self.session_next = after if after <= protocol.MAX_SEQ else after - protocol.MAX_SEQ
        return first

    def _store(self, seq, crc):
        self.last_seq = seq
        self.last_crc = crc
        w = self.writer
        buf = self.last_reply
        for i in range(w.length):
            buf[i] = w.buf[i]
        self.last_reply_length = w.length

    def _repeat(self, seq):
        if self.last_reply_length:
            _emit(self.out, self.last_reply, self.last_reply_length)
        else:
            # after a restart: the change was journaled with this seq; answer
            # with the state it left (it is not applied again)
            replies.change(self, seq)

    # --- dispatch -----------------------------------------------------------------
    def _dispatch(self, req, seq):
        verb = req.verb
        if verb >= protocol.V_GAME_VERB:   # the game in play's own verb (HAND, PEG, ...)
            self._game_verb(seq, req)
            return
        handler = self.handlers[verb]
        if handler is None:
            handler = self._handler(seq, verb)
            if handler is None:
                return
        handler(self, seq, req)

    def _handler(self, seq, verb):
        """The verb's handler, named by its row (protocol.VERBS), loaded and kept; None when this
        firmware lacks its module (the error answered: a firmware deployed without tallynet)."""
        path = protocol.VERBS[verb][5]
        try:
            handler = self.handlers[verb] = _load_handler(path)
        except ImportError:
            self.error(seq, protocol.E_RULE, "this firmware has no %s for %s: deploy the whole firmware "
                       "(tallyboard deploy)" % (path[:path.rfind(".")], protocol.VERBS[verb][0].decode()))
            return None
        return handler

    def module(self, name):
        """A module of the app's loaded after boot ("tallyrun.serve"), imported once and kept."""
        found = self.modules.get(name)
        if found is None:
            found = self.modules[name] = _load(name)
        return found

    def _game_verb(self, seq, req):
        # a verb the game in play declares (its rules' VERBS, verb_event); the
        # parser took it only while that game is in play
        try:
            event = self.game.rules.verb_event(req.verb - protocol.V_GAME_VERB, req.values)
        except ValueError as exc:
            self.error(seq, protocol.E_RANGE, str(exc))
            return
        self._change(KIND_APPLY, seq, req.crc, event, _SRC_HOST, True)

    # --- replies -------------------------------------------------------------------
    def send_reply(self):
        self.writer.finish()
        _emit(self.out, self.writer.buf, self.writer.length)

    def error(self, seq, code, message):
        self.writer.error(seq, code, message)
        self.send_reply()

    # --- changes: one path (check, journal, apply, reply, then tell) ------------------
    def _event(self, kind, reserved=False):
        """Start composing an event; reserved: its eseq was taken already (by
        the reply that names it, sent first)."""
        if not reserved:
            self._reserve_eseq()
        self.events.event(self.eseq, kind)
        return self.events

    def _reserve_eseq(self):
        eseq = self.eseq + 1
        self.eseq = eseq if eseq <= protocol.EVENT_SEQ_LIMIT else 1

    def tell(self, kind, reserved=True, event=0, src=_SRC_HOST, about=0, player=0, text=""):
        """Push the event of that kind, its fields as its row of protocol.EVENTS
        names them (replies.fields, which takes event, src, about, player and
        text); reserved: its eseq was taken already (by the reply that names
        it, sent first)."""
        w = self._event(kind, reserved)
        replies.fields(self, w, protocol.EVENTS[kind][1], event, src, about, player, text)
        self._push(kind)

    def _push(self, kind):
        """Send the event composed in self.events, then tell the listeners (the display)."""
        w = self.events
        w.finish()
        _emit(self.out, w.buf, w.length)
        self._tell_listeners(kind)

    def _tell_listeners(self, kind):
        for callback in self.listeners:
            try:
                callback(kind)
            except Exception:  # a display bug must not stop the scoring
                self.listener_errors += 1

    def _refuse(self, seq, code, message, reply):
        if reply:
            self.error(seq, code, message)
        return message

    # size: the change path on a hot path, in its order (journal, apply, reply, event): a call more costs each change
    def _change(self, kind, seq, crc, event, src, reply):
        """Every change of the game in progress, from the host or the board's
        own controls: check it, journal it, apply it, answer the host, and only
        then push the event and let the display draw. kind: KIND_APPLY (event),
        KIND_UNDO or KIND_REDO. Returns None, or the refusal's message (then
        nothing changed)."""
        game = self.game
        if game.held:
            # docs/rules.md CF1: nothing else is entered while a change waits
            return self._refuse(seq, protocol.E_RULE, game.held_message(self.config.names), reply)
        if kind == KIND_APPLY:
            try:
                game.check(event)
            except ValueError as exc:
                if game.rules is not None and game.n >= len(game.log):
                    # what to do next (docs/protocol.md, Errors): the game is
                    # kept whole; more changes need a new game
                    return self._refuse(seq, protocol.E_FULL, "%s; archive the game and start a new one" % exc, reply)
                field = None if game.rules is None else replies.out_of_range(game, event)
                if field is not None and reply:
                    replies.field_error(self, seq, field)
                    return str(exc)
                return self._refuse(seq, protocol.E_RULE, str(exc), reply)
        elif game.rules is None:
            return self._refuse(seq, protocol.E_RULE, b"no game in progress; start one with NEW", reply)
        elif kind == KIND_UNDO and not game.can_undo():
            return self._refuse(seq, protocol.E_RULE, b"nothing to undo", reply)
        elif kind == KIND_REDO:
            if not game.can_redo():
                return self._refuse(seq, protocol.E_RULE, b"nothing to redo", reply)
            event = game.log[game.n]
        if self._confirming() and (game.rules.ends_hand(event) if kind == KIND_APPLY else game.closes_hand(kind)):
            return self.module("tallyrun.confirming").hold(self, kind, seq, crc, event, src, reply)
        try:
            self.journal.append(kind, event if kind == KIND_APPLY else 0, seq, crc)
        except OSError as exc:
            return self._refuse(seq, protocol.E_FLASH, replies.flash_failed(exc, "nothing changed"), reply)
        if kind == KIND_APPLY:
            self.log_changed(game.n)             # the redo stack it drops, and the event's own place
            game.apply_checked(event)            # checked above, before the journal
        elif kind == KIND_UNDO:
            game.undo()
        else:
            game.redo()
        pushed = _PUSHED[kind]
        self._reserve_eseq()      # the reply names the event that follows it
        if reply:
            replies.change(self, seq, -1 if kind == KIND_UNDO else event)
        self.tell(pushed, True, event, src)
        self.journal.after_append()   # an erase ahead, now and then: after the reply
        return None

    def log_changed(self, at):
        """The game's log, or who accepted one of its events, changes from event
        at on (-1: a game begins, new or restored): its CRCs and its chain are
        made again from there. The chain (tallyrun.chain) is made when a game
        first begins, its machine code loaded at its first head; a board with
        no game holds none of it."""
        if self.log_crcs_valid > at:
            self.log_crcs_valid = at if at > 0 else 0
        if self.chain is not None:
            self.chain.rewritten(at)
        elif at < 0 and self.game.rules is not None:
            self.chain = self.module("tallyrun.chain").Chain()

    def _settle(self, record, taken=0, who=0):
        """The held change accepted (by player who) or rejected (confirming.settle)."""
        self.module("tallyrun.confirming").settle(self, record, taken, who)

    def _configure(self, key, player, value):
        """A setting changed by the board itself (configuring.change)."""
        self.module("tallyrun.configuring").change(self, key, player, value)

    def _confirming(self):
        """Whether a hand waits for an opponent's accept: the board's setting,
        or the game was started with confirmation forced on."""
        return self.config.confirm or self.game.forced()

    def ready_to_confirm(self):
        """confirming.py loaded as soon as a hand may wait for its accept (at
        boot, a new game, a setting changed), so that holding one allocates
        nothing; a board that never confirms a hand never loads it."""
        if self._confirming():
            self.module("tallyrun.confirming")

    def _new(self, seq, crc, index, players, options, reply=True):
        try:
            self.game.check_new(index, players, options)   # the player range, then the options
        except ValueError as exc:
            return self._refuse(seq, protocol.E_RANGE, str(exc), reply)
        try:
            self.journal.start(index, players, options, seq, crc)
        except OSError as exc:
            # the record is not in (or torn: the journal snapshots before its next one)
            return self._refuse(seq, protocol.E_FLASH, replies.flash_failed(exc, "the game in progress is kept"), reply)
        self.game.new(index, players, options)
        self.log_changed(-1)
        self.ready_to_confirm()
        self._reserve_eseq()
        if reply:
            replies.change(self, seq)
        self.tell(protocol.EV_NEW)
        self.journal.after_append()
        return None

    def kept(self):
        """Whether the host's archive holds the game as it stands: its last
        KEPT names these n events in force and their log CRC."""
        kept = self.journal.kept
        n = self.game.n
        return kept != 0 and kept & 0x3FF == n and kept >> 10 == replies.log_crc_to(self, n)

    def _kept(self, seq, crc, n, lcrc):
        # KEPT: journaled with the game (journal.keep) before the reply
        if self.game.rules is None:
            self.error(seq, protocol.E_RULE, b"no game in progress; start one with NEW")
            return
        if n != self.game.n or lcrc != replies.log_crc_to(self, n):
            self.error(seq, protocol.E_RULE, b"the game changed since the host read it; archive it again")
            return
        try:
            self.journal.keep(n | lcrc << 10, seq, crc)
        except OSError as exc:
            self.error(seq, protocol.E_FLASH, replies.flash_failed(exc, "nothing changed"))
            return
        self._reserve_eseq()
        replies.change(self, seq)
        self.tell(protocol.EV_KEPT)
        self.journal.after_append()

    def local_event(self, event):
        """Apply a packed core event from the board's buttons, journaled and
        pushed like a host request. Raises ValueError (the core's message)
        when refused; nothing changed then."""
        _raise_if(self._change(KIND_APPLY, 0, 0, event, _SRC_BOARD, False))

    def local_undo(self):
        _raise_if(self._change(KIND_UNDO, 0, 0, 0, _SRC_BOARD, False))

    def local_redo(self):
        _raise_if(self._change(KIND_REDO, 0, 0, 0, _SRC_BOARD, False))

    def local_accept(self, player):
        """Player (its index) accepts the held change on the board (a seat
        button); ValueError when there is none, or when player may not."""
        game = self.game
        if game.held and not game.held_by >> player & 1:
            raise ValueError(game.held_message(self.config.names))
        self._settle(KIND_ACCEPT, 0, player)

    def local_reject(self):
        """The held change rejected on the board (a long press). A rejected
        hand goes whole (docs/rules.md CF1): the events of its hand applied
        before it go with it, in the same journal record (a power cut keeps
        the hand whole or gone), and off the redo stack. Returns how many
        were taken back; allocation-free."""
        game = self.game
        taken = game.open_hand() if game.held == KIND_APPLY else 0
        self._settle(KIND_REJECT_HAND, taken)
        return taken

    def local_new(self):
        """The board's own new game: the game in play again, for the same
        players and options (its menu asks first). ValueError when refused."""
        game = self.game
        if game.rules is None:
            raise ValueError("game: no game in progress; start one from the host")
        _raise_if(self._new(0, 0, game.index, game.players, game.options, False))

    def local_cfg(self, key, player, value):
        """A setting changed by the board itself (the club link seating its
        round: the names, the round), saved and pushed as CFG like CFG SET.
        ValueError or OSError when refused; nothing changed then."""
        self._configure(key, player, value)

    def on_start(self, starter):
        """starter() is called inside the running loop (to create its tasks)."""
        self.starters.append(starter)

    # --- the loop (tallyrun/serve.py) -------------------------------------------------
    def receiving(self):
        """True while a request is arriving or waiting to be read: the display
        waits (allocation-free)."""
        return self.module("tallyrun.serve").receiving(self)

    def run(self, watchdog=None):
        asyncio.run(self.module("tallyrun.serve").main(self, watchdog))


# The handlers of the changes the host asks for (their rows of protocol.VERBS name them): the one change path
def serve_new(app, seq, req):
    v = req.values
    app._new(seq, req.crc, v[0], v[1], v[2] if req.nargs > 2 else 0)


def serve_ev(app, seq, req):
    app._change(KIND_APPLY, seq, req.crc, req.values[0], _SRC_HOST, True)


def serve_undo(app, seq, req):
    app._change(KIND_UNDO, seq, req.crc, 0, _SRC_HOST, True)


def serve_redo(app, seq, req):
    app._change(KIND_REDO, seq, req.crc, 0, _SRC_HOST, True)


def serve_kept(app, seq, req):
    app._kept(seq, req.crc, req.values[0], req.values[1])
