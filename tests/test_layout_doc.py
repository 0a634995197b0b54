"""docs/architecture.md's table of the host's layers and docs/img/host_layers.svg
are what tallyboard.tooling.layout_doc draws from tallyboard.LAYERS and the
imports in the code now: python -m tallyboard.tooling.layout_doc redraws them."""
from __future__ import annotations

from tallyboard.tooling import layout_doc

ADVICE = "differs from the code: run python -m tallyboard.tooling.layout_doc"


def test_the_architecture_table_is_current():
    text = layout_doc.MARKDOWN.read_text(encoding="utf-8")
    assert layout_doc.with_table(text) == text, f"{layout_doc.MARKDOWN} {ADVICE}"


def test_the_host_layers_picture_is_current():
    assert layout_doc.SVG.read_text(encoding="utf-8") == layout_doc.svg(), f"{layout_doc.SVG} {ADVICE}"


def test_the_drawing_shows_each_layer_with_its_modules_and_imports():
    rows = {name: (files, used) for name, _, files, used in layout_doc.layers()}
    assert list(rows)[0] == "common" and list(rows)[-1] == "cli"
    assert "hub.py" in rows["boardlink"][0] and rows["cli"] == (["cli.py"], ["commands"])
    assert rows["games"][1] == []                       # the profiles import nothing of the host
    assert "evening" in rows["commands"][1] and "commands" not in rows["evening"][1]
    table = layout_doc.table()
    assert "| 4 | `boardlink/` |" in table and "`portsocket.py`" in table
    assert "4. boardlink: the link to a board" in layout_doc.svg()


def test_the_firmware_table_names_every_module_of_its_package():
    # docs/architecture.md's table of the firmware's packages: a module added without a word there
    # (whyreply.py, progressive.py, publishing.py, wiring.py were, issue 41) is one a reader cannot find
    import re
    from pathlib import Path

    from tallycore.games import GAMES

    root = Path(layout_doc.__file__).resolve().parents[3] / "firmware"
    text = layout_doc.MARKDOWN.read_text(encoding="utf-8")
    rules = {row[3] + ".py" for row in GAMES}   # one module per rule: the registry names them (tallycore/games.py)
    missing = []
    for package in ("tallycore", "tallyrun", "tallynet", "tallypanel"):
        row = next(line for line in text.splitlines() if line.startswith(f"| `{package}/` |"))
        named = set(re.findall(r"`([a-z_0-9]+\.py)`", row))
        for module in sorted((root / package).glob("*.py")):
            if module.name != "__init__.py" and module.name not in named and not (
                    package == "tallycore" and module.name in rules):
                missing.append(f"{package}/{module.name}")
    assert missing == [], f"docs/architecture.md's firmware table does not name {missing}"
