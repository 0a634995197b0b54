"""No firmware module outside a game's own names a game: the panel, the
runtime and the engine reach a game's code through the game in play (its
registry row, game.rules, rules.VIEW), so that only the game in play is
loaded on the board. A game's own modules are its rules module
(tallycore/<module>.py) and its panel view (tallypanel/<VIEW>.py); the
registry (tallycore/games.py) holds every game's name."""
import re
from pathlib import Path

from tallycore import games

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"

# Files that still name a game, with what makes them: each entry goes once
# its file no longer needs it (the test says so).
PENDING: dict[str, str] = {}


def own_modules() -> dict[str, set[str]]:
    """Each game's (and each shared rule's) own files, relative to firmware/."""
    owners: dict[str, set[str]] = {}
    for name, _least, _most, module, *_ in games.GAMES:
        rules = games.load(games.index_of(name))
        files = {f"tallycore/{module}.py"}
        if rules.VIEW is not None:
            files.add(f"tallypanel/{rules.VIEW}.py")
        owners.setdefault(name, set()).update(files)
        owners.setdefault(module, set()).update(files)
    return owners


def naming(code: str, name: str) -> list[str]:
    """The lines of code (comments left out) that name a game or its module."""
    word = re.escape(name)
    patterns = [
        rf"\bis\s+(not\s+)?{word}\b",                 # rules is skicket
        rf"^\s*(from\s+\S+\s+)?import\s[^#]*\b{word}\b",   # from tallycore import skicket
        rf"\b(?<!\.){word}\.[A-Za-z_]",               # skicket.pack_hand
        rf"tallycore\.{word}\b",                      # tallycore.skicket
        rf"([\"']){word}\1",                          # "skicket"
    ]
    found = []
    for line in code.splitlines():
        text = line.split("#", 1)[0]
        if any(re.search(p, text) for p in patterns):
            found.append(line.strip())
    return found


def test_only_a_games_own_modules_name_it():
    owners = own_modules()
    problems = []
    pending_used = set()
    for path in sorted(FIRMWARE.rglob("*.py")):
        rel = path.relative_to(FIRMWARE).as_posix()
        if rel == "tallycore/games.py":
            continue  # the registry: every game's name and module
        code = path.read_text()
        for name, files in owners.items():
            if rel in files:
                continue
            for line in naming(code, name):
                if rel in PENDING:
                    pending_used.add(rel)
                else:
                    problems.append(f"{rel} names {name}: {line}")
    assert not problems, "\n".join(problems)
    stale = sorted(set(PENDING) - pending_used)
    assert not stale, f"{stale} no longer name a game: drop them from PENDING"


def test_the_check_finds_what_it_looks_for():
    assert naming("if game.rules is skicket:\n", "skicket")
    assert naming("if rules is not roquet:\n", "roquet")
    assert naming("from tallycore import skicket, roquet\n", "roquet")
    assert naming("import tallycore.skicket\n", "skicket")
    assert naming("    event = skicket.pack_hand(0)\n", "skicket")
    assert naming('    if name == "hoodoo":\n', "hoodoo")
    assert not naming("    # skicket.pack_hand, as GAMES.md says\n", "skicket")
    assert not naming("    rules.skicket_like = 1\n", "skicket")
    assert not naming("from tallypanel import skicketview\n", "skicket")
