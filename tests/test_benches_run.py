"""The benchmarks still run (docs/benchmarks.md): each bench script, in its
smallest mode, exits 0 and prints its figures. A bench that rots is found
here, not by whoever next needs its numbers (three had broken unseen when
the protocol and the club's guards changed). The figures themselves are not
judged: they are recorded in docs/benchmarks.md from full runs. The twin's
benches are tests/test_benches_twin.py's."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


pytestmark = [pytest.mark.emulator, pytest.mark.broker, pytest.mark.process]   # the benches run boards and brokers

ROOT = Path(__file__).resolve().parent.parent

QUICK = [
    # (script and its smallest arguments, a line its figures are printed on)
    (["bench_host_roundtrip.py", "--commands", "5", "--events", "40"], "none lost: replies, event numbers and log verified"),
    (["bench_event.py", "--boards", "1"], "page latency median"),
    (["bench_display.py"], "heap_lock: ok"),
    (["bench_core.py"], "roquet_peg_us"),
    (["bench_short_games.py"], "moosehead_event_us"),
    (["bench_portshare.py", "--requests", "20", "--clients", "2", "--seconds", "2"], "fairness"),
    (["bench_firmware_runtime.py", "--commands", "20", "--events", "40", "--boots", "1"], "boot_to_BOOT_event_ms"),
    (["bench_club_flood.py", "--floods", "1", "--count", "50"], "after flood 1"),
    (["bench_club_flood.py", "--qos2", "--floods", "1", "--count", "200"], "within the bound"),
    (["bench_update.py", "--boards", "2"], "all kept and running the release: yes"),
]


@pytest.mark.parametrize("command,figure", QUICK, ids=[" ".join(c[0]).removesuffix(".py") for c in QUICK])
def test_the_bench_runs_and_prints_its_figures(command, figure, tmp_path):
    runs(command, figure, tmp_path, 240)


def runs(command, figure, tmp_path, timeout):
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), TALLYBOARD_ARCHIVE=str(tmp_path / "archive.sqlite3"))
    done = subprocess.run([sys.executable, str(ROOT / "bench" / command[0]), *command[1:]], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert figure in done.stdout, f"{' '.join(command)} printed no {figure!r}:\n{done.stdout[-3000:]}"
