# The board's MQTT 3.1.1 client (docs/club-wifi.md, "The board's MQTT
# client"): what the club link needs and nothing more. It logs in with a
# will, subscribes to the director's two topics at QoS 1 after each CONNACK,
# publishes at QoS 0 or 1 (the link resends until the director's applied
# says it has the message, so an unacknowledged PUBLISH is not tracked here),
# acknowledges what the broker sends at QoS 1, pings at half the keepalive
# and gives the connection up when the broker has said nothing for one and a
# half keepalives.
#
# Why not chumicro-mqtt, which the board first used: its modules take 35 KB
# of the chip's heap when imported (the twin: _wire 9.1 KB, client 25.8 KB),
# more than the Pico W has to spare beside the panel and a game
# (docs/benchmarks.md); micropython-lib's umqtt waits for each PUBACK with the
# socket blocking, which would stall the USB protocol. This one is made once
# at enrolment and kept for every reconnection: its receive buffer is
# allocated once, a reconnection makes only the socket.
#
# Never blocking: each handle() is one slice (the TCP connect polled by
# tallynet.transport, what the socket has read, what waits sent as far as it
# goes). After a failure it tries again in 1 s doubling to 8 s, plus a jitter
# from the board's identity so a club's boards do not all come at once.
import gc

from tallycore import const, errno, ticks_add, ticks_diff, ticks_ms

from tallynet.transport import FAILED, READY

CONNECTED = "connected"
CONNECTING = "connecting"
DISCONNECTED = "disconnected"
FAILED_STATE = "failed"

_BACKOFF_MS = const(1000)         # the first wait after a lost or refused connection
_BACKOFF_SHIFT_MAX = const(3)     # doubling to 1000 << 3 = 8000 ms
_JITTER_MS = const(1000)          # each wait plus 0 to _JITTER_MS - 1 ms, from the identity and the try
_CONNECT_MS = const(10000)        # the TCP connect and the CONNACK, each within this
MAX_TX_CHUNKS = const(12)        # what may wait to be sent (a publish is two chunks): more is backpressure

# MQTT 3.1.1 control packet types (the first byte's high nibble)
_CONNACK = const(2)
_PUBLISH = const(3)
_PUBACK = const(4)
_SUBACK = const(9)
_PINGRESP = const(13)
_PINGREQ = b"\xc0\x00"
_DISCONNECT = b"\xe0\x00"


class Refused(OSError):
    """The broker's CONNACK (or SUBACK) said no: return_code as MQTT 3.1.1 numbers it
    (4 bad user name or password, 5 not authorised)."""

    def __init__(self, return_code, what):
        super().__init__("the broker refused the %s (return code %d)" % (what, return_code))
        self.return_code = return_code


def jitter_seed(ident):
    """A number from the board's identity (a small int: no allocation when used)."""
    seed = 0
    for byte in ident.encode():
        seed = (seed * 31 + byte) & 0xFFFFF
    return seed


def _length(n):
    """MQTT's remaining length: seven bits a byte, the high bit saying more follow."""
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | 0x80 if n else byte)
        if not n:
            return out


def _string(data):
    if isinstance(data, str):
        data = data.encode()
    return bytes((len(data) >> 8, len(data) & 0xFF)) + data


def connect_packet(client_id, keep_alive_s, clean_session, username, password,
                   will_topic, will_message, will_qos, will_retain):
    flags = 0x02 if clean_session else 0
    payload = _string(client_id)
    if will_topic is not None:
        flags |= 0x04 | (will_qos << 3) | (0x20 if will_retain else 0)
        payload += _string(will_topic) + _string(will_message)
    if username is not None:
        flags |= 0x80
        payload += _string(username)
    if password is not None:
        flags |= 0x40
        payload += _string(password)
    body = b"\x00\x04MQTT\x04" + bytes((flags, keep_alive_s >> 8, keep_alive_s & 0xFF)) + payload
    return b"\x10" + _length(len(body)) + body


class Client:
    def __init__(self, connector, ident, client_id, keep_alive_s, username, password,
                 will_topic, will_message, rx, clean_session=True, will_qos=1, will_retain=True, on_message=None):
        self.connector = connector
        self.seed = jitter_seed(ident)
        self.keepalive_ms = keep_alive_s * 1000
        self.connect_bytes = connect_packet(client_id, keep_alive_s, clean_session, username, password,
                                            will_topic, will_message, will_qos, will_retain)
        self.rx = rx                 # made once (a bytearray): a packet is taken whole here, or skipped if larger
        self.rx_view = memoryview(self.rx)
        self.rx_len = 0
        self.skip = 0                # bytes of a packet too large for rx still to be read and dropped
        self.skip_ack = None         # its PUBACK, when it was a PUBLISH at QoS 1
        self.tx = []                 # packets (bytes) waiting to be sent, the first sent from tx_at
        self.tx_at = 0
        self.subscriptions = []      # (topic, qos): subscribed again after each CONNACK
        self.next_id = 1
        self.sock = None
        self.state = DISCONNECTED
        self.held = False            # refused: tried again only when connect() is called
        self.last_error = None
        self.deadline = ticks_ms()   # connecting: the TCP connect or the CONNACK by then
        self.sent_at = ticks_ms()    # when a packet last went (the keepalive's ping after half of it)
        self.heard_at = ticks_ms()   # when the broker last said anything
        self.retry_at = ticks_ms()   # failed: when to try again
        self.attempts = 0            # failed tries since the last connection (the backoff's doubling)
        self.dropped = 0             # messages larger than the receive buffer, skipped
        self.on_message = on_message  # called with (topic, payload) for each PUBLISH the broker sends

    # ------------------------------------------------------------ what the link calls
    def subscribe(self, topic, qos):
        self.subscriptions.append((topic, qos))

    def connect(self):
        """Start a connection now (at once, not after the backoff)."""
        self.held = False
        self._close()
        self._attempt()

    def check(self, now):
        """Whether handle() has anything to do."""
        return self.state != DISCONNECTED and not (self.state == FAILED_STATE and self.held)

    def handle(self, now):
        """One slice: connect, send what waits, read and take what came, keep the connection alive."""
        state = self.state
        if state == FAILED_STATE:
            if self.held or ticks_diff(self.retry_at, now) > 0:
                return
            self._attempt()
            state = self.state
        if state == CONNECTING and self.sock is None:
            connector = self.connector
            connector.tick(now)
            if connector.state == FAILED:
                self.fail(connector.last_error)
                return
            if connector.state != READY:
                if ticks_diff(now, self.deadline) >= 0:
                    self.fail(OSError(errno.ETIMEDOUT, "no TCP connection to the broker"))
                return
            self.sock = connector.socket
            self.tx.insert(0, self.connect_bytes)   # first on the wire, before anything queued
            self.tx_at = 0
            self.deadline = ticks_add(now, _CONNECT_MS)
            self.heard_at = now
        if self.state == CONNECTED and not self.tx and ticks_diff(now, self.sent_at) >= self.keepalive_ms >> 1:
            self.tx.append(_PINGREQ)
        try:
            self._send(now)
            self._receive(now)
            if self.tx:              # what the broker's packets asked for (a PUBACK, the SUBSCRIBE)
                self._send(now)
        except (OSError, ValueError) as exc:   # ValueError: a topic that is not UTF-8 (the broker's fault)
            self.fail(exc)
            return
        if self.state == CONNECTING:
            if ticks_diff(now, self.deadline) >= 0:
                self.fail(OSError(errno.ETIMEDOUT, "no CONNACK from the broker"))
        elif self.state == CONNECTED:
            if ticks_diff(now, self.heard_at) >= self.keepalive_ms + (self.keepalive_ms >> 1):
                self.fail(OSError(errno.ETIMEDOUT, "the broker stopped answering"))

    def publish(self, topic, payload, qos=0, retain=False):
        """Queue a PUBLISH; OSError when not connected or too much already waits (the link tries again)."""
        if self.state != CONNECTED:
            raise OSError(errno.ENOTCONN, "not connected to the broker")
        if len(self.tx) + 2 > MAX_TX_CHUNKS:
            raise OSError(errno.ENOBUFS, "the broker is not taking what was sent")
        topic = _string(topic)
        size = len(topic) + len(payload) + (2 if qos else 0)
        header = bytearray((0x30 | (qos << 1) | (1 if retain else 0),))
        header += _length(size)
        header += topic
        if qos:
            header += bytes((self.next_id >> 8, self.next_id & 0xFF))
            self.next_id = self.next_id % 0xFFFF + 1
        self.tx.append(header)
        self.tx.append(payload)

    def disconnect(self):
        """Goodbye to the broker (best effort: its will is not published), closed, not tried again."""
        sock = self.sock
        if sock is not None and self.state == CONNECTED:
            try:
                sock.write(_DISCONNECT)
            except OSError:
                pass
        self._close()
        self.state = DISCONNECTED

    def drop(self):
        """The Wi-Fi went: closed without a DISCONNECT (the broker publishes the
        board's will when its keepalive runs out), kept for connect() when it is back."""
        self._close()
        self.state = DISCONNECTED

    def fail(self, error):
        """This connection given up (closed, its error kept) and tried again after the backoff;
        a refusal is tried again only when the link says so."""
        self.last_error = error
        self._close()
        self.state = FAILED_STATE
        self.held = getattr(error, "return_code", 0) in (4, 5)
        shift = self.attempts if self.attempts < _BACKOFF_SHIFT_MAX else _BACKOFF_SHIFT_MAX
        delay = (_BACKOFF_MS << shift) + (self.seed + self.attempts * 379) % _JITTER_MS
        if self.attempts < 64:
            self.attempts += 1
        self.retry_at = ticks_add(ticks_ms(), delay)

    # ------------------------------------------------------------ the connection
    def _attempt(self):
        gc.collect()                 # the old socket's garbage gone before the new one is made
        self.connector.reset()
        self.state = CONNECTING
        self.deadline = ticks_add(ticks_ms(), _CONNECT_MS)

    def _close(self):
        self.connector.cancel()
        sock = self.sock
        self.sock = None
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass
        self.tx.clear()
        self.tx_at = 0
        self.rx_len = 0
        self.skip = 0
        self.skip_ack = None

    def _send(self, now):
        sock = self.sock
        tx = self.tx
        while tx:
            packet = tx[0]
            at = self.tx_at
            sent = sock.write(memoryview(packet)[at:] if at else packet)  # type: ignore[union-attr]  # connected
            if not sent:                 # None: the socket's buffer is full, the rest next slice
                return
            self.sent_at = now
            at += sent
            if at < len(packet):
                self.tx_at = at
                return
            tx.pop(0)
            self.tx_at = 0

    def _receive(self, now):
        sock = self.sock
        while True:
            if self.skip:
                got = sock.readinto(self.rx_view[:min(self.skip, len(self.rx))])  # type: ignore[union-attr]
            elif self.rx_len:
                got = sock.readinto(self.rx_view[self.rx_len:])  # type: ignore[union-attr]
            else:                        # the usual case, and the idle turn's: no slice made
                got = sock.readinto(self.rx_view)  # type: ignore[union-attr]
            if got is None:              # nothing more for now
                return
            if got == 0:
                raise OSError(errno.ECONNRESET, "the broker closed the connection")
            self.heard_at = now
            if self.skip:
                self.skip -= got
                if not self.skip and self.skip_ack is not None:
                    self.tx.append(self.skip_ack)
                    self.skip_ack = None
                continue
            self.rx_len += got
            self._take_packets()

    def _take_packets(self):
        rx = self.rx
        while self.rx_len >= 2:
            size = 0
            shift = 0
            at = 1
            while True:                  # the remaining length, one to four bytes
                if at >= self.rx_len:
                    return               # not all of it here yet
                byte = rx[at]
                size |= (byte & 0x7F) << shift
                at += 1
                if not byte & 0x80:
                    break
                shift += 7
                if shift > 21:
                    raise OSError(errno.EIO, "a malformed packet from the broker")
            end = at + size
            if end > len(rx):            # larger than the buffer: skipped, acknowledged if it must be
                if (rx[0] >> 4) != _PUBLISH:
                    raise OSError(errno.EIO, "a packet from the broker larger than the buffer")
                if self.rx_len < at + 2:
                    return               # its topic's length not here yet
                ids_end = at + 4 + (rx[at] << 8 | rx[at + 1])   # the topic and a packet id
                if ids_end > len(rx):
                    raise OSError(errno.EIO, "a topic from the broker larger than the buffer")
                if self.rx_len < ids_end:
                    return
                self.skip_ack = self._publish_ack(at)
                self.skip = end - self.rx_len
                self.rx_len = 0
                self.dropped += 1
                return
            if end > self.rx_len:
                return                   # the rest of the packet comes later
            self._take(rx[0], at, end)
            rest = self.rx_len - end
            if rest:
                self.rx_view[:rest] = self.rx_view[end:self.rx_len]
            self.rx_len = rest

    def _publish_ack(self, at):
        """The PUBACK a PUBLISH at QoS 1 starting its variable header at `at` needs, or None."""
        rx = self.rx
        if (rx[0] >> 1) & 3 == 0:
            return None
        topic_end = at + 2 + (rx[at] << 8 | rx[at + 1])
        return bytes((_PUBACK << 4, 2, rx[topic_end], rx[topic_end + 1]))

    def _take(self, first, at, end):
        kind = first >> 4
        rx = self.rx
        if kind == _PUBLISH:
            topic_end = at + 2 + (rx[at] << 8 | rx[at + 1])
            start = topic_end + (2 if (first >> 1) & 3 else 0)
            ack = self._publish_ack(at)
            if ack is not None:
                self.tx.append(ack)
            if self.on_message is not None:
                self.on_message(bytes(rx[at + 2:topic_end]).decode(), bytes(rx[start:end]))
        elif kind == _CONNACK:
            code = rx[at + 1]
            if code:
                raise Refused(code, "login")
            self.state = CONNECTED
            self.attempts = 0
            self.last_error = None   # (and its traceback's heap) the failure is over
            if self.subscriptions:
                self.tx.append(self._subscribe_packet())
        elif kind == _SUBACK:
            for index in range(at + 2, end):
                if rx[index] == 0x80:
                    raise Refused(5, "subscription")
        # PUBACK, PINGRESP: the broker is there (heard_at), nothing else to do

    def _subscribe_packet(self):
        body = bytearray((self.next_id >> 8, self.next_id & 0xFF))
        self.next_id = self.next_id % 0xFFFF + 1
        for topic, qos in self.subscriptions:
            body += _string(topic)
            body.append(qos)
        return b"\x82" + _length(len(body)) + body
