"""The server's layers (src/reelforge/server/): every module lives in a subpackage, each subpackage
says its purpose in a one-line docstring, and imports point one way: no cycle among the
subpackages, none among the modules.

Read with ``ast``, never imported.  Every import counts: at module level, under
``if TYPE_CHECKING:`` and inside functions alike, so a circle hidden in a lazy import is still a
circle.  The alembic scripts (``storage/migrations/``) are not modules of the server and are
left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parent.parent / "src" / "reelforge" / "server"
PREFIX = "reelforge.server"


def module_name(path: Path) -> str:
    parts = path.relative_to(SERVER.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def server_modules(root: Path = SERVER) -> dict[str, Path]:
    """{dotted name: file} for every Python module of the server but the migrations."""
    return {
        module_name(p): p
        for p in sorted(root.rglob("*.py"))
        if "migrations" not in p.relative_to(root).parts
    }


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The server modules ``name`` imports, wherever in the file the import stands (``from
    reelforge.server.play import rounds`` names the module ``...play.rounds``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            found.add(source)
            found.update(f"{source}.{alias.name}" for alias in node.names)
    # ``import a.b.c`` also imports its packages; the packages' own __init__ files import nothing.
    return {m for m in found if m in known and m != name}


def subpackage(name: str) -> str | None:
    """``reelforge.server.play.rounds`` -> ``play``; None for ``reelforge.server`` itself."""
    rest = name[len(PREFIX) + 1 :] if name.startswith(PREFIX + ".") else ""
    return rest.split(".")[0] or None


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as [a, b, ..., a], or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(graph, WHITE)
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = GREY
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if colour.get(nxt, WHITE) == GREY:
                return [*stack[stack.index(nxt) :], nxt]
            if colour.get(nxt, WHITE) == WHITE and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        colour[node] = BLACK
        return None

    for node in sorted(graph):
        if colour[node] == WHITE and (cycle := visit(node)):
            return cycle
    return None


def module_graph(root: Path = SERVER) -> dict[str, set[str]]:
    modules = server_modules(root)
    return {name: imported(name, path, set(modules)) for name, path in modules.items()}


def subpackage_graph(modules: dict[str, set[str]]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, deps in modules.items():
        if (pkg := subpackage(name)) is None:
            continue
        graph.setdefault(pkg, set()).update(d for d in map(subpackage, deps) if d and d != pkg)
    return graph


def test_the_graph_sees_the_server() -> None:
    """The parse finds the modules and their imports (else the checks below prove nothing)."""
    modules = module_graph()
    assert len(modules) > 40
    assert f"{PREFIX}.storage.store" in modules[f"{PREFIX}.play.rounds"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_every_module_lives_in_a_subpackage() -> None:
    loose = [p.name for p in SERVER.glob("*.py") if p.name != "__init__.py"]
    assert not loose, f"modules directly in server/ (put each in the subpackage of its concern): {loose}"


def test_no_cycle_among_subpackages() -> None:
    graph = subpackage_graph(module_graph())
    assert len(graph) >= 5
    cycle = find_cycle(graph)
    assert cycle is None, "subpackages import each other in a circle: " + " -> ".join(cycle or [])


def test_no_cycle_among_modules() -> None:
    cycle = find_cycle(module_graph())
    assert cycle is None, "modules import each other in a circle: " + " -> ".join(cycle or [])


def test_every_subpackage_says_its_purpose_in_one_line() -> None:
    packages = sorted(p.parent for p in SERVER.glob("*/__init__.py"))
    assert packages
    for init in (p / "__init__.py" for p in packages):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and doc.strip(), f"{init.relative_to(SERVER)}: no docstring"
        assert "\n" not in doc.strip(), f"{init.relative_to(SERVER)}: the docstring is one line"
