# A board's health (issue 43; docs/club-mqtt.md, "Each board's health"): what
# an enrolled board publishes about itself, retained, as the HEALTH kind
# (tallynet.topics) signed with its key, when it links to the broker, when a
# field below marked "on change" changes, and at most every PERIOD_MS
# otherwise. The body's fields, in ONE table: the board composes them here,
# the host (host/tallyboard/club/kinds.py) checks a body against it, and the
# director's `event boards` and page show them.
#
# The link (tallynet.link) calls these as functions of itself, as it does
# tallynet.publishing's: tick() and due() on every step (allocation-free:
# ticks and a few ints compared), publish() when due, once the host is quiet
# and the table's state has nothing to send (a hand never waits for it). The
# composing allocates (a dict, its JSON, the envelope) and measures the heap's
# largest block by bisection: at most every PERIOD_MS, never on the step's path.
# Where each value comes from:
#   fw        tallyrun.protocol.FIRMWARE_VERSION (HELLO's fw)
#   release   the flash's `release` file, written by the host's file set
#             (host/tallyboard/tooling/fileset.py: release_id), read once
#   up_s      seconds counted by the link's steps (tick()): not ticks_ms() // 1000,
#             whose counter wraps every 12.4 days on the chip
#   resets    tallyrun.restore.count_reset's count, kept on flash, one write a power-up
#   cause     tallypanel.hw.health_cause() (machine.reset_cause()), which the power-up hands
#             the link (tallypanel.start.LinkStarter); "unknown" without
#   free, block  as STATS's: gc.mem_free() after a collection, replies.largest_free_block
#   rssi      the WLAN's status("rssi"), while joined
#   reconnects  broker connections the link made since the reset, less the first
#   erases, records  the journal's (tallyrun.journal.Journal.erases: derived from its
#             snapshot generation and ring position, no write of its own; records since its snapshot)
#   vsys_mv   the link's supply reader (tallypanel.hw.supply_reader of the definition's
#             power.vsys_adc), where the definition wires one
import gc

from tallycore import const, ticks_add, ticks_diff, ticks_ms

from tallyrun import importfs, protocol, replies
from tallynet import envelope, publishing, topics

PERIOD_MS = const(300000)     # the longest a board stays silent about its health while linked
RETRY_MS = const(5000)        # a publish the client could not take (backpressure) is tried again after this
_BUSY_MS = const(200)         # the client's turn every step after a publish (publishing.BUSY_MS)
_MOST = const(0x3FFFFFFF)     # 2**30 - 1: every count stays a small int
RELEASE_FILE = "release"

# (field, kind, lo, hi, on change): kind "int" (a whole number lo..hi, or null where
# the board cannot measure it: lo > hi never), or "name" (text of 1..hi letters, digits, . _ -)
FIELDS = (
    ("fw", "name", 1, 16, True),               # the firmware's version (protocol.FIRMWARE_VERSION)
    ("release", "name", 1, 16, True),          # the release it runs: the file set's id (fileset.release_id), - if none
    ("up_s", "int", 0, 2**30 - 1, False),      # seconds since the board's last reset
    ("resets", "int", 0, 2**30 - 1, True),     # resets since the board was first powered (kept on flash)
    ("cause", "name", 1, 16, True),            # the last reset's cause: power, watchdog, soft, or unknown
    ("free", "int", 0, 2**30 - 1, False),      # heap bytes free after a collection
    ("block", "int", 0, 2**30 - 1, False),     # the largest free block (tallyrun.replies.largest_free_block)
    ("rssi", "int", -127, 0, False),           # the Wi-Fi signal in dBm, null if the radio cannot say
    ("reconnects", "int", 0, 2**30 - 1, True), # broker connections made since the reset, less the first
    ("erases", "int", 0, 2**30 - 1, False),    # journal block erases since the flash was formatted
    ("records", "int", 0, 2**30 - 1, False),   # journal records since the last snapshot
    ("vsys_mv", "int", 0, 20000, False),       # the supply (VSYS) in mV where the definition wires it, else null
)
CAUSES = ("power", "watchdog", "soft", "unknown")
# Of the on-change fields, fw, release, resets and cause are fixed from the power-up on:
# only reconnects changes while the board runs, and a reconnection is a new connection,
# after which the health goes anyway. due() compares it all the same.


class State:
    """The link's health bookkeeping (Link.health): the seconds counted, the
    connections made, and what was last published on this connection."""

    def __init__(self, now, started=None):
        # the seconds since `started`, the power-up's tick (tallyrun.restore's: a fraction of a second
        # after the reset), or since the tick counter's 0 (the chip's reset) without it; the link
        # starts at the power-up, or at the enrolment after it (within the counter's 6 days of ticks_diff)
        since = now if started is None else ticks_diff(now, started)
        self.up_s = since // 1000
        self.up_at = ticks_add(now, -(since % 1000))     # the tick the seconds are counted to
        self.connections = 0
        self.sent_at = now               # when the last went (or, after a failed try, PERIOD_MS before its retry)
        self.sent = False                # published on this connection (False: due at once)
        self.sent_reconnects = -1        # the on-change value last published
        self.published = 0               # health messages published (tests, benchmarks)
        self.release = None              # the flash's release file, read at the first composing
        self.cause = None                # the reset's cause, asked at the first composing


def tick(state, now):
    """The seconds since the reset, counted on: allocation-free."""
    elapsed = ticks_diff(now, state.up_at)
    if elapsed >= 1000:
        seconds = elapsed // 1000
        state.up_s = min(state.up_s + seconds, _MOST)
        state.up_at = ticks_add(state.up_at, seconds * 1000)


def connected(state):
    """The link has a new broker connection: counted, and the health due on it."""
    state.connections = min(state.connections + 1, _MOST)
    state.sent = False


def reconnects(state):
    return state.connections - 1 if state.connections > 0 else 0


def due(state, now):
    """Whether a health message is due on the connection the link has (it
    asks only while connected): none yet on it, an on-change field changed,
    or PERIOD_MS since the last. Allocation-free: a few ints compared."""
    if not state.sent:
        return True
    if reconnects(state) != state.sent_reconnects:
        return True
    return ticks_diff(now, state.sent_at) >= PERIOD_MS


def release_root(root):
    """Where the release file of the firmware running is: the ROMFS's root when
    the packages run from it (an update over the air replaces the image, not
    littlefs's copy), else the flash's."""
    import tallynet
    path = getattr(tallynet, "__path__", None)      # "/rom/tallynet" from the ROMFS (tallyrun.importfs)
    if isinstance(path, str) and path.startswith(importfs.ROM + "/"):
        return importfs.ROM + "/"
    return root


def read_release(root):
    """The release file at root: its id, or "-" when there is none (or it is not a name)."""
    try:
        with open(root + RELEASE_FILE, "rb") as f:
            data = f.read(17)
    except OSError:
        return "-"
    data = data.strip()
    if not 0 < len(data) <= 16:
        return "-"
    for b in data:
        if not (97 <= b <= 122 or 65 <= b <= 90 or 48 <= b <= 57 or b == 95 or b == 45 or b == 46):
            return "-"
    return data.decode()


def measure(wlan):
    """The Wi-Fi signal in dBm (-127..0), or None when the radio cannot say."""
    if wlan is None:
        return None
    try:
        rssi = wlan.status("rssi")
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    if not isinstance(rssi, int) or rssi < -127 or rssi > 0:
        return None
    return rssi


def body(link):
    """The health body now, a dict of exactly FIELDS' keys. Allocates; collects first."""
    state = link.health
    app = link.app
    if state.release is None:
        state.release = read_release(release_root(app.root))
    if state.cause is None:
        state.cause = link.cause
    vsys = link.supply() if link.supply is not None else None
    journal = app.journal
    gc.collect()
    free = getattr(gc, "mem_free", _zero)()
    return {"fw": protocol.FIRMWARE_VERSION, "release": state.release, "up_s": state.up_s,
            "resets": link.resets, "cause": state.cause, "free": free,
            "block": replies.largest_free_block(free), "rssi": measure(link.wlan if link.net.joined else None),
            "reconnects": reconnects(state), "erases": journal.erases(), "records": min(journal.records, _MOST),
            "vsys_mv": vsys}


def _zero():
    return 0


def after_table(link, now, sent, seq, dirty):
    """The link's step, after publishing.publish: the health published if it
    is due, the host is quiet and the table's state did nothing this step
    (sent, seq and dirty: the link's before it) nor has a message to send at
    once. Allocation-free unless it publishes."""
    if (sent == link.sent and seq == link.outbox.seq and not dirty and not link.send_now
            and due(link.health, now) and publishing.quiet(link)):
        publish(link, now)


def publish(link, now):
    """Compose, seal and publish the health, qos 1 retained; tried again after
    RETRY_MS when the client cannot take it (or the composing runs out of memory)."""
    state = link.health
    state.sent = True
    state.sent_at = ticks_add(now, RETRY_MS - PERIOD_MS)     # due again in RETRY_MS unless it goes
    client = link.client
    if client is None:
        return False
    payload = envelope.seal(link.net.key(), link.event, link.ident, 0, topics.HEALTH, body(link))
    try:
        client.publish(link.topic_health, payload, qos=1, retain=True)
    except Exception:   # backpressure, or the connection just went
        return False
    state.sent_at = now
    state.sent_reconnects = reconnects(state)
    state.published += 1
    link.busy_until = ticks_add(now, _BUSY_MS)
    return True
