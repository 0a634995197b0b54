"""Enrolment's host side before anything is sent (issue 24.4, docs/club-wifi.md):
the join code, the Wi-Fi and the broker become the NET SET values the board
takes (protocol.NET_KEYS), each checked in the user's words first; values go
%XX-escaped as tallyrun.incoming.unescape_into reads them back (the firmware's own
decoder, run here on the bytes the host would send)."""
from __future__ import annotations

import pytest

from tallyboard.club import envelope
from tallyboard.club.enrol import EnrolError, escape, plan, wire_value
from tallyrun import protocol
from tallyrun.incoming import unescape_into

SECRET = bytes(range(32))
EVENT = "Club-night-b39d"


def code(*tables: int) -> str:
    return envelope.join_code(EVENT, SECRET, list(tables), lambda t: f"B39D.{t}", "a" * 26)


def decoded(token: str) -> bytes:
    line = token.encode("ascii")
    out = bytearray(len(line))
    n = unescape_into(line, 0, len(line), out)
    assert n >= 0, token
    return bytes(out[:n])


def test_a_tables_code_gives_the_board_its_own_key_and_no_other():
    enrolment = plan(code(3), None, "Club Wifi", "correct horse", "mqtt://table3:s3cret@192.168.4.1:1883")
    assert (enrolment.event, enrolment.tag, enrolment.table, enrolment.board) == (EVENT, 0xB39D, 3, "B39D.3")
    assert enrolment.key == envelope.board_key(SECRET, "B39D.3")       # table 3's key, no other
    sent = [(key, wire_value(key, value)) for key, value in enrolment.settings()]
    assert sent == [("ssid", "Club%20Wifi"), ("wifi_password", "correct%20horse"), ("broker_host", "192.168.4.1"),
                    ("broker_port", "1883"), ("broker_user", "table3"), ("broker_password", "s3cret"),
                    ("event", EVENT), ("key", envelope.board_key(SECRET, "B39D.3").hex()), ("update_key", "-")]
    assert [key for key, _ in sent] == [row[0].decode() for row in protocol.NET_KEYS]   # every key, in its order
    # a code for two tables: --table picks one, and its key
    two = plan(code(3, 4), 4, "Club Wifi", None, "mqtt://table4:pw@broker.club")
    assert two.key == envelope.board_key(SECRET, "B39D.4") and two.broker_port == 1883
    assert two.wifi_password is None and wire_value("wifi_password", None) == "-"
    # no user in the URL: the board logs in as its table (its identity, the password its key gives)
    own = plan(code(3), None, "Club Wifi", "correct horse", "mqtt://192.168.4.1")
    assert (wire_value("broker_user", own.broker_user), wire_value("broker_password", own.broker_password)) == ("-", "-")


def test_escaped_values_come_back_whole_through_the_boards_decoder():
    for value in (b"Club Wifi", b"50% off*", b"caf\xc3\xa9 \xe2\x98\x95", b"a\tb\x7f", b"plain-Name_1.2"):
        token = escape(value)
        assert all(33 <= ord(c) <= 126 and c != "*" for c in token), token
        assert decoded(token) == value
    assert escape(b"50% off*") == "50%25%20off%2A"      # %, space, * each as %XX (hex by hand: 0x25 0x20 0x2A)


@pytest.mark.parametrize("join, table, ssid, password, url, words", [
    ("tb3:nope", None, "W", "password1", "mqtt://u:p@h", "not a join code: it looks like tb4:EVENT:TABLES:KEYS:PIN:CHECK"),
    ("tb2:club-1a2b:3:gdc4qbvnmfzgk3tffzrw63lnmvxhiidjnzsm6zlqmfzgk3tffzrw63lnmvxhi:1cb3f0", None, "W", "password1",
     "mqtt://u:p@h", "this join code is from an older tallyboard"),
    (code(3)[:-1] + ("0" if code(3)[-1] != "0" else "1"), None, "W", "password1", "mqtt://u:p@h",
     "the join code is mistyped (its check does not match); copy it again from the director"),
    (code(3, 4), None, "W", "password1", "mqtt://u:p@h", "the join code is for tables 3, 4: say which this board "
                                                          "scores with --table N"),
    (code(3), 5, "W", "password1", "mqtt://u:p@h", "the join code is for table 3, not 5: ask the director for "
                                                   "table 5's code (tallyboard event join-code --table 5)"),
    (code(3), None, "W", "password1", "mqtts://u:p@h", "a board on Wi-Fi speaks plain MQTT: give the broker as "
                                                       "mqtt://USER@HOST:PORT"),
    (code(3), None, "W", "password1", "mqtt://u@h", "no password for the broker's user u: give "
                                                    "--broker-password-file FILE"),
    (code(3), None, "W", "short", "mqtt://u:p@h", "wifi_password: a WPA2 passphrase is 8 to 63 characters"),
    (code(3), None, "W" * 33, "password1", "mqtt://u:p@h", "ssid: 'WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW' is 33 bytes; "
                                                           "the Wi-Fi network's name is 1 to 32 bytes"),
    (code(3), None, "W", "p" * 64, "mqtt://u:p@h", "wifi_password: it is 64 bytes"),
    (code(3), None, "W", "password1", "mqtt://u:p@bad_host", "broker_host 'bad_host': a host name or IPv4 address"),
    (code(3), None, "W", "password1", "mqtt://u:p@h:70000", "the port is not a number from 1 to 65535"),
    (code(3), None, "W" * 30, "password1", "mqtt://u:p@h", None),          # 30 bytes: taken
    (code(3), None, "\u2615" * 9 + "xyz", "password1", "mqtt://u:p@h", None),   # 30 bytes, 84 characters escaped
    (code(3), None, "\u2615" * 9 + "wxyz", "password1", "mqtt://u:p@h",
     "ssid: written for the board (85 characters with its escapes) it is longer than the 84 one line takes"),
])
def test_what_the_board_would_refuse_is_said_first(join, table, ssid, password, url, words):
    if words is None:
        plan(join, table, ssid, password, url)
        return
    with pytest.raises(EnrolError) as refused:
        plan(join, table, ssid, password, url)
    assert words in str(refused.value), str(refused.value)
    assert "s3cret" not in str(refused.value) and "password1" not in str(refused.value)


def test_the_club_s_update_key_goes_to_the_board_as_64_hex_digits():
    public = bytes(range(32))                 # the public half `release key` prints
    enrolment = plan(code(3), None, "Club Wifi", "correct horse", "mqtt://192.168.4.1", update_key=public)
    assert dict(enrolment.settings())["update_key"] == public
    assert wire_value("update_key", public) == "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    with pytest.raises(EnrolError, match="update_key: .*31 bytes where it is 32"):
        plan(code(3), None, "Club Wifi", "correct horse", "mqtt://192.168.4.1", update_key=public[:31])
