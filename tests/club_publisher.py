"""A table host reduced to its transport, run as its own process by
tests/test_club_mqtt.py and bench/bench_club_mqtt.py: it queues COUNT hand
messages for each board through its outbox (one every --every seconds) and
waits until the director has confirmed them all. Started again on the same
outbox (after a kill -9), it goes on from the outbox's own numbering, so
each board's messages are 1..COUNT whatever happened.

With --login BOARD=PASSWORD for each board, it logs in once per board as
that board (the club's ACL: a table's login is its board's identity), as
`event table` does, the links sharing the outbox; without, one link with
the URL's user for all its boards.

Each body is {"n": its number, "sent_ns": time.time_ns() when queued}."""
from __future__ import annotations

import argparse
import logging
import sys
import time

from tallyboard.club import mqtt_link, outbox


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--outbox", required=True)
    parser.add_argument("--event", required=True)
    parser.add_argument("--key", required=True, help="the evening's secret, hex")
    parser.add_argument("--board", action="append", required=True)
    parser.add_argument("--login", action="append", default=[], help="BOARD=PASSWORD: a link per board")
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--every", type=float, default=0.0)
    parser.add_argument("--resend-after", type=float, default=mqtt_link.RESEND_AFTER)
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    box = outbox.Outbox(args.outbox, args.event, bytes.fromhex(args.key))
    logins = dict(item.split("=", 1) for item in args.login)
    if logins:
        links = [mqtt_link.TableLink(args.url, f"{args.client_id}-{board}", board, logins[board], outbox=box,
                                boards=[board], max_backoff=1.0, resend_after=args.resend_after)
                 for board in args.board]
    else:
        links = [mqtt_link.TableLink(args.url, args.client_id, outbox=box, boards=args.board, max_backoff=1.0,
                                resend_after=args.resend_after)]
    for table in links:
        table.start()
    deadline = time.monotonic() + args.timeout
    while min(box.numbered(board) for board in args.board) < args.count:
        for board in args.board:
            n = box.numbered(board) + 1
            if n <= args.count:
                box.add(board, "hand", {"n": n, "sent_ns": time.time_ns()})
        print("queued", min(box.numbered(board) for board in args.board), flush=True)
        if args.every:
            time.sleep(args.every)
    while box.pending():
        if time.monotonic() > deadline:
            print("timeout: the director has not confirmed", box.pending(), flush=True)
            for table in links:
                table.stop()
            return 1
        time.sleep(0.05)
    print("done", flush=True)
    for table in links:
        table.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
