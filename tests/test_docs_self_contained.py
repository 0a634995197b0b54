"""The repository stands on its own: a clone has no `../shared/`, so the README,
the docs, the board definitions' README, the host and the firmware point to
no file outside it (the rules are docs/rules.md, the record format
docs/records.md), and every `docs/rules.md` citation names a clause or a game
section that docs/rules.md has."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"

# Documents that lived outside the repository, in ../shared/.
OUTSIDE = re.compile(r"\.\./shared|shared/rp2emu|\b(?:GAMES|RECORDS|DESIGN)\.md\b")
# Files outside the folders above that a clone runs: they must need nothing beside the checkout
# (the twin's image and boot ROM are image/stock-pico.uf2 and twin/bootrom/).
OUTSIDE_FILES = re.compile(r"\.\./shared|shared/rp2emu")

SKIP_DIRS = {"__pycache__", "build", "dist", "node_modules"}
EXCLUDED: set[str] = set()

# A citation: `docs/rules.md SK11`, `docs/rules.md SK9, SK10`,
# `docs/rules.md RQ2 to RQ5`, `docs/rules.md HO2 and HO3`, or a game's
# section by its code alone, `docs/rules.md SK`.
CLAUSE = r"[A-Z]{1,2}\d*\b"
CITATION = re.compile(r"docs/rules\.md (%s(?:(?:, | and | to )%s)*)" % (CLAUSE, CLAUSE))
CLAUSE_IN = re.compile(CLAUSE)
# In the docs: `[rules.md SK5](rules.md#sk5)` links and `rules.md SK5` text.
DOC_ANCHOR = re.compile(r"rules\.md#([a-z0-9-]+)")
DOC_CITATION = re.compile(r"rules\.md (%s)" % CLAUSE)


def _text_files(tops=("docs", "host", "firmware"), paths=(ROOT / "README.md", ROOT / "board" / "README.md")):
    paths = list(paths)
    for top in tops:
        for path in sorted((ROOT / top).rglob("*")):
            parts = set(path.relative_to(ROOT).parts)
            if (not path.is_file() or parts & SKIP_DIRS
                    or any(p.endswith(".egg-info") for p in parts)):
                continue
            paths.append(path)
    for path in paths:
        data = path.read_bytes()
        if b"\0" in data:
            continue  # pictures and other binaries
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        yield path.relative_to(ROOT).as_posix(), text


def _rules_ids():
    """Clause numbers and game codes from docs/rules.md's anchors."""
    return {a.upper() for a in re.findall(r'<a id="([a-z0-9]+)"></a>', RULES.read_text(encoding="utf-8"))}


FILES = dict(_text_files())
RUN_FILES = {path: text for path, text in _text_files(("bench", "twin", "image", "tests", ".ci"),
                                                     (ROOT / "pyproject.toml", ROOT / "setup.py"))
             if path != "tests/test_docs_self_contained.py"}     # this file names what it looks for


def test_the_scan_sees_the_repository():
    assert "README.md" in FILES and "docs/rules.md" in FILES and "docs/records.md" in FILES
    assert "firmware/tallycore/skicket.py" in FILES and "host/tallyboard/scorebook/records.py" in FILES


@pytest.mark.parametrize("path", sorted(set(FILES) - EXCLUDED))
def test_nothing_points_outside_the_repository(path):
    found = [(n, line.strip()) for n, line in enumerate(FILES[path].splitlines(), 1)
             if OUTSIDE.search(line)]
    assert not found, f"{path} points outside the repository (use docs/rules.md, docs/records.md): {found}"


@pytest.mark.parametrize("path", sorted(RUN_FILES))
def test_nothing_a_clone_runs_needs_a_file_beside_the_checkout(path):
    found = [(n, line.strip()) for n, line in enumerate(RUN_FILES[path].splitlines(), 1)
             if OUTSIDE_FILES.search(line)]
    assert not found, f"{path} needs a file outside the repository: {found}"


def test_rules_have_every_game_and_its_clauses():
    ids = _rules_ids()
    for code in ("G", "SK", "RQ", "BW", "RU", "PQ", "CO", "FO", "JA", "HO", "NU", "SA", "QU", "DO",
                 "DN", "UD", "MH"):
        assert code in ids and code + "1" in ids, code


def test_every_code_citation_names_a_clause_that_exists():
    ids = _rules_ids()
    cited = 0
    for path, text in FILES.items():
        if not path.endswith(".py"):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if "docs/rules.md" not in line:
                continue
            matches = list(CITATION.finditer(line))
            assert len(matches) == line.count("docs/rules.md"), (
                f"{path}:{n}: write a citation as docs/rules.md SK11 (clause) or docs/rules.md SK "
                f"(game), on one line: {line.strip()}")
            for match in matches:
                for clause in CLAUSE_IN.findall(match.group(1)):
                    assert clause in ids, f"{path}:{n}: docs/rules.md has no {clause}: {line.strip()}"
                    cited += 1
    assert cited > 50  # the rules modules cite their clauses


def test_every_doc_link_into_the_rules_exists():
    ids = _rules_ids()
    for path, text in FILES.items():
        if not path.endswith(".md"):
            continue
        for anchor in DOC_ANCHOR.findall(text):
            assert anchor.upper() in ids, f"{path}: rules.md has no anchor #{anchor}"
        for clause in DOC_CITATION.findall(text):
            assert clause in ids, f"{path}: rules.md has no clause {clause}"


def test_the_rules_table_has_every_game_in_wire_order_with_its_players():
    from tallycore import games

    rows = re.findall(r"^\| \[[A-Z]{2}\]\(#[a-z]{2}\) \| [^|(]+\(`([a-z_]+)`\) \| ([0-9–]+)[ ,|]",
                      RULES.read_text(encoding="utf-8"), re.M)
    assert [name for name, _ in rows] == games.names()
    for (name, players), (_, low, high, *_) in zip(rows, games.GAMES):
        assert players == (str(low) if low == high else f"{low}–{high}"), name


def test_records_md_has_a_hand_form_for_every_game():
    from tallyboard import games
    from tallyboard.scorebook import records

    text = (ROOT / "docs" / "records.md").read_text(encoding="utf-8")
    headed = set(re.findall(r"`([a-z_]+)`", "\n".join(re.findall(r"^### .*$", text, re.M))))
    assert set(games.names()) <= headed
    assert f'"format": "{records.FORMAT}"' in text
