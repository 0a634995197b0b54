"""Render every tests/golden/oled_*.bin to a PNG beside it (x4), to check a
golden by eye:  python tests/golden/oled_png.py"""
from pathlib import Path

from PIL import Image

for path in sorted(Path(__file__).parent.glob("oled_*.bin")):
    data = path.read_bytes()
    image = Image.new("L", (128, 64))
    for x in range(128):
        for y in range(64):
            if data[(y >> 3) * 128 + x] >> (y & 7) & 1:
                image.putpixel((x, y), 255)
    image.resize((512, 256), Image.NEAREST).save(path.with_suffix(".png"))
    print("wrote", path.with_suffix(".png"))
