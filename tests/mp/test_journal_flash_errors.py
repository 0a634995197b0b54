# A flash write that fails (flash full, worn out) is answered ERR FLASH and
# changes nothing, in RAM or on flash; the board recovers on the next write.
# Runs under CPython and the MicroPython unix port.
from mpfixtures import booted_app, cleanup, folder, send, shut
from mpfixtures import bodies as read_bodies


class _FailingFile:
    def write(self, data):
        raise OSError(28)   # ENOSPC

    def flush(self):
        raise OSError(28)

    def close(self):
        pass


def test_a_failed_journal_write_changes_nothing_and_the_next_one_recovers():
    root = folder("flash")
    try:
        app, out = booted_app(root)
        send(app, 1, "NEW roquet 2", "PEG 0 5")
        # the flash fails: appends, and the compaction that would follow
        journal = app.journal
        broken = [True]
        real_write = journal._write_snapshot

        def snapshot(*args):
            if broken[0]:
                raise OSError(28)
            real_write(*args)

        journal._write_snapshot = snapshot
        journal.file = _FailingFile()
        send(app, 3, "PEG 1 3", "SCORE", "UNDO")
        # the flash works again: the next write compacts, then appends
        broken[0] = False
        send(app, 6, "PEG 1 3", "SCORE")
        shut(app, out)
        bodies = read_bodies(root)
        assert bodies[-6].startswith(b"3 ERR FLASH ")
        assert bodies[-5] == b"4 OK hands=0 complete=0 winners=1 totals=5,0"
        assert bodies[-4].startswith(b"5 ERR FLASH ")
        # PEG 1 3: 1 << 2 | 3 << 3 = 28; totals 5 and 3
        assert bodies[-3] == b"6 OK n=2 top=2 eseq=4"
        assert bodies[-2] == b"! 4 EV n=2 top=2 ev=28 src=host totals=5,3"   # no event for the failures
        assert bodies[-1] == b"7 OK hands=0 complete=0 winners=1 totals=5,3"
        again, out = booted_app(root)
        assert again.game.n == 2 and again.game.total(0) == 5 and again.game.total(1) == 3
        shut(again, out)
    finally:
        cleanup(root)


def test_a_failed_new_game_keeps_the_game_in_progress_on_flash_too():
    root = folder("flash")
    try:
        app, out = booted_app(root)
        send(app, 1, "NEW roquet 2", "PEG 0 7")
        journal = app.journal
        real_write = journal._write_snapshot
        calls = [0]

        def snapshot_then_fail(*args):
            calls[0] += 1
            if calls[0] == 1:
                real_write(*args)          # the new game's snapshot gets in...
                raise OSError(28)          # ...then the flash fails
            real_write(*args)

        journal._write_snapshot = snapshot_then_fail
        send(app, 3, "NEW skicket 4", "STATE")
        shut(app, out)
        bodies = read_bodies(root)
        assert bodies[-2].startswith(b"3 ERR FLASH ")
        assert bodies[-1].startswith(b"4 OK game=roquet players=2 options=0 n=1 top=1 ")
        again, out = booted_app(root)
        assert again.game.name() == "roquet" and again.game.total(0) == 7
        shut(again, out)
    finally:
        cleanup(root)


def test_a_failed_config_save_keeps_the_old_value():
    root = folder("flash")
    try:
        app, out = booted_app(root)

        def failing_save():
            raise OSError(28)

        app.config.save = failing_save
        send(app, 1, "CFG SET brightness 10", "CFG GET brightness")
        shut(app, out)
        bodies = read_bodies(root)
        assert bodies[-2].startswith(b"1 ERR FLASH ")
        assert bodies[-1] == b"2 OK key=brightness player=- value=64"
    finally:
        cleanup(root)
