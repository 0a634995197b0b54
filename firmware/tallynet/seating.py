# The director's round at a board on the club's Wi-Fi (docs/club-mqtt.md, "A
# board on the club's Wi-Fi"): the board seated for its table's game of the
# round, once the last round's game has gone to the director whole. The
# link's step calls it (tallynet.link); apart from the link so that the link
# stays a room one can see at once.
from tallyrun import protocol
from tallynet import publishing, tablestate


def seat_if_due(link):
    """The round the link holds (link.seat.latest) played at this board: its game
    started with the round's names, or the names brought up to date."""
    seat = link.seat.latest
    if seat is None or seat["names"] is None:
        return
    app = link.app
    config = app.config
    game = app.game
    index = _game_index(seat["game"])
    if index < 0:
        link.net.error = "director_message"
        return
    names = [tablestate.board_name(n) for n in seat["names"]]
    here = (config.round == seat["round"] and game.rules is not None and game.index == index
            and game.options == seat["options"] and game.players == 4)
    if here:
        if link.seat.seated != seat:
            link.seat.save(seat, seat)       # the same round published again (a name changed, say)
            link.dirty = True
        for player in range(4):
            if config.names[player] != names[player]:
                app.local_cfg(protocol.CFG_NAME, player, names[player])
        return
    if config.round != 0 and (publishing.waiting(link) or link.dirty):
        return       # the last round's game goes to the director whole before a new one replaces it
    if config.round != 0:
        app.local_cfg(protocol.CFG_ROUND, 0, 0)
    link.seat.save(seat, seat)
    refused = app._new(0, 0, index, 4, seat["options"], False)
    if refused is not None:
        link.net.error = "director_message"
        return
    for player in range(4):
        if config.names[player] != names[player]:
            app.local_cfg(protocol.CFG_NAME, player, names[player])
    app.local_cfg(protocol.CFG_ROUND, 0, seat["round"])


def _game_index(name):
    data = name.encode()
    for index in range(len(protocol.GAME_NAMES)):
        if protocol.GAME_NAMES[index] == data:
            return index
    return -1
