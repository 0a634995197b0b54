"""The firmware's layers (docs/architecture.md, "The firmware's layers"): each
package imports only from itself and the packages below it, the bottom (the
tallycore package's own module: const and the ticks functions) imports nothing
of the firmware's, and no module imports itself round a
circle. Function-level imports count: a module loaded late is still a module
the importer needs. The checker is proven on a copy of the firmware with an
upward import planted in it, and on a small tree with a circle."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"
# bottom to top; main.py and boot.py sit above them all
LAYERS = ("tallycore", "tallyrun", "tallynet", "tallypanel")
BOTTOM = "tallycore"   # tallycore/__init__.py: the CPython stand-ins of const and the ticks functions


def modules(root: Path) -> dict[str, Path]:
    """Every module of the layered packages by dotted name (tallyrun.app, ...; a package's
    __init__ by the package's name)."""
    out = {}
    for package in LAYERS:
        for path in sorted((root / package).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            dotted = path.relative_to(root).with_suffix("").parts
            out[".".join(dotted[:-1] if dotted[-1] == "__init__" else dotted)] = path
    return out


def edges(root: Path) -> dict[str, set[str]]:
    """For each firmware module (and main.py, boot.py), the firmware modules it imports:
    `from tallyrun import protocol` imports tallyrun.protocol; `from tallyrun.app import App`,
    tallyrun.app."""
    known = modules(root)
    sources = dict(known)
    for script in ("main", "boot"):
        if (root / f"{script}.py").exists():
            sources[script] = root / f"{script}.py"
    out: dict[str, set[str]] = {}
    for name, path in sources.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets = [f"{node.module}.{alias.name}" for alias in node.names]
                targets = [t if t in known else node.module for t in targets]
            else:
                continue
            found.update(t for t in targets if t in known and t != name)
        out[name] = found
    return out


def layer_of(module: str) -> int:
    if module in ("main", "boot"):
        return len(LAYERS)
    return LAYERS.index(module.split(".")[0])


def upward_imports(root: Path) -> list[str]:
    """Each import of a module from a package above the importer's, or of anything by the
    bottom module, as "importer -> imported"."""
    found = []
    for importer, imported in sorted(edges(root).items()):
        for target in sorted(imported):
            if layer_of(target) > layer_of(importer) or importer == BOTTOM:
                found.append(f"{importer} -> {target}")
    return found


def circles(root: Path) -> list[list[str]]:
    """The import circles: each strongly connected group of two or more modules (Tarjan's)."""
    graph = edges(root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_the_firmware_imports_only_downward():
    assert upward_imports(FIRMWARE) == []


def test_the_firmware_has_no_import_circle():
    assert circles(FIRMWARE) == []


def test_every_firmware_package_has_its_layer():
    packages = {p.name for p in FIRMWARE.iterdir() if (p / "__init__.py").exists()}
    assert packages == set(LAYERS)


def test_an_upward_import_planted_in_a_copy_of_the_firmware_is_found(tmp_path):
    copy = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, copy)
    ring = copy / "tallyrun" / "ring.py"
    ring.write_text(ring.read_text(encoding="utf-8") + "\n\ndef later():\n    from tallypanel import view\n",
                    encoding="utf-8")
    bottom = copy / "tallycore" / "__init__.py"
    bottom.write_text(bottom.read_text(encoding="utf-8") + "\nfrom tallycore import cards\n", encoding="utf-8")
    assert upward_imports(copy) == ["tallycore -> tallycore.cards", "tallyrun.ring -> tallypanel.view"]


def test_a_circle_planted_in_a_small_tree_is_found(tmp_path):
    for package in LAYERS:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "tallyrun" / "a.py").write_text("from tallyrun import b\n")
    (tmp_path / "tallyrun" / "b.py").write_text("import tallyrun.c\n")
    (tmp_path / "tallyrun" / "c.py").write_text("def f():\n    from tallyrun.a import f\n")
    (tmp_path / "tallyrun" / "d.py").write_text("from tallyrun.a import x\nfrom tallycore import e\n")
    (tmp_path / "tallycore" / "e.py").write_text("import os\n")
    assert circles(tmp_path) == [["tallyrun.a", "tallyrun.b", "tallyrun.c"]]
    assert upward_imports(tmp_path) == []


STAND_INS = {"const", "ticks_ms", "ticks_diff", "ticks_add"}
# builtins the bottom module imports by the names only a builtin has (uarray, uos, ujson, ...): by their
# plain names the importer searches littlefs first (some 6 ms each at power-up on the twin)
BY_BUILTIN_NAME = {"array", "os", "json", "select", "errno", "binascii", "hashlib"}


def stand_in_copies(root: Path) -> list[str]:
    """Each module but the bottom that defines a CPython stand-in of its own (a def of const or
    a ticks function) or takes one from MicroPython itself, as "module: name"."""
    found = []
    for name, path in modules(root).items():
        if name == BOTTOM:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name in STAND_INS:
                found.append(f"{name}: def {node.name}")
            elif isinstance(node, ast.ImportFrom) and node.module in ("micropython", "time", "utime"):
                found += [f"{name}: from {node.module} import {a.name}" for a in node.names if a.name in STAND_INS]
            elif isinstance(node, ast.ImportFrom) and node.module in BY_BUILTIN_NAME:
                found.append(f"{name}: from {node.module} import ...")
            elif isinstance(node, ast.Import):
                found += [f"{name}: import {a.name}" for a in node.names if a.name in BY_BUILTIN_NAME]
    return sorted(found)


def test_the_stand_ins_and_the_builtins_by_their_own_names_are_at_the_bottom_only():
    assert stand_in_copies(FIRMWARE) == []


def test_a_stand_in_copied_into_a_module_is_found(tmp_path):
    copy = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    planted = copy / "tallyrun" / "config.py"
    planted.write_text("try:\n    from micropython import const\nexcept ImportError:\n"
                       "    def const(x):\n        return x\nimport json\n" + planted.read_text(encoding="utf-8"),
                       encoding="utf-8")
    assert stand_in_copies(copy) == ["tallyrun.config: def const", "tallyrun.config: from micropython import const",
                                     "tallyrun.config: import json"]
