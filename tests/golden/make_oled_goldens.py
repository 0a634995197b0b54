# Rewrites tests/golden/oled_*.bin from the current sheet code; run under the
# MicroPython unix port from the repository root, then look at the PNGs
# (python tests/golden/oled_png.py) before committing:
#   micropython -X heapsize=2M tests/golden/make_oled_goldens.py
import sys
sys.path.insert(0, "firmware")
sys.path.insert(0, "tests/mp")
sys.path.append("host")   # tests/mp/mpfixtures imports the host's frame helpers
import test_sheetview

for name, buf in test_sheetview.screens():
    with open("tests/golden/oled_" + name + ".bin", "wb") as f:
        f.write(buf)
    print("wrote tests/golden/oled_" + name + ".bin")
