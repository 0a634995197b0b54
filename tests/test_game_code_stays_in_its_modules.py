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
HOST = Path(__file__).resolve().parent.parent / "host" / "tallyboard"

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


# --- a game's own verbs (its rules module's VERBS) -------------------------------------------
# Named nowhere but in the game's own modules: its rules (tallycore/<module>.py),
# its panel view, and its host profile (host/tallyboard/games/<name>.py). The
# runtime's table, the host's client and its commands reach them through the
# declarations (tallyrun.protocol takes the game in play's VERBS; the client
# and docs/protocol.md derive from them).
def verb_owners() -> dict[str, set[str]]:
    """Each game verb (HAND, PEG, ...) and its owners' files, relative to the repo."""
    owners: dict[str, set[str]] = {}
    modules = own_modules()
    for name, _least, _most, module, *_ in games.GAMES:
        rules = games.load(games.index_of(name))
        for row in rules.VERBS:
            files = owners.setdefault(row[0].decode(), set())
            files.update(f"firmware/{f}" for f in modules[name])
            files.add(f"host/tallyboard/games/{name}.py")
    return owners


def verb_naming(code: str, verb: str) -> list[str]:
    """The lines of code (comments left out) that name a verb as a word in quotes:
    "PEG", b"PEG", 'PEG', or a request text that starts with it ("PEG 0 5")."""
    pattern = rf"""([\"'])({re.escape(verb)})(\1|\s)"""
    return [line.strip() for line in code.splitlines() if re.search(pattern, line.split("#", 1)[0])]


def test_only_a_games_own_modules_name_its_verbs():
    owners = verb_owners()
    assert set(owners) == {"HAND", "MISDEAL", "PEG", "END"}
    problems = []
    root = FIRMWARE.parent
    # the runtime and the whole host (the panel's words on the screen, such as
    # the sheet's "HAND 3", are for people, not the wire)
    for path in sorted([*(FIRMWARE / "tallyrun").rglob("*.py"), *HOST.rglob("*.py")]):
        rel = path.relative_to(root).as_posix()
        code = path.read_text()
        for verb, files in owners.items():
            if rel in files:
                continue
            problems += [f"{rel} names {verb}: {line}" for line in verb_naming(code, verb)]
    assert not problems, "\n".join(problems)


def test_the_verb_check_finds_what_it_looks_for():
    assert verb_naming('    return self.request("PEG", player, points)\n', "PEG")
    assert verb_naming('VERBS = ((b"HAND", ()),)\n', "HAND")
    assert verb_naming("    send(app, 'END')\n", "END")
    assert verb_naming('    text = "PEG 0 5"\n', "PEG")
    assert not verb_naming('    # "PEG" in a comment\n', "PEG")
    assert not verb_naming('    text = "the END of it"\n', "END")
    assert not verb_naming('    kind = "ENDS"\n', "END")
