# The reply to WHY (docs/protocol.md): why an event of the log scored what it
# did, its parts from tallycore.why. Loaded by the first WHY, with
# tallycore.why: a board never asked holds neither on its heap. The handler
# of WHY's row (protocol.VERBS): it writes the row's fields itself (field()).
from tallycore.game import HELD_APPLY
from tallyrun import protocol


def serve(app, seq, req):
    """WHY [n] [at] (its row in protocol.VERBS): the reply of the parts why() explains."""
    v = req.values
    at = v[1] if req.nargs > 1 else 0
    parts = why(app, seq, v[0] if req.nargs else 0, at)
    if parts is not None:
        w = app.writer
        w.reply(seq)
        write(w, parts, at)
        app.send_reply()


def write(w, parts, at):
    """The fields of WHY's row, the parts from at on."""
    for name in protocol.VERBS[protocol.V_WHY][3]:
        field(w, name, parts, at)


def why(app, seq, n, at):
    """WHY [n] [at]: the parts event n (1-based; default the last applied, or
    the change held for its confirmation) scored and the codes of their
    reasons (tallycore.why, imported on the first WHY: the board's heap holds
    it only once asked), for the reply from part at on; None when an error
    was answered instead."""
    game = app.game
    if game.rules is None:
        app.error(seq, protocol.E_RULE, b"no game in progress; start one with NEW")
        return None
    most = game.n + 1 if game.held == HELD_APPLY else game.n
    if most == 0:
        app.error(seq, protocol.E_RULE, b"nothing scored yet: WHY explains an event once one is applied")
        return None
    if n == 0:
        n = most
    if n > most:
        w = app.writer
        w.error(seq, protocol.E_RANGE, b"n: must be 1 to ")
        w.number(most)
        w.text(b" (the events applied, as STATE's n says)" if most == game.n else
               b" (the events applied and the change held, as STATE says)")
        app.send_reply()
        return None
    from tallycore import why as core_why
    parts = app.why_parts
    if parts is None:
        parts = app.why_parts = core_why.Parts()
    try:
        core_why.explain(game, n - 1, parts)
    except ValueError as exc:
        app.error(seq, protocol.E_RULE, str(exc))
        return None
    if at and at >= parts.count:
        w = app.writer
        w.error(seq, protocol.E_RANGE, b"at: must be 0 to ")
        w.number(parts.count - 1 if parts.count else 0)
        w.text(b" (the event's parts less one)")
        app.send_reply()
        return None
    return parts


def field(w, name, parts, at):
    """WHY's fields: the event (parts.index), whether it ended the game, and as
    many of its parts (given as fields()'s about) from at as fit, as three
    lists; False if name is none of them."""
    if name == "WHY.n":
        w.key(b"n")
        w.number(parts.index + 1)
    elif name == "WHY.won":
        w.key(b"won")
        if parts.ended:
            w.number(parts.winners)
        else:
            w.byte(45)
    elif name == "parts":
        w.key(b"parts")
        w.number(parts.count)
    elif name == "WHY.at":
        w.key(b"at")
        w.number(at)
    elif name == "WHY.count":
        w.key(b"count")
        w.number(_why_fit(w, parts, at))
    elif name == "WHY.who":
        _list(w, b"who", parts.player, at, _shown[0])
    elif name == "pts":
        _list(w, b"pts", parts.points, at, _shown[0])
    elif name == "why":
        _list(w, b"why", parts.code, at, _shown[0])
    else:
        return False
    return True


_shown = bytearray(1)   # how many parts WHY.count said fit: the lists write as many


def _why_fit(w, parts, at):
    """How many parts from at the three lists have room for after count's own
    digits (kept in _shown for the lists)."""
    room = w.room() - 18   # " who=" " pts=" " why=" and the count's two digits at most, and a byte spare
    count = 0
    while at + count < parts.count:
        i = at + count
        need = _digits(parts.player[i]) + _digits(parts.points[i]) + _digits(parts.code[i]) + (3 if count else 0)
        if need > room:
            break
        room -= need
        count += 1
    _shown[0] = count
    return count


def _digits(value):
    n = 2 if value < 0 else 1
    if value < 0:
        value = -value
    while value >= 10:
        value //= 10
        n += 1
    return n


def _list(w, key, values, at, count):
    w.key(key)
    if not count:
        w.byte(45)
    for i in range(at, at + count):
        if i > at:
            w.byte(44)
        w.number(values[i])
