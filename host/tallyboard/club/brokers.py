"""MQTT brokers for a club evening (docs/club-mqtt.md).

Mosquitto: Debian's mosquitto run as a child process on a loopback port,
with users and passwords, persistence, and optionally a TLS listener; what a
club runs, and what the tests run. EmbeddedBroker: amqtt run in this process
in a thread of its own, with users and passwords, on a loopback port; what a
one-laptop evening runs when no broker is given. Both refuse anonymous
clients."""
from __future__ import annotations

import asyncio
import hmac
import os
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

MOSQUITTO = "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = "mosquitto_passwd"
START_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


@dataclass(frozen=True)
class TLSFiles:
    """The server's certificate and key (PEM) for a TLS listener."""
    certfile: Path
    keyfile: Path


class Mosquitto:
    """mosquitto on 127.0.0.1:`port`, users from `users` ({name: password}),
    persistence in `persistence_dir` (config, password file and log there too).
    With `tls`, the listener speaks TLS (mqtts://). A context manager:
    started on entry, stopped on exit, whatever happened."""

    def __init__(self, port: int, users: Mapping[str, str], persistence_dir: str | Path,
                 tls: TLSFiles | None = None, executable: str = MOSQUITTO) -> None:
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
        passwords.write_text("")
        for name, password in self.users.items():
            subprocess.run([MOSQUITTO_PASSWD, "-b", str(passwords), name, password], check=True,
                           capture_output=True, timeout=30)
        passwords.chmod(0o600)
        lines = [
            "per_listener_settings false",
            "allow_anonymous false",
            f"password_file {passwords}",
            "persistence true",
            f"persistence_location {self.dir}/",
            "autosave_interval 1",          # the queues on disk within a second, not only at a clean stop
            "max_queued_messages 0",        # never drop a queued message for an offline director
            f"log_dest file {self.log_path}",
            "log_type error",
            "log_type warning",
            "log_type notice",
            f"listener {self.port} 127.0.0.1",
        ]
        if self.tls is not None:
            lines += [f"certfile {self.tls.certfile}", f"keyfile {self.tls.keyfile}"]
        if os.geteuid() == 0:
            lines.append("user root")       # else mosquitto drops to a user that cannot read these files
        self.config_path.write_text("\n".join(lines) + "\n")

    def start(self) -> None:
        if self.process is None or self.process.poll() is not None:
            if not self.config_path.exists():
                self.write_config()
            self.process = subprocess.Popen([self.executable, "-c", str(self.config_path)],
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.PIPE)
        deadline = time.monotonic() + START_TIMEOUT
        while not _accepts(self.port):
            if self.process.poll() is not None:
                error = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
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

    def restart(self) -> None:
        """Stop and start again on the same port with the same persistence."""
        self.stop()
        self.start()

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


# --- amqtt, in this process ---------------------------------------------------

try:
    from amqtt.plugins.base import BaseAuthPlugin as _AuthBase
except ImportError:   # amqtt missing: EmbeddedBroker says so when started
    _AuthBase = object  # type: ignore[assignment,misc]


class PasswordCheck(_AuthBase):  # type: ignore[misc,valid-type]
    """amqtt plugin: a client gets in only with a user name and its password
    from the broker's `users` (compared in constant time)."""

    @dataclass
    class Config:
        users: dict[str, str] = field(default_factory=dict)

    async def authenticate(self, *, session: Any) -> bool:
        expected = self.config.users.get(session.username or "")
        return expected is not None and hmac.compare_digest(expected.encode(), (session.password or "").encode())


class EmbeddedBroker:
    """amqtt on `bind`:`port` (127.0.0.1 unless told) in a thread with its own asyncio loop;
    anonymous clients refused, `users` ({name: password}) let in. Sessions
    and retained messages live in memory: they go when the broker stops."""

    def __init__(self, port: int, users: Mapping[str, str], bind: str = "127.0.0.1") -> None:
        self.port = port
        self.users = dict(users)
        self.bind = bind                 # 0.0.0.0: table hosts on other laptops reach it
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._broker: Any = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def start(self) -> None:
        try:
            from amqtt.broker import Broker
        except ImportError:
            raise RuntimeError("the embedded broker needs amqtt: pip install amqtt") from None
        config = {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.bind}:{self.port}", "max_connections": 200}},
            "plugins": {f"{__name__}.PasswordCheck": {"users": self.users}},
        }

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self._broker = Broker(config, loop=loop)
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

        deadline = time.monotonic() + START_TIMEOUT
        while True:
            self._ready.clear()
            self._error = None
            self._thread = threading.Thread(target=run, name=f"amqtt-{self.port}", daemon=True)
            self._thread.start()
            started = self._ready.wait(max(0.1, deadline - time.monotonic())) and self._error is None
            if started:
                return
            self.stop()
            # a restart on a loaded machine: the last broker's socket may not be closed yet
            if "address already in use" not in str(self._error) or time.monotonic() > deadline:
                raise RuntimeError(f"the embedded broker did not start on port {self.port}: {self._error}")
            time.sleep(0.2)

    def stop(self) -> None:
        loop, thread, broker = self._loop, self._thread, self._broker
        self._loop = self._thread = self._broker = None
        if loop is None or thread is None:
            return
        if broker is not None and loop.is_running():
            try:
                asyncio.run_coroutine_threadsafe(broker.shutdown(), loop).result(STOP_TIMEOUT)
            except Exception:   # a broker that fails to shut down is stopped with its loop
                pass
        if loop.is_running():
            loop.call_soon_threadsafe(loop.stop)
        thread.join(STOP_TIMEOUT)

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> "EmbeddedBroker":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
