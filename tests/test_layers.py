"""The layers point one way, read from the source (nothing imported): games -> engine ->
rng/money; analysis, the server, the CLI and the terminal reach a game only through the
protocol and the registry (``reelforge.games``), never its own modules; nothing below
imports from above.  Lazy imports inside functions count as imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PKG = SRC / "reelforge"

# What each layer may import of reelforge (a prefix of a module name); everything else of
# reelforge is above it.
BELOW = {
    "reelforge.money": ("reelforge.money",),
    "reelforge.rng": ("reelforge.rng", "reelforge.money"),
    "reelforge.engine": ("reelforge.engine", "reelforge.rng", "reelforge.money"),
    "reelforge.games": ("reelforge.games", "reelforge.engine", "reelforge.rng", "reelforge.money"),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, text: str) -> list[tuple[int, str]]:
    """Every module the file imports (absolute names; relative ones resolved), with its line;
    and every dotted string passed to ``import_module``/``__import__``."""
    tree = ast.parse(text, str(path))
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            # ``from reelforge.games import kernel`` imports a module of the package too.
            out += [(node.lineno, f"{name}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
            called = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if called in ("import_module", "__import__") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    out.append((node.lineno, arg.value))
    return out


def sources() -> list[Path]:
    return sorted(PKG.rglob("*.py"))


def in_games(name: str) -> bool:
    return name.startswith("reelforge.games.")


REGISTRY_NAMES = {
    "reelforge.games.get_game", "reelforge.games.registry", "reelforge.games.test_games_enabled",
}  # fmt: skip


def violations() -> list[str]:
    return [v for path in sources() for v in file_violations(path, path.read_text())]


def file_violations(path: Path, text: str) -> list[str]:
    """What the file at ``path`` (under src/), holding ``text``, imports against the rules."""
    found = []
    me = module_name(path)
    layer = next((k for k in BELOW if me == k or me.startswith(k + ".")), None)
    for line, name in imports_of(path, text):
        if not name.startswith("reelforge"):
            continue
        where = f"{path.relative_to(SRC)}:{line} imports {name}"
        if layer is not None and not name.startswith(BELOW[layer]):
            found.append(f"{where} (above {layer})")
        elif me == "reelforge.games":
            continue  # the registry: it builds every game
        elif not in_games(me) and in_games(name) and name not in REGISTRY_NAMES:
            found.append(f"{where} (a game's own module, from outside games/)")
        elif in_games(me) and in_games(name) and me.split(".")[2] != name.split(".")[2]:
            found.append(f"{where} (another game's module)")
    return found


def test_no_module_imports_across_the_layers() -> None:
    assert violations() == []


@pytest.mark.parametrize(
    ("where", "source", "expected"),
    [
        ("analysis/planted.py", "from reelforge.games.reign_of_gnomes import kernel\n", "own module"),
        ("server_planted.py", "def f():\n    from reelforge.games.los_3_pinguinos.rules import X\n", "own"),
        ("engine/planted.py", "from reelforge.server import app\n", "above reelforge.engine"),
        ("games/ghost_of_gambini/planted.py", "from ..reign_of_gnomes.exact import rtp\n", "another game"),
        ("rng_planted.py", "import importlib\nimportlib.import_module('reelforge.games.x.t')\n", "own"),
    ],
)
def test_a_planted_import_is_caught(where: str, source: str, expected: str) -> None:
    """The check finds each kind of wrong import, in a file as if it stood at ``where`` (read
    from memory: nothing is written into the source tree another test is reading)."""
    found = file_violations(PKG / where, source)
    assert len(found) == 1 and expected in found[0], found
