"""The shared port with real programs on it (docs/protocol.md, Sharing the port):
`tallyboard watch` serves an emulated board; a third-party client (examples/tbclient.py,
written from the docs alone) and the CLI's commands work on it at once, and
neither loses a reply; every event reaches everyone; a client killed mid-request
and a board unplugged harm nobody else."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
import tbclient
from emu_fixtures import emulated_board, until
from shared_board import end_process

pytestmark = [pytest.mark.emulator, pytest.mark.process]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"     # tbclient.py, the docs' example client


def cli(env, *args):
    return subprocess.run([sys.executable, "-m", "tallyboard.cli", *args], env=env, capture_output=True,
                          text=True, timeout=60)


def test_a_third_party_client_beside_watch_and_the_cli_loses_no_reply(watched):
    emulator, watch, env, terminal = watched
    client = tbclient.Client.connect(emulator.port, timeout=3.0)
    try:
        client.hello()
        client.request("NEW", "roquet", 2)
        errors: list[BaseException] = []

        def pegs():
            try:
                for _ in range(20):
                    client.request("PEG", 0, 1)
            except BaseException as exc:   # noqa: BLE001 - reported by the test below
                errors.append(exc)

        pegging = threading.Thread(target=pegs)
        pegging.start()
        # the CLI at the same time: three commands, each its own process and session
        outs = [cli(env, "peg", "1", "2", "-p", emulator.port) for _ in range(3)]
        pegging.join(60)
        assert not pegging.is_alive() and not errors, (errors, terminal.lines()[-12:])
        for out in outs:
            assert out.returncode == 0, out.stdout + out.stderr
        # every request of the client answered at its first sending (none lost, none retried)
        assert client.tries == 22, client.tries          # HELLO, NEW, 20 PEG
        # Roquet (rules.md RQ): Ann 20 pegs of 1 = 20; Bob 3 pegs of 2 = 6
        assert client.request("SCORE")["totals"] == "20,6"
        # the client heard every change, its own and the CLI's, in order, with no gap
        changes = [e for e in client.events if e.kind == "EV"]
        assert len(changes) == 23 and client.gaps == 0
        assert changes[-1].fields["totals"] == "20,6"
        assert sorted(e.fields["src"] for e in changes) == ["host"] * 23
    finally:
        client.close()
    # watch heard them too: its sheet's totals row says 20 and 6
    until(lambda: any(line.split()[-2:] == ["20", "6"] for line in terminal.lines() if "Total" in line),
          20, "watch's sheet with 20 and 6")
    assert watch.poll() is None


def test_a_client_killed_mid_request_leaves_the_board_to_the_others(watched, tmp_path):
    emulator, watch, env, terminal = watched
    observer = tbclient.Client.connect(emulator.port)
    try:
        observer.hello()
        observer.request("NEW", "roquet", 2)
        # a program that sends a whole PEG 0 5 and half of PEG 0 7, then is killed
        script = textwrap.dedent(f"""
            import sys
            sys.path.insert(0, {str(EXAMPLES)!r})
            import tbclient
            c = tbclient.Client.connect({emulator.port!r})
            c.hello()
            c.sock.sendall(tbclient.frame(c.next_seq(), "PEG 0 5") + tbclient.frame(c.next_seq(), "PEG 0 7")[:6])
            print("sent", flush=True)
            sys.stdin.read()
            """)
        killed = subprocess.Popen([sys.executable, "-c", script], env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert killed.stdout.readline().strip() == "sent"
            killed.kill()
        finally:
            killed.wait(10)
            killed.stdin.close()
            killed.stdout.close()
        # its whole request was applied once; its half line never reached the board
        applied = observer.wait_event(lambda e: e.kind == "EV", 10)
        assert applied.fields["totals"] == "5,0" and applied.fields["n"] == "1"
        mine = observer.request("PEG", 1, 1)
        assert mine["n"] == "2"
        assert observer.request("SCORE")["totals"] == "5,1"     # 5 then Bob's 1; no 7
        assert [e.fields["totals"] for e in observer.events if e.kind == "EV"] == ["5,0", "5,1"]
    finally:
        observer.close()


def test_a_board_unplugged_closes_every_connection_and_the_name(watched):
    emulator, watch, env, terminal = watched
    client = tbclient.Client.connect(emulator.port)
    path = tbclient.shared_socket_path(emulator.port)
    client.hello()
    emulator.stop()               # the cable pulled
    with pytest.raises(EOFError):
        for _ in range(50):       # 10 s at most: events may come first, then the end
            client.read_line(0.2)
    client.close()
    until(lambda: not os.path.exists(path), 60, "the socket's name removed")
    with pytest.raises(OSError):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
        finally:
            s.close()
    assert watch.poll() is None   # watch waits for the board to come back


def test_tallyboard_share_serves_the_port_where_the_rule_says(tmp_path, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    env = dict(os.environ)
    with emulated_board(tmp_path / "flash") as (emulator, board):
        board.link.close()
        share = subprocess.Popen([sys.executable, "-m", "tallyboard.cli", "share", "--duration", "120",
                                  "-p", emulator.port], env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            said = share.stderr.readline()
            path = tbclient.shared_socket_path(emulator.port)
            assert said == f"sharing the board on {emulator.port} at {path}; Ctrl-C stops\n"
            client = tbclient.Client.connect(emulator.port)
            try:
                assert client.hello()["proto"].isdigit()
                out = cli(env, "status", "-p", emulator.port)            # the CLI beside it
                assert out.returncode == 0, out.stdout + out.stderr
                assert client.request("STATE")["game"] == "-"
                again = cli(env, "share", "--duration", "5", "-p", emulator.port)
                assert again.returncode == 0
                assert again.stderr.startswith(f"the board on {emulator.port} is shared already, by pid {share.pid} (")
            finally:
                client.close()
        finally:
            end_process(share)
            share.stderr.close()
        assert share.returncode == 0
        assert not os.path.exists(path)
