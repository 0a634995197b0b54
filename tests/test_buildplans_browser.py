"""Issue 32, item 8: the builder's pictures (`tallyboard board draw`) open in a
real browser, Debian's headless Chromium driven by playwright (as
tests/test_event_page.py does), for the reference board and the serpentine
Pico 2: each is an SVG document with no parse error, all its text on the
page, drawn at its size in mm; its PNG shows the 100 mm check line 100 mm
long, and its PDF is one page of the drawing's own size (1:1): the
template on one sheet the board's size and on two A4 sheets, the wiring
on A4."""
from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner
from PIL import Image

from tallyboard.cli import main

from browser_support import CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM
BOARDS = ("pico-reference", "pico2-serpentine-nooled")
SVG = "{http://www.w3.org/2000/svg}"
CSS_PX_PER_MM = 96 / 25.4
PT_PER_MM = 72 / 25.4

# (width, height) in mm, in CSS px (96 to the inch) and in PDF points (72 to the inch)
SIZES = {
    # Dana's board, 13 x 8 in: 13 * 96 = 1248 by 8 * 96 = 768 px; 13 * 72 = 936 by 8 * 72 = 576 pt
    "template": ((330.2, 203.2), (1248, 768), (936, 576)),
    # A4 landscape: 297 / 25.4 * 96 = 1122.52 by 210 / 25.4 * 96 = 793.70 px; 841.89 by 595.28 pt
    "wiring": ((297, 210), (1122.52, 793.70), (841.89, 595.28)),
    # A4 portrait: the same, turned
    "template-a4-1": ((210, 297), (793.70, 1122.52), (595.28, 841.89)),
    "template-a4-2": ((210, 297), (793.70, 1122.52), (595.28, 841.89)),
}

pytestmark = [NEEDS_CHROMIUM,
              pytest.mark.browser, pytest.mark.process]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=30_000)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def pictures(tmp_path_factory):
    out = tmp_path_factory.mktemp("plans")
    for name in BOARDS:
        result = CliRunner().invoke(main, ["board", "draw", name, "--out", str(out)])
        assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1300, "height": 820})
    context.set_default_timeout(10_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.mark.parametrize("kind", tuple(SIZES))
@pytest.mark.parametrize("name", BOARDS)
def test_the_picture_opens_whole_at_its_size_and_prints_1_to_1(page, pictures, name, kind, tmp_path):
    (mm_w, mm_h), (px_w, px_h), (pt_w, pt_h) = SIZES[kind]
    path = pictures / f"{name}-{kind}.svg"
    page.goto(path.as_uri())
    assert page.evaluate("document.documentElement.namespaceURI") == "http://www.w3.org/2000/svg"
    assert page.evaluate("document.getElementsByTagName('parsererror').length") == 0
    size = page.evaluate("(() => { const r = document.documentElement.getBoundingClientRect(); "
                         "return [r.width, r.height]; })()")
    assert size == pytest.approx([px_w, px_h], abs=0.5)
    # every text inside the drawing: none runs off its edge (a sheet's window clips the template to it)
    left, top = (float(v) for v in ET.parse(path).getroot().get("viewBox").split()[:2])
    outside = page.evaluate(f"""Array.from(document.querySelectorAll('text')).filter(t => {{
        if (t.closest('[clip-path]')) return false;
        const b = t.getBBox();
        return b.x < {left} || b.y < {top} || b.x + b.width > {left + mm_w} || b.y + b.height > {top + mm_h};
    }}).map(t => t.textContent)""")
    assert outside == []

    page.set_viewport_size({"width": 1300, "height": 1150})
    png = Image.open(io.BytesIO(page.screenshot())).convert("L")
    assert png.size == (1300, 1150)
    assert png.getpixel((5, 5)) == 255           # the drawing's white page, drawn
    if kind.startswith("template"):
        # the check line, measured on the picture: 100 mm = 100 * 96 / 25.4 = 377.95 px
        line = ET.parse(path).getroot().find(f"{SVG}g[@class='check-line']").find(f"{SVG}line")
        x0 = (float(line.get("x1")) - left) * CSS_PX_PER_MM
        y = round((float(line.get("y1")) - top) * CSS_PX_PER_MM)
        dark = [x for x in range(int(x0) - 20, int(x0) + 400) if png.getpixel((x, y)) < 128]
        assert dark[-1] - dark[0] + 1 == pytest.approx(100 * CSS_PX_PER_MM, abs=2)

    pdf = page.pdf(prefer_css_page_size=True, print_background=True)
    (path.with_suffix(".pdf")).write_bytes(pdf)
    assert pdf.startswith(b"%PDF")
    assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == 1       # one page, not the drawing cut in two
    boxes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
    assert boxes and all((float(w), float(h)) == pytest.approx((pt_w, pt_h), abs=0.6) for w, h in boxes)
    assert (pt_w / PT_PER_MM, pt_h / PT_PER_MM) == pytest.approx((mm_w, mm_h), abs=0.01)
