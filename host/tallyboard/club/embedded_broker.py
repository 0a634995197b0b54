"""The embedded broker (docs/club-mqtt.md): amqtt run in this process in a
thread of its own, with users and passwords, on a loopback port; what a
one-laptop evening runs when no broker is given. Anonymous clients refused;
who may publish and read what is brokers.py's, as for mosquitto."""
from __future__ import annotations

import asyncio
import hmac
import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..common.listeners import AcceptErrors
from ..common.ratelog import RateLog
from . import envelope, kinds
from .brokers import (MAX_INFLIGHT, MAX_INFLIGHT_BYTES, MAX_QUEUED, MAX_QUEUED_BYTES, START_TIMEOUT,
                      STOP_TIMEOUT, TLSFiles, client_ids, may)

CONNECT_TIMEOUT = 5.0        # seconds a new connection has to log in (CONNECT) before it is closed
MAX_CONNECTIONS = 200        # the whole listener
# Connections one address may hold before they have logged in. A logged-in connection no longer counts
# against its address: it holds a login's client id (client_ids(): at most two per login, a table host's
# and a Wi-Fi board's, a new one taking the old one's place), so the logins bound those. Whoever has no
# login needs MAX_CONNECTIONS // MAX_PER_ADDRESS = 50 addresses to fill the listener, each connection
# closed after CONNECT_TIMEOUT; a table host's laptop logs its links in one after another, well within 4.
MAX_PER_ADDRESS = 4

try:
    from amqtt.adapters import StreamReaderAdapter as _ReaderAdapter
    from amqtt.adapters import StreamWriterAdapter as _WriterAdapter
    from amqtt.broker import Broker as _Broker
    from amqtt.errors import AMQTTError as _AMQTTError
    from amqtt.errors import MQTTError as _MQTTError
    from amqtt.errors import NoDataError as _NoDataError
    from amqtt.mqtt.connack import NOT_AUTHORIZED as _NOT_AUTHORIZED
    from amqtt.mqtt.connack import ConnackPacket as _ConnackPacket
    from amqtt.mqtt.protocol.broker_handler import BrokerProtocolHandler as _BrokerHandler
    from amqtt.plugins.base import BaseAuthPlugin as _AuthBase
    from amqtt.plugins.base import BaseTopicPlugin as _TopicBase
except ImportError:   # amqtt missing: EmbeddedBroker says so when started
    _AuthBase = _TopicBase = _Broker = _ReaderAdapter = _BrokerHandler = object  # type: ignore[assignment,misc]
    _AMQTTError = _MQTTError = _NoDataError = RuntimeError  # type: ignore[assignment,misc]


class PasswordCheck(_AuthBase):  # type: ignore[misc,valid-type]
    """amqtt plugin: a client gets in only with a user name and its password
    from the broker's `users` (compared in constant time), with a client id
    of its own login (client_ids()), and with no last will on a topic its
    user may not publish (amqtt publishes a will without the topic check)."""

    @dataclass
    class Config:
        users: dict[str, str] = field(default_factory=dict)
        event: str = ""

    async def authenticate(self, *, session: Any) -> bool:
        expected = self.config.users.get(session.username or "")
        if expected is None or not hmac.compare_digest(expected.encode(), (session.password or "").encode()):
            return False
        if session.client_id not in client_ids(self.config.event, session.username):
            session.refused_because = (f"a client id not its own (its own: "
                                       f"{' or '.join(client_ids(self.config.event, session.username))})")
            return False
        if session.will_flag and not may(session.username, session.client_id, session.will_topic or "", True,
                                         event=self.config.event):
            session.refused_because = f"a last will on {session.will_topic}, where it may not publish"
            return False
        return True


class TopicCheck(_TopicBase):  # type: ignore[misc,valid-type]
    """amqtt plugin: publish, subscribe and receive by `may()`."""

    @dataclass
    class Config:
        enabled: bool = True
        event: str = ""

    async def topic_filtering(self, *, session: Any = None, topic: str | None = None, action: Any = None) -> bool:
        if session is None or topic is None:
            return False
        return may(session.username, session.client_id, topic, str(action) == "publish", event=self.config.event)


class _TooBig(Exception):
    """A packet over the cap: its connection ends (amqtt's reader loop ends on an
    exception it does not know; a NoDataError it would skip, and read the
    message's bytes as packets)."""


class _CappedReader(_ReaderAdapter):  # type: ignore[misc,valid-type]
    """amqtt's stream reader, refusing any one read over envelope.MAX_BYTES: a
    PUBLISH's payload is read in one read of its whole length (an MQTT string,
    a topic, is at most 65535 bytes), so a bigger message ends its connection
    before the broker holds its bytes."""

    async def read(self, n: int = -1) -> bytes:
        if n < 0 or n > envelope.MAX_BYTES:
            raise _TooBig(f"a message of {n} bytes, over {envelope.MAX_BYTES}: its connection is closed")
        return await super().read(n)


# what one login or address can make the broker write to the director's log, a line a minute each with a
# count (common/ratelog.py): refused connections, and sessions held to their bounds
_REFUSALS_LOG = RateLog(logging.getLogger("amqtt.broker"), "the broker refused")
_BOUNDS_LOG = RateLog(logging.getLogger("amqtt.broker"), "the broker held a session to its bounds")


class _QuietFailures(logging.Filter):
    """amqtt's own line after each refused CONNECT ("Failed to initialize client session: ..."): the
    refusal is said already, once a minute per address (_REFUSALS_LOG)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Failed to initialize client session")


class _BoundedHandler(_BrokerHandler):  # type: ignore[misc,valid-type]
    """amqtt's broker-side protocol handler, holding at most MAX_INFLIGHT QoS 2 messages (and
    MAX_INFLIGHT_BYTES) awaiting their PUBREL (brokers.py: every club message is QoS 1; amqtt delivers a
    QoS 2 one only at its PUBREL, so a login that never sends one held its bytes for ever: issue 40 saw
    25 MB/s): one more closes the connection, as mosquitto's max_inflight_messages does; and when the
    connection ends, what it held goes with it (its PUBREL can no longer come on that connection)."""

    async def handle_publish(self, publish_packet: Any) -> None:
        session = self.session
        if publish_packet.qos == 2 and session is not None:
            held = session.inflight_in
            size = len(publish_packet.data or b"") + sum(len(m.data or b"") for m in held.values())
            if len(held) >= MAX_INFLIGHT or size > MAX_INFLIGHT_BYTES:
                _BOUNDS_LOG.note(session.client_id, "%s: over %d QoS 2 messages or %d bytes awaiting PUBREL; its "
                                 "connection is closed", session.client_id, MAX_INFLIGHT, MAX_INFLIGHT_BYTES)
                self._abort()
                return
        await super().handle_publish(publish_packet)

    def _abort(self) -> None:
        stream = getattr(getattr(self, "writer", None), "_writer", None)
        if stream is not None:
            stream.transport.abort()

    async def handle_connection_closed(self) -> None:
        try:
            await super().handle_connection_closed()
        finally:
            for waiter in list(self._pubrel_waiters.values()):
                waiter.cancel()
            self._pubrel_waiters.clear()
            if self.session is not None:
                self.session.inflight_in.clear()


class _Waiting:
    """A connection counted against its address until it has logged in."""

    def __init__(self, broker: "_GuardedBroker", address: str) -> None:
        self.broker, self.address, self.counted = broker, address, True
        broker.per_address[address] = broker.per_address.get(address, 0) + 1

    def release(self) -> None:
        if self.counted:
            self.counted = False
            self.broker.per_address[self.address] -= 1
            if not self.broker.per_address[self.address]:
                del self.broker.per_address[self.address]


class _Subscriptions(dict):  # type: ignore[type-arg]
    """amqtt's table of subscriptions {filter: [(session, qos), ...]}, whose items and keys are looped
    over as a copy taken when the loop begins. amqtt 0.12 loops over them with an await inside
    (_run_broadcast's deliveries, a returning session's retained messages); a board that restarted
    meanwhile (its subscriptions removed and made again) changed the dict under the loop, which raised
    "dictionary changed size during iteration" and lost the rest of that message's deliveries (twelve
    boards taking an update at once: bench/bench_update.py)."""

    def items(self) -> Any:
        return [(topic_filter, list(subscribers)) for topic_filter, subscribers in super().items()]

    def __iter__(self) -> Any:
        return iter(list(super().keys()))


class _GuardedBroker(_Broker):  # type: ignore[misc,valid-type]
    """amqtt 0.12's broker, made safe for a club's network:

    - it authenticates a CONNECT before it looks up, deletes or takes over any
      session (_initialize_client_session), and a login connects only with its
      own client id (PasswordCheck), so no one can drop the director's session;
    - a connection that has not logged in within CONNECT_TIMEOUT seconds is
      closed, and one address holds at most MAX_PER_ADDRESS connections that
      have not logged in (more are closed at once; logged once per burst);
    - no message over envelope.MAX_BYTES is read (_CappedReader), and only the
      kinds that are retained by contract (kinds.KINDS) are retained;
    - retained messages are sent only for a session's own subscriptions and
      only what it may read;
    - a message is delivered to every subscriber even when one subscribes or
      leaves while it goes out (_Subscriptions)."""

    def __init__(self, *args: Any, event: str, connect_timeout: float = CONNECT_TIMEOUT, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._subscriptions = _Subscriptions(getattr(self, "_subscriptions"))    # (amqtt's, untyped)
        self.event = event
        self.per_address: dict[str, int] = {}
        self.connect_timeout = connect_timeout
        self.turned_away: dict[str, int] = {}      # address: connections closed since its last log line
        self.waiting: dict[Any, _Waiting] = {}      # writer adapter: its count, until it has logged in
        self.tls_contexts: dict[str, Any] = {}      # listener name: its TLS context (None: plain MQTT)

    async def _create_server_instance(self, listener_name: str, listener_type: Any, address: str | None,
                                      port: int, ssl_context: Any) -> Any:
        # amqtt's, its TLS begun by stream_connected instead: a connection counts against its address
        # from its first byte, its handshake included, which must end within a login's time (asyncio's
        # own TLS hands a connection over once its handshake is done, one that never ends after 60 s)
        self.tls_contexts[listener_name] = ssl_context
        return await super()._create_server_instance(listener_name, listener_type, address, port, None)

    async def stream_connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                               listener_name: str) -> None:
        peer = writer.get_extra_info("peername")
        address = peer[0] if peer else "?"
        if self.per_address.get(address, 0) >= MAX_PER_ADDRESS:
            turned = self.turned_away.get(address, 0)
            if not turned:       # once per burst: a flood of connections is not a flood of log lines
                self.logger.warning("%s has %d connections that have not logged in; closing new ones",
                                    address, MAX_PER_ADDRESS)
            self.turned_away[address] = turned + 1
            writer.close()
            return
        waiting = _Waiting(self, address)
        adapter = _WriterAdapter(writer)
        self.waiting[adapter] = waiting
        try:
            if not await self._tls_begun(listener_name, writer, address):
                return
            await self._client_connected(listener_name, _CappedReader(reader), adapter)
        finally:
            self.waiting.pop(adapter, None)
            waiting.release()
            if self.turned_away.get(address) and address not in self.per_address:
                self.logger.warning("%s: %d more connections were closed while it had %d waiting", address,
                                    self.turned_away.pop(address), MAX_PER_ADDRESS)

    async def _tls_begun(self, listener_name: str, writer: asyncio.StreamWriter, address: str) -> bool:
        """The listener's TLS handshake, if it has TLS, within the time a login has; False (the connection
        closed, and said once per address) when it failed."""
        context = self.tls_contexts.get(listener_name)
        if context is None:
            return True
        try:
            await writer.start_tls(context, ssl_handshake_timeout=self.connect_timeout)
            return True
        except (OSError, asyncio.TimeoutError, ConnectionError) as exc:     # ssl.SSLError is an OSError
            _REFUSALS_LOG.note(address, "%s: no TLS handshake within %g s: %s", address, self.connect_timeout,
                               exc or exc.__class__.__name__)
            writer.transport.abort()
            return False

    async def _retain_broadcast_message(self, broadcast: dict[str, Any], qos: int, target_session: Any) -> None:
        # a message for an offline session: kept up to MAX_QUEUED messages and MAX_QUEUED_BYTES a session
        queue = target_session.retained_messages
        held = sum(len(message.data or b"") for message in queue._queue)     # asyncio.Queue's own deque
        if queue.qsize() >= MAX_QUEUED or held + len(broadcast.get("data") or b"") > MAX_QUEUED_BYTES:
            _BOUNDS_LOG.note(target_session.client_id, "%s is offline with %d messages (%d bytes) kept for it; one "
                             "more on %s is not kept", target_session.client_id, queue.qsize(), held,
                             broadcast.get("topic"))
            return
        await super()._retain_broadcast_message(broadcast, qos, target_session)

    async def retain_message(self, source_session: Any, topic_name: str | None, data: Any,
                             qos: int | None = None) -> None:
        # a client's retained message only on a topic whose kind is retained by contract (status, round,
        # applied); a retained hand or state is delivered as it is, but never stored
        if source_session is not None and topic_name is not None:
            parsed = kinds.parse_topic(self.event, topic_name)
            if parsed is None or not parsed[0].retained:
                self.logger.warning("%s: a retained message on %s is not kept (nothing is retained there)",
                                    source_session.client_id, topic_name)
                return
        await super().retain_message(source_session, topic_name, data, qos)

    async def _publish_retained_messages_for_subscription(self, subscription: tuple[str, int],
                                                          session: Any) -> None:
        # amqtt 0.12 calls this at every connection for every topic filter any client subscribed to, and
        # sends retained messages without the topic check: only the session's own filters, and what it may read
        topic_filter = subscription[0]
        if all(subscriber.client_id != session.client_id for subscriber, _ in self._subscriptions.get(topic_filter, [])):
            return
        handler = self._get_handler(session)
        if handler is None:
            return
        tasks = [asyncio.ensure_future(handler.mqtt_publish(message.topic, message.data,
                                                            min(subscription[1], message.qos or subscription[1]),
                                                            retain=True))
                 for topic, message in list(self._retained_messages.items())
                 if self._matches(topic, topic_filter)
                 and may(session.username, session.client_id, topic, False, event=self.event)]
        if tasks:
            await asyncio.wait(tasks)

    async def _initialize_client_session(self, reader: Any, writer: Any, remote_address: str,
                                         remote_port: int) -> Any:
        # Replaces amqtt 0.12.1's own (pinned in pyproject.toml), which reads the CONNECT and then, before
        # anything authenticates it (_handle_client_session does, later), deletes the session of that
        # client id (clean session) or takes it up and copies the new user name, password and will onto
        # it: one CONNECT with the director's client id and a wrong password dropped the director's live
        # session. No hook runs in between, so a subclass cannot guard that path: this reads the CONNECT,
        # authenticates it on a session of its own (PasswordCheck: the password, the client id bound to
        # the login, the will), answers a refusal with CONNACK 5 and closes, and only then does amqtt's
        # session lookup, copied from 0.12.1 as it is.
        handler, client_session = await self._read_connect(reader, writer, remote_address, remote_port)
        if not await self._authenticate(client_session, None):
            _REFUSALS_LOG.note(remote_address, "%s:%s: %r (user %r) not authorized (%s); no session touched",
                               remote_address, remote_port, client_session.client_id, client_session.username,
                               getattr(client_session, "refused_because", "no such user, or a wrong password"))
            try:
                await _ConnackPacket.build(0, _NOT_AUTHORIZED).to_stream(writer)
            except OSError:
                pass
            await self._close(writer)
            raise _AMQTTError(f"{client_session.client_id!r} not authorized")
        waiting = self.waiting.pop(writer, None)
        if waiting is not None:
            waiting.release()            # logged in: its login's client id bounds it now, not its address

        # amqtt 0.12.1's lookup, after the authentication (the client id is the login's own)
        if client_session.clean_session:
            await self._delete_session(client_session.client_id)
            client_session.parent = 0
        elif client_session.client_id in self._sessions:
            existing_client_session, _ = self._sessions[client_session.client_id]
            existing_client_session.will_flag = client_session.will_flag
            existing_client_session.will_message = client_session.will_message
            existing_client_session.will_topic = client_session.will_topic
            existing_client_session.will_qos = client_session.will_qos
            existing_client_session.keep_alive = client_session.keep_alive
            existing_client_session.username = client_session.username
            existing_client_session.password = client_session.password
            client_session = existing_client_session
            client_session.parent = 1
        else:
            client_session.parent = 0
        timeout_disconnect_delay = self.config.get("timeout-disconnect-delay", 0)
        if client_session.keep_alive > 0 and isinstance(timeout_disconnect_delay, int):
            client_session.keep_alive += timeout_disconnect_delay
        return handler, client_session

    async def _read_connect(self, reader: Any, writer: Any, remote_address: str, remote_port: int) -> Any:
        """The CONNECT's handler and session; a connection without one (none in time, unreadable, invalid) is
        closed, said once a minute per address, and raised as amqtt's own errors."""
        try:
            return await asyncio.wait_for(
                _BoundedHandler.init_from_connect(reader, writer, self.plugins_manager), self.connect_timeout)
        except asyncio.TimeoutError:
            _REFUSALS_LOG.note(remote_address, "%s:%s sent no CONNECT in %g s; closed", remote_address, remote_port,
                               self.connect_timeout)
            await self._close(writer)
            raise _AMQTTError("no CONNECT in time") from None
        except (_AMQTTError, _NoDataError, _TooBig) as exc:
            _REFUSALS_LOG.note(remote_address, "%s:%s: no CONNECT read: %s", remote_address, remote_port, exc)
            await self._close(writer)
            raise _AMQTTError(exc) from exc
        except _MQTTError as exc:
            _REFUSALS_LOG.note(remote_address, "%s:%s: an invalid CONNECT: %s", remote_address, remote_port, exc)
            await self._close(writer)
            raise

    @staticmethod
    async def _close(writer: Any) -> None:
        try:
            await writer.close()
        except OSError:
            pass


class EmbeddedBroker:
    """amqtt on `bind`:`port` (127.0.0.1 unless told; port 0: a free one,
    then `port` says which) in a thread with its own asyncio loop;
    anonymous clients refused, `users` ({name: password}) let in, each with
    its own client id only (client_ids()), publishing and reading only what
    `may()` allows on the evening `event`. Sessions and retained
    messages live in memory: they go when the broker stops. With `tls`,
    the listener speaks TLS (mqtts://) with that certificate chain."""

    def __init__(self, port: int, users: Mapping[str, str], bind: str = "127.0.0.1", *, event: str,
                 connect_timeout: float = CONNECT_TIMEOUT, tls: TLSFiles | None = None) -> None:
        self.event = envelope.check_name("event", event)
        self.port = port
        self.connect_timeout = connect_timeout   # seconds a connection has to log in (tests shorten it)
        self.users = dict(users)
        self.bind = bind                 # 0.0.0.0: table hosts on other laptops reach it
        self.tls = tls
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._broker: Any = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def start(self) -> None:
        if _Broker is object:
            raise RuntimeError("the embedded broker needs amqtt: pip install amqtt")
        amqtt_log = logging.getLogger("amqtt.broker")
        if not any(isinstance(f, _QuietFailures) for f in amqtt_log.filters):
            amqtt_log.addFilter(_QuietFailures())
        listener: dict[str, Any] = {"type": "tcp", "bind": f"{self.bind}:{self.port}",
                                    "max_connections": MAX_CONNECTIONS}
        if self.tls is not None:
            listener.update(ssl=True, certfile=str(self.tls.certfile), keyfile=str(self.tls.keyfile))
        config = {
            "listeners": {"default": listener},
            "plugins": {f"{__name__}.PasswordCheck": {"users": self.users, "event": self.event},
                        f"{__name__}.TopicCheck": {"enabled": True, "event": self.event}},
        }

        def run() -> None:
            loop = asyncio.new_event_loop()
            loop.set_exception_handler(AcceptErrors(logging.getLogger(__name__), "the broker"))
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self._broker = _GuardedBroker(config, loop=loop, event=self.event, connect_timeout=self.connect_timeout)
                loop.run_until_complete(self._broker.start())
            except BaseException as error:   # reported by start() in the caller's thread
                self._error = error
                self._ready.set()
                loop.close()
                return
            self._ready.set()
            try:
                loop.run_forever()
            finally:
                loop.close()

        self._ready.clear()
        self._error = None
        self._thread = threading.Thread(target=run, name=f"amqtt-{self.port}", daemon=True)
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT) or self._error is not None:
            error = self._error or f"not listening after {START_TIMEOUT:g} s"
            self._thread.join(STOP_TIMEOUT)
            self._loop = self._thread = self._broker = None
            raise RuntimeError(f"the embedded broker did not start on {self.bind}:{self.port}: {error}")
        server = self._broker._servers["default"].instance
        self.port = server.sockets[0].getsockname()[1]      # port 0: the one the system gave

    def stop(self) -> None:
        """Close the listening socket first (the port is free when this
        returns), then the sessions; RuntimeError if amqtt did not shut down
        in time (its sessions are dropped all the same)."""
        loop, thread, broker = self._loop, self._thread, self._broker
        self._loop = self._thread = self._broker = None
        _REFUSALS_LOG.flush()         # the counts still held, written once
        _BOUNDS_LOG.flush()
        if loop is None or thread is None:
            return
        failure: BaseException | None = None
        if broker is not None and loop.is_running():
            try:
                asyncio.run_coroutine_threadsafe(self._shutdown(broker), loop).result(STOP_TIMEOUT + 2)
            except BaseException as error:   # reported below, after the loop is stopped
                failure = error
        if loop.is_running():
            loop.call_soon_threadsafe(loop.stop)
        thread.join(STOP_TIMEOUT)
        if thread.is_alive():
            raise RuntimeError(f"the embedded broker's thread did not end within {STOP_TIMEOUT:g} s")
        if failure is not None:
            raise RuntimeError(f"the embedded broker on port {self.port} did not shut down cleanly "
                               f"({failure!r}); its port is closed and its sessions dropped") from failure

    @staticmethod
    async def _shutdown(broker: Any) -> None:
        for server in broker._servers.values():     # the port first: amqtt closes it last, after every session
            if server.instance is not None:
                server.instance.close()
        # then every connection, at once: amqtt's shutdown waits on each session's reader and writer, which
        # mid-stream (QoS 1 in flight) wait on each other
        for _session, handler in list(broker._sessions.values()):
            stream = getattr(getattr(handler, "writer", None), "_writer", None)
            if stream is not None:
                stream.transport.abort()
        try:
            await asyncio.wait_for(broker.shutdown(), STOP_TIMEOUT)
        finally:
            current = asyncio.current_task()
            for task in asyncio.all_tasks():
                if task is not current:
                    task.cancel()

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> "EmbeddedBroker":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
