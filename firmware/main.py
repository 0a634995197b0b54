# tallyboard: the app, run by MicroPython after boot.py from the flash root;
# stdout is the wire protocol (docs/protocol.md). The app is tallypanel/start.py,
# its modules found through tallyrun/importfs.py. An update over the air under
# way (tallyboot.STATE there): tallyboot puts the ROMFS partition right first.
from uos import stat

tallyboard_update = None
try:
    stat("update/state")
    import tallyboot

    tallyboard_update = tallyboot.boot()
except Exception:    # none under way (OSError), or tallyboot itself failed: the partition as it is
    pass
del stat
# why the app did not start, for a host at the REPL (boardlink/repl.py); None: it started
tallyboard_safe_mode = None
try:
    from tallyrun import importfs

    importfs.mount()
    del importfs
    from tallypanel.start import start

    tallyboard_safe_mode = start()
except Exception:
    if tallyboard_update == "trial":    # the new release cannot start: back to the one before, now
        import tallyboot

        tallyboot.failed()
    raise
