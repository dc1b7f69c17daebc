"""The manifest: SHA-256 of every file that decides a game's outcomes, and of the bundle's
own evidence files; ``reelforge certify --verify`` recomputes and compares them.

Which source files: the game's whole package (its rules, exact math, kernels and its data
files under ``data/``), then every ``reelforge`` module those files import, followed
transitively (found by reading their ``import`` statements, so the engine, ``rng.py`` and
``money.py`` come in because the rules use them, and a module the rules start using joins
the list by itself), the ``__init__.py`` of every package on the way (an import runs them),
which brings ``reelforge/__init__.py`` and its package version.  Paths are
relative to the folder holding the ``reelforge`` package.
"""

from __future__ import annotations

import ast
import datetime as dt
import hashlib
import json
import platform
import sys
from pathlib import Path
from typing import Any

import reelforge
from reelforge.engine.game import Game

from .model import Section

MANIFEST = "manifest.json"
PACKAGE_ROOT = Path(reelforge.__file__).resolve().parent
SOURCE_ROOT = PACKAGE_ROOT.parent
SKIP_SUFFIXES = (".pyc", ".nbi", ".nbc")  # byte code and numba caches: built, not written


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def game_module_file(game: Game) -> Path:
    """The file of the module defining the game's class (for a data-only game, the engine's)."""
    module = sys.modules[type(game).__module__]
    assert module.__file__ is not None
    return Path(module.__file__).resolve()


def _module_file(name: str) -> Path | None:
    parts = name.split(".")
    if parts[0] != "reelforge":
        return None
    base = SOURCE_ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(path: Path) -> set[str]:
    """The absolute names of the modules ``path`` imports (anywhere in it, functions too)."""
    rel = path.relative_to(SOURCE_ROOT).with_suffix("")
    package = list(rel.parts[:-1])  # a module's package; an __init__'s own package
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                head = ".".join(base + ([node.module] if node.module else []))
            else:
                head = node.module or ""
            names.add(head)
            names.update(f"{head}.{alias.name}" for alias in node.names)  # `from pkg import mod`
    return names


def source_files(game: Game) -> list[Path]:
    """The game's folder and the import closure of its Python files and of its class's module
    (for a game written only as data, the engine's building block that plays it), sorted."""
    files = {
        p
        for p in game.folder.resolve().rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(SKIP_SUFFIXES)
    }
    files.add(PACKAGE_ROOT / "__init__.py")
    files.add(game_module_file(game))
    todo = [p for p in files if p.suffix == ".py"]
    while todo:
        for name in _imports(todo.pop()):
            found = _module_file(name)
            if found is not None and found not in files:
                files.add(found)
                todo.append(found)
    # Importing a module runs its packages' __init__ first (reelforge/engine/__init__.py, ...).
    for path in list(files):
        for parent in path.parents:
            if parent == SOURCE_ROOT:
                break
            if (parent / "__init__.py").is_file():
                files.add(parent / "__init__.py")
    return sorted(files)


def _rel(path: Path) -> str:
    return path.relative_to(SOURCE_ROOT).as_posix()


def write_manifest(game: Game, out_dir: Path, data_files: list[str]) -> dict[str, Any]:
    manifest = {
        "format": 1,
        "game": game.id,
        "game_name": game.name,
        "game_version": game.version,
        "package": "reelforge",
        "package_version": reelforge.__version__,
        "python": platform.python_version(),
        "generated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "data_files": data_files,
        "sources": {_rel(p): sha256(p) for p in source_files(game)},
        "evidence": {},
    }
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def seal(out_dir: Path) -> int:
    """Add the digest of every other file in the bundle to the manifest (written last)."""
    path = out_dir / MANIFEST
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["evidence"] = {
        p.relative_to(out_dir).as_posix(): sha256(p)
        for p in sorted(out_dir.rglob("*"))
        if p.is_file() and p.name != MANIFEST
    }
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return len(manifest["evidence"])


def verify(out_dir: Path) -> list[str]:
    """Every mismatch between the bundle's manifest and the installed package and bundle
    files, one line each; empty when all agree."""
    from reelforge.games import get_game

    manifest = json.loads((out_dir / MANIFEST).read_text(encoding="utf-8"))
    problems = []
    if manifest["package_version"] != reelforge.__version__:
        problems.append(
            f"package version: manifest {manifest['package_version']}, installed {reelforge.__version__}"
        )
    game = get_game(manifest["game"])
    if manifest["game_version"] != game.version:
        problems.append(f"game version: manifest {manifest['game_version']}, installed {game.version}")
    now = {_rel(p) for p in source_files(game)}
    for name in sorted(now - set(manifest["sources"])):
        problems.append(f"{name}: a source file the manifest does not list")
    for group, root in (("sources", SOURCE_ROOT), ("evidence", out_dir)):
        for name, digest in manifest[group].items():
            path = root / name
            if not path.is_file():
                problems.append(f"{name}: missing")
            elif sha256(path) != digest:
                problems.append(f"{name}: SHA-256 {sha256(path)} is not the manifest's {digest}")
    return problems


def build(game: Game, out_dir: Path, data_files: list[str]) -> Section:
    manifest = write_manifest(game, out_dir, data_files)
    return Section(
        "digests",
        "Digests (manifest)",
        [MANIFEST],
        None,
        [
            f"reelforge {manifest['package_version']}, {game.name} {game.version}",
            f"{len(manifest['sources'])} source and data files digested (SHA-256); "
            "the bundle's own files are added when it is sealed",
            f"check with: reelforge certify --verify {out_dir.name}",
        ],
    )
