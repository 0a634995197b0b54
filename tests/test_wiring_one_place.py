"""The board's parts are wired in one place (issue 41): tallypanel/powerup.py's
attach() makes each part with what it needs (constructor arguments) and reads
as the board's wiring diagram; where two parts need each other, one registers
with the other through a method of the one that owns the slot (app.on_change,
net.on_enrol, painter.use). So:

- the wiring module and tallypanel/start.py, which holds the parts the app
  keeps (the painter, the link's starter), set no attribute of any object but
  `self` itself: no `app.x = ...`, no `self.net.x = ...` (a count kept on
  another object, `self.app.listener_errors += 1`, is not wiring: only plain
  `=` is looked for, the pattern `<name>.<attr> = `);
- no other tallypanel module sets an attribute of one of the board's parts, by
  the names the wiring module gives them (app, net, painter, board_input, view,
  ...: its functions' parameters and what it names the parts it makes), nor of
  `self.<part>`. The other modules do set attributes of the records they are
  handed (a view module steps `entry.step`, the why screen's `why.page`, the
  board definition's fields): those are state, not wiring, and are not parts;
- no tallypanel module keeps a module-level cache: a name bound at module level
  to a list, dict, set, bytearray or array that a function changes (item
  assignment, append, ...), or a name a function rebinds through `global`. Such
  state belongs to the object that owns it (the board's gameview.Views, the
  hand entry's walker). whyview's composed words are the one left (KNOWN_CACHES
  says why).

Each check is proven on a copy of the firmware with a violation planted in it."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"
WIRING = "tallypanel/powerup.py"          # the board's wiring diagram
HOLDER = "tallypanel/start.py"            # the parts that stay while the app runs, handed to the wiring
# Module-level caches left as they are, and why.
KNOWN_CACHES = {
    # The why screen's words, composed when the hand shown changes (WhyScreen.shown) and copied
    # on every redraw: a 1.1 KB buffer made when whyview first loads (the screen first opened);
    # kept on the WhyScreen it would be made at power-up, 1.1 KB less heap after boot.
    ("tallypanel/whyview.py", "_text"),
}
_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem",
             "sort", "reverse", "add", "discard"}
_CONTAINERS = {"list", "dict", "set", "bytearray", "array"}


def _tree(root: Path, relative: str) -> ast.Module:
    return ast.parse((root / relative).read_text(encoding="utf-8"))


def _panel_modules(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in (root / "tallypanel").glob("*.py"))


def _assigned_attributes(tree: ast.AST):
    """(line, target) for every attribute a plain assignment (`=`, or an annotated one) sets."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            for one in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                if isinstance(one, ast.Attribute):
                    yield node.lineno, one


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def others_set_in_wiring(root: Path) -> list[str]:
    """In the wiring module and the parts' holder: every attribute set of anything but self itself."""
    found = []
    for relative in (WIRING, HOLDER):
        for line, target in _assigned_attributes(_tree(root, relative)):
            if not _is_self(target.value):
                found.append(f"{relative}:{line}: {ast.unparse(target)} =")
    return found


def part_names(root: Path) -> set[str]:
    """The names the wiring module gives the board's parts: its functions' parameters, and the
    names it binds to what it makes (a call, or a call or None)."""
    names = set()
    for node in ast.walk(_tree(root, WIRING)):
        if isinstance(node, ast.FunctionDef):
            names.update(a.arg for a in node.args.args + node.args.kwonlyargs)
        elif isinstance(node, ast.Assign) and isinstance(node.value, (ast.Call, ast.IfExp)):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names - {"self"}


def parts_set_elsewhere(root: Path) -> list[str]:
    """In every other tallypanel module: each attribute set of a part (`app.x =`, `self.net.x =`)."""
    parts = part_names(root)
    found = []
    for relative in _panel_modules(root):
        if relative in (WIRING, HOLDER):
            continue
        for line, target in _assigned_attributes(_tree(root, relative)):
            base = target.value
            if isinstance(base, ast.Name) and base.id in parts or (
                    isinstance(base, ast.Attribute) and _is_self(base.value) and base.attr in parts):
                found.append(f"{relative}:{line}: {ast.unparse(target)} =")
    return found


def module_caches(root: Path) -> set[tuple[str, str]]:
    """(module, name) for each module-level cache in tallypanel: a module-level list, dict, set,
    bytearray or array that a function changes, or a module-level name a function rebinds (global)."""
    found = set()
    for relative in _panel_modules(root):
        tree = _tree(root, relative)
        containers = set()
        for node in tree.body:
            if isinstance(node, ast.Assign):
                value = node.value
                if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)) or (
                        isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                        and value.func.id in _CONTAINERS):
                    containers.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            rebound = {name for node in ast.walk(function) if isinstance(node, ast.Global) for name in node.names}
            for node in ast.walk(function):
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                    targets = [node.target]
                else:
                    targets = []
                for target in targets:
                    for one in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                        if isinstance(one, ast.Name) and one.id in rebound:
                            found.add((relative, one.id))
                        if isinstance(one, ast.Subscript) and isinstance(one.value, ast.Name) \
                                and one.value.id in containers:
                            found.add((relative, one.value.id))
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and isinstance(node.func.value, ast.Name) and node.func.value.id in containers \
                        and node.func.attr in _MUTATORS:
                    found.add((relative, node.func.value.id))
    return found


def test_the_wiring_module_and_the_parts_holder_set_no_other_object_s_attribute():
    assert others_set_in_wiring(FIRMWARE) == []


def test_no_other_panel_module_sets_an_attribute_of_one_of_the_board_s_parts():
    assert {"app", "net", "painter", "board_input", "view"} <= part_names(FIRMWARE)
    assert parts_set_elsewhere(FIRMWARE) == []


def test_no_panel_module_keeps_a_module_level_cache_but_the_known_one():
    found = module_caches(FIRMWARE)
    assert found - KNOWN_CACHES == set()
    assert found == KNOWN_CACHES, "a known cache is gone: take it out of KNOWN_CACHES"


def test_wiring_planted_in_a_copy_of_the_firmware_is_found(tmp_path):
    copy = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    powerup = copy / WIRING
    powerup.write_text(powerup.read_text(encoding="utf-8")
                       + "\n\ndef later(app, painter):\n    app.entry_screen = painter.entry_screen\n",
                       encoding="utf-8")
    start = copy / HOLDER
    start.write_text(start.read_text(encoding="utf-8")
                     + "\n\nclass Later:\n    def go(self):\n        self.net.starter, x = None, 1\n",
                     encoding="utf-8")
    found = others_set_in_wiring(copy)
    assert [f.split(": ", 1)[1] for f in found] == ["app.entry_screen =", "self.net.starter ="], found
    confirm = copy / "tallypanel" / "confirm.py"
    confirm.write_text(confirm.read_text(encoding="utf-8")
                       + "\n\ndef later(board_input, view):\n    board_input.app = None\n"
                       "    view.x += 1\n    self.painter.due: bool = True\n", encoding="utf-8")
    found = parts_set_elsewhere(copy)
    assert [f.split(": ", 1)[1] for f in found] == ["board_input.app =", "self.painter.due ="], found


def test_a_module_level_cache_planted_in_a_copy_of_the_firmware_is_found(tmp_path):
    copy = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    gameview = copy / "tallypanel" / "gameview.py"
    gameview.write_text(gameview.read_text(encoding="utf-8")
                        + "\n_seen = {}\n_last = None\n_names = bytearray(4)\n_fine = [1, 2]\n\n\n"
                        "def remember(game):\n    _seen[game] = 1\n\n\n"
                        "def last(game):\n    global _last\n    _last = game\n\n\n"
                        "def name(game):\n    _names.extend(b'ab')\n    return _fine[0]\n",
                        encoding="utf-8")
    assert module_caches(copy) - KNOWN_CACHES == {("tallypanel/gameview.py", "_seen"),
                                                  ("tallypanel/gameview.py", "_last"),
                                                  ("tallypanel/gameview.py", "_names")}


def callbacks_handed_by_assignment(root: Path) -> list[str]:
    """Anywhere in the firmware: a part's own method or attribute (`self.x`) set on another object
    (`net.forget = self.forget`): a callback handed over by assignment, not through the owner's
    registration method (net.on_leave, net.on_enrol, app.on_change)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith("emu/"):
            continue
        tree = _tree(root, relative)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute) and _is_self(node.value.value):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and not _is_self(target.value):
                        found.append(f"{relative}:{node.lineno}: {ast.unparse(target)} = {ast.unparse(node.value)}")
    return found


def test_no_firmware_module_hands_a_callback_over_by_assignment(tmp_path):
    assert callbacks_handed_by_assignment(FIRMWARE) == []
    # planted in a copy: the club link's old way of handing NET LEAVE its forget
    copy = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, copy)
    link = copy / "tallynet" / "link.py"
    source = link.read_text()
    line = source[:source.index("net.on_leave(self.forget)")].count("\n") + 1
    link.write_text(source.replace("net.on_leave(self.forget)", "net.forget = self.forget"))
    assert callbacks_handed_by_assignment(copy) == [f"tallynet/link.py:{line}: net.forget = self.forget"]
