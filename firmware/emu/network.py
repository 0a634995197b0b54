# Stand-in for MicroPython's `network` on the unix port (the emulator; never
# deployed to a board): a WLAN whose access point the tests control through
# a file in $TALLYBOARD_EMU_IO (as machine.py's pins):
#   wifi.txt  read: the access point in reach: its SSID on the first line,
#             its passphrase on the second (- or no line: an open network).
#             No file: no access point in reach. Removed while joined: the
#             board loses the Wi-Fi (the link drops its broker connection,
#             as lwIP's sockets die with the link on the chip).
#   rssi.txt  read: the signal status('rssi') gives, in dBm; no file: -50
# The unix port's sockets are real: joined, the board reaches a broker on
# loopback. A join takes JOIN_MS of the firmware's own time, as on the chip.
import os
import time

STA_IF = 0
AP_IF = 1
STAT_IDLE = 0
STAT_CONNECTING = 1
STAT_WRONG_PASSWORD = -3
STAT_NO_AP_FOUND = -2
STAT_CONNECT_FAIL = -1
STAT_GOT_IP = 3
JOIN_MS = 50
_REFRESH_MS = 100

# (no os.getenv on the chip: bench/bench_wifi_twin.py puts this stand-in on the device twin too,
# its wifi.txt in the flash's root)
_IO = getattr(os, "getenv", lambda name: None)("TALLYBOARD_EMU_IO") or ""


def _access_point():
    """(ssid, passphrase or None) of the access point in reach, or None."""
    try:
        with open((_IO + "/" if _IO else "") + "wifi.txt", "rb") as f:
            lines = f.read(256).split(b"\n")
    except OSError:
        return None
    ssid = lines[0]
    password = lines[1] if len(lines) > 1 and lines[1] not in (b"", b"-") else None
    return ssid, password


class WLAN:
    def __init__(self, interface=STA_IF):
        self._active = False
        self._status = STAT_IDLE
        self._wanted = None
        self._since = 0
        self._checked = 0
        self._ap = None

    def active(self, value=None):
        if value is None:
            return self._active
        self._active = bool(value)
        if not value:
            self.disconnect()
        return None

    def connect(self, ssid=None, key=None, **kwargs):
        if not self._active:
            raise OSError("the interface is not active")
        if isinstance(ssid, str):
            ssid = ssid.encode()
        if isinstance(key, str):
            key = key.encode()
        self._wanted = (ssid, key)
        self._status = STAT_CONNECTING
        self._since = time.ticks_ms()

    def disconnect(self):
        self._wanted = None
        self._status = STAT_IDLE

    def _poll(self):
        now = time.ticks_ms()
        if time.ticks_diff(now, self._checked) < _REFRESH_MS:
            return
        self._checked = now
        ap = _access_point()
        if self._status == STAT_GOT_IP:
            if ap is None or ap[0] != self._wanted[0]:
                self._status = STAT_NO_AP_FOUND       # the access point went away
            return
        if self._status != STAT_CONNECTING or time.ticks_diff(now, self._since) < JOIN_MS:
            return
        if ap is None or ap[0] != self._wanted[0]:
            self._status = STAT_NO_AP_FOUND
        elif ap[1] != self._wanted[1]:
            self._status = STAT_WRONG_PASSWORD
        else:
            self._status = STAT_GOT_IP

    def status(self, param=None):
        if param == "rssi":
            try:
                with open((_IO + "/" if _IO else "") + "rssi.txt") as f:
                    return int(f.read().strip())
            except (OSError, ValueError):
                return -50
        self._poll()
        return self._status

    def isconnected(self):
        self._poll()
        return self._status == STAT_GOT_IP

    def ifconfig(self, config=None):
        if self.isconnected():
            return ("127.0.0.1", "255.0.0.0", "127.0.0.1", "127.0.0.1")
        return ("0.0.0.0", "0.0.0.0", "0.0.0.0", "0.0.0.0")

    def config(self, *args, **kwargs):
        if args == ("mac",):
            return b"\x28\xcd\xc1\x00\x00\x01"
        return None
