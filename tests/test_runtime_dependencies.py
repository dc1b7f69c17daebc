"""`./run.sh` installs only the project's runtime dependencies (pyproject's ``dependencies``;
the test tools are ``./test.sh``'s): everything the server and the CLI load must come from those
and what they require.  A package that only the dev extras bring in (greenlet came with
Playwright) would pass every test and still break the README's first command."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent

# What a serving process imports (the app, with the event-loop path, and the CLI that starts
# it), less what the interpreter loads at start (site hooks such as setuptools' .pth file).
LOAD = """
import json, sys
before = {m.split('.')[0] for m in sys.modules}
import reelforge.cli, reelforge.server.http.app  # noqa: F401
print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} - before)))
"""


def _closure(requirements: list[str]) -> set[str]:
    """The distributions the requirements install, their extras and their own requirements."""
    seen: set[str] = set()
    todo = [(Requirement(r), "") for r in requirements]
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(req.name)
        key = name + "[" + ",".join(sorted(req.extras)) + "]"
        if key in seen:
            continue
        seen.add(key)
        for sub in metadata.requires(req.name) or []:
            sub_req = Requirement(sub)
            if sub_req.marker is None:
                todo.append((sub_req, ""))
            else:
                todo.extend((sub_req, e) for e in ("", *req.extras))
    return {k.split("[")[0] for k in seen}


def test_the_server_loads_only_what_the_runtime_dependencies_install() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    installed = _closure(declared)
    out = subprocess.run([sys.executable, "-c", LOAD], capture_output=True, text=True, check=True).stdout
    owners = metadata.packages_distributions()
    needed = {
        canonicalize_name(dist)
        for module in json.loads(out)
        for dist in owners.get(module, [])
        if canonicalize_name(dist) != "reelforge"
    }
    assert "greenlet" in needed  # the check sees what SQLAlchemy's asyncio loads
    assert needed <= installed, sorted(needed - installed)
