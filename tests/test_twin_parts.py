"""The board's own parts on the device twin (issue 20): the stock MicroPython image on the
emulated RP2040 (twin/run.mjs), with the SSD1306 on its I2C bus, the WS2812 chain on its LED
pin and the buttons and knob on their GPIOs modelled, checked with the firmware's real code:
its ssd1306 driver's init lands in the model and the frame it draws is the one the unix port
composes; a full frame holds the bus as long as a 400 kHz bus takes; a mistimed
machine.bitstream is caught; the firmware's own inputs count a bouncing press once and an
encoder turn of 3 detents as 3.

One deploy for the module; the tests that need the app run first, then the app is
interrupted (Ctrl-C, as mpremote does) and scripts run at the raw REPL while the twin's
control port works the controls. Marked `twin`; skipped where the twin cannot run, except
under CI=true, where a missing twin fails (.ci/run installs it)."""
from __future__ import annotations

import ast
import threading

import pytest

from twin_support import TWIN_TESTS, deployed_twin, device_twin  # noqa: E402
from tallypanel import inputs as panel_inputs  # noqa: E402

pytestmark = [*TWIN_TESTS, pytest.mark.emulator, pytest.mark.process]

SETTLE_S = device_twin.SETTLE_S     # a bound against a hang only (the harness's PATIENCE)
# How long no more inputs may still come once the expected ones are in: every edge the controls
# made is made by then, and one already made is handed out at the latest at its reader's next read
# (tallypanel/inputs.py: a button's release debounce_ms after it; the slowest, an encoder in a storm
# of bounces, every _STORM_POLL_MS); as much again for the loop's turn and a collection
QUIET_MS = 2 * (panel_inputs.Button.debounce_ms + panel_inputs._STORM_POLL_MS)


@pytest.fixture(scope="module")
def twin(tmp_path_factory):
    """A blank twin with the firmware deployed, its app's first frame drawn; stopped whatever happens."""
    chip = deployed_twin(tmp_path_factory, "twin-parts")
    try:
        chip.start()
        chip.control.settle(quiet_ms=300, most_s=SETTLE_S, led_frames=1, oled_data_bytes=1024)
        yield chip
    finally:
        chip.stop()


@pytest.fixture(scope="module")
def repl(twin):
    """The raw REPL, the app interrupted (after the tests that need the app)."""
    shell = device_twin.RawRepl(twin.link)
    yield shell
    shell.close()


def test_the_drivers_init_lands_in_the_ssd1306(twin):
    oled = twin.control.oled()
    # tallypanel/ssd1306.py's _INIT, byte by byte: AE; 20 00 horizontal addressing; 40 start
    # line 0; A1 column 127 on SEG0; A8 3F multiplex 64; C8 COM scan reversed; D3 00 no
    # offset; DA 12 alternative COM pins; D5 80 clock; D9 F1 pre-charge; DB 30 VCOMH;
    # 81 FF contrast 255; A4 RAM shown; A6 not inverted; 8D 14 charge pump on; AF on.
    assert (oled.present, oled.on, oled.contrast, oled.inverted) == (True, True, 255, False)
    fields = oled.fields
    assert fields["addressing"] == "horizontal"
    assert (fields["start_line"], fields["segment_remap"], fields["multiplex"], fields["com_reversed"],
            fields["offset"], fields["com_pins"], fields["clock_div"], fields["precharge"], fields["vcomh"],
            fields["entire_on"], fields["charge_pump"]) \
        == (0, True, 64, True, 0, 0x12, 0x80, 0xF1, 0x30, False, True)
    # show() sets a one-page window per page: columns 0-127, the last page drawn was 7
    assert (fields["columns"], fields["pages"]) == ([0, 127], [7, 7])
    assert twin.control.errors() == {"ssd1306": [], "ws2812": []}


def _composed_by_the_unix_port(twin):
    """What the firmware's own view code, under the MicroPython unix port, draws for the
    game and settings the board has now (tallyboard.tooling.render.frame_for_board)."""
    from tallyboard.tooling import render

    board = twin.board()
    try:
        return render.frame_for_board(board)
    finally:
        board.link.close()


def test_the_blank_board_and_a_new_sheet_are_drawn_as_the_unix_port_composes_them(twin):
    control = twin.control
    composed = _composed_by_the_unix_port(twin)
    assert control.oled().ram == composed.oled
    assert control.leds().grb == composed.leds
    assert any(composed.oled), "the blank board's screen says something"

    before = control.stats()
    assert twin.tallyboard("new", "skicket", "--name", "Ann", "--name", "Bob", "--name", "Cy",
                           "--name", "Dee").returncode == 0
    control.settle(quiet_ms=300, most_s=SETTLE_S, oled_data_bytes=before["oled_data_bytes"] + 128)
    composed = _composed_by_the_unix_port(twin)
    shown = control.oled()
    assert shown.ram == composed.oled
    assert control.leds().grb == composed.leds
    stats = control.stats()
    assert stats["led_timing_errors"] == 0 and stats["oled_errors"] == 0
    # every LED frame the firmware sends is the whole chain: 132 LEDs x 3 bytes
    assert stats["led_short_frames"] == 0 and stats["led_long_frames"] == 0
    assert control.leds().fields["stats"]["last_frame_bytes"] == 132 * 3


def test_a_full_frame_holds_the_i2c_bus_for_its_wire_time(twin, repl):
    repl.run("import machine\nfrom tallypanel import ssd1306\n"
             "oled = ssd1306.SSD1306_I2C(machine.I2C(0, sda=machine.Pin(4), scl=machine.Pin(5), freq=400000), 60)\n")
    before = twin.control.stats()
    repl.run("oled.show()\n")
    after = twin.control.stats()
    # show() of all 8 pages: per page one write of the column and page window (START,
    # address, 0x00, its 6 command bytes, STOP: 1 + 9 + 9 + 6 x 9 + 1 = 74 SCL clocks) and
    # one data write (START, address, 0x40, 128 data bytes, STOP: 1 + 9 + 9 + 128 x 9 + 1 =
    # 1172 clocks): 8 x (74 + 1172) = 9968 clocks. The data alone: 1024 x 9 / 400 kHz = 23.04 ms.
    # At 400 kHz the pico-sdk sets SCL to 125 MHz / 313 (hcnt 126 + lcnt 187; 399.4 kHz),
    # 2.504 us a clock: 9968 x 2.504 us = 24.960 ms.
    assert after["oled_transactions"] - before["oled_transactions"] == 8 * 2
    assert after["oled_data_bytes"] - before["oled_data_bytes"] == 1024
    assert after["i2c_bus_ms"] - before["i2c_bus_ms"] == pytest.approx(9968 * 313 / 125e6 * 1e3, rel=1e-6)
    # and the CPU waited for it: the script's emulated time covers the bus time
    assert after["emu_ms"] - before["emu_ms"] > 24.9


def test_a_mistimed_bitstream_is_out_of_the_ws2812_window(twin, repl):
    control = twin.control
    control.clear_errors()
    # neopixel's own timing (T0H 400 ns, T0L 850, T1H 800, T1L 450): inside the windows
    repl.run("import machine\np = machine.Pin(2, machine.Pin.OUT)\n"
             "machine.bitstream(p, 0, (400, 850, 800, 450), b'\\x0f\\xf0\\x55')\n")
    control.settle(quiet_ms=1, most_s=SETTLE_S)
    assert control.errors()["ws2812"] == []
    assert control.leds().grb[:3] == b"\x0f\xf0\x55"      # LED 0: G 0x0f, R 0xf0, B 0x55
    # a 1 bit held high 1.2 us: outside T1H 0.8 us +- 150 ns
    repl.run("machine.bitstream(p, 0, (400, 850, 1200, 450), b'\\x80\\x00\\x00')\n")
    control.settle(quiet_ms=1, most_s=SETTLE_S)
    errors = control.errors()["ws2812"]
    assert len(errors) == 1, errors                        # bit 0 only: the other 23 are 0 bits
    assert errors[0].startswith("bit 0 of frame") and "(LED 0, bit 7 of its green byte): high for 1.1" in errors[0]
    assert "outside T1H 0.65-0.95 us" in errors[0]
    control.clear_errors()


# The firmware's own Inputs on the chip's pins, with pin interrupts for the encoder as the app
# sets them up; the handler keeps what it gets in buffers made beforehand (as the app's
# polling paths allocate nothing, so no collection stalls the loop while the knob turns).
_WATCH_INPUTS = """
import asyncio, gc, machine, time
from tallypanel import boarddef, hw
from tallypanel.inputs import Inputs
board = boarddef.load('board/pico-reference.json')
kinds = bytearray(16)
values = bytearray(16)
count = bytearray(2)
def handle(kind, value):
    if count[0] < 16:
        kinds[count[0]] = kind
        values[count[0]] = value & 0xff
        count[0] += 1
def pin_irq(gpio, isr):
    # seat 0's button (GPIO 10): its edges counted, then what the firmware's interrupt does
    if gpio != 10:
        return hw.pin_irq(gpio, isr)
    def seen(pin):
        count[1] += 1
        isr(pin)
    return hw.pin_irq(gpio, seen)
inputs = Inputs(board, hw.button, handle, pin_irq)
# the app stopped by Ctrl-C leaves its tasks in MicroPython's one task queue, where the
# next asyncio.run would run them too (the app's own button poll among them): a fresh loop
asyncio.new_event_loop()
async def main():
    tasks = inputs.tasks()
    gc.collect()
    print('ready')
    until = time.ticks_add(time.ticks_ms(), {guard_ms})   # a guard only: idle, the chip keeps wall time
    while count[0] < {expected} and time.ticks_diff(until, time.ticks_ms()) > 0:
        await asyncio.sleep_ms(10)
    await asyncio.sleep_ms({quiet_ms})      # anything more would come within this: QUIET_MS
    for task in tasks:
        task.cancel()
asyncio.run(main())
got = [(kinds[i], values[i] - 256 if values[i] > 127 else values[i]) for i in range(count[0])]
print('got', got, 'edges', count[1], 'on_edges', inputs.encoder_on_edges and inputs.buttons_on_edges)
"""


def _watch(repl, expected: int, act) -> str:
    repl.start(_WATCH_INPUTS.replace("{expected}", str(expected)).replace("{quiet_ms}", str(QUIET_MS))
               .replace("{guard_ms}", str(int(1000 * device_twin.REPL_S))))
    repl.wait_for("ready")
    failed: list[BaseException] = []

    def work() -> None:
        try:
            act()
        except BaseException as exc:      # reported below, once the script has ended
            failed.append(exc)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(device_twin.REPL_S)
    out = repl.finish(timeout=2 * device_twin.REPL_S)    # past the script's own guard, should inputs go missing
    assert not failed, f"the twin's controls failed: {failed[0]}"
    return out.strip()


def test_a_bouncing_press_counts_once_and_three_detents_move_three(twin, repl):
    control = twin.control

    def act() -> None:
        control.press("seat0", ms=120, bounce_ms=4)
        control.turn(3)
        control.turn(-2)

    out = _watch(repl, 1 + 3 + 2, act)
    # tallypanel.menu: SEAT = 0, TURN = 3; seat 0 pressed once (short), then +1 x 3, -1 x 2
    # (the press is handed out debounce_ms after its release, so the knob's first detent, counted in
    # its interrupt, may come before it: the order within each control is what is checked)
    got, _, rest = out.partition(" edges ")
    assert got.startswith("got "), out
    events = ast.literal_eval(got[4:])
    assert [e for e in events if e[0] == 0] == [(0, 0)], out
    assert [e for e in events if e[0] == 3] == [(3, 1), (3, 1), (3, 1), (3, -1), (3, -1)], out
    assert len(events) == 6, out
    edges, on_edges = rest.split(" on_edges ")
    # the contact bounced: more than the press and the release reached the pin
    assert int(edges) > 2, out
    assert on_edges == "True"          # the encoder and the buttons ran on the chip's pin interrupts
