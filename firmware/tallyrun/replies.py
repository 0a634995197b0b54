# The board's replies to the requests that read (HELLO, GAME, STATE, SCORE,
# LOG, STATS) and the fields every change reply carries, written into the
# app's preallocated frame writer (tallyrun.protocol.Writer) and sent with
# app.send_reply(): allocation-free but for STATS (a collection first).
# fields() is the one writer of the fields a row of protocol.EVENTS, a
# change's reply, STATE or SCORE names, in the row's order.
from tallycore.games import GAMES
from tallyrun import protocol as P


def flash_failed(exc, kept):
    # errno 28 (ENOSPC): the filesystem is full, and trying again will not help
    if exc.args and exc.args[0] == 28:
        return "the board's flash is full; %s: free space (mpremote rm) or redeploy" % kept
    return "flash write failed; %s; try again" % kept


def _zero():
    return 0


def change(app, seq, event=-1):
    w = app.writer
    w.reply(seq)
    # ev: the event applied: a host keeps its copy of the game without reading it back
    app.said_event = event
    fields(app, w, P.APPLIED if event >= 0 else P.CHANGED)
    if app.game.held:
        held(app, w)       # the change waits for its confirmation: n and top did not move
    app.send_reply()


def fields(app, w, names):
    """Write the fields a row names (protocol.EVENTS, a change's reply), in
    its order, each in its one format (tallyrun.wirefields, for the docs). What a field says
    beyond the game's state is on the app: said_event (ev), said_src (src),
    said_key and said_player (CFG), said_text (NOTE), settled_kind and
    settled_event (held, once the held change went). Allocation-free."""
    game = app.game
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
            w.number(app.said_event)
        elif name == "src":
            w.key(b"src")
            w.text(app.said_src)
        elif name == "totals":
            totals(app, w)
        elif name == "held":
            if game.held or not app.settled_kind:
                held(app, w)   # what waits, or -
            else:   # the held change just went (ACCEPT, REJECT): what it was
                w.key(b"held")
                w.number(app.settled_kind)
                w.byte(44)
                w.number(app.settled_event)
        elif name == "by":
            w.key(b"by")
            w.number(game.held_by)
        elif name == "game":
            game_name(app, w)
        elif name == "players":
            w.key(b"players")
            w.number(game.players)
        elif name == "options":
            w.key(b"options")
            w.number(game.options)
        elif name == "fw":
            w.key(b"fw")
            w.text(P.FIRMWARE_VERSION)
        elif name == "proto":
            w.key(b"proto")
            w.number(P.PROTOCOL_VERSION)
        elif name == "text":
            w.key(b"text")
            w.text(app.said_text)
        elif name == "key":
            cfg_fields(app, w, app.said_key, app.said_player)
            return   # key player value: the three together
        elif name == "lcrc":
            w.key(b"lcrc")
            w.hex(log_crc(app), 4)
        elif name == "notes":
            w.key(b"notes")
            w.number(len(app.notes))
        elif name == "hands":
            w.key(b"hands")
            w.number(game.hands())
        elif name == "complete":
            w.key(b"complete")
            w.number(1 if game.complete() else 0)
        elif name == "winners":
            w.key(b"winners")
            w.number(game.winners())
        else:
            raise ValueError(name)   # a row names a field this writer does not know: a firmware bug


def cfg_fields(app, w, key, player):
    """key player value of CFG's reply and event."""
    spec = P.CONFIG_KEYS[key]
    w.key(b"key")
    w.text(spec[0])
    w.key(b"player")
    if spec[4]:
        w.number(player)
    else:
        w.byte(45)
    w.key(b"value")
    value = app.config.get(key, player)
    if spec[1] == P.T_RGB:
        w.hex(value, 6)
    elif spec[1] == P.T_INT:
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
    w.text(P.GAME_NAMES[app.game.index])

def hello(app, seq):
    w = app.writer
    w.reply(seq)
    w.key(b"fw")
    w.text(P.FIRMWARE_VERSION)
    w.key(b"proto")
    w.number(P.PROTOCOL_VERSION)
    w.key(b"board")
    w.text(app.board_name)
    w.key(b"games")
    w.number(len(GAMES))
    w.key(b"frame")
    w.number(P.MAX_FRAME)
    w.key(b"log")
    w.number(len(app.game.log))
    w.key(b"players")
    w.number(P.MAX_PLAYERS)
    w.key(b"seqs")
    w.number(app.open_session())
    app.send_reply()

def game_info(app, seq, index):
    if index >= len(GAMES):
        app.error(seq, P.E_RANGE, b"no game at that index; HELLO says how many there are")
        return
    row = GAMES[index]
    w = app.writer
    w.reply(seq)
    w.key(b"index")
    w.number(index)
    w.key(b"name")
    w.text(P.GAME_NAMES[index])
    w.key(b"min")
    w.number(row[1])
    w.key(b"max")
    w.number(row[2])
    w.key(b"options")
    w.text(P.GAME_OPTIONS[index])
    app.send_reply()

def _stamp(app, w, event=True):
    # what says which game this is and how far it has gone (STATE, OPEN)
    game = app.game
    game_name(app, w)
    w.key(b"players")
    w.number(game.players)
    w.key(b"options")
    w.number(game.options)
    w.key(b"n")
    w.number(game.n)
    w.key(b"top")
    w.number(game.top)
    w.key(b"lcrc")
    w.hex(log_crc(app), 4)
    held(app, w, event)

def state(app, seq):
    w = app.writer
    w.reply(seq)
    fields(app, w, P.VERBS[P.V_STATE][3])
    app.send_reply()

def note(app, seq, index):
    if index >= len(app.notes):
        app.error(seq, P.E_RANGE, b"no note at that index; STATE says how many (notes)")
        return
    w = app.writer
    w.reply(seq)
    w.key(b"count")
    w.number(len(app.notes))
    w.key(b"text")
    w.text(app.notes[index])
    app.send_reply()

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
        crc = P.crc16(four, 0, 4, crc)
        prefix[at] = crc
        at += 1
    app.log_crcs_valid = at
    return prefix[game.top - 1] if game.top else 0xFFFF

def log_crc_to(app, n):
    """CRC-16 of log[0:n] (n <= top), from the same running prefix CRCs."""
    log_crc(app)
    return app.log_crcs[n - 1] if n else 0xFFFF


def open_session(app, seq):
    """OPEN: HELLO's session and protocol check with what a host needs to tell
    whether its cached view of the game is current."""
    w = app.writer
    w.reply(seq)
    w.key(b"proto")
    w.number(P.PROTOCOL_VERSION)
    w.key(b"seqs")
    w.number(app.open_session())
    _stamp(app, w, False)
    w.key(b"ccrc")
    w.hex(app.config.crc, 4)
    w.key(b"notes")
    w.number(len(app.notes))
    app.send_reply()

def totals(app, w):
    game = app.game
    w.key(b"totals")
    for p in range(game.players):
        if p:
            w.byte(44)
        w.number(game.total(p))

def score(app, seq):
    game = app.game
    if game.rules is None:
        app.error(seq, P.E_RULE, b"no game in progress; start one with NEW")
        return
    w = app.writer
    w.reply(seq)
    fields(app, w, P.VERBS[P.V_SCORE][3])
    app.send_reply()

def log(app, seq, at):
    game = app.game
    top = game.top
    if at > top:
        app.error(seq, P.E_RANGE, b"at is past the end of the log (STATE gives top)")
        return
    w = app.writer
    w.reply(seq)
    w.key(b"at")
    w.number(at)
    w.key(b"count")
    count_at = w.length
    w.text(b"000")   # patched below: three digits, zero-padded
    w.key(b"top")
    w.number(top)
    w.key(b"ev")
    count = 0
    log = game.log
    while at + count < top and w.room() >= 12:
        if count:
            w.byte(44)
        w.number(log[at + count])
        count += 1
    buf = w.buf
    buf[count_at] = 48 + count // 100
    buf[count_at + 1] = 48 + (count // 10) % 10
    buf[count_at + 2] = 48 + count % 10
    app.send_reply()

def stats(app, seq):
    import gc
    gc.collect()
    w = app.writer
    w.reply(seq)
    w.key(b"free")
    w.number(getattr(gc, "mem_free", _zero)())   # MicroPython only
    w.key(b"alloc")
    w.number(getattr(gc, "mem_alloc", _zero)())
    w.key(b"block")
    w.number(largest_free_block(getattr(gc, "mem_free", _zero)()))
    w.key(b"served")
    w.number(app.served)
    w.key(b"journal")
    w.number(app.journal.records)
    w.key(b"errors")
    w.number(app.listener_errors + app.internal_errors)
    app.send_reply()


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
