# CFG (docs/protocol.md, "Config"): a setting read or set by the host, and
# one set by the board itself (the club link seating its round). A setting
# set is saved before the reply and pushed as CFG after it, as every change
# is. Loaded with the app, after BOOT and the lights (tallypanel.start).
from tallycore import os

from tallyrun import protocol
from tallyrun import replies
from tallyrun.restore import BOARD_DIR


def serve(app, seq, req):
    """CFG GET key [player] or CFG SET key [player] value, as parsed."""
    key = req.cfg_key
    spec = protocol.CONFIG_KEYS[key]
    player = req.cfg_player if spec[4] else 0
    setting = req.values[0] == 1
    if setting:
        if spec[1] == protocol.T_TEXT:
            packed = req.values[3]
            value = bytes(req.line[packed >> 8:packed & 0xFF]).decode()
            if key == protocol.CFG_BOARD:
                try:
                    if app.check_board is None:
                        board_exists(app, value)
                    else:
                        app.check_board(value)
                except (ValueError, OSError) as exc:
                    app.error(seq, protocol.E_RANGE, "%s; the setting is unchanged" % exc)
                    return
        else:
            value = req.values[3]
        old = app.config.get(key, player)
        try:
            app.config.set(key, player, value)
        except ValueError as exc:
            app.error(seq, protocol.E_RANGE, str(exc))
            return
        try:
            app.config.save()
        except OSError as exc:
            app.config.set(key, player, old)
            app.error(seq, protocol.E_FLASH, replies.flash_failed(exc, "the setting is unchanged"))
            return
    replies.read(app, seq, protocol.V_CFG, key, player)
    if setting:   # a change: the reply first, then the event, as for every change
        app.tell(protocol.EV_CFG, False, 0, b"host", key, player)
        app.ready_to_confirm()


def change(app, key, player, value):
    """A setting changed by the board itself, saved and pushed as CFG like
    CFG SET. ValueError or OSError when refused; nothing changed then."""
    old = app.config.get(key, player)
    app.config.set(key, player, value)
    try:
        app.config.save()
    except OSError:
        app.config.set(key, player, old)
        raise
    app.tell(protocol.EV_CFG, False, 0, b"board", key, player)
    app.ready_to_confirm()


def board_exists(app, name):
    """CFG SET board's check on a board without the panel's own (the emulator,
    tests): a definition board/<name>.json is on the flash."""
    try:
        os.stat(app.root + BOARD_DIR + "/" + name + ".json")
    except OSError:
        raise ValueError("board: no definition board/%s.json on the board" % name)
