"""The twin's quickened instruction decoder (twin/fastcore.mjs) does what rp2040js' own does:
twin/check-fastcore.mjs checks its table against the encodings rp2040js tests for, read from its
source, and runs two chips from the stock MicroPython image in lockstep, one quickened, through
the boot and a few lines typed at the REPL, comparing registers, flags, cycles and clocks after every
instruction and the RAM at the end. The answers the REPL printed are worked out by hand below."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from twin_support import ROOT, TWIN_TESTS  # noqa: E402

pytestmark = [*TWIN_TESTS, pytest.mark.process]

# (against a hang only: the check takes about 5 s on a quiet 2-core machine)
CHECK_S = 600


def test_the_quickened_core_runs_micropython_exactly_as_rp2040js_does():
    done = subprocess.run(["node", str(ROOT / "twin" / "check-fastcore.mjs")], capture_output=True, text=True,
                          timeout=CHECK_S, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    said = done.stdout
    assert "9 of 9 lines typed at the REPL" in said, said
    # sum(len(str(i) * 3) for i < 300): (10 one-digit + 90 two-digit * 2 + 200 three-digit * 3) * 3 = 790 * 3
    assert "2370 " in said, said
    # 100 keys; 0² + ... + 99² = 99 * 100 * 199 / 6 = 328350, and 328350 - 32 * 9973 = 9214; √2 = 1.414
    assert "100 9214 1.414" in said, said
    assert "caught divide by zero" in said, said
    # every 16-bit opcode fastcore decodes was checked, its forty-four encodings: eighteen of 5 fixed bits
    # (2048 opcodes each) 36,864; eleven of 7 bits (512) 5,632; three of 8 bits (256) 768; ADD and SUB SP
    # (9 bits, 128) 256 and BX (9 bits and its low 3 bits 0) 16; eight of 10 bits (64) 512; B with a
    # condition, 0xD000 to 0xDFFF but UDF and SVC (0xDE, 0xDF: 512), 3,584: 47,632 in all
    assert "table: 47632 opcodes checked" in said, said
