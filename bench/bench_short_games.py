# Figures for the fourteen short games, under the MicroPython unix port (or CPython):
#   micropython bench/bench_short_games.py firmware
# Prints one "name value unit" line per figure: the heap the rule modules
# take once imported, the time to apply one event of each game (a whole
# game's events, averaged), the time to undo the last event of a long game
# (undo replays the log from a reset), and, under MicroPython, a heap-locked
# run proving that applying events allocates nothing.
import gc
import sys
import time

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "firmware")
MICRO = sys.implementation.name == "micropython"

gc.collect()
before = gc.mem_alloc() if MICRO else 0
from tallycore import (bishops_whist, cards, coronado, despised_nines, doolittle, first_out,  # noqa: E402,F401
                       foozle, game, jaimy, moosehead, most_count, rummy, sachem)
gc.collect()
if MICRO:
    print("short_games_import_heap %d bytes" % (gc.mem_alloc() - before))


def now_us():
    return time.ticks_us() if MICRO else int(time.perf_counter() * 1000000)


def elapsed_us(start):
    return time.ticks_diff(time.ticks_us(), start) if MICRO else now_us() - start


def c(text):
    return cards.parse(text)


def moosehead_hand():
    # the sample record's hand (4 players, first dealer 3): 24 plays and gos, then END
    out = []
    for move in ((0, "8"), (1, "3"), (2, "4"), (3, "10"), (0, "4"), "go",
                 (1, "2"), (2, "5"), (3, "7"), (0, "K"), (1, "5"), "go",
                 (2, "7"), (3, "3"), (0, "6"), (1, "4"), (2, "J"),
                 (3, "9"), (0, "2"), (1, "9"), (2, "5"), "go",
                 (3, "Q"), "go"):
        out.append(moosehead.GO if move == "go" else moosehead.pack_play(move[0], c(move[1])))
    return out + [moosehead.END]


def rummy_hands(module):
    out = []
    for out_player, held in ((0, [[], ["10", "3", "4"], ["K"]]), (1, [["5"], [], ["7"]]),
                             (2, [["9", "QH"], ["2", "2S"], []])):
        for p in range(3):
            for text in held[p]:
                out.append(module.pack_card(p, c(text)))
        out.append(module.pack_out(out_player))
    return out


GAMES = (
    ("bishops_whist", bishops_whist, 4, 0,
     [bishops_whist.pack_hand((7, 6), (2, 2), True, (0, 1), (0, 0)), bishops_whist.MISDEAL,
      bishops_whist.pack_hand((5, 8), (1, 3), False, (0, 0), (0, 0))] * 2),
    ("rummy", rummy, 3, 0, rummy_hands(rummy)),
    ("parquet", "parquet", 3, 0, rummy_hands(rummy)),
    ("coronado", coronado, 2, 0, [coronado.pack_hand(m, t) for m, t in ((0, 3), (1, 2), (2, 4), (0, 1))]),
    ("foozle", foozle, 4, 0, [foozle.pack_hand(2, 3, 4), foozle.pack_hand(1, 4, 3)] * 2),
    ("jaimy", jaimy, 4, jaimy.OPT_PARTNERS, [jaimy.pack_hand(1, 1), jaimy.pack_hand(2, 2), 0]),
    ("hoodoo", "hoodoo", 6, 0, [0, 1, 2, 3, 4, 5]),
    ("numero", "numero", 4, 0, [most_count.pack_count(p, v, most_count.PACK) for p, v in enumerate((20, 12, 0, 20))]
     + [most_count.END]),
    ("sachem", sachem, 4, 0, [sachem.pack_hand(0, 2, 1, 3), sachem.pack_hand(1, 1, None, None)] * 2),
    ("quatro", "quatro", 3, 0, [most_count.pack_count(p, v, most_count.TRICKS) for p, v in enumerate((3, 5, 5))]
     + [most_count.END]),
    ("doolittle", doolittle, 3, 0, [1, 1, 0, 2, 2, 2, doolittle.END] * 3),
    ("despised_nines", despised_nines, 4, 0, [despised_nines.pack_hand([2, 0, 1, 1])] * 4),
    ("ups_and_downs", "ups_and_downs", 8, 0, [0, 1, 2, 3, 4, 5, 6, 7]),
    ("moosehead", moosehead, 4, 3, moosehead_hand()),
)

REPEAT = 200
g = game.Game()
for name, rules, players, options, events in GAMES:
    count = len(events)
    start = now_us()
    for _ in range(REPEAT):
        g.new(rules, players, options)
        for i in range(count):
            g.apply(events[i])
    print("%s_event_us %.2f us" % (name, elapsed_us(start) / (REPEAT * count)))

# Undo in the longest game the log holds: 54 scoreless two-player Moosehead
# hands of 11 events (counts 1 2 3 4 6 8 10 12 16 19, no fifteens).
g.new(moosehead, 2, 0)
two = []
for move in ((0, "A"), (1, "A"), (0, "A"), (1, "A"), (0, "2"), (1, "2"), (0, "2"), (1, "2"),
             (0, "4"), (1, "3")):
    two.append(moosehead.pack_play(move[0], c(move[1])))
two.append(moosehead.END)
applied = 0
while applied + len(two) <= game.LOG_CAPACITY and not g.complete():
    for event in two:
        g.apply(event)
    applied += len(two)
start = now_us()
g.undo()
print("moosehead_undo_at_%d_events_us %d us" % (applied, elapsed_us(start)))
g.redo()

if MICRO:
    import micropython
    from array import array
    locked = 0
    for name, rules, players, options, events in GAMES:
        log = array("i", events)
        g.new(rules, players, options)
        micropython.heap_lock()
        try:
            for i in range(len(log)):
                g.apply(log[i])
        finally:
            micropython.heap_unlock()
        locked += len(log)
    print("short_games_heap_locked_events %d events" % locked)
