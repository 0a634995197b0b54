# A table's state as the director takes it (docs/club-mqtt.md, "Payloads"):
# the body of every `hand` and `state` message, written in ONE place. A table
# host (host/tallyboard/evening/table_host.py, evening/tables.py, scorebook/records.py) and a board on
# the club's Wi-Fi (tallynet.link, from its own game: board_body) both
# compose it with these functions, so the director cannot tell them apart.
# Plain dicts, lists, text and whole numbers: the envelope's canonical JSON.
from tallycore.game import HELD_APPLY, SEAT_LETTERS, seat_of
from tallyrun.protocol import MAX_NAME, NAME_CHARS
from tallynet.topics import HAND, STATE

FORMAT = "tallyboard/1"          # docs/records.md: a game record's format
OK = "ok"                        # a table's status: its board answers and is its table's
NO_GAME = "no game"              # ... and has no game of the evening


def board_name(name):
    """A player's name as a board takes it (docs/protocol.md: 1 to
    protocol.MAX_NAME of protocol.NAME_CHARS): spaces become _, other
    characters are left out."""
    out = []
    for c in name.strip():
        if c == " ":
            out.append("_")
        elif c.encode() in NAME_CHARS:    # (a character outside ASCII: bytes no ASCII text holds)
            out.append(c)
    return "".join(out)[:MAX_NAME] or "P"


def board_ident(tag, table):
    """A board's identity at an evening (docs/club-mqtt.md), the one place it is
    written: the evening's tag in 4 hex digits, a dot, the table (1A2B.2)."""
    return "%04X.%d" % (tag, table)


def host_of(ident):
    """The name a board on Wi-Fi goes by as its own table host (its bodies'
    `host`, its client id's tail): board-<identity>."""
    return "board-" + ident


def record(game, players, options, hands):
    """A game record (docs/records.md): options (its document) left out when empty."""
    doc = {"format": FORMAT, "game": game, "players": list(players)}
    if options:
        doc["options"] = dict(options)
    doc["hands"] = hands
    return doc


def stamp(game, players, options, n, top, lcrc, held, board_id, round):
    """Where the board's journal stood when the record was read: OPEN's fields
    as it writes them (text), the board's id and its round."""
    return {"game": game, "players": players, "options": options, "n": n, "top": top, "lcrc": lcrc,
            "held": held, "board_id": board_id, "round": round}


def pending(hand, waiting_for, scores, buttons=None):
    """The hand a board holds for its confirmation (docs/rules.md CF): who may
    accept it, the letter of the seat button each presses (docs/club-mqtt.md:
    optional; the seats pivot in Skicket, SK5) and what it gives each seat."""
    held = {"hand": hand, "waiting_for": list(waiting_for), "scores": list(scores)}
    if buttons is not None:
        held["buttons"] = list(buttons)
    return held


def held_of(game, names, letters=SEAT_LETTERS):
    """pending() of a game (tallycore.game.Game) that holds a hand, `names` its
    players', `letters` those beside the board's seat buttons: a button the
    board does not have is "-"."""
    hand = game.held_hand()
    who = [p for p in range(game.players) if game.held_by >> p & 1]
    buttons = []
    for p in who:
        seat = seat_of(game.rules, hand - 1, p)
        buttons.append(letters[seat] if 0 <= seat < len(letters) else "-")
    return pending(hand, [names[p] for p in who], [game.held_scores[p] for p in range(game.players)], buttons)


def body(table, round, host, board_id, status, record, stamp, pending):
    """The body of a table's hand or state message."""
    return {"table": table, "round": round, "host": host, "board_id": board_id, "status": status,
            "record": record, "stamp": stamp, "pending": pending}


def hands_in(body):
    record = body.get("record") if isinstance(body, dict) else None
    return len(record["hands"]) if isinstance(record, dict) and isinstance(record.get("hands"), list) else 0


def kind(body, before):
    """hand when the table's game has more hands than in the body sent before, else state."""
    return HAND if body["record"] and hands_in(body) > hands_in(before) else STATE


# ---------------------------------------------------------------- on the board

def board_body(game, game_name, round, table, ident, board_id, names, record_options, lcrc, held_kind,
               letters=SEAT_LETTERS):
    """A board's own body, from its game (tallycore.game.Game): `game_name`
    the name of its game (None: no game), `round` its CFG round, `names` the
    table's four players as the director's round names them (the record's
    players), `record_options` the record's options as the round gives them,
    `lcrc` the CRC of its log as OPEN writes it (4 hex digits), `held_kind`
    OPEN's held ("-" or the kind), `letters` those beside its seat buttons. A board holds the evening's game only once
    its round was seated: before, its record and stamp are null."""
    rules = game.rules
    host = host_of(ident)
    if round == 0 or rules is None or names is None or not hasattr(rules, "record_hand"):
        return body(table, round, host, board_id, NO_GAME if rules is None else OK, None, None, None)
    counted = game.n
    if game.held == HELD_APPLY:
        counted -= game.open_hand()       # a hand held counts whole or not at all (records.without_pending)
    log = game.log
    hands = []
    for i in range(counted):
        hand = rules.record_hand(log[i])
        if game.accepted_by(i) >= 0:
            hand["accepted_by"] = game.accepted_by(i)   # records.with_accepted: who accepted it (rules.md CF2)
        hands.append(hand)
    held = held_of(game, names, letters) if game.held else None
    mark = stamp(game_name, str(game.players), str(game.options), str(game.n), str(game.top), lcrc,
                 held_kind, board_id, round)
    return body(table, round, host, board_id, OK, record(game_name, names, record_options, hands), mark, held)
