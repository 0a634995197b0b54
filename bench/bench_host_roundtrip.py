"""Host <-> board figures on the emulator (issue 3). Run from the repo root:

    python bench/bench_host_roundtrip.py [--commands 2000] [--events 3000]

Boots the real firmware file set in the emulator (MicroPython unix port on a
pty, flash folder in a temporary directory) and measures, through pyserial
and the protocol client exactly as the CLI talks to a board:

  * round trip command -> reply: a query (STATE, nothing written) and a
    scoring command (PEG: journaled and flushed to the flash folder before the
    reply), median and p99 over --commands each;
  * sustained scoring events per second, one request at a time and with 8
    requests in flight; no event may be lost: every reply must arrive, the
    event lines must be numbered without a gap, and the board's log (LOG,
    checked with its lcrc) must hold exactly the events sent.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(ROOT / "firmware"))

from tallyboard.boardlink import wire  # noqa: E402

from tallycore import roquet
from tallyboard.boardlink.client import Board  # noqa: E402
from tallyboard.tooling.emulator import Emulator  # noqa: E402
from tallyboard.boardlink.transport import SerialTransport  # noqa: E402

# Roquet ending only at a hand end: 1-point pegs never finish the game, so a
# game holds a full event log of pegs; a new game starts when the log is near full
OPTIONS = roquet.OPT_END_AT_HAND_END


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def round_trips(board: Board, verb: str, args: tuple, count: int, log_room: int) -> list[float]:
    times = []
    done = 0
    while done < count:
        if verb == "PEG" and done % log_room == 0:
            board.new("roquet", 2, OPTIONS)
        seq, frame = board.encode(verb, *args)
        start = time.perf_counter()
        board.send_frame(seq, frame)
        times.append(time.perf_counter() - start)
        done += 1
    board.events.clear()
    return times


def sustained(board: Board, total: int, window: int, log_room: int) -> tuple[float, int]:
    """Events per second with `window` requests in flight; verified lossless."""
    sent_events = 0
    elapsed = 0.0
    while sent_events < total:
        board.new("roquet", 2, OPTIONS)
        board.events.clear()
        first_eseq = board.last_eseq
        batch = min(log_room, total - sent_events)
        frames = []
        for i in range(batch):
            frames.append(board.encode("PEG", i % 2, 1))
        expected = {seq for seq, _ in frames}
        start = time.perf_counter()
        next_to_send = 0
        outstanding = 0
        replies = 0
        while replies < batch:
            while outstanding < window and next_to_send < batch:
                board.link.write(frames[next_to_send][1])
                next_to_send += 1
                outstanding += 1
            line = board.link.read_line(5.0)
            if line is None:
                raise SystemExit(f"lost: no reply after {replies} of {batch} events")
            body = wire.check_frame(line)
            if body.startswith(b"! "):
                board._event(body, line)
                continue
            seq = int(body.split(b" ", 1)[0])
            if seq not in expected or b" OK " not in body + b" ":
                raise SystemExit(f"unexpected reply: {line!r}")
            expected.discard(seq)
            replies += 1
            outstanding -= 1
        elapsed += time.perf_counter() - start
        # verification (not timed): no gap in the events, the log is all there; the
        # last event lines follow their replies (reply first), so wait for them
        deadline = time.monotonic() + 5.0
        while sum(e.kind == "EV" for e in board.events) < batch and time.monotonic() < deadline:
            board.poll_events(0.2, first=True)
        events = [e for e in board.events if e.kind == "EV"]
        numbers = [e.eseq for e in events]
        # protocol 4: NEW's reply comes before its event line, so that line may be read here
        first_eseq = max([first_eseq] + [e.eseq for e in board.events if e.kind == "NEW"])
        if numbers != list(range(first_eseq + 1, first_eseq + 1 + batch)) or board.gap:
            raise SystemExit(f"event lines missing or out of order: {numbers[:5]}... first {first_eseq} gap {board.gap} n {len(numbers)} of {batch}; kinds {sorted({e.kind for e in board.events})}")
        current = board.rebuild()
        pegs = [roquet.pack_peg(i % 2, 1) for i in range(batch)]
        if current.log != pegs or current.n != batch:
            raise SystemExit("the board's log does not hold every event sent")
        sent_events += batch
    return sent_events / elapsed, sent_events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=2000)
    parser.add_argument("--events", type=int, default=3000)
    args = parser.parse_args()
    for io_files in (True, False):
        print("with the display: LED frame and OLED buffer written to files on every change" if io_files
              else "without the display files (TALLYBOARD_EMU_IO unset): the protocol and the journal alone")
        with tempfile.TemporaryDirectory(prefix="tallyboard-bench-") as tmp:
            with Emulator(flash=Path(tmp) / "flash", io_files=io_files) as emulator:
                link = SerialTransport(emulator.port)
                board = Board(link, timeout=5.0)
                board.connect()
                log_room = int(board.hello_fields["log"]) - 2
                if io_files:
                    print(f"  firmware {board.hello_fields['fw']}, protocol {board.hello_fields['proto']}, "
                          f"board {board.hello_fields['board']}, event log {log_room + 2}")
                board.new("roquet", 2, OPTIONS)
                for name, verb, verb_args in (("query STATE", "STATE", ()), ("scoring PEG", "PEG", (0, 1))):
                    times = round_trips(board, verb, verb_args, args.commands, log_room)
                    print(f"  round trip {name:12s} median {statistics.median(times) * 1e3:7.3f} ms   "
                          f"p99 {percentile(times, 99) * 1e3:7.3f} ms   (n={len(times)})")
                for window in (1, 8):
                    rate, count = sustained(board, args.events, window, log_room)
                    print(f"  sustained scoring, {window} in flight: {rate:8.0f} events/s   "
                          f"({count} events, none lost: replies, event numbers and log verified)")
                print(f"  retries {board.retried}, noise lines {board.noise_lines}")
                link.close()


if __name__ == "__main__":
    main()
