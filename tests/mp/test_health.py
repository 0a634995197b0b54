# A board's health (issue 43; tallynet.health): the body composed from known
# inputs, when a health message is due (a fake clock, no sleeps), the reset
# counter on flash through reboots and a torn write, the definition's VSYS
# pin, and the due check allocation-free under the MicroPython unix port.
# Under CPython and the unix port (tests/mp/run.py).
import sys

from mpfixtures import booted_app, cleanup, folder, read_file, skip, write_file
from tallynet import health
from tallyrun.restore import RESETS, count_reset
from tallypanel import boarddef
from tallycore import ticks_add

KEY = bytes(range(16))
WRAP = ticks_add(0, -1) + 1     # where the tick counter wraps: 2**30 ms on the chip (the unix port's: larger)


class _Net:
    def __init__(self, joined):
        self.joined = joined

    def key(self):
        return KEY


class _Wlan:
    def __init__(self, rssi):
        self.rssi = rssi

    def status(self, param=None):
        assert param == "rssi"
        return self.rssi


class _Link:
    """What health.body reads of a link: its app, its WLAN, its Net, its health."""

    def __init__(self, app, rssi, joined=True, resets=0):
        self.app = app
        self.resets = resets                 # the power-up's count (tallypanel.start.LinkStarter's)
        self.wlan = _Wlan(rssi)
        self.net = _Net(joined)
        self.health = health.State(0)
        self.cause = "unknown"               # the power-up's (tallypanel.hw.health_cause): the test sets the state's
        self.supply = None                   # no VSYS wired


def test_the_body_has_exactly_the_fields_and_the_values_it_was_given():
    root = folder("health")
    try:
        write_file(root + "release", b"0f4477acc4cb\n")
        app, out = booted_app(root)
        try:
            read_file(root + RESETS)
            assert False, "BOOT counts nothing: a USB board publishes no health"
        except OSError:
            pass
        from tallypanel.start import LinkStarter
        starter = LinkStarter(app, _Net(True), None)   # made at a Wi-Fi board's power-up: counts it, the first here
        assert starter.resets == 1 and read_file(root + RESETS) == b"1"
        journal = app.journal
        journal.generation = 3               # two rounds of the ring done, the third in block 1 from 30:
        journal.start_k = 30                 # 2 * 32 + 2 (the snapshot's) + 3 (blocks 31, 0, 1 begun) = 69
        journal.k = 1
        journal.records = 7
        link = _Link(app, -61, resets=starter.resets)
        link.health.cause = "watchdog"       # (hw.health_cause's: tested with the emulator's machine)
        link.health.up_s = 4321
        health.connected(link.health)
        health.connected(link.health)        # a reconnection: 2 connections, 1 reconnect
        body = health.body(link)
        assert sorted(body) == sorted(row[0] for row in health.FIELDS)
        assert body["fw"] == "0.1.0" and body["release"] == "0f4477acc4cb"
        assert (body["up_s"], body["resets"], body["cause"]) == (4321, 1, "watchdog")
        assert (body["rssi"], body["reconnects"], body["erases"], body["records"]) == (-61, 1, 69, 7)
        assert body["vsys_mv"] is None       # no VSYS wired
        link.supply = lambda: 4531
        assert health.body(link)["vsys_mv"] == 4531
        assert isinstance(body["free"], int) and 0 <= body["block"] <= body["free"]
        if sys.implementation.name == "micropython":
            assert body["free"] > 0 and body["block"] > 0
        for name, kind, lo, hi, on_change in health.FIELDS:
            value = body[name]
            if kind == "int":
                assert value is None or lo <= value <= hi, (name, value)
            else:
                assert 1 <= len(value) <= hi, (name, value)
        # off the Wi-Fi, or a radio that says nonsense: null
        assert health.body(_Link(app, -61, joined=False))["rssi"] is None
        assert health.measure(_Wlan(5)) is None and health.measure(_Wlan(-127)) == -127
        # no release file, or not a name: "-"
        import os
        os.remove(root + "release")
        assert health.read_release(root) == "-"
        write_file(root + "release", b"a b")
        assert health.read_release(root) == "-"
        out.close()
    finally:
        cleanup(root)


def test_a_health_message_is_due_on_connecting_on_change_and_every_period():
    state = health.State(1000)
    health.connected(state)
    assert health.due(state, 1000)                        # the first on this connection
    state.sent, state.sent_at, state.sent_reconnects = True, 1000, 0     # (publish's bookkeeping)
    for now in (1001, 60000, 1000 + 299999):
        assert not health.due(state, now), now            # never more often than every 300 s
    assert health.due(state, 1000 + 300000)               # and then it is due
    state.sent_at = 200000
    health.connected(state)                               # a reconnection: due at once, on change
    assert health.due(state, 200001)
    state.sent, state.sent_at = True, 200001              # published, but not the new reconnects (1 != 0)
    assert health.due(state, 200002)
    state.sent_reconnects = 1
    assert not health.due(state, 200002)
    # near the tick counter's wrap: 100 ms before it, then 200 ms and 300 s later
    state.sent_at = WRAP - 100
    assert not health.due(state, 100)
    assert health.due(state, 300000 - 100)


def test_the_uptime_is_counted_in_seconds_across_the_tick_counter_s_wrap():
    state = health.State(2500)
    assert state.up_s == 2                               # 2.5 s after the reset: 2 whole seconds
    health.tick(state, 2999)
    assert state.up_s == 2
    health.tick(state, 3000)
    assert state.up_s == 3
    health.tick(state, 5700)                             # 2.7 s more: 5 s; the 0.7 s carried
    assert state.up_s == 5
    health.tick(state, 6000)
    assert state.up_s == 6
    # counted from the power-up's tick (tallyrun.restore's), 1.5 s before the counter wrapped: 12.0 s at 10500
    state = health.State(10500, WRAP - 1500)
    assert (state.up_s, state.up_at) == (12, 10500)
    health.tick(state, 11499)
    assert state.up_s == 12
    # the counter wraps (at 2**30 ms, 12.4 days, on the chip): 6 s at 1 s before, then 1.5 s on
    state = health.State(0)
    state.up_s, state.up_at = 6, WRAP - 1000
    health.tick(state, 500)
    assert state.up_s == 7 and state.up_at == 0
    health.tick(state, 1000)
    assert state.up_s == 8


def test_the_reset_counter_survives_reboots_and_a_tornwrite_file():
    root = folder("resets")
    try:
        assert [count_reset(root) for _ in range(3)] == [1, 2, 3]
        assert read_file(root + RESETS) == b"3"
        write_file(root + RESETS + ".tmp", b"")               # a cut while the next was written: the count before
        assert count_reset(root) == 4
        write_file(root + RESETS, b"\xff\x00")                # the file damaged (never by littlefs's rename):
        write_file(root + RESETS + ".tmp", b"9")              # the .tmp a cut left
        assert count_reset(root) == 10
        write_file(root + RESETS, b"junk")
        write_file(root + RESETS + ".tmp", b"")
        assert count_reset(root) == 1                     # nothing to go by: counted again from 0
        # a flash that cannot be written never stops the power-up
        assert count_reset(root + "no-such-folder/") == 1
    finally:
        cleanup(root)


def _definition(vsys=None, wifi=False):
    d = {"name": "t", "wifi": wifi, "leds": {"pin": 2, "count": 132, "chain": [
            [0, "station", 0, 0], [0, "tally", 0, 44], [0, "king", 0, 19],
            [1, "station", 0, 0], [1, "tally", 0, 44], [1, "king", 0, 19]]},
         "buttons": {"seats": [10, 11]}, "power": {"budget_ma": 500}}
    if vsys is not None:
        d["power"]["vsys_adc"] = vsys
    return d


def _refused_words(d):
    try:
        boarddef.from_dict(d)
    except ValueError as exc:
        return str(exc)
    raise AssertionError("accepted")


def test_the_definition_may_wire_vsys_to_an_adc_pin():
    assert boarddef.from_dict(_definition()).vsys_adc == -1
    assert boarddef.from_dict(_definition(29)).vsys_adc == 29
    assert boarddef.from_dict(_definition(26)).vsys_adc == 26
    assert "power.vsys_adc must be an ADC pin" in _refused_words(_definition(25))
    assert "power.vsys_adc uses GPIO 2, which is already taken" in _refused_words(_definition(2))
    assert "power.vsys_adc must be a whole number 0 to 29" in _refused_words(_definition(30))
    # a Pico W's GPIO 29 is the wireless chip's clock
    assert "WL_CLK" in _refused_words(_definition(29, wifi=True))
    assert boarddef.from_dict(_definition(28, wifi=True)).vsys_adc == 28


def test_the_due_check_and_the_uptime_allocate_nothing():
    if sys.implementation.name != "micropython":
        skip("heap_lock runs in the MicroPython pass")
    import micropython
    state = health.State(1000)
    health.connected(state)
    state.sent, state.sent_at, state.sent_reconnects = True, 1000, 0
    due = []
    micropython.heap_lock()
    try:
        for now in (1500, 2000, 250000, 301000):
            health.tick(state, now)
            if health.due(state, now):
                break
        first = health.due(state, 301000)
    finally:
        micropython.heap_unlock()
    due.append(first)
    assert due == [True] and state.up_s == 301
