"""The host's layout: its packages in layers (tallyboard.LAYERS, bottom up:
a module imports only from its own package and the ones below), one profile
per game (tallyboard.games) in the order of the core's registry, no import
circle, no game named outside games/, no private name imported across
modules."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import tallyboard
from tallyboard import games
from tallyboard.games import base
from tallycore import games as core_games

HOST = Path(__file__).resolve().parent.parent / "host" / "tallyboard"
GAME_NAMES = core_games.names()

ALLOWED_NAMES: set[tuple[str, str]] = set()
ALLOWED_PRIVATE: set[tuple[str, str]] = set()


def host_modules() -> dict[str, Path]:
    """Every host module by dotted name (tallyboard.scorebook.records, tallyboard.games.skicket, ...)."""
    out = {}
    for path in sorted(HOST.rglob("*.py")):
        parts = list(path.relative_to(HOST.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = host_modules()


def package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def imported(module: str, path: Path) -> list[tuple[str, list[str]]]:
    """(absolute module, names taken from it) for every import in the file,
    function-level ones included."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package_of(module, path).split(".")
                base_parts = base_parts[:len(base_parts) - (node.level - 1)]
                target = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((target, [alias.name for alias in node.names]))
    return out


def host_edges(module: str, path: Path) -> set[str]:
    """The host modules a module imports (`from package import module` is
    an import of that module, not of the package's own names)."""
    edges = set()
    for target, names in imported(module, path):
        submodules = {f"{target}.{name}" for name in names} & set(MODULES)
        edges.update(submodules)
        if target in MODULES and (not names or len(submodules) < len(names)):
            edges.add(target)   # a name the package itself defines
    if module == "tallyboard.games":   # the registry imports its profiles by name
        edges.update(f"tallyboard.games.{m}" for m in games.PROFILE_MODULES)
    edges.discard(module)
    return edges


def test_the_profiles_are_the_core_games_in_wire_order():
    assert list(games.PROFILE_MODULES) == GAME_NAMES
    assert games.names() == GAME_NAMES
    for name, profile in zip(GAME_NAMES, games.profiles()):
        assert isinstance(profile, base.GameProfile)
        assert profile.name == name
        assert games.profile(name) is profile
        assert profile.rules is core_games.by_name(name)


def test_an_unknown_game_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match="unknown game 'whist'; known games: skicket, roquet, "):
        games.profile("whist")


def test_how_each_game_is_won_agrees_with_its_rules():
    for profile in games.profiles():
        assert profile.wins in base.WINS, profile.name
        target = getattr(profile.rules, "TARGET", None)
        if target is not None:
            assert (profile.wins == base.WINS_TARGET) == bool(target), profile.name


def test_each_game_has_an_example_hand_it_accepts():
    # The example `enter` gives after bad JSON is a hand the game takes as
    # its first, with some number of players in its range (default options).
    import json

    from tallycore import game as core_game

    for profile in games.profiles():
        hand = json.loads(profile.example_hand)
        accepted = []
        for players in range(profile.fewest_players, core_games.GAMES[profile.index][2] + 1):
            g = core_game.Game()
            g.new(profile.index, players, 0)
            try:
                for event in profile.events(hand, players, {}):
                    g.apply(event)
            except ValueError:
                continue
            accepted.append(players)
        assert accepted, (profile.name, profile.example_hand)


def test_the_own_verbs_have_one_game_each():
    owners = {}
    for profile in games.profiles():
        for verb in profile.verbs:
            assert verb not in owners, f"{verb}: {owners.get(verb)} and {profile.name}"
            owners[verb] = profile.name
            assert games.by_verb(verb) is profile
        if profile.verbs:
            assert profile.send is not None, profile.name


def test_the_host_has_no_import_circle():
    graph = {module: host_edges(module, path) for module, path in MODULES.items()}
    state: dict[str, int] = {}   # 1 on the current path, 2 done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                circle = path[path.index(target):] + [target]
                pytest.fail("import circle: " + " -> ".join(circle))
            if target not in state:
                visit(target, path + [target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


LAYER_OF = {name: rank for rank, (name, _) in enumerate(tallyboard.LAYERS)}


def layer_of(module: str) -> int:
    """The rank of a host module's layer in tallyboard.LAYERS (the package
    root's __init__ is below them all: it names them, imports none)."""
    if module == "tallyboard":
        return -1
    part = module.split(".")[1]
    assert part in LAYER_OF, f"{module}: its package {part!r} is not in tallyboard.LAYERS; add it there, in its place"
    return LAYER_OF[part]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return [f"{module} imports {target} (layer {tallyboard.LAYERS[layer_of(target)][0]} is above "
            f"{tallyboard.LAYERS[layer_of(module)][0]})"
            for module, targets in sorted(graph.items()) for target in sorted(targets)
            if layer_of(target) > layer_of(module)]


def test_every_host_module_imports_only_its_own_layer_and_the_ones_below():
    graph = {module: host_edges(module, path) for module, path in MODULES.items()}
    assert not upward_imports(graph), "\n".join(upward_imports(graph))


def test_the_layer_check_finds_an_upward_import(tmp_path):
    # a module of the link to a board planted with an import of the evening's package
    planted = tmp_path / "planted.py"
    planted.write_text("from ..evening import store\nfrom ..common import errors\n")
    edges = host_edges("tallyboard.boardlink.planted", planted)
    assert edges == {"tallyboard.evening.store", "tallyboard.common.errors"}
    assert upward_imports({"tallyboard.boardlink.planted": edges}) == [
        "tallyboard.boardlink.planted imports tallyboard.evening.store (layer evening is above boardlink)"]


def test_the_layers_are_the_host_packages():
    tops = {module.split(".")[1] for module in MODULES if module != "tallyboard"}
    assert tops == set(LAYER_OF)
    assert len(LAYER_OF) == len(tallyboard.LAYERS)


def test_the_profiles_import_nothing_of_the_host_above_them():
    for module, path in MODULES.items():
        if module.startswith("tallyboard.games"):
            above = {m for m in host_edges(module, path) if not m.startswith("tallyboard.games")}
            assert not above, f"{module} imports {sorted(above)}"


def docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def named_games(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every identifier, import or string (docstrings and
    comments aside) that names a game."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = docstrings(tree)
    in_identifier = re.compile(r"(?:^|_)(" + "|".join(GAME_NAMES) + r")(?:_|$)")
    in_text = re.compile(r"\b(" + "|".join(GAME_NAMES) + r")\b")
    found = []
    for node in ast.walk(tree):
        words: list[str] = []
        if isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            words = [node.name]
        elif isinstance(node, ast.arg):
            words = [node.arg]
        elif isinstance(node, ast.alias):
            words = [node.name.rpartition(".")[2]] + ([node.asname] if node.asname else [])
        elif isinstance(node, ast.ImportFrom) and node.module:
            words = [node.module.rpartition(".")[2]]
        for word in words:
            match = in_identifier.search(word)
            if match:
                found.append((getattr(node, "lineno", 0), match.group(1)))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            match = in_text.search(node.value)
            if match:
                found.append((node.lineno, match.group(1)))
    return found


def test_no_module_outside_games_names_a_game():
    problems = []
    for module, path in MODULES.items():
        where = path.relative_to(HOST).as_posix()
        if where.startswith("games/"):
            continue
        for line, name in named_games(path):
            if (where, name) not in ALLOWED_NAMES:
                problems.append(f"{where}:{line}: {name}")
    assert not problems, "look the game up with tallyboard.games.profile instead:\n" + "\n".join(problems)


def test_the_game_check_finds_a_game_named(tmp_path):
    # the check itself, on the lines the commands had before the profiles
    sample = tmp_path / "sample.py"
    sample.write_text('from tallycore import games, roquet, skicket\n'
                      'if current.name != "skicket":\n'
                      '    raise TallyboardError("not skicket")\n'
                      'elif current.name == "roquet":\n'
                      '    parts.append(peg_rows(current))\n')
    assert {name for _, name in named_games(sample)} >= {"skicket", "roquet"}


def test_no_private_name_is_imported_across_modules():
    problems = []
    for module, path in MODULES.items():
        where = path.relative_to(HOST).as_posix()
        for target, names in imported(module, path):
            if not target.startswith("tallyboard"):
                continue
            for name in names:
                if name.startswith("_") and (where, name) not in ALLOWED_PRIVATE:
                    problems.append(f"{where}: {name} from {target}")
    assert not problems, "\n".join(problems)
