"""What checking a release's signature costs the chip (issue 43): the device twin (an emulated RP2040
at 125 MHz, the stock MicroPython v1.28.0 RPI_PICO image), the firmware deployed, the app stopped
(raw REPL), then tallynet.ed25519 loaded and RFC 8032's TEST 1 checked, as a board checks a release's
manifest digest: the time in the chip's own ticks (emulated time), the heap the module takes once
loaded, and the heap a check allocates (after a collection, before and after). And what the board's
own signature of its game costs (issue 44, tallynet.boardkey): its key made from a seed (once, at
its first signature), a signature (RFC 8032 TEST 1's: the same bytes), and a link of the game's
chain (tallyrun.chainlink's machine code: one per event, and 600, a Moosehead game, after an undo).

    python bench/bench_ed25519_twin.py [--flash IMAGE] [--json]

Needs node, socat and twin/'s rp2040js."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from twin_harness import RawRepl, Twin, add_flash_option, bench_main, deployed  # noqa: E402

# RFC 8032 7.1 TEST 1 (and the same with one bit of s changed: refused)
CHECK = """\
import gc, time
gc.collect()
before_import = gc.mem_free()
from tallynet import ed25519
gc.collect()
loaded = gc.mem_free()
PUB = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
SIG = bytes.fromhex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
BAD = SIG[:40] + bytes((SIG[40] ^ 1,)) + SIG[41:]
gc.collect()
start_free = gc.mem_free()
t = time.ticks_us()
ok = ed25519.verify(PUB, b"", SIG)
us = time.ticks_diff(time.ticks_us(), t)
used = start_free - gc.mem_free()
refused = not ed25519.verify(PUB, b"", BAD)
print("FIGURES", int(ok), int(refused), us, before_import - loaded, used, loaded)
SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
t = time.ticks_us()
made = ed25519.public_key(SEED)
key_us = time.ticks_diff(time.ticks_us(), t)
t = time.ticks_us()
signed = ed25519.sign(SEED, made, b"")
sign_us = time.ticks_diff(time.ticks_us(), t)
from tallyrun.chainlink import CONSTANTS, sha256_link
scratch = bytearray(96)
gc.collect()
free = gc.mem_free()
t = time.ticks_us()
for i in range(600):
    sha256_link(CONSTANTS, scratch, i, 1)
links_us = time.ticks_diff(time.ticks_us(), t)
print("SIGNING", int(made == PUB and signed == SIG), key_us, sign_us, links_us, free - gc.mem_free())
"""


def run(args=None) -> dict:
    flash = getattr(args, "flash", None)
    with tempfile.TemporaryDirectory() as tmp, deployed(Twin(Path(tmp)), flash) as twin:
        repl = RawRepl(twin.link)
        try:
            out = repl.run(CHECK, timeout=600)
        finally:
            repl.close()
    line = next(line for line in out.splitlines() if line.startswith("FIGURES"))
    ok, refused, us, module, used, free = map(int, line.split()[1:])
    line = next(line for line in out.splitlines() if line.startswith("SIGNING"))
    same, key_us, sign_us, links_us, links_alloc = map(int, line.split()[1:])
    return {"verified": bool(ok), "tampered_refused": bool(refused), "ms": us / 1000, "module_bytes": module,
            "check_allocates_bytes": used, "free_after_loading": free,
            "signed_as_rfc": bool(same), "key_ms": key_us / 1000, "sign_ms": sign_us / 1000,
            "link_ms": links_us / 600 / 1000, "links_600_ms": links_us / 1000, "links_allocate_bytes": links_alloc}


def show(figures: dict) -> None:
    print(f"RFC 8032 TEST 1 verified: {figures['verified']}; one bit of s changed refused: "
          f"{figures['tampered_refused']}")
    print(f"one check: {figures['ms']:.0f} ms of the chip's time (125 MHz RP2040, emulated)")
    print(f"tallynet.ed25519 loaded: {figures['module_bytes']} B of heap; a check allocates "
          f"{figures['check_allocates_bytes']} B before a collection; free after loading {figures['free_after_loading']} B")
    print(f"the board's own key (RFC 8032 TEST 1's seed) and signature made as the RFC has them: "
          f"{figures['signed_as_rfc']}")
    print(f"its key made: {figures['key_ms']:.0f} ms; a signature: {figures['sign_ms']:.0f} ms of the chip's time")
    print(f"a link of the game's chain: {figures['link_ms']:.3f} ms; 600 links: {figures['links_600_ms']:.1f} ms, "
          f"allocating {figures['links_allocate_bytes']} B")


def main() -> int:
    return bench_main(__doc__, "bench_ed25519_twin", run, show, add_flash_option)


if __name__ == "__main__":
    sys.exit(main())
