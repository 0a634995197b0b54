# The club link's parts that run on the board (firmware/tallynet), under
# CPython and the MicroPython unix port: the signed envelope byte for byte as
# the host writes it, HMAC-SHA256 against RFC 4231, NET's settings (escaped
# values, ranges, secrets never read back) served by the app, the table's
# body composed from a game, and the outbox's numbering on flash.
import sys

from mpfixtures import booted_app, bodies, cleanup, folder, send, shut
from tallycore import skicket
from tallycore.game import Game, HELD_APPLY
from tallycore.games import GAMES
from tallynet import envelope, settings, tablestate
from tallynet.outbox import Outbox, from_round
from tallyrun import protocol as P
from tallyrun.incoming import Request

KEY = bytes(range(16))
# The canonical JSON of a hand-written envelope (keys sorted, no spaces, \uXXXX
# beyond ASCII, as Python's json.dumps(sort_keys=True, separators=(",", ":"))
# writes it), and its HMAC-SHA256 with KEY worked out with CPython's hmac
# module (another implementation than the board's):
UNSIGNED = (b'{"board":"1A2B.3","body":{"host":"board-1A2B.3","name":"Zo\\u00eb \\"Q\\" \\\\ \\u20ac",'
            b'"pending":null,"scores":[70,-10],"table":3,"x":{"a":[],"b":true}},"event":"club-1a2b",'
            b'"kind":"state","seq":7,"v":1}')
SIG = b"e49640da196476823c0b0b68b8f3d25d2ddf801b66c1a8f021414e4508f0709d"
BROKER_PASSWORD = "a7yek4sw-nYCb4FP6ScqQNtl"
BODY = {"table": 3, "x": {"b": True, "a": []}, "name": "Zo\u00eb \"Q\" \\ \u20ac", "scores": [70, -10],
        "pending": None, "host": "board-1A2B.3"}


def test_the_board_s_envelope_is_the_host_s_byte_for_byte():
    sealed = envelope.seal(KEY, "club-1a2b", "1A2B.3", 7, "state", BODY)
    assert sealed == UNSIGNED[:-7] + b',"sig":"' + SIG + b'","v":1}'
    if sys.implementation.name != "micropython":    # the host's own seal, where it runs
        from tallyboard.club import envelope as host_envelope
        assert host_envelope.seal(KEY, "club-1a2b", "1A2B.3", 7, "state", BODY) == sealed


def test_hmac_sha256_is_rfc_4231_s():
    # RFC 4231, test case 2: key "Jefe"
    digest = envelope.hmac_sha256(b"Jefe", b"what do ya want for nothing?")
    assert envelope.hex_digest(digest) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    # test case 6: a key longer than the block (131 bytes of 0xaa) is hashed first
    digest = envelope.hmac_sha256(b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First")
    assert envelope.hex_digest(digest) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"


def test_the_table_s_broker_password_comes_from_its_key():
    # base64url of the first 18 bytes of HMAC-SHA256(KEY, "broker"), worked out with CPython's hmac
    assert envelope.broker_password(KEY) == BROKER_PASSWORD
    if sys.implementation.name != "micropython":
        from tallyboard.club import envelope as host_envelope
        assert host_envelope.broker_password(KEY) == BROKER_PASSWORD


T1_KEY = bytes(range(16, 32))     # table 1's key; KEY is table 3's ("1A2B.3")


def director_says(keys, seq, kind, body):
    """The director's message as docs/club-mqtt.md defines it, built here from the
    board's own canonical() and hmac_sha256(): its fields, and tags, one per table,
    each the HMAC-SHA256 of the same canonical JSON with that table's key."""
    fields = {"v": 1, "event": "club-1a2b", "board": "director", "seq": seq, "kind": kind, "body": body}
    unsigned = envelope.canonical(fields)
    tags = {}
    for board in keys:
        tags[board] = envelope.hex_digest(envelope.hmac_sha256(keys[board], unsigned))
    fields["tags"] = tags
    return envelope.canonical(fields)


def refused_why(data, kind="applied", key=KEY, board="1A2B.3"):
    try:
        envelope.open_director(data, key, "club-1a2b", kind, board)
    except ValueError as exc:
        return str(exc)
    raise AssertionError("taken: %r" % data)


def test_a_director_message_is_checked_by_this_boards_own_tag_before_it_is_taken():
    keys = {"1A2B.1": T1_KEY, "1A2B.3": KEY}
    good = director_says(keys, 0, "applied", {"board": "1A2B.3", "seq": 2})
    assert envelope.open_director(good, KEY, "club-1a2b", "applied", "1A2B.3")["body"] == {"board": "1A2B.3", "seq": 2}
    if sys.implementation.name != "micropython":    # the host's seal_director makes those bytes
        from tallyboard.club import envelope as host_envelope
        assert host_envelope.seal_director(keys, "club-1a2b", 0, "applied", {"board": "1A2B.3", "seq": 2}) == good
        assert envelope.ROUND_AHEAD == host_envelope.ROUND_AHEAD     # the board bounds a round as a table host does
    assert refused_why(good.replace(b'"seq":2', b'"seq":9')) == "signature"          # changed after tagging
    assert refused_why(good, kind="round") == "not a round"
    assert refused_why(b"[1, 2]") == "not an envelope"
    assert refused_why(b"{'v': 1}") == "not JSON"
    # issue 30, finding 2: whatever table 1's key makes, table 3's board takes none of it
    assert refused_why(director_says({"1A2B.1": T1_KEY}, 0, "applied", {"board": "1A2B.3", "seq": 9})) == "signature"
    assert refused_why(director_says({"1A2B.3": T1_KEY}, 0, "applied", {"board": "1A2B.3", "seq": 9})) == "signature"
    # the director's round, its seq changed by whoever relays it: no tag of it holds
    round_ = director_says(keys, 3, "round", {"round": 2})
    assert envelope.open_director(round_, KEY, "club-1a2b", "round", "1A2B.3")["seq"] == 3
    assert refused_why(round_.replace(b'"seq":3', b'"seq":5000'), kind="round") == "signature"
    # signed as an older tallyboard signed it (sig, one director's key): not an envelope of this one
    old = envelope.seal(KEY, "club-1a2b", "director", 3, "applied", {"board": "1A2B.3", "seq": 2})
    assert refused_why(old) == "not an envelope"


def test_net_values_are_escaped_and_range_checked():
    assert settings.escape(b"Club Wifi*%") == b"Club%20Wifi%2A%25"
    assert settings.unescape(b"Club%20Wifi%2a%25") == b"Club Wifi*%"
    for bad in (b"50%", b"a%G1", b"a b"):
        try:
            settings.unescape(bad)
        except ValueError:
            continue
        raise AssertionError(bad)
    assert settings.check(P.NET_BROKER_PORT, b"1883") == 1883
    assert settings.check(P.NET_KEY, b"000102030405060708090A0b0c0d0e0f") == bytes(range(16))
    assert settings.check(P.NET_WIFI_PASSWORD, None) is None           # an open network
    for key, value, words in ((P.NET_BROKER_PORT, b"0", "broker_port: must be a number 1 to 65535"),
                              (P.NET_BROKER_PORT, b"+80", "broker_port: must be a number 1 to 65535"),
                              (P.NET_KEY, b"0011", "key: must be 32 hex digits"),
                              (P.NET_WIFI_PASSWORD, b"short", "wifi_password: must be 8 to 63 bytes"),
                              (P.NET_EVENT, b"-night", "event: must be 1 to 64 letters, digits, _ . - starting "
                                                       "with a letter or digit"),
                              (P.NET_SSID, None, "ssid: must be set; - (none) is not allowed")):
        try:
            settings.check(key, value)
        except ValueError as exc:
            assert str(exc) == words, str(exc)
        else:
            raise AssertionError(value)


def _replies(root):
    texts = [bytes(b).decode() for b in bodies(root)]
    return [t for t in texts if not t.startswith("!")]


def test_net_is_served_by_the_app_and_never_reads_a_secret_back():
    root = folder("net")
    try:
        app, out = booted_app(root)
        send(app, 1, "NET", "NET SET ssid Club")       # no Wi-Fi on this board
        app.net = settings.Net(root)
        send(app, 3, "NET SET ssid Club%20Wifi", "NET SET wifi_password club-passphrase",
             "NET GET wifi_password", "NET GET ssid", "NET SET broker_port 99999", "NET SET key 0011",
             "NET GET", "NET")
        # parsing NET SET's escaped value allocates nothing (the handler may: an enrolment is rare)
        if sys.implementation.name == "micropython":
            import micropython
            from tallyboard.boardlink import wire
            request = Request()
            frame = wire.encode_request(11, "NET SET ssid Club%20Wifi")
            line = bytearray(frame[:-1])
            micropython.heap_lock()
            try:
                code = request.parse(line, len(line))
            finally:
                micropython.heap_unlock()
            assert code == P.E_OK
        # another evening, or leaving: the numbering on flash goes (no link running here: the files)
        Outbox(root).number("state", 0, b"{}")
        send(app, 11, "NET SET event club-1a2b", "NET SET event club-1a2b")
        assert _loaded(root) == 0
        Outbox(root).number("state", 0, b"{}")
        send(app, 13, "NET SET event club-1a2b")          # the same evening again: the numbering stays
        assert _loaded(root) == 1
        send(app, 14, "NET LEAVE")
        assert _loaded(root) == 0
        shut(app, out)
        again = settings.Net(root)
        assert again.load() and again.get(P.NET_SSID) is None       # NET LEAVE forgot them
        replies = _replies(root)
        assert replies == [
            "1 OK wifi=0 enrolled=0 joined=0 broker=0 waiting=0 error=no_wifi",
            "2 ERR RULE this board has no Wi-Fi (its board definition does not say wifi: true): enrol a Pico W board",
            "3 OK key=ssid value=Club%20Wifi",
            "4 OK key=wifi_password value=set",
            "5 OK key=wifi_password value=set",
            "6 OK key=ssid value=Club%20Wifi",
            "7 ERR RANGE broker_port: must be a number 1 to 65535; the setting is unchanged",
            "8 ERR RANGE key: must be 32 hex digits; the setting is unchanged",
            "9 ERR ARGS NET, NET GET key, NET SET key value or NET LEAVE",
            "10 OK wifi=1 enrolled=0 joined=0 broker=0 waiting=0 error=not_enrolled",
            "11 OK key=event value=club-1a2b",
            "12 OK key=event value=club-1a2b",
            "13 OK key=event value=club-1a2b",
            "14 OK wifi=1 enrolled=0 joined=0 broker=0 waiting=0 error=not_enrolled",
        ], replies
    finally:
        cleanup(root)


def test_the_update_key_is_public_and_reads_back_as_it_was_set():
    # the club's update key's public half (issue 43): 32 bytes as 64 hex digits, read back as set (it is
    # no secret), kept in net.txt across a reboot, and - takes it away
    root = folder("net")
    public = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    try:
        app, out = booted_app(root)
        app.net = settings.Net(root)
        send(app, 1, "NET SET update_key " + public, "NET GET update_key", "NET SET update_key " + public[:62])
        shut(app, out)
        again = settings.Net(root)
        assert again.load() and again.get(P.NET_UPDATE_KEY) == bytes(range(32))
        app, out = booted_app(root)
        app.net = again
        send(app, 4, "NET SET update_key -", "NET GET update_key")
        shut(app, out)
        assert _replies(root) == [                         # hex_text writes capitals, as net.txt keeps them
            "1 OK key=update_key value=" + public.upper(),
            "2 OK key=update_key value=" + public.upper(),
            "3 ERR RANGE update_key: must be 64 hex digits; the setting is unchanged",
            "4 OK key=update_key value=-",
            "5 OK key=update_key value=-",
        ]
    finally:
        cleanup(root)


def _loaded(root):
    box = Outbox(root)
    box.load()
    return box.seq


def _skicket():
    for index in range(len(GAMES)):
        if GAMES[index][0] == "skicket":
            return index
    raise AssertionError("no skicket")


def test_the_table_s_body_is_composed_from_the_game():
    game = Game()
    game.new(_skicket(), 4, 0)
    level, strain = skicket.parse_bid("4H")
    game.apply(skicket.pack_hand(1, level, strain, None, None, 0, 10))
    game.apply(skicket.MISDEAL)
    # with confirmation on, a hand held and accepted by Hal's seat button (player 3): its accepted_by
    game.hold(HELD_APPLY, skicket.pack_hand(0, level, strain, None, None, 0, 10))
    game.accept(3)
    body = tablestate.board_body(game, "skicket", 2, 3, "1A2B.3", "pico-w@1A2B.3", ["Eve", "Fay", "Gus", "Hal"],
                                 {}, "1F2E", "-")
    assert body == {
        "table": 3, "round": 2, "host": "board-1A2B.3", "board_id": "pico-w@1A2B.3", "status": "ok",
        "record": {"format": "tallyboard/1", "game": "skicket", "players": ["Eve", "Fay", "Gus", "Hal"],
                   "hands": [{"purchaser": 1, "bid": "4H", "doubled_by": None, "redoubled_by": None,
                              "lone": False, "tricks": 10},
                             {"misdeal": True},
                             {"purchaser": 0, "bid": "4H", "doubled_by": None, "redoubled_by": None,
                              "lone": False, "tricks": 10, "accepted_by": 3}]},
        "stamp": {"game": "skicket", "players": "4", "options": "0", "n": "3", "top": "3", "lcrc": "1F2E",
                  "held": "-", "board_id": "pico-w@1A2B.3", "round": 2},
        "pending": None}
    assert tablestate.kind(body, None) == "hand"
    assert tablestate.kind(body, body) == "state"
    empty = tablestate.board_body(Game(), None, 0, 3, "1A2B.3", "pico-w@1A2B.3", None, None, "FFFF", "-")
    assert (empty["status"], empty["record"], empty["stamp"]) == ("no game", None, None)
    assert tablestate.board_name("  Ann Marie-Lou O'Neil ") == "Ann_Marie-Lo"      # 12 characters, ' left out


def test_the_outbox_numbers_on_flash_and_a_round_is_read_field_by_field():
    root = folder("outbox")
    try:
        box = Outbox(root)
        assert box.number("hand", 1, b'{"a":1}') == 1
        assert box.number("state", 1, b'{"a":2}') == 2
        again = Outbox(root)
        again.load()
        assert (again.seq, again.kind, again.hands, again.body) == (2, "state", 1, b'{"a":2}')
        with open(root + "netout.txt", "wb") as f:
            f.write(b"2 sent 1\n{}")
        damaged = Outbox(root)
        damaged.load()
        assert damaged.damaged and damaged.seq == 0
        body = {"name": "Club night", "id": 1, "tag": 0x1A2B, "round": 2, "rounds": 3, "hands": None,
                "players": ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"],
                "seatings": [[[0, 1, 2, 3], [4, 5, 6, 7]], [[0, 5, 2, 7], [4, 1, 6, 3]]],
                "game": "skicket", "options": 32768, "record_options": {}}
        assert from_round(body, 5, 2)["names"] == ["Eve", "Bob", "Gus", "Dee"]
        assert from_round(body, 5, 3)["names"] is None        # table 3 sits this round out
        body["seatings"][1][1][0] = 8
        try:
            from_round(body, 5, 2)
        except ValueError as exc:
            assert str(exc) == "player: not a number 0 to 7"
        else:
            raise AssertionError("a player beyond the players taken")
    finally:
        cleanup(root)
