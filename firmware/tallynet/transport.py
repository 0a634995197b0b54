# The MQTT client's way to the broker (chumicro_mqtt's transport_factory
# contract: tick(), state, socket, last_error, cancel(), io_socket): a plain
# TCP connect that never blocks the app's loop. DNS, then a non-blocking
# connect polled until it is writable. Plain TCP on the club's own network
# (docs/club-mqtt.md); what chumicro-sockets adds beside it (TLS, UDP,
# listeners, CircuitPython's and CPython's adapters) costs the Pico W heap it
# cannot spare.
#
# One Connector and one _Stream live as long as the client (tallynet.client):
# each attempt resets them (reset(), bind()) rather than making new ones, so
# a broker restarted ten times in an evening leaves the heap as it found it;
# only the socket itself is new each time.
import errno
import select
import socket

READY = "ready"
FAILED = "failed"
_DNS = "awaiting_dns"
_TCP = "awaiting_tcp"


class _Stream:
    """The connected socket as the client reads and writes it."""

    def __init__(self):
        self.sock = None

    def bind(self, sock):
        self.sock = sock
        return self

    def send(self, data):
        return self.sock.send(data)  # type: ignore[union-attr]  # bound before the client has it

    def close(self):
        sock = self.sock
        if sock is not None:
            sock.close()

    def setblocking(self, flag):
        self.sock.setblocking(flag)  # type: ignore[union-attr]  # bound before the client has it

    def recv_into(self, buffer, nbytes=0):
        size = min(nbytes, len(buffer)) if nbytes > 0 else len(buffer)
        got = self.sock.readinto(buffer, size)  # type: ignore[union-attr]  # bound before the client has it
        if got is None:
            raise OSError(errno.EAGAIN, "would block")
        return got


class Connector:
    def __init__(self, host, port):
        self.host = host
        self.port = port
        self.stream = _Stream()
        self._poll = select.poll()     # one poller, its one socket registered per attempt
        self._polled = None
        self.state = _DNS
        self.socket = None
        self.last_error = None
        self._address = None

    def reset(self):
        """A new attempt with the same connector (the client's transport factory)."""
        self._unwatch()
        self.state = _DNS
        self.socket = None
        self.last_error = None
        self._address = None
        return self

    def _unwatch(self):
        polled = self._polled
        self._polled = None
        if polled is not None:
            try:
                self._poll.unregister(polled)
            except (OSError, ValueError, KeyError):   # closed already (CPython's poll wants its fd)
                pass

    @property
    def io_socket(self):
        return self.socket

    def io_interest(self, now_ms):
        return 2 if self.state == _TCP else 0

    def next_deadline(self, now_ms):
        return None

    def tick(self, now_ms):
        if self.state == READY or self.state == FAILED:
            return
        try:
            if self.state == _DNS:
                # an IPv4 address resolves at once; a name asks the club's DNS (lwIP: short)
                self._address = socket.getaddrinfo(self.host, self.port)[0]
                self.state = _TCP
                return
            address = self._address
            if self.socket is None and address is not None:
                sock = socket.socket(address[0], address[1])
                sock.setblocking(False)
                try:
                    sock.connect(address[-1])
                except OSError as exc:
                    if exc.errno != errno.EINPROGRESS:
                        sock.close()
                        raise
                self.socket = sock
                self._poll.register(sock, select.POLLOUT)
                self._polled = sock
                return
            if self._polled is None:
                return
            events = self._poll.poll(0)
            if not events:
                return
            mask = events[0][1]
            self._unwatch()
            if mask & (select.POLLERR | select.POLLHUP):
                raise OSError(errno.ECONNREFUSED, "the broker refused the TCP connection")
            self.socket = self.stream.bind(self.socket)
            self.state = READY
        except Exception as exc:   # any failure ends this attempt; the client tries again with backoff
            self.last_error = exc
            self.cancel()

    def cancel(self):
        if self.state == READY:
            return
        if self.last_error is None:
            self.last_error = OSError("cancelled")
        self._unwatch()
        if self.socket is not None:
            try:
                self.socket.close()
            except Exception:
                pass
            self.socket = None
        self.state = FAILED

