# The board's MQTT client: chumicro_mqtt's, made once at enrolment (or the
# boot that finds the board enrolled) and kept for every reconnection after
# (docs/club-wifi.md, "When the broker goes away").
#
# chumicro_mqtt makes a new receive buffer (RX_BUFFER bytes, the decoder's)
# and new queues on every reconnection, and waits up to 60 s between tries.
# On the Pico W's heap, a few broker restarts into an evening, the buffer no
# longer finds a free block that large: each try raised MemoryError and the
# board never came back. Here a reconnection resets the decoder, the queues
# and the transport (tallynet.transport.Connector.reset) in place, collects
# the garbage before it tries, and waits 1 s doubling to 8 s, plus a jitter
# from the board's identity so a club's boards do not all come at once.
import gc

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

from chumicro_mqtt import MQTTClient
from chumicro_mqtt import client as _mqtt

BACKOFF_MS = const(1000)         # the first wait after a lost or refused connection
BACKOFF_MAX_MS = const(8000)     # doubling to this
BACKOFF_SHIFT_MAX = const(3)     # 1000 << 3 = 8000
JITTER_MS = const(1000)          # each wait plus 0 to JITTER_MS - 1 ms, from the identity and the try


def jitter_seed(ident):
    """A number from the board's identity (a small int: no allocation when used)."""
    seed = 0
    for byte in ident.encode():
        seed = (seed * 31 + byte) & 0xFFFFF
    return seed


class Client(MQTTClient):
    def __init__(self, connector, ident, **options):
        self.connector = connector
        self.seed = jitter_seed(ident)
        self.tries = 0               # reconnection attempts (tests, benchmarks)
        self._connect_packet = None
        MQTTClient.__init__(self, transport_factory=connector.reset, **options)

    def _reset_transient_state(self):
        queue = self._tx_queue
        while queue:                 # MicroPython's deque has no clear()
            queue.popleft()
        self._partial_send = None
        self._puback_batch_queued = False
        self._send_deadline_ticks = None
        self._transport_deadline_ticks = None
        self._pending_responses.clear()
        decoder = self._decoder      # its buffer kept: only its place in it goes back to the start
        decoder._buffer_length = 0
        decoder._read_offset = 0
        decoder._drain_mode = 0
        decoder._drain_remaining = 0
        decoder._drain_topic = None
        decoder._drain_qos = 0
        decoder._drain_packet_id = None
        decoder._drain_message_length = 0

    def disconnect(self):
        queue = self._pre_connect_queue  # type: ignore[has-type]
        MQTTClient.disconnect(self)
        while queue:                 # disconnect() made a new one: the old one kept, emptied
            queue.popleft()
        self._pre_connect_queue = queue

    def _enqueue_connect_packet(self, now_ms=None):
        packet = self._connect_packet
        if packet is None:           # the same login and will every time: encoded once
            packet = self._connect_packet = _mqtt.encode_connect(
                client_id=self._client_id, keep_alive_seconds=self._keep_alive_seconds,
                clean_session=self._clean_session, username=self._username, password=self._password,
                will_topic=self._will_topic, will_message=self._will_message, will_qos=self._will_qos,
                will_retain=self._will_retain)
        self._enqueue_user_tx(packet)
        self._await_ack(_mqtt._AWAIT_CONNACK, now_ms=now_ms)

    def _arm_self_heal_backoff(self, now_ms):
        tries = self._self_heal_attempts  # type: ignore[has-type]
        delay = BACKOFF_MS << (tries if tries < BACKOFF_SHIFT_MAX else BACKOFF_SHIFT_MAX)
        delay += (self.seed + tries * 379) % JITTER_MS
        if tries < 64:
            self._self_heal_attempts = tries + 1
        self._self_heal_retry_at_ticks = self._deadline(delay, now_ms=now_ms)

    def _attempt_self_heal(self, now_ms):
        self.tries += 1
        gc.collect()                 # the old socket's garbage gone before the new one is made
        return MQTTClient._attempt_self_heal(self, now_ms)

    def fail(self, error):
        """The connection given up (a MemoryError in its slice, say): closed,
        and tried again after the backoff, never left half done."""
        self.last_error = error
        if self._connector is not None:  # type: ignore[has-type]
            self._connector.cancel()  # type: ignore[has-type]
            self._connector = None
        self._transport_deadline_ticks = None
        if self.state != _mqtt.ProtocolState.DISCONNECTED:  # type: ignore[has-type]
            self._enter_failed()

    def drop(self):
        """The Wi-Fi went: the socket closed without a DISCONNECT (nothing
        reaches the broker now; it publishes the board's will when its
        keepalive runs out), the client kept for connect() when it is back."""
        if self._connector is not None:
            self._connector.cancel()
            self._connector = None
        sock = self._socket  # type: ignore[has-type]
        self._socket = None
        if sock is not None:
            try:
                sock.close()
            except Exception:
                pass
        self._reset_transient_state()
        if self._clean_session:
            self._in_flight.clear()
            self._next_packet_id = 1
        was_connected = self.state == _mqtt.ProtocolState.CONNECTED  # type: ignore[has-type]
        self.state = _mqtt.ProtocolState.DISCONNECTED
        self._user_wants_connected = False
        if was_connected:
            self.on_disconnect()
