"""Rooms you can see at once (issue 31, item 4; issue 41 for the tests, the twin and
the benches): no module of host/ or firmware/, no test, no part of the twin and no
bench over MAX_MODULE_LINES, no function of host/ or firmware/ over
MAX_FUNCTION_LINES or MAX_BRANCHES, unless the exception says why: in the tables
below, or for a function in a comment `# size: <why>` on its `def` line or the line
above it. (A test's function reads as its story, top to bottom: its length is not
held.)"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = (ROOT / "host", ROOT / "firmware")                  # modules and functions held
MODULE_TREES = (*TREES, ROOT / "tests", ROOT / "twin", ROOT / "bench")   # modules held
SKIPPED = ("__pycache__", "node_modules")
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
MAX_BRANCHES = 20
SPLITTING = "being split (issue 31)"   # a module another change is splitting; allowed to be gone when it is

# path from the checkout -> why it may be longer
MODULE_EXCEPTIONS: dict[str, str] = {
    "firmware/tallycore/skicket.py": "the six-hand game with its pivots, the Duplicate series and Royal Skicket, "
                                     "and the reasons its scoring gives, in one rules module loaded before BOOT "
                                     "when a Skicket game is restored: a module more costs the power-up a littlefs "
                                     "lookup (10 to 13 ms) and heap (docs/benchmarks.md, the session of issues 30 "
                                     "to 34)",
    "firmware/tallyrun/app.py": "the app's request path and its loop, on the board's hot path: each module more "
                                "costs the twin's power-up a littlefs lookup (10 to 13 ms) and heap after boot "
                                "(docs/benchmarks.md, issue 31's figures); CFG and the board's own changes are "
                                "already apart (configuring.py, confirming.py)",
    "firmware/tallypanel/entry.py": "the hand entry's one walk: stepping through a game's description, finding "
                                    "a rejected hand's values again and drawing the entry all read and move the "
                                    "same walk state, allocation-free; apart, each would reach into the others'",
    "bench/bench_update_twin.py": "two halves of one bench that share the stand-in's placeholders: the broker's "
                                  "end that runs inside the chip (MicroPython source put on the twin's flash, "
                                  "which serves an update as the director's engine does and notes the heap at "
                                  "each point of the board's update path) and the host's side that builds the "
                                  "release, fills the placeholders and reads the notes",
    "twin/bootrom/bootrom-b1.mjs": "data, not code: Raspberry Pi's RP2040 boot ROM (revision B1) as the words "
                                   "rp2040js loads, as Raspberry Pi published it (twin/bootrom/NOTICE)",
}

# "path:function" (methods as Class.method) -> why it may be longer or branch more
FUNCTION_EXCEPTIONS: dict[str, str] = {
    "firmware/tallycore/skicket.py:score_hand": "one hand's scores by SK6 to SK14 in the rules' order, each "
        "branch a clause and its reason; apart, the counts every branch shares would pass through half a "
        "dozen arguments on the scoring path",
    "firmware/tallypanel/menu.py:BoardInput.handle": "the controls' one dispatch, a branch a (screen: a hand "
        "held, the why screen, an entry, the sheet; control) read top to bottom: every press and turn goes "
        "through it, allocation-free",
    "firmware/tallypanel/skicketview.py:draw_entry": "Skicket's entry screen: the dealer, the step, "
        "the step's value drawn as that step shows it (purchaser or misdeal, level, strain, doubled, redoubled, "
        "lone, tricks: a branch each, in the order the board asks them) and what is entered so far",
    "host/tallyboard/club/envelope.py:_check_fields": "one check a field, each with its own refusal, in the order the document lists the fields: a flat list read top to bottom",
    "host/tallyboard/club/envelope.py:open_message": "the checks of a message in the order they must run (shape, "
        "version, fields, evening, topic, sender, key, signature, sequence), each refusal its own reason "
        "(docs/club-mqtt.md): split, the order would be spread over functions",
    "host/tallyboard/evening/club.py:check_pending": "one check a field, each with its own refusal, in the order the document lists the fields: a flat list read top to bottom",
    "host/tallyboard/evening/record.py:_head": "one check a field, each with its own refusal, in the order the document lists the fields: a flat list read top to bottom",
    "host/tallyboard/commands/scoring.py:new_cmd": "a click command's options checked one by one, each with "
        "its own advice, before it touches the board",
    "host/tallyboard/evening/web.py:_guarded_protocol": "no branches: a class made per server, whose methods "
        "close over that server's crowd; its length is the class's",
    "host/tallyboard/tooling/deploy.py:choose_board": "one refusal for each way a board definition can be wrong "
        "for the chip, each with its own advice",
    "host/tallyboard/tooling/deploy.py:deploy": "the two sessions of a deploy in the order the module's text "
        "gives, each step a branch of the plan: split, the order would be spread over functions",
    "host/tallyboard/tooling/protocol_doc.py:spec": "docs/protocol.json written out as one literal, field by field",
    "host/tallyboard/tooling/protocol_doc.py:_tables": "one Markdown table a section of docs/protocol.md, in the "
        "doc's order",
}


def python_files() -> list[Path]:
    return sorted(p for tree in TREES for p in tree.rglob("*.py") if "__pycache__" not in p.parts)


def module_files() -> list[Path]:
    """Every module whose length is held: Python and the twin's JavaScript."""
    return sorted(p for tree in MODULE_TREES for pattern in ("*.py", "*.mjs") for p in tree.rglob(pattern)
                  if not any(part in SKIPPED for part in p.parts))


def where(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name


def branches(function: ast.AST) -> int:
    """Decision points in a function's own body (nested functions count on their own)."""
    count = 0
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, (ast.If, ast.IfExp, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler,
                             ast.match_case)):
            count += 1
        elif isinstance(node, ast.comprehension):
            count += 1 + len(node.ifs)
        elif isinstance(node, ast.BoolOp):
            count += len(node.values) - 1
        stack.extend(ast.iter_child_nodes(node))
    return count


def functions(tree: ast.AST, prefix: str = ""):
    """(qualified name, node) of every function and method, nested ones too."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node
            yield from functions(node, prefix + node.name + ".")
        elif isinstance(node, ast.ClassDef):
            yield from functions(node, prefix + node.name + ".")
        else:
            yield from functions(node, prefix)


def reasoned(lines: list[str], node: ast.AST) -> bool:
    first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    near = [lines[node.lineno - 1]] + ([lines[first - 2]] if first >= 2 else [])
    return any("# size:" in line for line in near)


def too_long_functions(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    out = []
    for name, node in functions(ast.parse(text)):
        length = node.end_lineno - node.lineno + 1
        forks = branches(node)
        if (length > MAX_FUNCTION_LINES or forks > MAX_BRANCHES) and not reasoned(lines, node):
            out.append((f"{where(path)}:{name}", length, forks))
    return out


def test_no_module_is_too_long_without_a_reason():
    long = {where(p): len(p.read_text(encoding="utf-8").splitlines()) for p in module_files()}
    over = [f"{path}: {n} lines" for path, n in sorted(long.items())
            if n > MAX_MODULE_LINES and path not in MODULE_EXCEPTIONS]
    assert not over, f"over {MAX_MODULE_LINES} lines: split by concern, or say why in MODULE_EXCEPTIONS:\n" \
                     + "\n".join(over)
    stale = [path for path, why in MODULE_EXCEPTIONS.items()
             if why != SPLITTING and long.get(path, 0) <= MAX_MODULE_LINES]
    assert not stale, "no longer over the limit (or gone): take out of MODULE_EXCEPTIONS: " + ", ".join(stale)


def test_no_function_is_too_long_or_branches_too_much_without_a_reason():
    found = [f for p in python_files() for f in too_long_functions(p)]
    over = [f"{name}: {length} lines, {forks} branches" for name, length, forks in found
            if name not in FUNCTION_EXCEPTIONS]
    assert not over, (f"over {MAX_FUNCTION_LINES} lines or {MAX_BRANCHES} branches: split, or say why with "
                      "`# size: <why>` beside it (or in FUNCTION_EXCEPTIONS):\n" + "\n".join(over))
    names = {name for name, _, _ in found}
    stale = [name for name, why in FUNCTION_EXCEPTIONS.items() if why != SPLITTING and name not in names]
    assert not stale, "within the limits now (or gone): take out of FUNCTION_EXCEPTIONS: " + ", ".join(stale)


def test_the_checks_find_a_long_function_and_count_its_branches(tmp_path):
    body = "".join(f"    if x == {i}:\n        x += {i}\n" for i in range(21))   # 21 ifs
    sample = tmp_path / "sample.py"
    sample.write_text("def long(x):\n" + body + "    return x\n")
    assert too_long_functions(sample) == [("sample.py:long", 1 + 2 * 21 + 1, 21)]
    sample.write_text("def long(x):  # size: one case a line, read top to bottom\n" + body + "    return x\n")
    assert too_long_functions(sample) == []
