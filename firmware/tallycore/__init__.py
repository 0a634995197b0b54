# tallycore: the scoring core of the tallyboard, shared by the board and the host.
# Runs unchanged on the Pico, under the MicroPython unix port and under CPython.
#
# This package module is also the bottom of the firmware's layers
# (docs/architecture.md, "The firmware's layers"): the names MicroPython has
# and CPython lacks, which every firmware module imports from here, and
# nothing of the firmware's imported. Here rather than in a module of their
# own: every firmware module's import loads this one anyway (it is the
# tallycore package's), while a module more would cost each power-up its
# file's lookup and load (on the twin, some 12 ms before BOOT).
#
# On MicroPython (the board, the twin, the unix port) the names are
# MicroPython's own: `const` is micropython.const (the compiler folds
# `X = const(1)` by the name alone, wherever it was imported from), the ticks
# functions are time's. Under CPython (the host imports the rules; the tests
# import every module) they are stand-ins with the same arithmetic: ticks wrap
# at 2**30.
VERSION = "0.1.0"

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

# MicroPython's builtins the firmware uses are imported here by the names only
# a builtin has (uarray, uos, ujson, uselect, uerrno, ubinascii, uhashlib,
# utime): "array", "os" and the rest can be overridden by a file of that name,
# so the importer looks along sys.path on littlefs first, some 6 ms each on
# the twin, four of them before BOOT. (socket stays tallynet's own: a Pico
# without Wi-Fi has none.)
try:
    from uarray import array
    import uos as os
    import ujson as json
    import uselect as select
    import uerrno as errno
    import ubinascii as binascii
    import uhashlib as hashlib
except ImportError:  # CPython
    from array import array
    import os
    import json
    import select
    import errno
    import binascii
    import hashlib
try:
    from utime import ticks_add, ticks_diff, ticks_ms
except ImportError:  # CPython
    import time as _time

    def ticks_ms():  # type: ignore[misc]
        return int(_time.monotonic() * 1000) & 0x3FFFFFFF  # type: ignore[attr-defined]

    def ticks_diff(a, b):  # type: ignore[misc]
        return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000

    def ticks_add(ticks, delta):  # type: ignore[misc]
        return (ticks + delta) & 0x3FFFFFFF
