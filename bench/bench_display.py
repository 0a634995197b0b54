"""Display figures (issue 4), on the MicroPython unix port. Run from the
repo root with either of:

    micropython bench/bench_display.py [ROUNDS]
    python bench/bench_display.py [ROUNDS]      (re-runs itself under micropython)

Measures, with the firmware's own modules and the reference board
(board/pico-reference.json, 132 LEDs):
  * compose one LED frame (tallypanel.ledfield) for a Roquet game in progress
    and a Skicket game, and with the current limiter scaling the frame;
  * redraw the OLED sheet (tallypanel.sheetview): every row, one hand added
    (the rows that changed), and nothing changed;
  * heap allocated per frame and per redraw: gc.mem_alloc() across ROUNDS
    calls with the collector off (target 0), and the same calls again under
    micropython.heap_lock() (any allocation raises MemoryError);
  * against the WS2812 wire time for the chain: 24 bits x 1.25 us = 30 us
    per LED, plus the >= 280 us latch of a WS2812B.
The unix port runs on the host's CPU: a Pico (RP2040, 125 MHz Cortex-M0+)
is many times slower; the allocation figures are the same on both.
"""
import sys

if sys.implementation.name != "micropython":
    import subprocess
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))
    from tallyboard.tooling.mpunix import micropython_binary

    sys.exit(subprocess.call([micropython_binary(), __file__] + sys.argv[1:]))

import gc
import time
import micropython
import framebuf

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
sys.path.insert(0, _HERE + "/../firmware")

from tallypanel import boarddef  # noqa: E402

from tallycore import roquet, skicket
from tallycore.game import Game  # noqa: E402
from tallypanel.ledfield import LedField  # noqa: E402
from tallypanel.sheetview import SheetView  # noqa: E402

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
WIRE_US_PER_LED = 30
LATCH_US = 280


def roquet_game():
    g = Game()
    g.new(roquet, 2, 0)
    for e in (roquet.pack_peg(0, 10), roquet.pack_peg(1, 6), roquet.HAND_END, roquet.pack_peg(0, 3),
              roquet.pack_peg(1, 9), roquet.pack_peg(0, 14)):
        g.apply(e)
    return g


def skicket_game(hands=3):
    g = Game()
    g.new(skicket, 4, 0)
    plays = ((0, 4, 2, None, None, False, 10), (1, 2, 4, 0, 1, False, 9), (3, 3, 5, None, None, False, 2),
             (2, 1, 0, None, None, False, 7), (0, 5, 3, 1, None, False, 11))
    for h in range(hands):
        g.apply(skicket.pack_hand(*plays[h]))
    return g


def timed(label, call, rounds):
    call()
    best = 1 << 30
    start = time.ticks_us()
    for _ in range(rounds):
        t0 = time.ticks_us()
        call()
        spent = time.ticks_diff(time.ticks_us(), t0)
        if spent < best:
            best = spent
    mean = time.ticks_diff(time.ticks_us(), start) / rounds
    print("%-44s mean %7.1f us   best %5d us" % (label, mean, best))
    return mean


def heap_per_call(label, call, rounds):
    call()
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    for _ in range(rounds):
        call()
    grown = gc.mem_alloc() - before
    gc.enable()
    micropython.heap_lock()
    try:
        for _ in range(100):
            call()
        locked = "ok"
    except MemoryError:
        locked = "ALLOCATES"
    finally:
        micropython.heap_unlock()
    print("%-44s %5.1f bytes/call  heap_lock: %s" % (label, grown / rounds, locked))


def main():
    board = boarddef.find("pico-reference", _HERE + "/../board")
    field = LedField(board)
    rq = roquet_game()
    sk = skicket_game()
    print("MicroPython %s, %d rounds, board %s (%d LEDs)" % (
        ".".join(str(v) for v in sys.implementation.version[:3]), ROUNDS, board.name, board.led_count))
    print()
    print("LED frame (tallypanel.ledfield)")
    roquet_us = timed("  compose Roquet frame", lambda: field.compose(rq), ROUNDS)
    timed("  compose Skicket frame", lambda: field.compose(sk), ROUNDS)
    bright = LedField(board)
    bright.set_brightness(255)
    bright.set_budget(200)
    timed("  compose Roquet frame, limiter scaling", lambda: bright.compose(rq), ROUNDS)
    wire = board.led_count * WIRE_US_PER_LED
    print("  WS2812 wire time, %d LEDs x %d us           %7d us (+ %d us latch)" % (
        board.led_count, WIRE_US_PER_LED, wire, LATCH_US))
    print("  compose / wire time                         %7.2f" % (roquet_us / wire))
    print()
    print("OLED sheet (tallypanel.sheetview, 128x64)")
    buf = bytearray(1024)
    fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    sheet = SheetView(fb)
    sheet.set_names(["Ann", "Bob", "Cy", "Dee"])

    def full():
        sheet.layout = -1  # forget the screen: every row is redrawn
        sheet.draw_game(sk)
    timed("  redraw every row (Skicket sheet)", full, ROUNDS // 4)
    three = skicket_game(3)
    four = skicket_game(4)
    flip = [0]

    def one_hand():
        flip[0] ^= 1
        sheet.draw_game(four if flip[0] else three)
    timed("  redraw after a hand (4 rows change)", one_hand, ROUNDS // 4)
    timed("  redraw, nothing changed", lambda: sheet.draw_game(four), ROUNDS)

    def roquet_full():
        sheet.layout = -1
        sheet.draw_game(rq)
    timed("  redraw every row (Roquet summary)", roquet_full, ROUNDS // 4)
    print()
    print("Heap per call (gc off; then under micropython.heap_lock)")
    heap_per_call("  LED frame, Roquet", lambda: field.compose(rq), ROUNDS)
    heap_per_call("  LED frame, Skicket", lambda: field.compose(sk), ROUNDS)
    heap_per_call("  LED frame, limiter scaling", lambda: bright.compose(rq), ROUNDS)
    heap_per_call("  sheet redraw, every row", full, ROUNDS // 4)
    heap_per_call("  sheet redraw, after a hand", one_hand, ROUNDS // 4)


main()
