"""The director's memory under a flood of junk (docs/club-mqtt.md, "Limits"; figures in docs/benchmarks.md).

    python bench/bench_club_flood.py              # 3 floods of 2,000 messages of 60 KB
    python bench/bench_club_flood.py --floods 5 --count 4000

The director as `event serve` runs it: the embedded broker (amqtt) and the
DirectorLink in this process, its store in SQLite. A separate process, with
only a table host's login, publishes COUNT messages of 60 KB of junk (QoS 0,
as fast as it can) on a table topic; then the benchmark sends a marker
({"marker": 1}, refused for its missing sig) every second until the
director has counted one: the flood is over for the director. Printed after each flood: the
director's resident memory (VmRSS), the rows in `refused` and the messages
counted there, and the memory once glibc's malloc_trim has given back the
free memory it keeps (the live figure). Memory flat = after the first flood
the figure moves by no more than the worker's bounded queue
(mqtt_link.MAX_QUEUED_BYTES), and the live figure comes back near the start.
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import logging
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import paho.mqtt.client as paho

from tallyboard.club import director_link, embedded_broker, envelope, mqtt_link

EVENT = "flood-bench"
USERS = {"director": "d-pass", "t1": "t-pass"}     # table t1's login is its board's identity
FLOODER = r"""
import sys, threading, paho.mqtt.client as mqtt
port, count, topic = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="flood-bench-t1", protocol=mqtt.MQTTv311)
client.max_queued_messages_set(0)
client.username_pw_set("t1", "t-pass")
up = threading.Event()
client.on_connect = lambda *a: up.set()
client.connect("127.0.0.1", port)
client.loop_start()
assert up.wait(10), "the flooder could not connect"
junk = b"x" * 60_000
sent = [client.publish(topic, junk, qos=0) for _ in range(count)]
sent[-1].wait_for_publish(120)      # all of it written to the broker's socket before leaving
client.loop_stop()
client.disconnect()
"""


def rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--floods", type=int, default=3)
    parser.add_argument("--count", type=int, default=2000)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    topic = envelope.table_topic(EVENT, "t1", "hand")
    with tempfile.TemporaryDirectory() as tmp, embedded_broker.EmbeddedBroker(0, USERS, event=EVENT) as broker:
        director = director_link.DirectorLink(f"mqtt://director:d-pass@127.0.0.1:{broker.port}", f"{EVENT}-director", event=EVENT,
                                     key=envelope.new_secret(), store_path=Path(tmp) / "director.sqlite3",
                                     boards=["t1"], on_table_message=lambda c, m: None)
        director.start()
        director.wait_connected(10)
        try:
            print(f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}; "
                  f"{args.floods} floods of {args.count} messages of 60 KB")
            print(f"before: {rss_kb() / 1024:.1f} MB")
            for flood in range(1, args.floods + 1):
                started = time.monotonic()
                subprocess.run([sys.executable, "-c", FLOODER, str(broker.port), str(args.count), topic],
                               check=True, timeout=300)
                # then a marker ({"marker": 1}: refused for its missing sig), again every second until
                # the director has counted one (the broker may drop some of a flood, the worker too)
                before = _markers(director)
                deadline = time.monotonic() + 300
                marker = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=f"{EVENT}-board-t1", protocol=paho.MQTTv311)
                marker.username_pw_set("t1", USERS["t1"])
                marker.connect("127.0.0.1", broker.port)
                marker.loop_start()
                try:
                    while _markers(director) == before:
                        if time.monotonic() > deadline:
                            raise RuntimeError("the director did not get to a marker in 300 s")
                        marker.publish(topic, b'{"marker": 1}', qos=1)
                        time.sleep(1.0)
                finally:
                    marker.loop_stop()
                    marker.disconnect()
                counts = director.refused_counts()
                held = rss_kb()
                gc.collect()
                ctypes.CDLL("libc.so.6").malloc_trim(0)      # what the allocator kept but nothing uses
                print(f"after flood {flood} ({time.monotonic() - started:.1f} s): {held / 1024:.1f} MB, "
                      f"{rss_kb() / 1024:.1f} MB once malloc_trim gave back what is free; "
                      f"refused rows {len(counts)}, messages counted {sum(c for *_, c in counts)}, "
                      f"dropped unread by the worker {director.dropped}")
        finally:
            director.stop()
    return 0


def _markers(director: director_link.DirectorLink) -> int:
    """How many floods' markers ({"marker": 1}: a `field` refusal, no sig) the director has handled."""
    with director._lock:
        row = director.store.execute("SELECT sum(count) FROM refused WHERE text = 'no sig'").fetchone()
    return row[0] or 0


if __name__ == "__main__":
    sys.exit(main())
