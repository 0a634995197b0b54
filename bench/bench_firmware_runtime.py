"""Board runtime figures (issue 3), on the MicroPython unix port. Run from
the repo root:

    python bench/bench_firmware_runtime.py [--commands 10000] [--events 140] [--boots 10] [--game "hoodoo 3"]

Boots the file set deploy writes (main.py, boot.py, tallycore/*.mpy for
armv6m, board/) with the emulator's stand-ins, in a temporary flash folder,
with the heap the emulator gives it (-X heapsize=384K), and measures:

  * heap: STATS (gc.collect, then gc.mem_free / gc.mem_alloc) after 100
    commands and after --commands commands of a mixed stream (pegs, undo,
    redo, queries, config reads, retries, bad frames), with --game in play
    (NEW's arguments; Roquet by default, another game refuses the pegs). No
    growth = the same heap in use after 10,000 as after 100, within a few
    hundred bytes.
  * serving one request inside MicroPython (bytes in, journal write, event,
    reply; no display), mean over 2000 requests;
  * boot + restore: a game of --events events plus undo/redo records in the
    journal; the time from starting the process to the BOOT event (the game
    restored) and to the first reply, median of --boots power-ons; and
    Journal.restore() alone, timed inside MicroPython with ticks_us.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(ROOT / "firmware"))

from tallyrun import protocol as P  # noqa: E402
from tallyboard.boardlink import wire  # noqa: E402
from tallyboard.tooling import fileset  # noqa: E402
from tallyboard.tooling.mpunix import STANDINS_DIR, micropython_binary  # noqa: E402

HEAP = "384K"


def env_for(io: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join(["", str(STANDINS_DIR), ".frozen"])
    env["TALLYBOARD_EMU_IO"] = str(io)
    return env


def run(flash: Path, io: Path, data: bytes) -> list[bytes]:
    proc = subprocess.run([micropython_binary(), "-X", f"heapsize={HEAP}", "main.py"], cwd=flash,
                          env=env_for(io), input=data, capture_output=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr.decode(errors="replace"))
    return [wire.check_frame(line) for line in proc.stdout.split(b"\n")[:-1]]


def mixed_commands(count: int, first_seq: int) -> list[bytes]:
    """A stream that keeps the game alive: pegs and undos balance out."""
    cycle = ["PEG 0 1", "PEG 1 2", "STATE", "UNDO", "UNDO", "REDO", "UNDO", "SCORE", "HELLO",
             "LOG 0", "CFG GET name 1", "HAND 0 4H - - 0 10", "BAD", "GAME 3"]
    out = []
    seq = first_seq
    for i in range(count):
        text = cycle[i % len(cycle)]
        if text == "BAD":
            out.append(b"%d PEG 0 5*0000\n" % seq)          # a wrong checksum
        else:
            out.append(wire.encode_request(seq, text))
        if i % 50 == 49:
            out.append(out[-1])                            # a retry now and then
        seq = seq % P.MAX_SEQ + 1
    return out


def stats(replies: list[bytes], seq: int) -> dict[str, str]:
    for body in replies:
        if body.startswith(b"%d OK free=" % seq):
            return wire.fields(body)
    raise SystemExit(f"no STATS reply {seq}")


def heap_growth(flash: Path, io: Path, commands: int, game: str) -> None:
    start = [wire.encode_request(1, "NEW " + game)]
    first = mixed_commands(100, 2)
    rest = mixed_commands(commands - 100, 102)
    data = b"".join(start + first + [wire.encode_request(60001, "STATS")] + rest
                    + [wire.encode_request(60002, "STATS")])
    begin = time.perf_counter()
    replies = run(flash, io, data)
    seconds = time.perf_counter() - begin
    after_100 = stats(replies, 60001)
    after_all = stats(replies, 60002)
    print(f"game_in_play                {game}")
    print(f"heap_after_100_commands     alloc {int(after_100['alloc']):>7d} B   free {int(after_100['free']):>7d} B")
    print(f"heap_after_{commands}_commands   alloc {int(after_all['alloc']):>7d} B   free {int(after_all['free']):>7d} B")
    print(f"heap_growth                 {int(after_all['alloc']) - int(after_100['alloc']):>+7d} B")
    print(f"commands_per_second         {commands / seconds:>7.0f}   (pipe, whole batch, unix port)")


def boot_restore(flash: Path, io: Path, events: int, boots: int) -> None:
    # peg 1 for each player, undo, redo: a game of events/2 pegs, with
    # undo and redo records in the journal on top of the snapshot
    requests = [wire.encode_request(1, "NEW roquet 2")]
    seq = 2
    for i in range(events):
        requests.append(wire.encode_request(seq, ("PEG 0 1", "PEG 1 1", "UNDO", "REDO")[i % 4]))
        seq += 1
    run(flash, io, b"".join(requests))
    snapshot_bytes = (flash / "game.snp").stat().st_size
    to_boot = []
    to_reply = []
    hello = wire.encode_request(1, "STATE")
    for _ in range(boots):
        begin = time.perf_counter()
        proc = subprocess.Popen([micropython_binary(), "-X", f"heapsize={HEAP}", "main.py"], cwd=flash,
                                env=env_for(io), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert proc.stdin is not None and proc.stdout is not None
        line = proc.stdout.readline()
        to_boot.append(time.perf_counter() - begin)
        assert b" BOOT " in line, line
        proc.stdin.write(hello)
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if line.startswith(b"1 OK"):
                break
        to_reply.append(time.perf_counter() - begin)
        proc.stdin.close()
        proc.wait(timeout=30)
    state = wire.fields(wire.check_frame(line))
    print(f"restore_game                n={state['n']} top={state['top']}, snapshot {snapshot_bytes} B, "
          f"the rest from the journal's ring (journal.raw)")
    print(f"boot_to_BOOT_event_ms       {1000 * statistics.median(to_boot):>7.1f}   (median of {boots}; "
          "process start, imports, config, restore)")
    print(f"boot_to_first_reply_ms      {1000 * statistics.median(to_reply):>7.1f}")
    # Journal.restore() alone, inside MicroPython
    script = ("import time\n"
              "from tallycore.game import Game\n"
              "from tallyrun.journal import Journal\n"
              "best = 10**9\n"
              "for i in range(20):\n"
              "    g = Game(); j = Journal(g)\n"
              "    t = time.ticks_us(); j.restore(); d = time.ticks_diff(time.ticks_us(), t)\n"
              "    j.close(); best = min(best, d)\n"
              "print(best, g.n, j.restored)\n")
    out = subprocess.run([micropython_binary(), "-X", f"heapsize={HEAP}", "-c", script], cwd=flash,
                         env=env_for(io), capture_output=True, text=True, check=True).stdout.split()
    print(f"journal_restore_us          {int(out[0]):>7d}   (best of 20, in MicroPython; "
          f"{out[2]} journal records replayed onto the snapshot)")


def request_time(flash: Path, io: Path) -> None:
    """Serving one request inside MicroPython: bytes in, journal, event, reply."""
    frames = []
    for i in range(2000):
        frames.append(wire.encode_request(2 + i, ("PEG 0 1", "UNDO", "STATE")[i % 3]))
    (flash / "frames.bin").write_bytes(b"".join(frames))
    script = ("import time, gc\n"
              "from tallyrun.app import App\n"
              "app = App(open('/dev/null', 'wb'), '', 'bench')\n"
              "app.boot()\n"
              f"app.feed_bytes({wire.encode_request(1, 'NEW roquet 2')!r})\n"
              "data = open('frames.bin', 'rb').read()\n"
              "gc.collect()\n"
              "t = time.ticks_us()\n"
              "app.feed_bytes(data)\n"
              "d = time.ticks_diff(time.ticks_us(), t)\n"
              "print(d, app.served, len(data))\n")
    out = subprocess.run([micropython_binary(), "-X", f"heapsize={HEAP}", "-c", script], cwd=flash,
                         env=env_for(io), capture_output=True, text=True, check=True).stdout.split()
    micros, served, size = int(out[0]), int(out[1]), int(out[2])
    print(f"serve_request_us            {micros / (served - 1):>7.1f}   (mean over {served - 1} requests: "
          f"PEG / UNDO journaled, STATE; {size / (served - 1):.0f} bytes each, in MicroPython, no display)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=10000)
    parser.add_argument("--events", type=int, default=140)
    parser.add_argument("--boots", type=int, default=10)
    parser.add_argument("--game", default="roquet 2", help="the game in play for the heap figure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = fileset.build()
        for name, job in (("heap", lambda f, i: heap_growth(f, i, args.commands, args.game)),
                          ("boot", lambda f, i: boot_restore(f, i, args.events, args.boots)),
                          ("serve", request_time)):
            flash = Path(tmp) / name / "flash"
            io = Path(tmp) / name / "io"
            flash.mkdir(parents=True)
            io.mkdir(parents=True)
            fileset.install(files, flash)
            job(flash, io)
    print(f"micropython                 {micropython_binary()} -X heapsize={HEAP}")


if __name__ == "__main__":
    main()
