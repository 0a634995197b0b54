# The board's MQTT 3.1.1 client (firmware/tallynet/client.py) on a scripted
# socket, under CPython and the MicroPython unix port: every packet it writes
# is written out here byte by byte from the MQTT 3.1.1 specification (OASIS,
# 2014: section 2.2.3 for the remaining length, 3.1 CONNECT, 3.3 PUBLISH,
# 3.4 PUBACK, 3.8 SUBSCRIBE, 3.12 PINGREQ), and what the broker sends is fed
# in pieces as a socket delivers it. The client against a real broker:
# tests/test_wifi_board.py (mosquitto).
from tallynet import client as mqtt
from tallynet.transport import READY

try:
    from time import ticks_add, ticks_ms
except ImportError:  # CPython
    from tallypanel.inputs import ticks_ms

    def ticks_add(ticks, delta):
        return (ticks + delta) & 0x3FFFFFFF


class Socket:
    """A connected, non-blocking socket: what the client writes, and what the broker's side has sent."""

    def __init__(self):
        self.written = bytearray()
        self.incoming = []           # pieces as they arrive; b"" the broker closing
        self.room = 1 << 20          # bytes the socket takes before it would block
        self.closed = False

    def write(self, data):
        n = min(len(data), self.room)
        if n == 0:
            return None
        self.written += bytes(data[:n])
        self.room -= n
        return n

    def readinto(self, buf):
        if not self.incoming:
            return None
        piece = self.incoming[0]
        n = min(len(piece), len(buf))
        buf[:n] = piece[:n]
        if n == len(piece):
            self.incoming.pop(0)
        else:
            self.incoming[0] = piece[n:]
        return n

    def close(self):
        self.closed = True

    def take(self):
        out = bytes(self.written)
        self.written = bytearray()
        return out


class Connector:
    """tallynet.transport.Connector's contract: READY at the first tick, its socket the scripted one."""

    def __init__(self):
        self.sockets = []
        self.state = "awaiting_dns"
        self.socket = None
        self.last_error = None

    def reset(self):
        self.state = "awaiting_dns"
        self.socket = None
        return self

    def tick(self, now):
        if self.state != READY:
            self.socket = Socket()
            self.sockets.append(self.socket)
            self.state = READY

    def cancel(self):
        pass


# CONNECT (3.1): client id "e-h", keepalive 15 s, user "u", password "p", will "w" = "x" at QoS 1, retained.
# Connect flags 3.1.2.2: user 0x80 | password 0x40 | will retain 0x20 | will QoS 1 << 3 = 0x08
# | will 0x04 | clean session 0x02 = 0xEE. Variable header 10 bytes (00 04 "MQTT", level 4, flags,
# keepalive 00 0F), payload 5 ("e-h") + 3 ("w") + 3 ("x") + 3 ("u") + 3 ("p") = 17: remaining 27 = 0x1B.
CONNECT = (b"\x10\x1b" + b"\x00\x04MQTT\x04\xee\x00\x0f" + b"\x00\x03e-h" + b"\x00\x01w" + b"\x00\x01x"
           + b"\x00\x01u" + b"\x00\x01p")
CONNACK_OK = b"\x20\x02\x00\x00"
# SUBSCRIBE (3.8): first byte 0x82, packet id 1, "a/r" at QoS 1, "a/b" at QoS 1: 2 + (2+3+1) * 2 = 14 = 0x0E
SUBSCRIBE = b"\x82\x0e\x00\x01" + b"\x00\x03a/r\x01" + b"\x00\x03a/b\x01"


def _client(rx=64):
    connector = Connector()
    client = mqtt.Client(connector, "1A2B.3", "e-h", 15, "u", "p", "w", b"x", bytearray(rx))
    client.subscribe("a/r", 1)
    client.subscribe("a/b", 1)
    got = []
    client.on_message = lambda topic, payload: got.append((topic, payload))
    return client, connector, got


def _connected(rx=64):
    client, connector, got = _client(rx)
    client.connect()
    now = ticks_ms()
    client.handle(now)
    sock = connector.sockets[-1]
    assert sock.take() == CONNECT
    sock.incoming.append(CONNACK_OK)
    client.handle(now)
    assert client.state == "connected"
    assert sock.take() == SUBSCRIBE
    return client, sock, got, now


def test_the_remaining_length_is_seven_bits_a_byte():
    # 2.2.3: 0 -> 00; 127 -> 7F; 128 -> 80 01; 321 = 2 * 128 + 65 -> C1 02; 16,384 = 128 ** 2 -> 80 80 01
    assert bytes(mqtt._length(0)) == b"\x00"
    assert bytes(mqtt._length(127)) == b"\x7f"
    assert bytes(mqtt._length(128)) == b"\x80\x01"
    assert bytes(mqtt._length(321)) == b"\xc1\x02"
    assert bytes(mqtt._length(16384)) == b"\x80\x80\x01"


def test_it_logs_in_with_its_will_then_subscribes():
    _connected()


def test_a_publish_is_written_as_the_specification_says():
    client, sock, got, now = _connected()
    client.publish("t/1", b"hello", qos=1)
    client.publish("t/2", b"hi", qos=0, retain=True)
    client.handle(now)
    # QoS 1: 0x32, remaining 2 + 3 (topic) + 2 (packet id 2: SUBSCRIBE took 1) + 5 = 12
    # QoS 0 retained: 0x31, remaining 2 + 3 + 2 = 7 (no packet id)
    assert sock.take() == b"\x32\x0c\x00\x03t/1\x00\x02hello" + b"\x31\x07\x00\x03t/2hi"


def test_a_long_publish_goes_out_a_piece_at_a_time():
    client, sock, got, now = _connected()
    payload = b"x" * 300
    client.publish("t", payload, qos=0)
    sock.room = 100
    client.handle(now)
    assert len(sock.written) == 100
    sock.room = 1 << 20
    client.handle(now)
    # remaining 2 + 1 + 300 = 303 = 2 * 128 + 47 -> AF 02
    assert sock.take() == b"\x30\xaf\x02\x00\x01t" + payload


def test_a_message_at_qos_1_is_taken_and_acknowledged_in_pieces():
    client, sock, got, now = _connected()
    # PUBLISH QoS 1 (0x32) "a/r", packet id 7, payload "hi": remaining 2 + 3 + 2 + 2 = 9
    packet = b"\x32\x09\x00\x03a/r\x00\x07hi"
    for byte in range(len(packet)):          # a byte at a time, a slice each
        sock.incoming.append(packet[byte:byte + 1])
        client.handle(now)
    # and one at QoS 0 straight after a PINGRESP in the same read
    sock.incoming.append(b"\xd0\x00" + b"\x30\x07\x00\x03a/bok")
    client.handle(now)
    assert got == [("a/r", b"hi"), ("a/b", b"ok")]
    assert sock.take() == b"\x40\x02\x00\x07"     # PUBACK for packet 7 only (3.4)


def test_a_message_larger_than_the_buffer_is_skipped_but_acknowledged():
    client, sock, got, now = _connected(rx=16)
    # PUBLISH QoS 1 "a/r" id 9 with 40 bytes: remaining 2 + 3 + 2 + 40 = 47 = 0x2F, 49 bytes in all
    sock.incoming.append(b"\x32\x2f\x00\x03a/r\x00\x09" + b"z" * 40 + b"\x30\x05\x00\x01zok")
    client.handle(now)
    assert got == [("z", b"ok")]                  # the next one taken whole
    assert sock.take() == b"\x40\x02\x00\x09"
    assert client.dropped == 1 and client.state == "connected"


def test_a_malformed_packet_ends_the_connection_not_the_link():
    client, sock, got, now = _connected()
    # PUBLISH QoS 0 whose topic is not UTF-8 (0xFF): remaining 2 + 1 + 2 = 5
    sock.incoming.append(b"\x30\x05\x00\x01\xffok")
    client.handle(now)
    assert client.state == "failed" and sock.closed and got == []
    client, sock, got, now = _connected()
    # a remaining length of five bytes, each with its "more" bit (2.2.3 allows four)
    sock.incoming.append(b"\x30\xff\xff\xff\xff\x01")
    client.handle(now)
    assert client.state == "failed" and sock.closed
    assert client.check(now)                      # tried again after the backoff


def test_a_refused_login_waits_for_the_link():
    client, connector, got = _client()
    client.connect()
    now = ticks_ms()
    client.handle(now)
    sock = connector.sockets[-1]
    sock.incoming.append(b"\x20\x02\x00\x05")    # CONNACK 5: not authorised
    client.handle(now)
    assert client.state == "failed" and client.last_error.return_code == 5 and sock.closed
    assert not client.check(ticks_add(now, 60000))   # no retry of its own: the link decides
    client.connect()
    client.handle(now)
    assert len(connector.sockets) == 2 and connector.sockets[1].take() == CONNECT


def test_a_lost_connection_is_tried_again_after_the_backoff():
    client, sock, got, now = _connected()
    sock.incoming.append(b"")                     # the broker closed it
    client.handle(now)
    assert client.state == "failed" and sock.closed and client.check(now)
    connector = client.connector
    client.handle(now)
    assert len(connector.sockets) == 1            # not at once
    # 1000 ms, plus a jitter below 1000 ms
    client.handle(ticks_add(ticks_ms(), 2000))
    assert len(connector.sockets) == 2 and connector.sockets[1].take() == CONNECT


def test_it_pings_at_half_the_keepalive_and_gives_up_after_one_and_a_half():
    client, sock, got, now = _connected()
    client.handle(ticks_add(now, 7400))
    assert sock.take() == b""
    client.handle(ticks_add(now, 7600))            # 15 s keepalive: a ping after 7.5 s quiet
    assert sock.take() == b"\xc0\x00"
    client.handle(ticks_add(now, 22400))           # heard nothing since the CONNACK: 22.5 s is the limit
    assert client.state == "connected"
    client.handle(ticks_add(now, 22600))
    assert client.state == "failed" and "stopped answering" in str(client.last_error)


def test_publish_refuses_when_not_connected_or_backed_up():
    client, connector, got = _client()
    try:
        client.publish("t", b"x", qos=1)
        raise AssertionError("published while disconnected")
    except OSError:
        pass
    client, sock, got, now = _connected()
    sock.room = 0
    for i in range(mqtt.MAX_TX_CHUNKS // 2):
        client.publish("t", b"x", qos=1)
    try:
        client.publish("t", b"x", qos=1)
        raise AssertionError("queued past MAX_TX_CHUNKS")
    except OSError:
        pass
