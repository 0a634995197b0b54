"""The club link's idle step allocates nothing (the standards: every polling
loop): the real firmware's tallynet.link, on the MicroPython unix port, linked
to mosquitto on loopback, stepped 200 times under micropython.heap_lock()
once it has nothing to do, for over two seconds: the MQTT client's own turn
once a second (link.HANDLE_MS: its keepalive; its read of nothing) included.
Two things are held out, each said where: the emulator's network.WLAN
stand-in reads wifi.txt (on the chip, the wireless chip's driver answers in
C); and a resend that falls due (work, not idling: its timer is put past the
run)."""
from __future__ import annotations

import pytest
import os
import subprocess
from pathlib import Path

import wifi_boards as wb
from machine import needs
from tallyboard.tooling import fileset
from tallyboard.club import envelope
from tallyboard.club.brokers import Mosquitto
from tallyboard.tooling.mpunix import STANDINS_DIR
from tallyboard.tooling.mpunix import micropython_binary

pytestmark = [needs("mosquitto"), pytest.mark.emulator, pytest.mark.broker]

TAG, TABLE = 0x1A2B, 3
IDENT = wb.ident(TAG, TABLE)
KEY = bytes(range(16))

SCRIPT = """
import time, micropython
from tallyrun.app import App
from tallynet.settings import Net
from tallynet.link import Link
out = open("out.txt", "ab")
app = App(out, "", "test")
app.boot()
net = Net("")
net.load()
link = Link(app, net)
deadline = time.ticks_add(time.ticks_ms(), 15000)
while not (net.broker and link.sent) and time.ticks_diff(deadline, time.ticks_ms()) > 0:
    link.step(time.ticks_ms())
    time.sleep_ms(20)
print("linked", net.joined, net.broker, link.sent, net.error)
link.wlan._poll = lambda: None                              # held out: the stand-in's file read
link.resend_at = time.ticks_add(time.ticks_ms(), 600000)    # held out: a resend falling due
for i in range(60):                                         # what the broker sent meanwhile, taken
    link.step(time.ticks_ms())
    time.sleep_ms(10)
started = time.ticks_ms()
turns = 0
allocated = 0
ok = True
for i in range(200):
    turned = link.handled_at
    now = time.ticks_ms()
    micropython.heap_lock()
    try:
        link.step(now)
        ok = True
    except MemoryError:
        ok = False
    micropython.heap_unlock()
    if not ok:
        allocated += 1
    if link.handled_at != turned:
        turns += 1
    time.sleep_ms(10)
print("ms", time.ticks_diff(time.ticks_ms(), started), "client turns", turns)
print("allocating steps", allocated, "still linked", net.broker)
"""


def test_the_link_s_idle_step_allocates_nothing(tmp_path):
    flash = wb.wifi_flash(tmp_path / "flash", TAG, TABLE)
    fileset.install(fileset.build(), flash)
    io = tmp_path / "io"
    io.mkdir()
    (io / "wifi.txt").write_text(f"{wb.SSID}\n{wb.PASSPHRASE}\n")
    with Mosquitto(0, {IDENT: envelope.broker_password(KEY)}, tmp_path / "broker", event="club-1a2b") as broker:
        (flash / "net.txt").write_text(
            f"ssid Club%20Wifi\nwifi_password {wb.PASSPHRASE}\nbroker_host 127.0.0.1\nbroker_port {broker.port}\n"
            f"event club-1a2b\nkey {KEY.hex()}\n")
        (flash / "idle.py").write_text(SCRIPT)
        env = dict(os.environ, MICROPYPATH=os.pathsep.join(["", str(STANDINS_DIR), ".frozen"]),
                   TALLYBOARD_EMU_IO=str(io))
        done = subprocess.run([micropython_binary(), "-X", "heapsize=512K", "idle.py"], cwd=flash, env=env,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "linked True True 1 None", lines     # evidence the link was up and had published
    ms, turns = int(lines[-2].split()[1]), int(lines[-2].split()[-1])
    assert ms >= 2000 and turns >= 2, lines                   # the client had its turns (HANDLE_MS: 1 s)
    assert lines[-1] == "allocating steps 0 still linked True", lines
