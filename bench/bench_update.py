"""An update of the whole firmware over the air to an evening's boards (issue 43; docs/club-mqtt.md,
"Updates over the air"; figures in docs/benchmarks.md):

    python bench/bench_update.py [--boards 12] [--json]

Emulated Pico W boards (the firmware in the unix-port emulator on tallyboard's own image: a ROMFS
partition of 256 KiB holding the packages, as tests/test_update_evening.py runs them; the unix port's
heap tests/wifi_boards.py's HEAP_SIZE), each on the Wi-Fi definition, enrolled with the club's update
key and linked to the embedded broker with its own login; the director's link confirming; the
director's update engine (club/update_link.py's UpdateRun, logged in as the updater) serving. The
releases are the checkout's file set built from a copy of firmware/ whose tallycore VERSION differs.

In one run, on the same boards:
  1. one board alone takes release B (the others linked and idle);
  2. every board takes release C (B's size to a few bytes): board 1 from B, the others from A.
For each: the wall time from the offers' publish to every board having kept the release (its new
firmware restarted, linked, kept: `kept` heard), and to the last board holding every chunk; then
the ratio of the two runs' times. Each board's HELLO is read after, to check it runs the release.

Bytes through the broker: counted in the embedded broker itself (this process wraps its protocol
handler's handle_publish, each PUBLISH a client sent it, and mqtt_publish, each one it delivered,
retained ones included), a message's topic and payload (MQTT's fixed header and packet id, 4 or 5
bytes a message, are not counted: the message counts are printed), from the offers' publish to
the run's end (the offers' withdrawal included), by kind (offer, chunk, update status; the rest:
health, state, status).

Bounds: each wait against a hang only (WAIT_S for a run, BOOT_S for a board); every emulator, the
director's link and the broker are stopped whatever happens."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import wifi_boards as wb  # noqa: E402
from tallyboard.club import embedded_broker, envelope, releases  # noqa: E402
from tallyboard.club.director_link import DirectorLink  # noqa: E402
from tallyboard.club.update_link import UpdateLink, UpdateRun  # noqa: E402
from tallyboard.evening.club import key_for  # noqa: E402
from tallyboard.tooling import fileset  # noqa: E402
from tallyboard.tooling.mpunix import FIRMWARE_DIR  # noqa: E402

TAG = 0x1A2B
EVENT = "Club-night-1a2b"
SECRET = bytes(range(32))
SEED = bytes(range(100, 132))            # the club's update key
UPDATER_PASSWORD = "updater-pw"
DIRECTOR_PASSWORD = "director-pw"
PARTITION = 256 * 1024                   # the Pico W image's ROMFS partition
WAIT_S = 600                             # a run's bound, against a hang only
BOOT_S = 60                              # a board's link, its HELLO after a restart
UPDATE_KINDS = ("offer", "chunk", "update")


def ident(table: int) -> str:
    return wb.ident(TAG, table)


def key_of(board: str) -> bytes:
    return envelope.board_key(SECRET, board)


def until(check: Callable[[], Any], timeout: float, what: str, every: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise RuntimeError(f"no {what} within {timeout:.0f} s")
        time.sleep(every)


def firmware(tmp: Path, name: str, version: str) -> list[fileset.FirmwareFile]:
    """The checkout's file set from a copy of firmware/ whose version (HELLO's fw) is `version`."""
    copy = tmp / name
    shutil.copytree(FIRMWARE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    core = copy / "tallycore" / "__init__.py"
    text = core.read_text()
    if 'VERSION = "0.1.0"' not in text:
        raise RuntimeError("tallycore/__init__.py no longer says VERSION = \"0.1.0\": change the bench to match")
    core.write_text(text.replace('VERSION = "0.1.0"', f'VERSION = "{version}"', 1))
    return fileset.build(copy)


# ---------------------------------------------------------------- the broker's count

class BrokerCount:
    """Every PUBLISH the embedded broker takes from a client and delivers to one, counted while on:
    (direction, kind, subject) -> [messages, topic bytes, payload bytes]. The broker's own protocol
    handler wrapped, in this process (the broker runs in a thread of it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.on = False
        self.rows: dict[tuple[str, str, str], list[int]] = {}
        self._saved: dict[str, Any] = {}

    def install(self) -> None:
        handler = embedded_broker._BoundedHandler
        count = self

        original_in = handler.handle_publish
        original_out = handler.mqtt_publish

        async def handle_publish(self: Any, packet: Any) -> None:
            count.note("in", packet.topic_name, packet.data)
            await original_in(self, packet)

        async def mqtt_publish(self: Any, topic: str, data: Any, qos: Any, retain: bool, ack_timeout: Any = None) -> Any:
            count.note("out", topic, data)
            return await original_out(self, topic, data, qos, retain, ack_timeout)

        self._saved = {"handle_publish": original_in, "mqtt_publish": original_out}
        handler.handle_publish = handle_publish
        handler.mqtt_publish = mqtt_publish

    def uninstall(self) -> None:
        for name, value in self._saved.items():
            setattr(embedded_broker._BoundedHandler, name, value)

    def note(self, direction: str, topic: str | None, data: Any) -> None:
        if not self.on or topic is None:
            return
        levels = topic.split("/")
        # tallyboard/<event>/director/<kind>/<board>, tallyboard/<event>/table/<board>/<kind>
        if len(levels) >= 5 and levels[2] == "director":
            kind, subject = levels[3], levels[4]
        elif len(levels) >= 5 and levels[2] in ("table", "host"):
            kind, subject = levels[4], levels[3]
        else:
            kind, subject = "other", "-"
        with self.lock:
            row = self.rows.setdefault((direction, kind, subject), [0, 0, 0])
            row[0] += 1
            row[1] += len(topic.encode())
            row[2] += len(data or b"")

    def start(self) -> None:
        with self.lock:
            self.rows = {}
        self.on = True

    def stop(self) -> dict[tuple[str, str, str], list[int]]:
        self.on = False
        with self.lock:
            return {k: list(v) for k, v in self.rows.items()}


def summarize(rows: dict[tuple[str, str, str], list[int]], boards: list[str]) -> dict[str, Any]:
    """The count by direction and kind, the update's kinds per board, and the totals."""
    by_kind: dict[str, dict[str, list[int]]] = {"in": {}, "out": {}}
    for (direction, kind, _), (n, topic, payload) in rows.items():
        row = by_kind[direction].setdefault(kind if kind in UPDATE_KINDS else "other", [0, 0, 0])
        row[0] += n
        row[1] += topic
        row[2] += payload
    update_payload = sum(v[2] for d in by_kind.values() for k, v in d.items() if k in UPDATE_KINDS)
    update_topic = sum(v[1] for d in by_kind.values() for k, v in d.items() if k in UPDATE_KINDS)
    update_messages = sum(v[0] for d in by_kind.values() for k, v in d.items() if k in UPDATE_KINDS)
    update_in = sum(v[1] + v[2] for k, v in by_kind["in"].items() if k in UPDATE_KINDS)
    update_out = sum(v[1] + v[2] for k, v in by_kind["out"].items() if k in UPDATE_KINDS)
    per_board = {}
    for board in boards:
        chunks_in = rows.get(("in", "chunk", board), [0, 0, 0])
        per_board[board] = {
            "chunk_messages": chunks_in[0],
            "bytes": sum(v[2] + v[1] for (d, k, s), v in rows.items() if k in UPDATE_KINDS and s == board),
        }
    return {
        "in": {k: {"messages": v[0], "topic_bytes": v[1], "payload_bytes": v[2]} for k, v in by_kind["in"].items()},
        "out": {k: {"messages": v[0], "topic_bytes": v[1], "payload_bytes": v[2]} for k, v in by_kind["out"].items()},
        "update_messages": update_messages,
        "update_payload_bytes": update_payload,
        "update_bytes": update_payload + update_topic,
        "update_in_bytes": update_in,
        "update_out_bytes": update_out,
        "per_board": per_board,
    }


# ---------------------------------------------------------------- one run

def run_update(broker: embedded_broker.EmbeddedBroker, count: BrokerCount, release: releases.Release,
               boards: dict[str, int]) -> dict[str, Any]:
    """UpdateRun to `boards` ({identity: table}) with `release`: its end and when each board got there."""
    run = UpdateRun(f"mqtt://updater:{UPDATER_PASSWORD}@127.0.0.1:{broker.port}", event=EVENT,
                    release=release, boards=boards, key=lambda message: key_of(message["board"]))
    offered: list[float] = []
    send = run.link.send

    def sending(messages: list, retain: bool = False) -> list:
        if retain and not offered and messages and messages[0][1]:
            offered.append(time.monotonic())        # the offers: the clock starts
        return send(messages, retain)

    run.link.send = sending  # type: ignore[method-assign]
    all_chunks: dict[str, float] = {}
    kept: dict[str, float] = {}
    ended: list[float] = []
    count_chunks = releases.chunk_count(release)

    def progress(rows: list) -> None:
        now = time.monotonic()
        for row in rows:
            if row.board not in all_chunks and (row.have >= count_chunks or row.state in ("staged", "switching", "kept")):
                all_chunks[row.board] = now
            if row.board not in kept and row.state == "kept":
                kept[row.board] = now
        if not ended and all(row.final for row in rows):
            ended.append(now)

    count.start()
    try:
        rows = run.run(WAIT_S, progress, poll=0.05)
    finally:
        traffic = count.stop()
    if not offered:
        raise RuntimeError("the run never offered the release")
    start = offered[0]
    ends = {row.board: (row.state, row.why) for row in rows}
    return {
        "boards": len(boards),
        "ends": ends,
        "all_kept": all(state == ("kept", "-") for state in ends.values()),
        "wall_s": (ended[0] if ended else time.monotonic()) - start,
        "all_chunks_s": max(all_chunks.values()) - start if len(all_chunks) == len(boards) else None,
        "kept_s": sorted(t - start for t in kept.values()),
        "chunks_s": sorted(t - start for t in all_chunks.values()),
        "traffic": summarize(traffic, list(boards)),
        "withdrawn": run.withdrawn,
    }


def hello_fw(session: Any) -> str:
    def answered() -> str | None:
        try:
            return session.connect()["fw"]
        except Exception:         # restarting
            return None
    return until(answered, BOOT_S, "HELLO")


def run(args: argparse.Namespace) -> dict[str, Any]:
    tables = list(range(1, args.boards + 1))
    figures: dict[str, Any] = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                                          f"{platform.python_version()}", "boards": len(tables)}
    users = {"director": DIRECTOR_PASSWORD, "updater": UPDATER_PASSWORD,
             **{ident(t): envelope.broker_password(key_of(ident(t))) for t in tables}}
    count = BrokerCount()
    count.install()
    with tempfile.TemporaryDirectory() as name, contextlib.ExitStack() as stack:
        tmp = Path(name)
        a = fileset.build()
        b = releases.make(firmware(tmp, "b", "0.1.0-b"), 2, SEED)
        c = releases.make(firmware(tmp, "c", "0.1.0-c"), 3, SEED)
        figures["image_bytes"] = len(releases.image_bytes(c))
        figures["chunks"] = releases.chunk_count(c)
        figures["chunk_bytes"] = releases.CHUNK_BYTES
        figures["image_bytes_b"] = len(releases.image_bytes(b))
        broker = embedded_broker.EmbeddedBroker(0, users, event=EVENT)
        broker.start()
        stack.callback(broker.stop)
        director = DirectorLink(f"mqtt://director:{DIRECTOR_PASSWORD}@127.0.0.1:{broker.port}", f"{EVENT}-director",
                                event=EVENT, key=lambda m: key_for(SECRET, m), store_path=tmp / "director.sqlite3",
                                boards={ident(t) for t in tables}, on_table_message=lambda connection, message: None,
                                max_backoff=1)
        stack.callback(director.stop)
        director.start()
        director.wait_connected(10)
        sessions = {}
        started = time.monotonic()
        for table in tables:
            flash = wb.wifi_flash(tmp / f"flash{table}", TAG, table)
            emulator, board = stack.enter_context(wb.wifi_board(flash, romfs=PARTITION, files=a))
            sessions[ident(table)] = board
            wb.access_point(emulator)
            wb.enrol(board, event=EVENT, key=key_of(ident(table)), port=broker.port,
                     update_key=releases.public_key(SEED))
        for table in tables:
            board = sessions[ident(table)]
            until(lambda: board.request("NET")["broker"] == "1", BOOT_S, f"table {table}'s link to the broker")
        figures["setup_s"] = time.monotonic() - started
        print(f"{len(tables)} boards up and linked in {figures['setup_s']:.0f} s", file=sys.stderr, flush=True)

        one = run_update(broker, count, b, {ident(1): 1})
        one["fw"] = {ident(1): hello_fw(sessions[ident(1)])}
        print(f"one board: {one['wall_s']:.1f} s", file=sys.stderr, flush=True)
        every = run_update(broker, count, c, {ident(t): t for t in tables})
        every["fw"] = {board: hello_fw(session) for board, session in sessions.items()}
        figures["one"] = one
        figures["all"] = every
        figures["ratio"] = every["wall_s"] / one["wall_s"]
        figures["all_chunks_ratio"] = (every["all_chunks_s"] / one["all_chunks_s"]
                                       if every["all_chunks_s"] and one["all_chunks_s"] else None)
        figures["ok"] = (one["all_kept"] and every["all_kept"] and one["fw"][ident(1)] == "0.1.0-b"
                         and all(fw == "0.1.0-c" for fw in every["fw"].values()))
    count.uninstall()
    return figures


def show(f: dict[str, Any]) -> None:
    print(f"machine: {f['machine']}; boards: unix-port emulators of a Pico W (ROMFS {PARTITION // 1024} KiB, "
          f"heap {wb.HEAP_SIZE}), embedded broker (amqtt) in this process")
    print(f"boards: {f['boards']}; image {f['image_bytes']:,} B (B: {f['image_bytes_b']:,} B) in {f['chunks']} "
          f"chunks of {f['chunk_bytes']} B; setup {f['setup_s']:.0f} s")
    for name, r in (("one board alone", f["one"]), (f"all {f['boards']} boards", f["all"])):
        kept = r["kept_s"]
        chunks = r["chunks_s"]
        held = f"; every chunk on every board by {r['all_chunks_s']:.1f} s" if r["all_chunks_s"] is not None else ""
        print(f"{name}: offer to every board kept {r['wall_s']:.1f} s{held}")
        if kept:
            print(f"  kept: first {kept[0]:.1f} s, median {statistics.median(kept):.1f} s, last {kept[-1]:.1f} s; "
                  f"all chunks held: median {statistics.median(chunks):.1f} s")
        ends = Counter(r["ends"].values())
        print(f"  ends: {dict(ends)}; HELLO fw: {sorted(set(r['fw'].values()))}; offers withdrawn: {r['withdrawn']}")
        t = r["traffic"]
        for direction, words in (("in", "clients -> broker"), ("out", "broker -> clients")):
            parts = [f"{kind} {v['messages']} msgs {v['payload_bytes']:,} B" for kind, v in sorted(t[direction].items())]
            print(f"  {words}: " + "; ".join(parts))
        boards = len(t["per_board"])
        chunk_msgs = [v["chunk_messages"] for v in t["per_board"].values()]
        print(f"  the update's messages (offer, chunk, update) through the broker: in {t['update_in_bytes']:,} B, "
              f"out {t['update_out_bytes']:,} B (topics and payloads; {t['update_messages']} messages in and out); "
              f"per board in {t['update_in_bytes'] / boards:,.0f} B ({t['update_in_bytes'] / boards / f['image_bytes']:.3f}"
              f" x the image), out {t['update_out_bytes'] / boards:,.0f} B; chunk messages per board "
              f"{min(chunk_msgs)}-{max(chunk_msgs)} (of {f['chunks']})")
    print(f"ratio, {f['boards']} boards / 1 board, one run: offer to all kept {f['ratio']:.2f}"
          + (f"; offer to every chunk held {f['all_chunks_ratio']:.2f}" if f["all_chunks_ratio"] else ""))
    print("all kept and running the release: " + ("yes" if f["ok"] else "NO"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=12)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.boards < 1:
        parser.error("--boards: at least 1")
    figures = run(args)
    if args.json:
        def plain(value: Any) -> Any:
            if isinstance(value, dict):
                return {str(k): plain(v) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return [plain(v) for v in value]
            return value
        print(json.dumps(plain(figures), indent=2))
    else:
        show(figures)
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
