# Scoring-core figures, run under the MicroPython unix port (or CPython):
#   micropython bench/mp_core.py firmware
# Prints one "name value unit" line per figure.
import gc
import sys
import time

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "firmware")
from tallycore import game, roquet, skicket  # noqa: E402

MICRO = sys.implementation.name == "micropython"


def now_us():
    return time.ticks_us() if MICRO else int(time.perf_counter() * 1000000)


def elapsed_us(start):
    return time.ticks_diff(time.ticks_us(), start) if MICRO else now_us() - start


GAMES = 400
HANDS = [skicket.pack_hand(p, level, strain, d, r, False, t) for p, level, strain, d, r, t in (
    (0, 3, 2, None, None, 9), (1, 2, 1, 0, None, 7), (2, 1, 5, None, None, 5),
    (3, 4, 3, 0, 3, 10), (0, 2, 4, 1, 3, 8), (1, 5, 0, None, None, 13))]
PEGS = [roquet.pack_peg(i & 1, 1 + i % 5) for i in range(24)]

g = game.Game()
gc.collect()
start = now_us()
for _ in range(GAMES):
    g.new(skicket, 4)
    for hand in HANDS:
        g.apply(hand)
skicket_us = elapsed_us(start)
print("skicket_hand_us %.2f us" % (skicket_us / (GAMES * 6)))

start = now_us()
pegs = 0
for _ in range(GAMES):
    g.new(roquet, 2)
    for peg in PEGS:
        g.apply(peg)
    g.apply(roquet.HAND_END)
    pegs += len(PEGS)
print("roquet_peg_us %.2f us" % (elapsed_us(start) / (GAMES * (len(PEGS) + 1))))

if MICRO:
    import micropython
    g.new(skicket, 4)
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    for hand in HANDS:
        g.apply(hand)
    g.new(roquet, 2)
    for peg in PEGS:
        g.apply(peg)
    after = gc.mem_alloc()
    gc.enable()
    print("heap_per_event %d bytes" % ((after - before) // (len(HANDS) + len(PEGS))))
    g.new(skicket, 4)
    micropython.heap_lock()
    try:
        for hand in HANDS:
            g.apply(hand)
        locked = "ok"
    except MemoryError:
        locked = "ALLOCATES"
    micropython.heap_unlock()
    print("heap_lock_skicket_game %s" % locked)
    g.new(roquet, 2)
    micropython.heap_lock()
    try:
        for peg in PEGS:
            g.apply(peg)
        g.apply(roquet.HAND_END)
        locked = "ok"
    except MemoryError:
        locked = "ALLOCATES"
    micropython.heap_unlock()
    print("heap_lock_roquet_hand %s" % locked)

print("skicket_state %d bytes" % skicket.STATE_SIZE)
print("skicket_game_log %d bytes" % (6 * 4))
print("roquet_state %d bytes" % roquet.STATE_SIZE)
