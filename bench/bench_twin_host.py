"""The host's CPU for the device twin's emulated time: the same MicroPython work on a blank twin (the stock
image) with twin/fastcore.mjs's decoder and with rp2040js' own for every instruction (--slow-core),
rounds alternating in one run, so the ratio holds on a noisy machine.

    python bench/bench_twin_host.py [--rounds 3] [--json]

The work, typed at the raw REPL: strings made and dropped (the VM, the heap, the collector), a
framebuf sheet of text drawn again and again, and integer arithmetic; it times itself on the chip's
clock (ticks_us), which must read the same both ways (the same cycles). Prints, for each core, the
node process's CPU seconds (user + system, /proc) for one second of the chip's busy time, the median
of the rounds, and the ratio. Needs node, socat and rp2040js (npm ci in twin/; docs/twin.md)."""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from twin_harness import RawRepl, Twin, bench_main  # noqa: E402

WORK = """
import framebuf, time
def work():
    kept = []
    for i in range(4000):
        kept.append(str(i) * 2)
        if len(kept) > 40:
            kept = []
    buf = bytearray(128 * 8)
    sheet = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    for i in range(60):
        sheet.fill(0)
        for row in range(8):
            sheet.text('%3d %5d' % (row, i * row * 7), 0, row * 8, 1)
    total = 0
    for i in range(20000):
        total = (total * 31 + i) % 1000003
    return total, sum(buf)
t = time.ticks_us()
print('result', work())
print('chip_us', time.ticks_diff(time.ticks_us(), t))
"""


def _cpu_s(pid: int) -> float:
    """A process's user + system CPU seconds so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_round(folder: Path, slow_core: bool) -> dict:
    """The work once on a fresh blank twin: the chip's µs for it, the node process's CPU s meanwhile."""
    with Twin(folder, slow_core=slow_core) as twin:
        repl = RawRepl(twin.link)
        try:
            before = _cpu_s(twin.node.pid)
            out = repl.run(WORK)
            cpu = _cpu_s(twin.node.pid) - before
        finally:
            repl.close()
    lines = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    return {"chip_us": int(lines["chip_us"]), "result": lines["result"], "cpu_s": cpu}


def run(args) -> dict:
    rounds: dict[str, list[dict]] = {"quick": [], "slow": []}
    with tempfile.TemporaryDirectory(prefix="bench-twin-host-") as tmp:
        for n in range(args.rounds):
            for name in ("quick", "slow"):
                rounds[name].append(one_round(Path(tmp) / f"{name}{n}", name == "slow"))
    figures: dict = {"rounds": args.rounds}
    for name, done in rounds.items():
        chip = {r["chip_us"] for r in done}
        figures[name] = {"chip_us": sorted(chip), "result": sorted({r["result"] for r in done}),
                         "cpu_s_per_chip_s": statistics.median(r["cpu_s"] / (r["chip_us"] / 1e6) for r in done)}
    figures["same_chip_time"] = figures["quick"]["chip_us"] == figures["slow"]["chip_us"]
    figures["same_result"] = figures["quick"]["result"] == figures["slow"]["result"]
    figures["slow_over_quick"] = figures["slow"]["cpu_s_per_chip_s"] / figures["quick"]["cpu_s_per_chip_s"]
    return figures


def show(figures: dict) -> None:
    for name, what in (("quick", "twin/fastcore.mjs's decoder"), ("slow", "rp2040js' own (--slow-core)")):
        f = figures[name]
        print(f"{what:32} {f['cpu_s_per_chip_s']:.2f} CPU s per chip s (median of {figures['rounds']}); "
              f"the chip's time {', '.join(str(us) for us in f['chip_us'])} µs")
    print(f"the chip's time the same both ways: {figures['same_chip_time']}; the work's result: "
          f"{figures['same_result']}; rp2040js' own takes x{figures['slow_over_quick']:.2f} the host's CPU")


def options(parser) -> None:
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each core, alternating (default 3)")


if __name__ == "__main__":
    sys.exit(bench_main(__doc__, "bench_twin_host.py", run, show, options))
