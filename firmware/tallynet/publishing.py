# The table's state published (docs/club-mqtt.md, "A board on the club's
# Wi-Fi"): the link's part that composes the body from the game when the
# host is quiet, numbers it on flash (tallynet.outbox) once the director has
# confirmed the last one, then seals and publishes it, again after every
# reconnection and when unconfirmed (doubling to 5 minutes). Called by
# tallynet.link.Link's step, as functions of the link, whose state they read and write.
from tallycore import const, ticks_add, ticks_diff, ticks_ms

from tallyrun import protocol
from tallyrun import replies
from tallynet import envelope, tablestate, topics

QUIET_MS = const(50)             # the host quiet this long before the body is composed
RESEND_MS = const(5000)          # the director has this long to confirm before the message goes again
_RESEND_MAX_MS = const(300000)
BUSY_MS = const(200)             # after a publish, the client's turn every step: its packets go a slice a step


def waiting(link):
    outbox = link.outbox
    unconfirmed = 1 if outbox.seq > 0 and link.applied < outbox.seq else 0
    moved = 1 if link.body is not None and link.body != outbox.body else 0
    return unconfirmed + moved


def compose(link):
    app = link.app
    config = app.config
    game = app.game
    seat = link.seat.seated
    names = None
    options = None
    if seat is not None and seat["round"] == config.round:
        names = seat["names"]
        options = seat["record_options"]
    name = protocol.GAME_NAMES[game.index].decode() if game.rules is not None else None
    board_id = "%s@%s" % (app.board_name, link.ident)
    held = str(game.held) if game.held else "-"
    lcrc = "%04X" % replies.log_crc(app)
    body = tablestate.board_body(game, name, config.round, config.table, link.ident, board_id, names,
                                 options, lcrc, held)
    record = body["record"]
    if record is not None and game.complete():
        # the game over: its record goes with the board's signature of its chain (a second or two
        # of the chip's, once: boardkey keeps the tag of the head). A heap with no room for the
        # signature's big numbers (a Pico W on the stock image), or a flash that cannot keep the
        # key, sends the record unsigned rather than not at all: the director has the hands
        try:
            from tallynet import boardkey
            record["chain"] = boardkey.record_chain(app, len(record["hands"]))
        except (MemoryError, OSError):
            pass
    link.body = envelope.canonical(body)
    link.body_hands = tablestate.hands_in(body)


def quiet(link):
    """The host is not talking to the board: the link's slices of work go
    between requests, never in front of one (a request waits at most one slice)."""
    app = link.app
    return not app.receiving() and ticks_diff(ticks_ms(), app.last_request_ms) >= QUIET_MS


def compose_if_due(link):
    """One slice: the body composed again after a change. True if it was."""
    if link.dirty and quiet(link):
        compose(link)
        link.dirty = False       # after: a compose cut short (MemoryError) is done again
        return True
    return False


def publish(link, now):
    """One slice at most: compose, or number on flash, or seal and publish."""
    outbox = link.outbox
    if compose_if_due(link):
        return
    confirmed = outbox.seq == 0 or link.applied >= outbox.seq
    if confirmed and link.body is not None and link.body != outbox.body:
        if not quiet(link):
            return
        kind = topics.HAND if link.body_hands > outbox.hands and link.body_hands else topics.STATE
        try:
            outbox.number(kind, link.body_hands, link.body)
        except OSError:
            link.net.error = "flash"
            return
        link.send_now = True
        link.resend_wait = RESEND_MS
        return
    if confirmed:
        return
    if (link.send_now or ticks_diff(now, link.resend_at) >= 0) and quiet(link):
        client = link.client
        if client is None or outbox.body is None:
            return
        payload = envelope.seal_body(link.net.key(), link.event, link.ident, outbox.seq, outbox.kind,
                                     outbox.body)
        link.busy_until = ticks_add(now, BUSY_MS)
        try:
            client.publish(link.topic_hand if outbox.kind == topics.HAND else link.topic_state, payload, qos=1)
        except Exception:   # backpressure, or the connection just went: the next step tries again
            return
        link.sent += 1
        if not link.send_now:
            link.resend_wait = min(link.resend_wait * 2, _RESEND_MAX_MS)
        link.send_now = False
        link.resend_at = ticks_add(now, link.resend_wait)
