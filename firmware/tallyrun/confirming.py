# Confirmation by an opponent (docs/rules.md CF, docs/protocol.md): a change
# that closes a hand (or takes one back) is held, journaled as held, answered
# and pushed as HELD; the board's own seat buttons then accept it (ACCEPT:
# made now) or reject it (REJECT: dropped, with the events of its hand before
# it). The app's change path (tallyrun.app) calls hold(); the app's
# local_accept and local_reject call settle().
from tallyrun import protocol
from tallyrun import replies
from tallyrun.journal import KIND_ACCEPT, KIND_ACCEPT_BY, KIND_HELD

_SRC_BOARD = b"board"


def hold(app, kind, seq, crc, event, src, reply):
    """Hold a checked change (kind: KIND_APPLY, KIND_UNDO or KIND_REDO).
    Returns None, or the refusal's message (nothing changed then)."""
    game = app.game
    game.hold(kind, event)     # checked by the caller; works out who accepts and the arithmetic
    try:
        app.journal.append(KIND_HELD | kind, game.held_event, seq, crc)
    except OSError as exc:
        game.reject()
        return app._refuse(seq, protocol.E_FLASH, replies.flash_failed(exc, "nothing changed"), reply)
    app._reserve_eseq()
    if reply:
        replies.change(app, seq)
    app.tell(protocol.EV_HELD, True, 0, src)
    app.journal.after_append()
    return None


def settle(app, record, taken=0, who=0):
    """The held change accepted (KIND_ACCEPT: made now, by player who,
    journaled as KIND_ACCEPT_BY | who) or rejected (KIND_REJECT_HAND:
    dropped, with the taken events of its hand before it): one record
    journaled, made, pushed. Allocation-free but for a refusal (ValueError)."""
    game = app.game
    if not game.held:
        raise ValueError("confirm: nothing waits for a confirmation")
    try:
        if record == KIND_ACCEPT:
            app.journal.append(KIND_ACCEPT_BY | who, game.held_event, 0, 0)
        else:
            app.journal.append(record, taken, 0, 0)
    except OSError as exc:
        raise ValueError(replies.flash_failed(exc, "the hand is still pending"))
    pushed = protocol.EV_REJECT
    if record == KIND_ACCEPT:
        pushed = protocol.EV_ACCEPT
        app.log_changed(game.n)   # the redo stack an apply drops, the event's own place and who accepted it
    kind = game.held                      # what was held, for the event's held field
    event = game.held_event
    if record == KIND_ACCEPT:
        game.accept(who)
    else:
        game.reject(taken)
        if taken:
            app.log_changed(game.n)
    app._reserve_eseq()
    app.tell(pushed, True, event, _SRC_BOARD, kind, who)
    app.journal.after_append()
