# Helpers shared by the tests in tests/mp: a scratch flash folder, and an App
# booted on one with its frames written to a file. A plain module, not a test
# (run.py imports only test_*): runs under CPython and the MicroPython unix port.
import os

from tallyboard.boardlink import wire
from tallyrun.app import App

_counter = [0]


class Skip(Exception):
    """A check this interpreter cannot make; tests/mp/run.py counts it apart."""


def skip(reason):
    """Skip the calling test: pytest's skip under CPython, Skip under MicroPython."""
    try:
        import pytest
    except ImportError:
        raise Skip(reason)
    pytest.skip(reason)


def folder(kind):
    """A fresh folder (with a trailing /) for one test's flash files."""
    _counter[0] += 1
    token = "".join("%02x" % b for b in os.urandom(4))
    path = "/tmp/tallyboard-%s-%s-%d" % (kind, token, _counter[0])
    os.mkdir(path)
    return path + "/"


def write_file(path, data):
    with open(path, "wb") as f:
        f.write(data)


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


def cleanup(root):
    """Remove a folder() and the files in it."""
    for name in os.listdir(root[:-1]):
        os.remove(root + name)
    os.rmdir(root[:-1])


class Hands:
    """The app as the board's controls use it (tallypanel.menu.BoardInput is made
    with the app), on a game alone: local_event and local_undo are the game's
    apply and undo unless given; no held change answered, no new game of the
    board's own, no archive, no host to tell (local_accept, local_reject,
    local_new, kept and say None) unless given."""

    def __init__(self, game, submit=None, undo=None, accept=None, reject=None, new_game=None, kept=None,
                 say=None):
        self.game = game
        self.local_event = game.apply if submit is None else submit
        self.local_undo = game.undo if undo is None else undo
        self.local_accept = accept
        self.local_reject = reject
        self.local_new = new_game
        self.kept = kept
        self.say = say


def booted_app(root):
    """An App on the flash folder root, booted; its frames are appended to
    root + "out.txt". Returns (app, out)."""
    out = open(root + "out.txt", "ab")
    app = App(out, root, "test")
    app.boot()
    return app, out


def lines(path):
    """The lines of a file, without their newlines."""
    with open(path, "rb") as f:
        return f.read().split(b"\n")[:-1]


def bodies(root):
    """The checked bodies of the frames a booted_app() wrote."""
    return [wire.check_frame(line) for line in lines(root + "out.txt")]


def send(app, seq, *texts):
    """Feed the app one request frame per text, numbered from seq on."""
    for text in texts:
        app.feed_bytes(wire.encode_request(seq, text))
        seq += 1


def shut(app, out):
    """Close a booted_app()'s journal and its output file."""
    app.journal.close()
    out.close()
