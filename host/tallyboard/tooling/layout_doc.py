"""The host's layout drawn from the code: its packages in the order of
tallyboard.LAYERS (bottom up), each package's modules, and the packages each
one imports, as docs/architecture.md's table and docs/img/host_layers.svg.

    python -m tallyboard.tooling.layout_doc           rewrite both
    python -m tallyboard.tooling.layout_doc --check   exit 1 (saying which) if either differs

tests/test_layout_doc.py fails when they differ from the code."""
from __future__ import annotations

import ast
import sys
import textwrap
from html import escape
from pathlib import Path

import tallyboard

HOST = Path(tallyboard.__file__).resolve().parent
DOCS = HOST.parents[1] / "docs"
MARKDOWN = DOCS / "architecture.md"
SVG = DOCS / "img" / "host_layers.svg"
BEGIN = "<!-- generated: host layers (python -m tallyboard.tooling.layout_doc) -->"
END = "<!-- end generated: host layers -->"


def modules() -> dict[str, list[Path]]:
    """Each layer's module files (a package's own and its subpackages'; cli: cli.py)."""
    out: dict[str, list[Path]] = {name: [] for name, _ in tallyboard.LAYERS}
    for path in sorted(HOST.rglob("*.py")):
        parts = path.relative_to(HOST).parts
        name = parts[0].removesuffix(".py")
        if name in out:
            out[name].append(path)
    return out


def imports_of(path: Path) -> set[str]:
    """The layers a file imports from (tallyboard.X, relative or absolute)."""
    package = path.relative_to(HOST.parent).with_suffix("").parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[:len(package) - (node.level - 1)])
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [module] if "." in module else [f"{module}.{alias.name}" for alias in node.names]
        for target in targets:
            parts = target.split(".")
            if parts[0] == "tallyboard" and len(parts) > 1:
                found.add(parts[1])
    return found


def layers() -> list[tuple[str, str, list[str], list[str]]]:
    """(package, what it is, its modules, the layers it imports) from the bottom up."""
    files = modules()
    names = [name for name, _ in tallyboard.LAYERS]
    out = []
    for name, role in tallyboard.LAYERS:
        used = set().union(*(imports_of(p) for p in files[name])) - {name} if files[name] else set()
        shown = sorted(p.relative_to(HOST / name).as_posix() if (HOST / name).is_dir() else p.name
                       for p in files[name] if p.name != "__init__.py")
        out.append((name, role, shown, [n for n in names if n in used]))
    return out


def table() -> str:
    lines = [BEGIN, "", "| layer (bottom up) | package | what it is | modules | imports from |",
             "| --- | --- | --- | --- | --- |"]
    for rank, (name, role, files, used) in enumerate(layers(), 1):
        where = "`cli.py`" if name == "cli" else f"`{name}/`"
        lines.append(f"| {rank} | {where} | {role} | {', '.join(f'`{f}`' for f in files)} | "
                     f"{', '.join(used) or '—'} |")
    lines += ["", END]
    return "\n".join(lines)


BOX_W, GAP, LEFT, TOP, LINE = 1000, 12, 20, 56, 17
CHARS = 132   # characters a line of the box holds, at 12 px monospace


def svg() -> str:
    boxes = []
    for rank, (name, role, files, used) in enumerate(layers(), 1):
        lines = [(textwrap.wrap(f"{rank}. {name}: {role}", CHARS), "#000")]
        lines.append((textwrap.wrap(" ".join(files), CHARS), "#555"))
        lines.append(([f"imports from: {', '.join(used) or 'nothing of the host'}"], "#a33"))
        boxes.append([(text, colour) for texts, colour in lines for text in texts])
    boxes.reverse()   # the top layer drawn at the top
    height = TOP + sum(len(b) * LINE + 14 + GAP for b in boxes) + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{BOX_W + 2 * LEFT}" height="{height}" '
           'font-family="DejaVu Sans Mono, monospace" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{LEFT}" y="24" font-size="16">host/tallyboard: its layers, bottom up '
           '(tallyboard.LAYERS)</text>',
           f'<text x="{LEFT}" y="42" fill="#666">a module imports only from its own package and those below it '
           '(tests/test_host_layout.py)</text>']
    y = TOP
    for box in boxes:
        h = len(box) * LINE + 14
        out.append(f'<rect x="{LEFT}" y="{y}" width="{BOX_W}" height="{h}" rx="8" fill="#eef3fb" stroke="#333"/>')
        for i, (text, colour) in enumerate(box):
            weight = ' font-weight="bold"' if i == 0 else ""
            out.append(f'<text x="{LEFT + 10}" y="{y + 19 + i * LINE}" fill="{colour}"{weight}>{escape(text)}</text>')
        y += h + GAP
    out.append("</svg>")
    return "\n".join(out) + "\n"


def with_table(text: str) -> str:
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + table() + text[end:]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    wanted = {MARKDOWN: with_table(MARKDOWN.read_text(encoding="utf-8")), SVG: svg()}
    stale = [path for path, text in wanted.items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    if check:
        for path in stale:
            print(f"{path} differs from the code: run python -m tallyboard.tooling.layout_doc")
        return 1 if stale else 0
    for path in stale:
        path.write_text(wanted[path], encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
