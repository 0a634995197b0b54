# The club link of a board on Wi-Fi (docs/club-mqtt.md, "A board on the
# club's Wi-Fi"): one cooperative task in the app's asyncio loop, beside the
# USB protocol, never in its way. Each step does a bounded slice of work and
# returns: joins the Wi-Fi (network.WLAN; backoff doubling to 30 s), keeps
# the MQTT client going (tallynet.client: non-blocking, one slice a tick,
# made once and reused by every reconnection, 1 s doubling to 8 s between
# tries), takes the director's round and applied,
# seats the board, publishes the table's state and its health (tallynet.health).
#
# The journal is the outbox (tallynet.outbox): after an acknowledged change
# (the app's on_change) the body is composed from the game when the host is
# quiet; if it differs from the last one numbered and the director has
# confirmed that one, the next seq is written to flash with the body, then
# published. An unconfirmed one is sent again after every reconnection and
# when the director has not confirmed it in 5 s (doubling to 5 minutes).
#
# MQTT callbacks only queue what arrived (aiomqtt's rule); the step handles it.
import gc
import sys

import asyncio

from tallycore import const, select, ticks_add, ticks_diff, ticks_ms

import network

from tallyrun import protocol
from tallynet import envelope, health, tablestate, topics
from tallynet.outbox import Outbox, Seat, from_round
from tallynet import publishing, seating
from tallynet.publishing import BUSY_MS, RESEND_MS
from tallynet.settings import NOT_ENROLLED, RX_BUFFER

_KEEPALIVE_S = const(15)
_STEP_MS = const(20)              # between steps while something is under way
_IDLE_MS = const(100)             # between steps while all is quiet
_WIFI_BACKOFF_MS = const(1000)    # the first wait before joining again; doubles to _WIFI_BACKOFF_MAX_MS
_WIFI_BACKOFF_MAX_MS = const(30000)
_WIFI_JOIN_MS = const(20000)      # a join that has not given an address by then is started again
_APPLIED_GRACE_MS = const(1000)   # after a connection: the retained applied comes first, if the director has one
_REFUSED_RETRY_MS = const(30000)  # the broker refused the login: tried again this often (an ACL set up late)
_MAX_INBOX = const(4)             # messages waiting for the step (round and applied are retained: the latest counts)
_MAX_CHUNKS = const(8)            # a release's chunks waiting for the step: the director's window (tallynet.update)
HANDLE_MS = const(1000)          # connected and quiet, the client is still given a turn this often (its
#                                  ping at 7.5 s, its deadlines); else only when its socket has bytes or it
#                                  has some to send

(_IDLE, _JOINING) = range(2)

# The link's state on the OLED's heading, one character after "T3 R2"
# (docs/club-mqtt.md, "What the board shows"): and on the Pico W's LED.
MARK_UP = b"^"          # the broker has the board's link, nothing waiting; LED on
MARK_SENDING = b"+"     # the broker has it, messages wait for the director's word; LED blinks
MARK_NO_BROKER = b"?"   # on the Wi-Fi, the broker not reached; LED blinks slowly
MARK_NO_WIFI = b"!"     # not on the Wi-Fi; LED off
_BLINK_MS = const(250)


class Link:
    def __init__(self, app, net, led=None, rx=None, cause="unknown", supply=None, resets=0):
        self.app = app
        self.net = net
        self.led = led               # the Pico W's LED: a callable taking 0 or 1 (tallypanel.hw.link_led)
        self.cause = cause           # the last reset's cause (tallynet.health.CAUSES; tallypanel.hw.health_cause)
        self.supply = supply         # the supply's reader, mV (tallypanel.hw.supply_reader), or None: not wired
        self.resets = resets         # the power-ups counted on flash (tallyrun.restore.count_reset; the health)
        self.rx = rx if rx is not None else bytearray(RX_BUFFER)   # the MQTT client's receive buffer
        envelope.prepare()           # canonical JSON's one buffer (made already by tallypanel.start)
        self.outbox = Outbox(app.root)
        self.outbox.load()
        self.seat = Seat(app.root)
        self.seat.load()
        self.generation = -1
        self.inbox = []
        self.dirty = True            # the game or a setting changed since the body was composed
        self.body = None             # the body composed last (canonical JSON) and its hands
        self.body_hands = 0
        self.applied = -1            # the director's applied for this board (-1: not heard since the start)
        self.wlan = None
        self.wifi_state = _IDLE
        self.wifi_at = ticks_ms()    # when to join again / when the join began
        self.wifi_backoff = _WIFI_BACKOFF_MS
        self.client = None
        self.polled = None           # the connected socket the poller watches
        self.poller = None
        self.handled_at = ticks_ms()
        self.busy_until = ticks_ms()  # the client is given every step until then (after a publish)
        self.connected_at = None     # when the broker took this connection (None: not connected)
        self.refused_at = None
        self.send_now = False        # the unconfirmed message goes at the next chance
        self.resend_at = ticks_ms()
        self.resend_wait = RESEND_MS
        self.sent = 0                # publishes (benchmarks, tests)
        self.memory_errors = 0       # MemoryErrors caught in the link's slices (STATS errors counts them too)
        self.ident = ""
        self.event = ""
        self.topic_round = ""
        self.topic_applied = ""
        self.topic_hand = self.topic_state = self.topic_health = ""
        self.topic_offer = self.topic_chunk = self.topic_update = ""
        self.chunks = []             # a release's chunks, as they came (tallynet.update takes them)
        self.updater = None          # tallynet.update's Updater: made when an offer comes, or at the
        #                              power-up when one was under way (main.py imported tallyboot)
        app.on_change(self._changed)
        net.on_leave(self.forget)
        self.health = health.State(ticks_ms(), getattr(app.restored, "started_ms", None))   # uptime, connections
        if "tallyboot" in sys.modules:
            self._updater()
        if self.outbox.damaged:
            app.note("network: netout.txt could not be read; the board numbers on from the director's applied")

    # ------------------------------------------------------------ the app's side
    def _changed(self, kind):
        self.dirty = True

    def forget(self):
        """NET LEAVE: the numbering and the round go with the settings."""
        self.outbox.forget()
        self.seat.forget()
        self.applied = -1
        self.body = None
        self.dirty = True

    async def run(self):
        while True:
            busy = False
            try:
                busy = self.step(ticks_ms())
            except MemoryError:      # the slice is dropped, the client kept (its buffers are what is scarce)
                self._out_of_memory(None)
            except Exception as exc:   # a bug here must not stop the scoring: said once, then tried again
                self.net.error = "link"
                self._drop_client()
                self.app.internal_errors += 1
                self.app.note("network: %s: %s" % (type(exc).__name__, exc))
                await asyncio.sleep_ms(_WIFI_BACKOFF_MAX_MS)
            await asyncio.sleep_ms(_STEP_MS if busy else _IDLE_MS)

    # ------------------------------------------------------------ one step
    def step(self, now):
        """A bounded slice of the link's work; True while something is under way."""
        net = self.net
        health.tick(self.health, now)
        if self.updater is not None:
            self.updater.restart_if_due(now)
        if net.generation != self.generation:
            self._restart()
        if not net.enrolled(self.app.config):
            net.error = NOT_ENROLLED
            net.waiting = 0              # nothing is sent outside an evening (after NET LEAVE too)
            return False
        composed = publishing.compose_if_due(self)      # offline too: NET's waiting counts a change not yet sent
        net.waiting = publishing.waiting(self)
        if not self._wifi(now):
            self._show(now)
            return self.wifi_state == _JOINING or composed
        client = self.client
        if client is None:
            client = self._new_client()
        elif client.state == "disconnected":
            client.connect()           # the Wi-Fi is back: the same client, its buffers allocated once
        if client.check(now) and self._client_due(client, now):
            self.handled_at = now
            try:
                client.handle(now)
            except MemoryError as exc:   # mid-packet, maybe: the connection given up and tried again
                self._out_of_memory(exc)
        self._watch_broker(now)
        while self.inbox:
            topic, payload = self.inbox.pop(0)
            self._take(topic, payload)
        while self.chunks:
            payload = self.chunks.pop(0)
            if self.updater is not None:
                self.updater.chunk(payload)
        if self.connected_at is None:
            self._show(now)
            return True
        ready = self.applied >= 0 or ticks_diff(now, self.connected_at) >= _APPLIED_GRACE_MS
        if ready and not composed:          # one slice of work a step: the composing was this one's
            seating.seat_if_due(self)
            sent, seq, dirty = self.sent, self.outbox.seq, self.dirty    # (ints: no tuple made)
            publishing.publish(self, now)
            health.after_table(self, now, sent, seq, dirty)     # if nothing of the table's went: never before it
            if self.updater is not None:
                self.updater.step(now)
        net.waiting = publishing.waiting(self)
        self._show(now)
        return not ready or composed or self._busy()

    def _busy(self):
        """Something under way that the next step should come soon for."""
        updater = self.updater
        return bool(self.inbox) or self.net.waiting > 0 or (updater is not None and updater.busy())

    def _restart(self):
        """The settings changed (or the first step): everything from them again."""
        net = self.net
        self.generation = net.generation
        self._drop_client()
        if self.wlan is not None:
            try:
                self.wlan.disconnect()
            except OSError:
                pass
        net.joined = False
        self.wifi_state = _IDLE
        self.wifi_at = ticks_ms()
        self.wifi_backoff = _WIFI_BACKOFF_MS
        config = self.app.config
        self.ident = net.ident(config)
        event = net.get(protocol.NET_EVENT)
        self.event = event.decode() if event else ""
        self.topic_round = topics.topic(topics.ROUND, self.event)
        self.topic_applied = topics.topic(topics.APPLIED, self.event, self.ident)
        self.topic_hand = topics.topic(topics.HAND, self.event, self.ident)
        self.topic_state = topics.topic(topics.STATE, self.event, self.ident)
        self.topic_health = topics.topic(topics.HEALTH, self.event, self.ident)
        self.topic_offer = topics.topic(topics.OFFER, self.event, self.ident)
        self.topic_chunk = topics.topic(topics.CHUNK, self.event, self.ident)
        self.topic_update = topics.topic(topics.UPDATE, self.event, self.ident)
        self.dirty = True

    # ------------------------------------------------------------ what the board shows
    def _show(self, now):
        net = self.net
        if not net.joined:
            mark = MARK_NO_WIFI
            lit = 0
        elif not net.broker:
            mark = MARK_NO_BROKER
            lit = (now // (4 * _BLINK_MS)) & 1
        elif net.waiting:
            mark = MARK_SENDING
            lit = (now // _BLINK_MS) & 1
        else:
            mark = MARK_UP
            lit = 1
        if self.led is not None:
            self.led(lit)
        if mark is not net.mark:
            net.mark = mark
            if net.on_mark is not None:
                net.on_mark()

    # ------------------------------------------------------------ Wi-Fi
    def _wifi(self, now):
        """Whether the board is on the Wi-Fi with an address; joins (again) with backoff."""
        net = self.net
        wlan = self.wlan
        if wlan is None:
            wlan = self.wlan = network.WLAN(network.STA_IF)
            wlan.active(True)
        if wlan.isconnected():
            if not net.joined:
                net.joined = True
                self.wifi_state = _IDLE
                self.wifi_backoff = _WIFI_BACKOFF_MS
                if net.error in ("no_network", "wifi_password", "no_address"):
                    net.error = None
            return True
        if net.joined:            # the access point went away
            net.joined = False
            net.error = "no_network"
            self._pause_client()
            self.wifi_state = _IDLE
            self.wifi_at = now
        status = wlan.status()
        if self.wifi_state == _JOINING:
            if status == network.STAT_WRONG_PASSWORD:
                net.error = "wifi_password"
            elif status == network.STAT_NO_AP_FOUND or status == network.STAT_CONNECT_FAIL:
                net.error = "no_network"
            elif status == network.STAT_CONNECTING and ticks_diff(now, self.wifi_at) < _WIFI_JOIN_MS:
                return False
            elif status != network.STAT_CONNECTING:
                net.error = "no_address"
            else:
                net.error = "no_network"
            self.wifi_state = _IDLE
            self.wifi_at = ticks_add(now, self.wifi_backoff)
            self.wifi_backoff = min(self.wifi_backoff * 2, _WIFI_BACKOFF_MAX_MS)
            return False
        if ticks_diff(now, self.wifi_at) < 0:
            return False
        password = net.get(protocol.NET_WIFI_PASSWORD)
        ssid = net.get(protocol.NET_SSID)
        try:
            wlan.connect(ssid, password) if password is not None else wlan.connect(ssid)
        except OSError:
            self.wifi_at = ticks_add(now, self.wifi_backoff)
            return False
        self.wifi_state = _JOINING
        self.wifi_at = now
        return False

    # ------------------------------------------------------------ the broker
    def _login(self):
        """The board's broker login: NET's broker_user, else its table's, the board's identity
        (docs/club-mqtt.md, "Who may publish what")."""
        user = self.net.get(protocol.NET_BROKER_USER)
        return user.decode() if user is not None else self.ident

    def _status(self, online):
        """Its status, named after its login and signed with its key, as each table's link's is."""
        return envelope.seal(self.net.key(), self.event, self._login(), 0, topics.STATUS,
                             {"online": online, "boards": [self.ident]})

    def _client_id(self):
        return "%s-%s" % (self.event, tablestate.host_of(self.ident))

    def _out_of_memory(self, exc):
        """A MemoryError in a slice: counted, the garbage collected, the
        connection (if it was in the client's hands) closed and tried again."""
        self.memory_errors += 1
        self.app.internal_errors += 1
        self.net.error = "memory"
        gc.collect()
        client = self.client
        if exc is not None and client is not None:
            client.fail(exc)

    def _new_client(self):
        """Once per enrolment (or per boot of an enrolled board): the client,
        its transport and its buffers, kept for every reconnection after."""
        from tallynet.client import Client
        from tallynet.transport import Connector
        net = self.net
        password = net.get(protocol.NET_BROKER_PASSWORD)
        password = password.decode() if password is not None else envelope.broker_password(net.key())
        gc.collect()
        connector = Connector(net.get(protocol.NET_BROKER_HOST).decode(), net.get(protocol.NET_BROKER_PORT))
        client = Client(
            connector, self.ident, self._client_id(), _KEEPALIVE_S, self._login(), password,
            self._status_topic(), self._status(False), self.rx, on_message=self._queue)
        client.subscribe(self.topic_round, 1)
        client.subscribe(self.topic_applied, 1)
        client.subscribe(self.topic_offer, 1)
        client.subscribe(self.topic_chunk, 0)
        client.connect()
        self.client = client
        self.connected_at = None
        self.refused_at = None
        return client

    def _client_due(self, client, now):
        """Whether the client has work: connecting, bytes waiting on its socket,
        bytes to send, or HANDLE_MS since its last turn. Allocation-free."""
        if client.state != "connected" or ticks_diff(now, self.handled_at) >= HANDLE_MS:
            return True
        if ticks_diff(self.busy_until, now) > 0:
            return True       # just published: its packets go out a slice a step
        sock = client.sock
        if sock is None:
            return True
        poller = self.poller
        if poller is None:
            poller = self.poller = select.poll()     # one poller: each connection's socket swapped in
        if sock is not self.polled:
            if self.polled is not None:
                try:
                    poller.unregister(self.polled)
                except (OSError, ValueError, KeyError):   # closed already (CPython's poll wants its fd)
                    pass
            poller.register(sock, select.POLLIN)
            self.polled = sock
        for _ in poller.ipoll(0):
            return True
        return False

    def _status_topic(self):
        return topics.topic(topics.STATUS, self.event, self._login())

    def _queue(self, topic, payload):
        """The client's callback: queue only (the step takes it)."""
        if topic == self.topic_chunk:
            if len(self.chunks) < _MAX_CHUNKS:      # more: the director sends them again
                self.chunks.append(payload)
            return
        if len(self.inbox) >= _MAX_INBOX:
            self.inbox.pop(0)     # retained state: a later one of the same topic comes again
        self.inbox.append((topic, payload))

    def _watch_broker(self, now):
        client = self.client
        if client is None:
            return
        net = self.net
        connected = client.state == "connected"
        if connected and self.connected_at is None:
            self.connected_at = now
            health.connected(self.health)
            net.broker = True
            net.error = None
            self.send_now = True
            self.resend_wait = RESEND_MS
            self.applied = -1 if self.outbox.seq == 0 else self.applied
            self.busy_until = ticks_add(now, BUSY_MS)
            try:
                client.publish(self._status_topic(), self._status(True), qos=1, retain=True)
            except Exception:   # backpressure: the will says offline; the next connection says online
                pass
        elif not connected and self.connected_at is not None:
            self.connected_at = None
            net.broker = False
            net.error = "broker_lost"
        if not connected and client.state == "failed":
            error = client.last_error
            code = getattr(error, "return_code", 0)
            if code in (4, 5):
                net.error = "broker_refused"
                if self.refused_at is None:
                    self.refused_at = now
                elif ticks_diff(now, self.refused_at) >= _REFUSED_RETRY_MS:
                    self.refused_at = None
                    client.connect()
            elif error is not None and net.error != "broker_lost":
                net.error = "broker_unreachable"

    def _pause_client(self):
        """The Wi-Fi went: the broker connection dropped (no DISCONNECT: the broker
        publishes the board's will), the client kept for its return."""
        client = self.client
        self.connected_at = None
        self.net.broker = False
        if client is not None:
            client.drop()

    def _drop_client(self):
        client = self.client
        self.client = None
        self.connected_at = None
        self.net.broker = False
        self.inbox = []
        self.chunks = []
        if client is not None:
            try:
                client.disconnect()
            except Exception:
                pass

    # ------------------------------------------------------------ the director's messages
    def _take(self, topic, payload):
        net = self.net
        key = net.key()      # the board's own: it checks its own tag of the director's message, one HMAC
        try:
            if topic == self.topic_applied:
                message = envelope.open_director(payload, key, self.event, topics.APPLIED, self.ident)
                body = message["body"]
                seq = body.get("seq")
                if body.get("board") != self.ident or not isinstance(seq, int) or seq < 0:
                    raise ValueError("not this board's applied")
                self._applied(seq)
            elif topic == self.topic_offer:
                if not payload:     # withdrawn: no chunks are coming
                    if self.updater is not None:
                        self.updater.withdrawn()
                    return
                message = envelope.open_director(payload, key, self.event, topics.OFFER, self.ident)
                if message["body"].get("board") != self.ident:
                    raise ValueError("not this board's offer")
                self._updater().offer(message["body"])
            elif topic == self.topic_round:
                message = envelope.open_director(payload, key, self.event, topics.ROUND, self.ident)
                last = self.seat.rseq()
                if message["seq"] <= last:
                    return          # this one, or an older one, taken already
                if last and message["seq"] > last + envelope.ROUND_AHEAD:
                    net.error = "round_ahead"     # a number pushed out of reach would shadow the director's next
                    return
                seat = from_round(message["body"], message["seq"], self.app.config.table)
                self.seat.save(seat, self.seat.seated)
        except ValueError as exc:
            net.error = "director_tag" if str(exc) == "signature" else "director_message"
        except OSError:
            net.error = "flash"

    def _updater(self):
        updater = self.updater
        if updater is None:
            from tallynet.update import Updater
            updater = self.updater = Updater(self)
        return updater

    def _applied(self, seq):
        outbox = self.outbox
        if seq > outbox.seq:
            if outbox.seq == 0:            # enrolled again in this evening: number on from the director's
                outbox.adopt(seq)
            else:
                self.net.error = "director_ahead"
                return
        self.applied = seq
        if seq >= outbox.seq:
            self.resend_wait = RESEND_MS
