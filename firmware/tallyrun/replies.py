# The board's replies to the requests that read (HELLO, GAME, OPEN, STATE,
# SCORE, LOG, STATS, NOTE) and the fields every change reply carries, written
# into the app's preallocated frame writer (tallyrun.outgoing.Writer) and
# sent with app.send_reply(): allocation-free but for STATS (a collection
# first, and the probe of the largest free block).
# fields() is the one writer of the fields a row of protocol.EVENTS or a
# verb's reply (protocol.VERBS) names, in the row's order: every reply and
# event is written from its row, and docs/protocol.md from the same rows.
import gc

from tallycore.games import GAMES
from tallyrun import protocol
from tallyrun.protocol import crc16


def flash_failed(exc, kept):
    # errno 28 (ENOSPC): the filesystem is full, and trying again will not help
    if exc.args and exc.args[0] == 28:
        return "the board's flash is full; %s: free space (mpremote rm) or redeploy" % kept
    return "flash write failed; %s; try again" % kept


def _zero():
    return 0


def change(app, seq, event=-1):
    """A change's reply: n top eseq, and ev (the event applied: a host keeps its
    copy of the game without reading it back) unless event is -1."""
    w = app.writer
    w.reply(seq)
    fields(app, w, protocol.APPLIED if event >= 0 else protocol.CHANGED, event)
    if app.game.held:
        held(app, w)       # the change waits for its confirmation: n and top did not move
    app.send_reply()


def fields(app, w, names, event=0, src=b"host", about=0, player=0, text=""):
    """Write the fields a row names (protocol.EVENTS, a verb's reply), in its
    order, each in its one format (tallyboard.boardlink.wirefields, for the docs). What
    a field says beyond the game's and the app's state is given: event (ev:
    the event applied; held, once a held change went: its event), src (who
    made the change), about (what the row is of: GAME's and NOTE's index,
    LOG's at, CFG's key; held, once a held change went: its kind; ENTRY's
    rows), player (CFG's; ACCEPT's who),
    text (NOTE's). Allocation-free. The fields of a change are
    looked for first: they are the request path's; the others are the
    reads', by what they say (_game_field, _read_field, _board_field)."""
    game = app.game
    count_at = 0   # LOG.count: where its three digits go once LOG.ev has counted
    count = 0      # LOG.ev's count, for LOG.who
    for name in names:
        if name == "n":
            w.key(b"n")
            w.number(game.n)
        elif name == "top":
            w.key(b"top")
            w.number(game.top)
        elif name == "eseq":
            w.key(b"eseq")
            w.number(app.eseq)
        elif name == "ev":
            w.key(b"ev")
            w.number(event)
        elif name == "src":
            w.key(b"src")
            w.text(src)
        elif name == "totals":
            totals(app, w)
        elif name == "held":
            _held_field(app, w, event, about)
        elif name == "who":
            w.key(b"who")
            w.number(player)
        elif name == "by":
            w.key(b"by")
            w.number(game.held_by)
        elif name == "key":
            cfg_fields(app, w, about, player)
            return   # key player value: the three together
        elif name == "text":
            w.key(b"text")
            w.text(text)
        elif name == "LOG.count":
            w.key(b"count")
            count_at = w.length
            w.text(b"000")   # LOG.ev writes the count here: three digits, zero-padded
        elif name == "LOG.ev":
            count = _log_events(app, w, count_at, about)
        elif name == "LOG.who":
            _log_accepted(app, w, about, count)
        elif not (_game_field(app, w, name) or _read_field(app, w, name, about) or _board_field(app, w, name)
                  or _entry_field(w, name, about)):
            raise ValueError(name)   # a row names a field this writer does not know: a firmware bug


def _held_field(app, w, event, kind):
    """held: what waits, or -; once a held change went (ACCEPT, REJECT, kind given), what it was."""
    if app.game.held or not kind:
        held(app, w)
        return
    w.key(b"held")
    w.number(kind)
    w.byte(44)
    w.number(event)


def _game_field(app, w, name):
    """A field of the game in play or the host's session (STATE, OPEN, SCORE, BOOT, NEW);
    False if name is none of them."""
    game = app.game
    if name == "game":
        game_name(app, w)
    elif name == "players":
        w.key(b"players")
        w.number(game.players)
    elif name == "options":
        w.key(b"options")
        w.number(game.options)
    elif name == "lcrc":
        w.key(b"lcrc")
        w.hex(log_crc(app), 4)
    elif name == "chain":
        w.key(b"chain")
        if game.rules is None or app.chain is None:
            w.byte(45)
        else:
            app.chain.write_short(w, game)
    elif name == "OPEN.held":
        held(app, w, False)
    elif name == "hands":
        w.key(b"hands")
        w.number(game.hands())
    elif name == "complete":
        w.key(b"complete")
        w.number(1 if game.complete() else 0)
    elif name == "winners":
        w.key(b"winners")
        w.number(game.winners())
    elif name == "notes":
        w.key(b"notes")
        w.number(len(app.notes))
    elif name == "ccrc":
        w.key(b"ccrc")
        w.hex(app.config.crc, 4)
    elif name == "seqs":
        w.key(b"seqs")
        w.number(app.open_session())   # the field opens the session (HELLO, OPEN)
    else:
        return False
    return True


def _read_field(app, w, name, about):
    """A field of a read of one thing: about is GAME's index, LOG's at, NOTE's
    index; False if name is none of them."""
    if name == "index":
        w.key(b"index")
        w.number(about)
    elif name == "name":
        w.key(b"name")
        w.text(protocol.GAME_NAMES[about])
    elif name == "min":
        w.key(b"min")
        w.number(GAMES[about][1])
    elif name == "max":
        w.key(b"max")
        w.number(GAMES[about][2])
    elif name == "GAME.options":
        w.key(b"options")
        w.text(protocol.GAME_OPTIONS[about])
    elif name == "at":
        w.key(b"at")
        w.number(about)
    elif name == "NOTE.count":
        w.key(b"count")
        w.number(len(app.notes))
    elif name == "NOTE.text":
        w.key(b"text")
        w.text(app.notes[about])
    else:
        return False
    return True


def _board_field(app, w, name):
    """A field of the board and its firmware (HELLO, BOOT, STATS); False if
    name is none of them."""
    if name == "fw":
        w.key(b"fw")
        w.text(protocol.FIRMWARE_VERSION)
    elif name == "proto":
        w.key(b"proto")
        w.number(protocol.PROTOCOL_VERSION)
    elif name == "board":
        w.key(b"board")
        w.text(app.board_name)
    elif name == "games":
        w.key(b"games")
        w.number(len(GAMES))
    elif name == "frame":
        w.key(b"frame")
        w.number(protocol.MAX_FRAME)
    elif name == "log":
        w.key(b"log")
        w.number(len(app.game.log))
    elif name == "HELLO.players":
        w.key(b"players")
        w.number(protocol.MAX_PLAYERS)
    elif name == "free":
        w.key(b"free")
        w.number(_mem_free())
    elif name == "alloc":
        w.key(b"alloc")
        w.number(getattr(gc, "mem_alloc", _zero)())
    elif name == "block":
        w.key(b"block")
        w.number(largest_free_block(_mem_free()))
    elif name == "served":
        w.key(b"served")
        w.number(app.served)
    elif name == "journal":
        w.key(b"journal")
        w.number(app.journal.records)
    elif name == "errors":
        w.key(b"errors")
        w.number(app.listener_errors + app.internal_errors)
    else:
        return False
    return True


def cfg_fields(app, w, key, player):
    """key player value of CFG's reply and event."""
    spec = protocol.CONFIG_KEYS[key]
    w.key(b"key")
    w.text(spec[0])
    w.key(b"player")
    if spec[4]:
        w.number(player)
    else:
        w.byte(45)
    w.key(b"value")
    value = app.config.get(key, player)
    if spec[1] == protocol.T_RGB:
        w.hex(value, 6)
    elif spec[1] == protocol.T_INT:
        w.number(value)
    else:
        w.text(value)


def held(app, w, event=True):
    """held=- (nothing waits for a confirmation) or held=kind,event: kind 1
    apply, 2 undo, 3 redo (docs/protocol.md); without event, the kind alone
    (OPEN: its frame has no room for the event beside the rest)."""
    game = app.game
    w.key(b"held")
    if not game.held:
        w.byte(45)
        return
    w.number(game.held)
    if event:
        w.byte(44)
        w.number(game.held_event)

def game_name(app, w):
    w.key(b"game")
    if app.game.rules is None:
        w.byte(45)
        return
    w.text(protocol.GAME_NAMES[app.game.index])

def read(app, seq, verb, about=0, player=0):
    """The reply of a request that reads: the fields of its verb's row (about,
    player: as fields() takes them)."""
    w = app.writer
    w.reply(seq)
    fields(app, w, protocol.VERBS[verb][3], 0, b"host", about, player)
    app.send_reply()


def read_verb(app, seq, req):
    """HELLO, OPEN, STATE: the fields of the verb's row, as the board has them."""
    read(app, seq, req.verb)


def entry(app, seq, req):
    """ENTRY: the hand entry on the board's own screen as it shows it now, or
    - for each row when none is open (a board without the panel's code or OLED too)."""
    screen = app.entry_screen
    read(app, seq, protocol.V_ENTRY, screen() if screen is not None else None)


def _entry_field(w, name, rows):
    """ENTRY's rows of the entry screen (tallypanel.view.entry_rows, given as fields()'s
    about); False if name is none of them."""
    if name == "head":
        _row(w, b"head", rows, 0, 0)
    elif name == "step":
        _row(w, b"step", rows, 1, 0)
    elif name == "ENTRY.value":
        _row(w, b"value", rows, 2, 1)   # between the arrows
    elif name == "entered":
        _row(w, b"entered", rows, 3, 0)
    else:
        return False
    return True


def _row(w, key, rows, r, first):
    """One screen row from column first to its last character, spaces as _, or -."""
    w.key(key)
    if rows is None:
        w.byte(45)
        return
    line = rows[r]
    end = 15 if r == 2 else len(line)   # the value row (16 big characters): up to its closing arrow
    while end > first and line[end - 1] == 32:
        end -= 1
    if end <= first:
        w.byte(45)
        return
    for i in range(first, end):
        c = line[i]
        w.byte(95 if c == 32 else c if 32 < c < 127 and c != 42 else 63)


def game_info(app, seq, req):
    index = req.values[0]
    if index >= len(GAMES):
        app.error(seq, protocol.E_RANGE, b"no game at that index; HELLO says how many there are")
        return
    read(app, seq, protocol.V_GAME, index)


def note(app, seq, req):
    index = req.values[0]
    if index >= len(app.notes):
        app.error(seq, protocol.E_RANGE, b"no note at that index; STATE says how many (notes)")
        return
    read(app, seq, protocol.V_NOTE, index)


def log_crc(app):
    """CRC-16 of log[0:top], 4 bytes LE each: from the app's running prefix CRCs,
    extended from where they are still right (allocation-free)."""
    game = app.game
    prefix = app.log_crcs
    log = game.log
    four = app.journal.record   # 12 spare bytes between journal writes
    at = app.log_crcs_valid
    crc = prefix[at - 1] if at else 0xFFFF
    while at < game.top:
        e = log[at]
        four[0] = e & 0xFF
        four[1] = (e >> 8) & 0xFF
        four[2] = (e >> 16) & 0xFF
        four[3] = (e >> 24) & 0xFF
        crc = crc16(four, 0, 4, crc)
        prefix[at] = crc
        at += 1
    app.log_crcs_valid = at
    return prefix[game.top - 1] if game.top else 0xFFFF

def log_crc_to(app, n):
    """CRC-16 of log[0:n] (n <= top), from the same running prefix CRCs."""
    log_crc(app)
    return app.log_crcs[n - 1] if n else 0xFFFF


def totals(app, w):
    game = app.game
    w.key(b"totals")
    for p in range(game.players):
        if p:
            w.byte(44)
        w.number(game.total(p))

def score(app, seq, req):
    if app.game.rules is None:
        app.error(seq, protocol.E_RULE, b"no game in progress; start one with NEW")
        return
    read(app, seq, protocol.V_SCORE)


def log(app, seq, req):
    at = req.values[0]
    top = app.game.top
    if at > top:
        w = app.writer            # the form of every RANGE: "at: must be 0 to 4 ..."
        w.error(seq, protocol.E_RANGE, b"at: must be 0 to ")
        w.number(top)
        w.text(b" (the log's top, as STATE says)")
        app.send_reply()
        return
    read(app, seq, protocol.V_LOG, at)


def out_of_range(game, event):
    """The field of event outside the range its game declares (its rules'
    EVENT_FORMS: tallycore.game explains them), or None. EV's event is an
    argument like a game verb's: a field out of its range is RANGE, as PEG's
    is, not RULE (what the rules refuse of a well-formed event)."""
    players = game.players
    for form in game.rules.EVENT_FORMS:
        if event & form[1] == form[2]:
            for field in form[3]:
                width = field[2]
                mask = (1 << width) - 1
                for p in range(players if field[6] else 1):
                    value = (event >> (field[1] + p * width)) & mask
                    if value < field[3] or value > field[4]:
                        return field
            return None
    return None


def field_error(app, seq, field):
    """ERR RANGE naming the field of an event: "points: must be 1 to 99"."""
    w = app.writer
    w.error(seq, protocol.E_RANGE, field[0])
    w.text(b": must be ")
    w.number(field[3])
    w.text(b" to ")
    w.number(field[4])
    app.send_reply()


def _log_events(app, w, count_at, at):
    """LOG's ev: as many packed events from at as fit in the frame with
    LOG.who after them, their count written into the three digits LOG.count
    left at count_at. Returns the count."""
    game = app.game
    top = game.top
    w.key(b"ev")
    count = 0
    log = game.log
    # an event and its comma: at most 11 bytes; " who=" and a character per event after them
    while at + count < top and w.room() >= 12 + 5 + count + 1:
        if count:
            w.byte(44)
        w.number(log[at + count])
        count += 1
    if count_at:
        buf = w.buf
        buf[count_at] = 48 + count // 100
        buf[count_at + 1] = 48 + (count // 10) % 10
        buf[count_at + 2] = 48 + count % 10
    return count


def _log_accepted(app, w, at, count):
    """LOG's who: for each event ev lists, the player whose accept made it
    (0-7, docs/rules.md CF2), or - when it was made without one."""
    game = app.game
    w.key(b"who")
    for i in range(at, at + count):
        who = game.accepted_by(i)
        w.byte(45 if who < 0 else 48 + who)


def stats(app, seq, req):
    gc.collect()   # free, alloc and block: after a collection
    read(app, seq, protocol.V_STATS)


def _mem_free():
    return getattr(gc, "mem_free", _zero)()   # MicroPython only


def largest_free_block(free):
    """The largest allocation the heap can take now, to 64 bytes: what a
    module loaded on a game switch needs in one piece. By bisection: a
    failed allocation collects and tries again before it raises, so a
    block let go by the last try counts as free."""
    low = 0
    high = free
    while high - low > 64:
        size = (low + high) // 2
        try:
            probe = bytearray(size)
            del probe
            low = size
        except MemoryError:
            high = size
    return low
