"""A board's health (issue 43; docs/club-mqtt.md, "Each board's health"): what
its messages cost. Run from the repo root:

    python bench/bench_health.py [--heap 384K]

On the MicroPython unix port (-X heapsize, 384K the emulator's), the firmware's
own tallynet.health composes a board's body from a booted app on a scratch
flash folder (its journal, its reset count) and seals it as the link does;
printed:

  * the message's bytes: the body's canonical JSON, the signed envelope, and
    on the wire an MQTT 3.1.1 PUBLISH at QoS 1 (fixed header, topic, packet
    id) and the broker's PUBACK (TCP/IP headers not counted);
  * how many an hour at health.PERIOD_MS while nothing changes (one more per
    broker connection), so the bytes an hour per board;
  * the heap: what loading tallynet.health costs (its modules' dependencies
    loaded first, as the link has them), its State per link, and what the
    composing and sealing took before a collection (largest_free_block's
    probes held out: bytearrays up to the heap's free size, as STATS's, which
    a failed one collects) and what stays live until the publish (the body, the
    sealed message), all from gc.mem_free (64-bit words: the
    Pico's, at 32-bit words, is less, about half the objects' part)."""
from __future__ import annotations

import argparse
import json
import platform
import subprocess
import tempfile
from pathlib import Path

from tallyboard.tooling.mpunix import FIRMWARE_DIR, STANDINS_DIR, micropython_binary

EVENT = "Club-night-1a2b"        # a typical evening id (tests/test_wifi_board.py's)
IDENT = "1A2B.2"

SCRIPT = """
import gc, sys
sys.path.insert(0, %(standins)r)
sys.path.insert(0, %(firmware)r)
from tallyrun.app import App
from tallyrun import protocol, replies
from tallynet import envelope, topics, publishing
envelope.prepare()
gc.collect()
before = gc.mem_free()
from tallynet import health
gc.collect()
code = before - gc.mem_free()
root = %(root)r
with open(root + "release", "wb") as f:
    f.write(b"0f4477acc4cb")
out = open(root + "out.txt", "ab")
app = App(out, root, "bench")
app.boot()
class Net:
    joined = True
    def key(self):
        return bytes(range(16))
class Wlan:
    def status(self, param=None):
        return -67
class Link:
    pass
link = Link()
link.app, link.net, link.wlan, link.hw = app, Net(), Wlan(), None
gc.collect()
before = gc.mem_free()
link.health = health.State(0, 0)
gc.collect()
state = before - gc.mem_free()
link.health.cause = "power"
link.health.up_s = 86399
health.connected(link.health)
health.body(link)                                   # once: the release file read, the cause asked
probe = replies.largest_free_block
replies.largest_free_block = lambda free: 0        # held out: its probes, garbage as large as the heap's free
gc.collect()
before = gc.mem_free()
body = health.body(link)
replies.largest_free_block = probe
body["free"], body["block"] = 123456, 98304        # (a Pico W's order of figures, 6 and 5 digits)
payload = envelope.seal(Net().key(), %(event)r, %(ident)r, 0, topics.HEALTH, body)
held = before - gc.mem_free()
gc.collect()
live = before - gc.mem_free()
print("RESULT", len(envelope.canonical(body)), len(payload), code, state, held, live,
      len(topics.topic(topics.HEALTH, %(event)r, %(ident)r)), health.PERIOD_MS)
"""


def varint_length(n: int) -> int:
    length = 1
    while n >= 128:
        n //= 128
        length += 1
    return length


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--heap", default="384K", help="the unix port's heap (-X heapsize)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "health_bench.py"
        (Path(tmp) / "flash").mkdir()
        script.write_text(SCRIPT % {"standins": str(STANDINS_DIR), "firmware": str(FIRMWARE_DIR),
                                    "root": str(Path(tmp) / "flash") + "/", "event": EVENT, "ident": IDENT})
        done = subprocess.run([micropython_binary(), "-X", f"heapsize={args.heap}", str(script)],
                              capture_output=True, text=True, timeout=120, cwd=tmp)
    line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        raise SystemExit(done.stdout + done.stderr)
    body, payload, code, state, held, live, topic, period_ms = (int(x) for x in line.split()[1:])
    remaining = 2 + topic + 2 + payload                 # topic length, topic, packet id, payload
    publish = 1 + varint_length(remaining) + remaining
    puback = 4
    per_hour = 3600000 // period_ms
    figures = {"body": body, "envelope": payload, "publish": publish, "puback": puback, "per_hour": per_hour,
               "bytes_per_hour": per_hour * (publish + puback), "code_heap": code, "state_heap": state,
               "composing_heap": held, "composed_live_heap": live}
    print(f"machine: {platform.machine()} {platform.system()}, MicroPython unix port, heap {args.heap}")
    print(f"topic tallyboard/{EVENT}/table/{IDENT}/health ({topic} bytes)")
    print(f"body {body} B; signed envelope {payload} B; MQTT PUBLISH (QoS 1, retained) {publish} B "
          f"+ PUBACK {puback} B")
    print(f"{per_hour} an hour at PERIOD_MS {period_ms} ms (one more per broker connection): "
          f"{figures['bytes_per_hour']:,} B an hour per board ({figures['bytes_per_hour'] * 24 / 1024:.0f} KB a day)")
    print(f"heap: tallynet.health loaded {code:,} B; its State per link {state} B; "
          f"composing and sealing took {held:,} B before a collection (the dict, its JSON, the "
          f"envelope; largest_free_block's probes held out, as STATS's), {live:,} B of it live (the body and the sealed message, until the publish)")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
