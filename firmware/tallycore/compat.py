# The names MicroPython has and CPython lacks, for every firmware module: the
# bottom of the firmware's layers (docs/architecture.md, "The firmware's
# layers"), imported by all and importing nothing of the firmware's.
#
# On MicroPython (the board, the twin, the unix port) these are MicroPython's
# own: `const` is micropython.const (the compiler folds `X = const(1)` by the
# name alone, wherever it was imported from), the ticks functions are time's.
# Under CPython (the host imports the rules; the tests import every module)
# they are stand-ins with the same arithmetic: ticks wrap at 2**30.
try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

try:
    from time import ticks_add, ticks_diff, ticks_ms
except ImportError:  # CPython
    import time as _time

    def ticks_ms():  # type: ignore[misc]
        return int(_time.monotonic() * 1000) & 0x3FFFFFFF  # type: ignore[attr-defined]

    def ticks_diff(a, b):  # type: ignore[misc]
        return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000

    def ticks_add(ticks, delta):  # type: ignore[misc]
        return (ticks + delta) & 0x3FFFFFFF
