"""MQTT brokers for a club evening (docs/club-mqtt.md).

Mosquitto: Debian's mosquitto run as a child process on a loopback port,
with users and passwords, persistence, and optionally a TLS listener; what a
club runs, and what the tests run. Who may publish and read what, for it and
for the embedded broker (embedded_broker.py, amqtt in this process). Both
refuse anonymous clients."""
from __future__ import annotations

import base64
import hashlib
import os
import signal
import socket
import ssl
import subprocess
import time
from pathlib import Path
from typing import Any, Mapping

from tallynet import topics

from . import envelope, kinds
from .certificates import TLSFiles

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
            *mosquitto_settings(passwords, acl, self.dir),
            f"log_dest file {self.log_path}",
            "log_type error",
            "log_type warning",
            "log_type notice",
            *mosquitto_listener(self.port, "127.0.0.1", self.tls),
        ]
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
# `event update-boards`'s login (club/update_link.py): a login of its own, beside the director's link
# (mosquitto takes the login for the client id: the director's would be taken over), which may offer
# releases and send their chunks, and read the boards' update statuses, and nothing else
UPDATER_USER = "updater"


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
    (UPDATER_USER, "write", _topic(topics.OFFER, "+")),
    (UPDATER_USER, "write", _topic(topics.CHUNK, "+")),
    (UPDATER_USER, "read", _topic(topics.UPDATE, "+")),
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
    of a table host: evening/club.py), and for a table's login also
    `<event>-board-<user>`, what a board on the club's Wi-Fi sends
    (firmware/tallynet/link.py _client_id). Every other
    login's client id is refused, so no login can take over, or delete,
    another login's session (the director's: `<event>-director`)."""
    own = f"{event}-{user}"
    return (own,) if user in (DIRECTOR_USER, UPDATER_USER) else (own, f"{event}-board-{user}")


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


# What one session may hold, on both brokers (docs/club-mqtt.md, "Limits"; issue 40): messages in flight
# (QoS 1 or 2 not yet acknowledged, QoS 2 awaiting its PUBREL), and messages kept for a session while it is
# offline (a director away). Every club message is QoS 1 and the table hosts send one at a time, so a table
# never needs more than one in flight; a director away for an evening's 12 tables x a hand a minute for an
# hour is 720 small messages (each well under 4 KB). A flood past these is closed (in flight) or not kept
# (queued): the table host sends every message again until the director's `applied` covers it, so a
# message not kept costs a resend, never a hand.
MAX_INFLIGHT = 20
MAX_INFLIGHT_BYTES = 256 * 1024
MAX_QUEUED = 1000
MAX_QUEUED_BYTES = 8 * 1024 * 1024


def mosquitto_limits() -> list[str]:
    """The lines of a mosquitto config that bound what a client may make it hold
    (docs/club-mqtt.md, "A club: mosquitto"): message_size_limit, a PUBLISH whose
    payload is over envelope.MAX_BYTES is dropped, never stored nor retained;
    max_packet_size, a packet bigger than that and its topic closes the connection
    before mosquitto reads it; the messages in flight and queued for an offline
    client, by count and bytes, as the embedded broker bounds them (so its
    persistence file holds at most MAX_QUEUED_BYTES a session).
    (With CLIENT_ID_IS_LOGIN after each listener.)"""
    return [f"message_size_limit {envelope.MAX_BYTES}",
            f"max_packet_size {envelope.MAX_BYTES + PACKET_ROOM}",
            f"max_inflight_messages {MAX_INFLIGHT}",
            f"max_inflight_bytes {MAX_INFLIGHT_BYTES}",
            f"max_queued_messages {MAX_QUEUED}",
            f"max_queued_bytes {MAX_QUEUED_BYTES}"]


def mosquitto_listener(port: int, bind: str | None, tls: TLSFiles | None) -> list[str]:
    """A listener's lines in a club's mosquitto config: its port (on `bind`, or every address), each
    login's client id its user name (a listener's setting: after its `listener` line), and with `tls`
    its certificate chain and key (mqtts://)."""
    lines = [f"listener {port} {bind}" if bind else f"listener {port}", CLIENT_ID_IS_LOGIN]
    if tls is not None:
        lines += [f"certfile {tls.certfile}", f"keyfile {tls.keyfile}", "tls_version tlsv1.2"]
    return lines


def mosquitto_settings(password_file: Path, acl_file: Path, persistence_dir: Path) -> list[str]:
    """The lines of a club's mosquitto config before its listeners: no anonymous client, the evening's
    logins and access rule, the bounds (mosquitto_limits()), and the queues on disk within a second (not
    only at a clean stop), which the bounds keep to MAX_QUEUED_BYTES a session. What the tests' Mosquitto
    writes, and `event broker-files` (docs/club-mqtt.md, "A club: mosquitto")."""
    return ["per_listener_settings false",
            "allow_anonymous false",
            f"password_file {password_file}",
            f"acl_file {acl_file}",
            *mosquitto_limits(),
            "persistence true",
            f"persistence_location {persistence_dir}/",
            "autosave_interval 1"]


PBKDF2_ROUNDS = 101      # what mosquitto_passwd writes ($7$: PBKDF2-HMAC-SHA512)


def mosquitto_password_line(user: str, password: str, salt: bytes | None = None) -> str:
    """One line of a mosquitto password_file, hashed as mosquitto_passwd hashes it
    (`user:$7$101$SALT$HASH`, base64): a file for every table without a process each."""
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
