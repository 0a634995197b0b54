"""`tallyboard deploy` to the device twin (an emulated RP2040 running real MicroPython
v1.28.0), timed: once to a blank chip, then again with nothing changed.

    python bench/bench_deploy_twin.py [--json]

For each deploy: wall seconds (the whole command: compiling from the mpy-cross cache,
mpremote, the reset and the HELLO check), emulated seconds and the chip's busy part
of them, and the flash erases and page programs it cost. Run it with the Python of
the environment tallyboard is installed in (it runs that environment's `tallyboard`).
Needs node, socat and rp2040js (npm ci in twin/; docs/twin.md)."""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from twin_harness import Twin, bench_main  # noqa: E402

FIRST_BOOT_S = 3.0   # MicroPython formats its littlefs on a blank chip's first boot


def timed_deploy(twin: Twin) -> dict:
    before = twin.stats()
    started = time.monotonic()
    twin.deploy()
    wall = time.monotonic() - started
    after = twin.stats()
    return {"wall_s": round(wall, 1),
            "emulated_s": round((after["emu_ms"] - before["emu_ms"]) / 1000, 1),
            "busy_s": round((after["busy_ms"] - before["busy_ms"]) / 1000, 1),
            "flash_erases": int(after["flash_erases"] - before["flash_erases"]),
            "flash_programs": int(after["flash_programs"] - before["flash_programs"])}


def run() -> dict:
    with tempfile.TemporaryDirectory() as tmp, Twin(Path(tmp)) as twin:
        time.sleep(FIRST_BOOT_S)
        return {"blank": timed_deploy(twin), "again": timed_deploy(twin)}


def show(figures: dict) -> None:
    for key, value in figures.items():
        print(f"{key:8} " + ", ".join(f"{k} {v}" for k, v in value.items()))


def main() -> int:
    return bench_main(__doc__, "bench_deploy_twin", run, show)


if __name__ == "__main__":
    sys.exit(main())
