"""MQTT brokers for a club evening (docs/club-mqtt.md).

Mosquitto: Debian's mosquitto run as a child process on a loopback port,
with users and passwords, persistence, and optionally a TLS listener; what a
club runs, and what the tests run. EmbeddedBroker: amqtt run in this process
in a thread of its own, with users and passwords, on a loopback port; what a
one-laptop evening runs when no broker is given. Both refuse anonymous
clients."""
from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import os
import signal
import socket
import ssl
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from tallynet import topics

from ..listeners import AcceptErrors
from . import envelope, kinds

MOSQUITTO = "/usr/sbin/mosquitto"
START_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _PortTaken(RuntimeError):
    pass


@dataclass(frozen=True)
class TLSFiles:
    """The server's certificate and key (PEM) for a TLS listener."""
    certfile: Path
    keyfile: Path


class Mosquitto:
    """mosquitto on 127.0.0.1:`port` (0: a free one, then `port` says which),
    users from `users` ({name: password}, hashed into its password file as
    mosquitto_passwd does), each publishing and reading only what ACL allows
    (mosquitto_acl(event); may() for the embedded broker) for the evening `event`,
    persistence in `persistence_dir` (config, password and ACL files and log there too);
    each login's client id is its user name (use_username_as_clientid), and no message
    over the envelope's limit (mosquitto_limits()).
    With `tls`, the listener speaks TLS (mqtts://). A context manager:
    started on entry, stopped on exit, whatever happened."""

    def __init__(self, port: int, users: Mapping[str, str], persistence_dir: str | Path,
                 tls: TLSFiles | None = None, executable: str = MOSQUITTO, *, event: str) -> None:
        self.event = event if event == ANY_EVENT else envelope.check_name("event", event)
        self.port = port
        self.users = dict(users)
        self.dir = Path(persistence_dir)
        self.tls = tls
        self.executable = executable
        self.process: subprocess.Popen[bytes] | None = None
        self.config_path = self.dir / "mosquitto.conf"
        self.log_path = self.dir / "mosquitto.log"

    def write_config(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        passwords = self.dir / "passwords"
        write_private(passwords, "".join(mosquitto_password_line(name, password) + "\n"
                                         for name, password in self.users.items()))
        acl = self.dir / "acl"
        write_private(acl, mosquitto_acl(self.event))
        lines = [
            "per_listener_settings false",
            "allow_anonymous false",
            f"password_file {passwords}",
            f"acl_file {acl}",
            *mosquitto_limits(),
            "persistence true",
            f"persistence_location {self.dir}/",
            "autosave_interval 1",          # the queues on disk within a second, not only at a clean stop
            "max_queued_messages 0",        # never drop a queued message for an offline director
            f"log_dest file {self.log_path}",
            "log_type error",
            "log_type warning",
            "log_type notice",
            f"listener {self.port} 127.0.0.1",
            CLIENT_ID_IS_LOGIN,             # a listener's setting: after its `listener` line
        ]
        if self.tls is not None:
            lines += [f"certfile {self.tls.certfile}", f"keyfile {self.tls.keyfile}"]
        if os.geteuid() == 0:
            lines.append("user root")       # else mosquitto drops to a user that cannot read these files
        self.config_path.write_text("\n".join(lines) + "\n")

    def start(self) -> None:
        if self.port == 0:       # a free port, tried again if another process took it meanwhile
            for attempt in range(5):
                self.port = free_port()
                self.write_config()
                try:
                    return self.start()
                except _PortTaken:
                    self.port = 0
            raise RuntimeError("mosquitto found no free port in 5 tries")
        logged: int | None = None       # where this start's log begins (None: it was running)
        if self.process is None or self.process.poll() is not None:
            if not self.config_path.exists():
                self.write_config()
            logged = self.log_path.stat().st_size if self.log_path.exists() else 0
            self.process = subprocess.Popen([self.executable, "-c", str(self.config_path)],
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.PIPE)
        deadline = time.monotonic() + START_TIMEOUT
        while not self._answers(logged):
            if self.process.poll() is not None:
                error = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                if "in use" in error + self._log_tail():
                    self.process = None
                    raise _PortTaken(f"mosquitto: port {self.port} is in use")
                raise RuntimeError(f"mosquitto did not start on port {self.port}: {error.strip()} "
                                   f"{self._log_tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"mosquitto took more than {START_TIMEOUT:g} s to listen on {self.port}")
            time.sleep(0.05)

    def stop(self) -> None:
        """SIGTERM (mosquitto saves its persistence), SIGKILL if it will not go."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT)
        if process.stderr:
            process.stderr.close()

    def set_users(self, users: Mapping[str, str]) -> None:
        """Replace the users ({name: password}: an evening's logins, say) and have a
        running mosquitto read its password file again (SIGHUP; sessions stay)."""
        self.users = dict(users)
        passwords = self.dir / "passwords"
        write_private(passwords, "".join(mosquitto_password_line(name, password) + "\n"
                                         for name, password in self.users.items()))
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGHUP)

    def restart(self) -> None:
        """Stop and start again on the same port with the same persistence."""
        self.stop()
        self.start()

    def _answers(self, logged: int | None) -> bool:
        """Whether this mosquitto accepts on its port: a probe connection is
        accepted there and, when it was started here (its log from `logged`),
        its log says it took that very connection. Another process listening
        on the port (free_port()'s race) accepts the probe too; mosquitto then
        stops with 'Address already in use', and is not taken as started."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as probe:
                line = f"New connection from 127.0.0.1:{probe.getsockname()[1]} on port {self.port}."
                if self.tls is not None:    # mosquitto logs a TLS connection once its handshake is done
                    context = ssl.create_default_context()
                    context.check_hostname = False
                    context.verify_mode = ssl.CERT_NONE
                    probe.settimeout(2.0)
                    context.wrap_socket(probe).close()
        except OSError:
            return False
        if logged is None:
            return True
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                with open(self.log_path, "rb") as log:
                    log.seek(logged)
                    if line in log.read().decode(errors="replace"):
                        return True
            except OSError:
                pass
            if self.process is None or self.process.poll() is not None:
                return False
            time.sleep(0.02)
        return False

    def _log_tail(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def __enter__(self) -> "Mosquitto":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


# --- who may publish and read what (both brokers) ---------------------------

DIRECTOR_USER = "director"


def _topic(name: str, subject: str) -> str:
    return kinds.KINDS[name].topic("{event}", subject)


def _under(topic: str, rest: str) -> str:
    """The filter of every topic beside `topic` (its last level replaced)."""
    return topic.rsplit("/", 1)[0] + "/" + rest


# The club's access rule, one table for both brokers (docs/club-mqtt.md, "Who
# may publish what"): mosquitto reads it as its acl_file (mosquitto_acl()),
# the embedded broker through may(). A row: (user, access, topic filter);
# user None is a `pattern` row, for every user, with %u standing for the
# user's own name. Every table's login is its board's identity (a table host
# logs in once per table, as a board on the club's Wi-Fi does), so a login
# publishes its own board's hand and state and its own status, and reads the
# director's round and the `applied` of its own board only; the director
# publishes only its own topics and reads the tables'. `{event}` is the
# evening the broker serves: no login publishes or reads under another
# evening's topics (acl(event) fills it in). The topics are kinds.KINDS'.
ACL = (
    (DIRECTOR_USER, "readwrite", _under(_topic(topics.ROUND, "+"), "#")),
    (DIRECTOR_USER, "read", _under(_topic(topics.HAND, "+"), "+")),   # every table's hand and state
    (DIRECTOR_USER, "read", _topic(topics.STATUS, "+")),
    *((None, "write", _topic(kind.name, "%u")) for kind in kinds.FROM_TABLES),
    *((None, "read", _topic(kind.name, "%u")) for kind in kinds.FROM_DIRECTOR),
)


# Mosquitto(event=ANY_EVENT): the rows for every evening at once, for the benchmarks that run several
# evenings on one broker; a club's broker serves one evening, and is given its id
ANY_EVENT = "+"


def acl(event: str) -> tuple[tuple[str | None, str, str], ...]:
    """ACL's rows for the evening `event` (a name: no / + # in it, envelope.check_name; or ANY_EVENT)."""
    if event != ANY_EVENT:
        envelope.check_name("event", event)
    return tuple((user, access, pattern.replace("{event}", event)) for user, access, pattern in ACL)


def client_ids(event: str, user: str) -> tuple[str, ...]:
    """The client ids login `user` may connect with on the evening `event`'s
    embedded broker: `<event>-<user>` (the director's link, each table's link
    of a table host: event/club.py), and for a table's login also
    `<event>-board-<user>`, what a board on the club's Wi-Fi sends
    (firmware/tallynet/link.py _client_id). Every other login's client id is
    refused, so no login can take over, or delete, another login's session
    (the director's: `<event>-director`)."""
    own = f"{event}-{user}"
    return (own,) if user == DIRECTOR_USER else (own, f"{event}-board-{user}")


def may(user: str | None, client_id: str | None, topic: str, write: bool, *, event: str) -> bool:
    """Whether `user` may publish (write) or subscribe to and receive (read)
    `topic` (for a subscription, a filter: allowed only if it is no broader
    than a row's) on the evening `event`, by ACL, as mosquitto's acl_file
    decides it. A user name with / + or # in it gets no pattern row
    (mosquitto's rule too: it would widen the topic)."""
    if not user or not topic:
        return False
    access = "write" if write else "read"
    for row_user, row_access, pattern in acl(event):
        if access not in row_access:
            continue
        if row_user is None:
            if any(c in user for c in "/+#"):
                continue
            pattern = pattern.replace("%u", user)
        elif row_user != user:
            continue
        if _covers(pattern, topic):
            return True
    return False


def _covers(pattern: str, topic: str) -> bool:
    """Whether the filter `pattern` matches every topic the topic (or filter) `topic` does."""
    wanted, given = pattern.split("/"), topic.split("/")
    for at, level in enumerate(wanted):
        if level == "#":
            return True
        if at >= len(given) or given[at] == "#":
            return False
        if level != "+" and level != given[at]:
            return False      # a literal level: the topic's must be the same (a + there is broader)
    return len(given) == len(wanted)


def mosquitto_acl(event: str) -> str:
    """ACL as a mosquitto acl_file for the evening `event`: `user` blocks, then the `pattern` rows."""
    table = acl(event)
    lines = ["# tallyboard's club access rule (brokers.ACL); every table's login is its board's identity"]
    users: dict[str, list[str]] = {}
    for user, access, pattern in table:
        if user is not None:
            users.setdefault(user, []).append(f"topic {access} {pattern}")
    for user, rows in users.items():
        lines += ["", f"user {user}", *rows]
    lines += ["", "# every other login (a table: its board's identity, %u): its own board, its own status,",
              "# the director's round and its own board's applied"]
    lines += [f"pattern {access} {pattern}" for user, access, pattern in table if user is None]
    return "\n".join(lines) + "\n"


# mosquitto takes the user name as the client id (a listener's setting: after each `listener` line; before
# it, mosquitto 2.0 ignores it, even with per_listener_settings false), so a login can only ever take over
# its own session: a table's login sending the director's client id gets a session of its own, and a wrong
# password gets nothing (mosquitto authenticates before it looks a session up). The client ids the links
# send (`<event>-<login>`, a Wi-Fi board's `<event>-board-<login>`) are not used.
CLIENT_ID_IS_LOGIN = "use_username_as_clientid true"

# room for a PUBLISH's fixed header, topic and packet id around a message of envelope.MAX_BYTES: the
# longest club topic is tallyboard/<64>/director/applied/<64>, under 200 bytes
PACKET_ROOM = 1024


def mosquitto_limits() -> list[str]:
    """The lines of a mosquitto config that cap a message at the envelope's size
    (docs/club-mqtt.md, "A club: mosquitto"): message_size_limit, a PUBLISH whose
    payload is over envelope.MAX_BYTES is dropped, never stored nor retained;
    max_packet_size, a packet bigger than that and its topic closes the connection
    before mosquitto reads it. (With CLIENT_ID_IS_LOGIN after each listener.)"""
    return [f"message_size_limit {envelope.MAX_BYTES}",
            f"max_packet_size {envelope.MAX_BYTES + PACKET_ROOM}"]


PBKDF2_ROUNDS = 101      # what mosquitto_passwd writes ($7$: PBKDF2-HMAC-SHA512)


def mosquitto_password_line(user: str, password: str, salt: bytes | None = None) -> str:
    """One line of a mosquitto password_file, hashed as mosquitto_passwd hashes it
    (`user:$7$101$SALT$HASH`, base64): a file of 99 tables without 99 processes."""
    if not user or ":" in user or "\n" in user:
        raise ValueError(f"{user!r} cannot be a mosquitto user name")
    salt = os.urandom(12) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, PBKDF2_ROUNDS)
    return (f"{user}:$7${PBKDF2_ROUNDS}${base64.b64encode(salt).decode()}$"
            f"{base64.b64encode(digest).decode()}")


def write_private(path: Path, text: str) -> None:
    """`text` into `path`, readable by its owner only from the start (passwords, the ACL)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as f:
        f.write(text)
    path.chmod(0o600)


# --- amqtt, in this process ---------------------------------------------------

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
    _AuthBase = _TopicBase = _Broker = _ReaderAdapter = object  # type: ignore[assignment,misc]
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
            self.context.logger.warning("%s logged in with client id %r, not its own (%s); refused",
                                        session.username, session.client_id,
                                        " or ".join(client_ids(self.config.event, session.username)))
            return False
        if session.will_flag and not may(session.username, session.client_id, session.will_topic or "", True,
                                         event=self.config.event):
            self.context.logger.warning("%s: a last will on %s is not allowed", session.client_id,
                                        session.will_topic)
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
      only what it may read."""

    def __init__(self, *args: Any, event: str, connect_timeout: float = CONNECT_TIMEOUT, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.event = event
        self.per_address: dict[str, int] = {}
        self.connect_timeout = connect_timeout
        self.turned_away: dict[str, int] = {}      # address: connections closed since its last log line
        self.waiting: dict[Any, _Waiting] = {}      # writer adapter: its count, until it has logged in

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
            await self._client_connected(listener_name, _CappedReader(reader), adapter)
        finally:
            self.waiting.pop(adapter, None)
            waiting.release()
            if self.turned_away.get(address) and address not in self.per_address:
                self.logger.warning("%s: %d more connections were closed while it had %d waiting", address,
                                    self.turned_away.pop(address), MAX_PER_ADDRESS)

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
        try:
            handler, client_session = await asyncio.wait_for(
                _BrokerHandler.init_from_connect(reader, writer, self.plugins_manager), self.connect_timeout)
        except asyncio.TimeoutError:
            self.logger.warning("%s:%s sent no CONNECT in %g s; closed", remote_address, remote_port,
                                self.connect_timeout)
            await self._close(writer)
            raise _AMQTTError("no CONNECT in time") from None
        except (_AMQTTError, _NoDataError, _TooBig) as exc:
            self.logger.warning("%s:%s: no CONNECT read: %s", remote_address, remote_port, exc)
            await self._close(writer)
            raise _AMQTTError(exc) from exc
        except _MQTTError as exc:
            self.logger.warning("%s:%s: an invalid CONNECT: %s", remote_address, remote_port, exc)
            await self._close(writer)
            raise
        if not await self._authenticate(client_session, None):
            self.logger.warning("%s:%s: %r (user %r) not authorized; no session touched", remote_address,
                                remote_port, client_session.client_id, client_session.username)
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
    messages live in memory: they go when the broker stops."""

    def __init__(self, port: int, users: Mapping[str, str], bind: str = "127.0.0.1", *, event: str,
                 connect_timeout: float = CONNECT_TIMEOUT) -> None:
        self.event = envelope.check_name("event", event)
        self.port = port
        self.connect_timeout = connect_timeout   # seconds a connection has to log in (tests shorten it)
        self.users = dict(users)
        self.bind = bind                 # 0.0.0.0: table hosts on other laptops reach it
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._broker: Any = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def start(self) -> None:
        if _Broker is object:
            raise RuntimeError("the embedded broker needs amqtt: pip install amqtt")
        config = {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.bind}:{self.port}",
                                      "max_connections": MAX_CONNECTIONS}},
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
