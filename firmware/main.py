# tallyboard: the app. MicroPython runs this after boot.py, from the flash
# root (on the emulator: from the flash folder, with firmware/emu first on
# the module path). Output on stdout is the wire protocol (docs/protocol.md).
# The app itself is tallypanel/start.py; the firmware's modules are found
# through tallyrun/importfs.py on a board (a third of the power-up otherwise).
#
# An update over the air under way (its state file, tallyboot.STATE, there):
# tallyboot puts the ROMFS partition right before any package is imported,
# and a new release whose app cannot start is rolled back at once.
import os

tallyboard_update = None
try:
    os.stat("update/state")
    import tallyboot

    tallyboard_update = tallyboot.boot()
except (OSError, ImportError):
    pass


def tallyboard_failed():
    if tallyboard_update == "trial":
        import tallyboot

        tallyboot.failed()


try:
    from tallyrun import importfs

    importfs.mount()
    del importfs
    from tallypanel.start import start
except Exception:
    tallyboard_failed()
    raise

# Why the app did not start, for the host to ask at the REPL (main.py's
# globals are the REPL's): a host that gets the REPL's answer to HELLO reads
# it over the raw REPL, as mpremote would, and says the board is in safe mode
# rather than that the app failed (host/tallyboard/boardlink/repl.py). None: the app
# started (and if the REPL answers, it stopped).
tallyboard_safe_mode = None
try:
    tallyboard_safe_mode = start()
except Exception:
    tallyboard_failed()
    raise
