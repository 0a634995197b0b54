# Runs the core's checks under the MicroPython unix port (and under CPython).
#   micropython tests/mp/run.py FIRMWARE_DIR [module ...]
# Each module in tests/mp named test_*.py is imported and every function whose
# name starts with test_ is called. Prints one line per failure and per skip
# (mpfixtures.skip: a check this interpreter cannot make) and a closing line
# "N passed, M failed, K skipped"; exits 1 if anything failed.
import sys

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
sys.path.insert(0, _HERE)
if len(sys.argv) > 1:
    sys.path.insert(0, sys.argv[1])
    sys.path.append(sys.argv[1] + "/../host")   # tallyboard.boardlink.wire: the host's frame helpers

try:
    import os
    _names = sorted(n[:-3] for n in os.listdir(_HERE) if n.startswith("test_") and n.endswith(".py"))
except ImportError:
    _names = []
if len(sys.argv) > 2:
    _names = sys.argv[2:]

passed = 0
failed = 0
skipped = 0
for name in _names:
    module = __import__(name)
    for attr in sorted(dir(module)):
        if not attr.startswith("test_"):
            continue
        fn = getattr(module, attr)
        try:
            fn()
            passed += 1
        except Exception as exc:  # noqa: BLE001 - report and go on
            if type(exc).__name__ == "Skip":
                skipped += 1
                print("SKIP %s.%s: %s" % (name, attr, exc))
                continue
            failed += 1
            print("FAIL %s.%s: %s %s" % (name, attr, type(exc).__name__, exc))
print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
sys.exit(1 if failed else 0)
