# The app's loop: reads the host's bytes from USB CDC (stdin) into the app
# (App.feed), runs the display's and inputs' tasks beside it, and feeds the
# watchdog. tallyrun.app.App.run() starts it.
import sys

import asyncio

from tallycore import const

_WATCHDOG_FEED_MS = const(1000)


async def serve(app, stream=None):
    """Read the host's bytes until end of input (never, on a board)."""
    from tallycore import select
    stream = stream if stream is not None else sys.stdin.buffer
    reader = asyncio.StreamReader(stream)
    poller = select.poll()
    poller.register(stream, select.POLLIN)
    app.poller = poller
    byte = app.byte
    feed = app.reader.feed      # bound once: a byte of a line costs this one call
    while True:
        if not await reader.readinto(byte):
            if app.exit_on_eof:
                return
            await asyncio.sleep_ms(10)
            continue
        state = feed(byte[0])
        if state:
            app.line_ended(state)
        # drain what is already there without going round the loop
        while True:
            ready = False
            for _ in poller.ipoll(0):
                ready = True
            if not ready:
                break
            if not stream.readinto(byte):
                if app.exit_on_eof:
                    return
                break
            state = feed(byte[0])
            if state:
                app.line_ended(state)


def receiving(app):
    """True while a request is arriving or waiting to be read: the display
    waits (allocation-free)."""
    if app.reader.length:
        return True
    poller = app.poller
    if poller is None:
        return False
    for _ in poller.ipoll(0):
        return True
    return False


async def feed_watchdog(watchdog):
    while True:
        watchdog.feed()
        await asyncio.sleep_ms(_WATCHDOG_FEED_MS)


async def main(app, watchdog=None):
    app.running = True
    extra = []
    if watchdog is not None:
        extra.append(asyncio.create_task(feed_watchdog(watchdog)))
    for coroutine in app.tasks:
        extra.append(asyncio.create_task(coroutine))
    for starter in app.starters:
        started = starter()
        if started:
            extra.extend(started)
    try:
        await serve(app)
    finally:
        app.running = False
        for task in extra:
            task.cancel()
        app.journal.close()
