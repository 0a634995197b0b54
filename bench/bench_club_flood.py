"""The director's memory under a flood of junk (docs/club-mqtt.md, "Limits"; figures in docs/benchmarks.md).

    python bench/bench_club_flood.py              # 3 floods of 2,000 messages of 60 KB
    python bench/bench_club_flood.py --floods 5 --count 4000
    python bench/bench_club_flood.py --qos2 --floods 1 --count 5000    # issue 40's flood, below

With --qos2 the flooder is issue 40's: a table's login sending QoS 2 PUBLISHes of 60 KB on its own
state topic and never a PUBREL, connecting again each time the broker closes it, COUNT in all; after
each flood a hand signed by that table must be applied (the evening goes on), and the director's memory
must stay within QOS2_BOUND_MB of where it started.

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


QOS2_BOUND_MB = 20        # the director's growth a QoS 2 flood may cause (issue 40: it grew by 25 MB/s)
QOS2_FLOODER = r"""
import socket, struct, sys
port, count, topic = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def length(n):
    out = bytearray()
    while True:
        n, byte = n // 128, n % 128
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)
def text(s):
    return struct.pack("!H", len(s)) + s.encode()
body = text("MQTT") + bytes([4, 0xC2]) + struct.pack("!H", 60) + text("flood-bench-t1") + text("t1") + text("t-pass")
connect = bytes([0x10]) + length(len(body)) + body
junk = b"x" * 60_000
sent = connections = 0
while sent < count:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    connections += 1
    try:
        sock.sendall(connect)
        if sock.recv(4)[:1] != b"\x20":
            raise SystemExit("no CONNACK")
        while sent < count:
            packet = text(topic) + struct.pack("!H", sent % 65535 + 1) + junk
            sock.sendall(bytes([0x34]) + length(len(packet)) + packet)   # QoS 2, never a PUBREL
            sent += 1
    except OSError:
        pass                          # closed by the broker: connect again, as issue 40's flooder did
    finally:
        sock.close()
print(connections)
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
    parser.add_argument("--qos2", action="store_true", help="issue 40's flood: QoS 2, never a PUBREL")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    if args.qos2:
        return qos2_floods(args.floods, args.count)
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


def qos2_floods(floods: int, count: int) -> int:
    key = envelope.new_secret()
    with tempfile.TemporaryDirectory() as tmp, embedded_broker.EmbeddedBroker(0, USERS, event=EVENT) as broker:
        director = director_link.DirectorLink(f"mqtt://director:d-pass@127.0.0.1:{broker.port}", f"{EVENT}-director",
                                              event=EVENT, key=key, store_path=Path(tmp) / "director.sqlite3",
                                              boards=["t1"], on_table_message=lambda c, m: None)
        director.start()
        director.wait_connected(10)
        hand = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=f"{EVENT}-board-t1", protocol=paho.MQTTv311)
        hand.username_pw_set("t1", USERS["t1"])
        try:
            print(f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}; "
                  f"{floods} QoS 2 floods of {count} messages of 60 KB, never a PUBREL")
            start = rss_kb()
            print(f"before: {start / 1024:.1f} MB")
            most = 0.0
            for flood in range(1, floods + 1):
                started = time.monotonic()
                done = subprocess.run([sys.executable, "-c", QOS2_FLOODER, str(broker.port), str(count),
                                       envelope.table_topic(EVENT, "t1", "state")],
                                      check=True, timeout=600, capture_output=True, text=True)
                grown = (rss_kb() - start) / 1024
                # the evening goes on: a hand signed by that table, applied
                hand.connect("127.0.0.1", broker.port)
                hand.loop_start()
                hand.publish(envelope.table_topic(EVENT, "t1", "hand"),
                             envelope.seal(key, EVENT, "t1", flood, "hand", {"n": flood}), qos=1)
                deadline = time.monotonic() + 120
                while director.applied().get("t1") != flood:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"the table's hand {flood} was not applied within 120 s of the flood")
                    time.sleep(0.05)
                applied_s = time.monotonic() - started
                hand.loop_stop()
                hand.disconnect()
                most = max(most, grown)
                print(f"after flood {flood} ({applied_s:.1f} s, {done.stdout.strip()} connections): "
                      f"{rss_kb() / 1024:.1f} MB, +{grown:.1f} MB on the start; the table's next hand applied")
            print(f"grew at most {most:.1f} MB: {'within' if most <= QOS2_BOUND_MB else 'OVER'} the bound of "
                  f"{QOS2_BOUND_MB} MB")
        finally:
            director.stop()
    return 0 if most <= QOS2_BOUND_MB else 1


def _markers(director: director_link.DirectorLink) -> int:
    """How many floods' markers ({"marker": 1}: a `field` refusal, no sig) the director has handled."""
    with director._lock:
        row = director.store.execute("SELECT sum(count) FROM refused WHERE text = 'no sig'").fetchone()
    return row[0] or 0


if __name__ == "__main__":
    sys.exit(main())
