# The MQTT client's way to the broker (tallynet.client): a plain TCP connect
# that never blocks the app's loop. DNS, then a non-blocking connect polled
# until it is writable; then `socket` is the connected socket, non-blocking.
# Plain TCP on the club's own network (docs/club-mqtt.md).
#
# One Connector lives as long as the client: each attempt resets it rather
# than making a new one, so a broker restarted ten times in an evening leaves
# the heap as it found it; only the socket itself is new each time.
import socket

from tallycore import errno, select

READY = "ready"
FAILED = "failed"
_DNS = "awaiting_dns"
_TCP = "awaiting_tcp"


class Connector:
    def __init__(self, host, port):
        self.host = host
        self.port = port
        self._poll = select.poll()     # one poller, its one socket registered per attempt
        self._polled = None
        self.state = _DNS
        self.socket = None
        self.last_error = None
        self._address = None

    def reset(self):
        """A new attempt with the same connector."""
        self._unwatch()
        self.state = _DNS
        self.socket = None
        self.last_error = None
        self._address = None

    def _unwatch(self):
        polled = self._polled
        self._polled = None
        if polled is not None:
            try:
                self._poll.unregister(polled)
            except (OSError, ValueError, KeyError):   # closed already (CPython's poll wants its fd)
                pass

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
            self.state = READY
        except Exception as exc:   # any failure ends this attempt; the client tries again with backoff
            self.last_error = exc
            self.cancel()

    def cancel(self):
        """This attempt given up; once READY the socket is the client's to close."""
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

