# NET (docs/protocol.md, "The club link"): the link's state, and its
# settings read, set or forgotten over USB. Rare requests (an enrolment):
# they may allocate. A secret is never written back: its value reads "set".
from tallyrun import protocol
from tallynet import settings

_OP_GET = 0
_OP_SET = 1
_OP_LEAVE = 2
_NO_WIFI = b"this board has no Wi-Fi (its board definition does not say wifi: true): enrol a Pico W board"


def serve(app, seq, req):
    net = app.net
    if not req.nargs:
        reply(app, seq, -1)
        return
    op = req.values[0]
    want = 2 if op == _OP_GET else 3 if op == _OP_SET else 1
    if req.nargs != want:
        app.error(seq, protocol.E_ARGS, b"NET, NET GET key, NET SET key value or NET LEAVE")
        return
    if net is None:
        app.error(seq, protocol.E_RULE, _NO_WIFI)
        return
    if op == _OP_LEAVE:
        old = list(net.values)
        net.clear()
        try:
            net.save()
        except OSError as exc:
            net.values = old
            app.error(seq, protocol.E_FLASH, "flash write failed; the board is still enrolled; try again (%s)" % exc)
            return
        _forget(app)
        net.waiting = 0
        reply(app, seq, -1)
        return
    key = req.values[1]
    if op == _OP_SET:
        start = req.starts[4]
        end = req.ends[4]
        token = bytes(req.line[start:end])
        try:
            value = None if token == b"-" else settings.unescape(token)
            value = settings.check(key, value)
        except ValueError as exc:
            app.error(seq, protocol.E_RANGE, "%s; the setting is unchanged" % exc)
            return
        old = net.values[key]
        net.set(key, value)
        try:
            net.save()
        except OSError as exc:
            net.values[key] = old
            app.error(seq, protocol.E_FLASH, "flash write failed; the setting is unchanged; try again (%s)" % exc)
            return
        if key == protocol.NET_EVENT and value != old:
            _forget(app)            # another evening: its numbering starts again, its round is not this one
        if net.enrolled(app.config) and net.starter is not None:
            net.starter()
    reply(app, seq, key)


def _forget(app):
    """The numbering of the board's messages and the round it took, gone (the link's, or the files')."""
    if app.net.forget is not None:
        app.net.forget()
        return
    from tallynet.outbox import Outbox, Seat
    Outbox(app.root).forget()
    Seat(app.root).forget()


def reply(app, seq, key):
    """NET, NET LEAVE (key -1): OK with the link's state; NET GET, NET SET:
    OK key= value= (- for none; a secret: set)."""
    net = app.net
    w = app.writer
    w.reply(seq)
    if key >= 0:
        _setting(w, net, key)
        app.send_reply()
        return
    w.key(b"wifi")
    w.number(0 if net is None else 1)
    w.key(b"enrolled")
    w.number(1 if net is not None and net.enrolled(app.config) else 0)
    w.key(b"joined")
    w.number(1 if net is not None and net.joined else 0)
    w.key(b"broker")
    w.number(1 if net is not None and net.broker else 0)
    w.key(b"waiting")
    w.number(0 if net is None else net.waiting)
    w.key(b"error")
    error = settings.NO_WIFI if net is None else net.error
    if net is not None and not net.enrolled(app.config):
        error = settings.NOT_ENROLLED
    w.text(error or "-")
    app.send_reply()


def _setting(w, net, key):
    row = protocol.NET_KEYS[key]
    w.key(b"key")
    w.text(row[0])
    w.key(b"value")
    value = net.get(key)
    if value is None:
        w.byte(45)
    elif row[4]:
        w.text(b"set")
    elif isinstance(value, int):
        w.number(value)
    elif row[1] == b"key":
        w.text(settings.hex_text(value))   # a public key, as NET SET took it: hex digits
    else:
        w.text(settings.escape(value))
