"""Where a spin's server CPU goes, by layer, from py-spy's raw collapsed stacks.

Usage: python bench/profile_layers.py DIR [--load RESULT.json] [--top N]

DIR holds the ``worker-*.txt`` files ``bench/server_load.py --py-spy DIR`` records (raw
stacks of the thread holding the GIL, so threads waiting on a socket are not counted).
Every sample is put in one layer by its innermost frame that belongs to a layer; frames of
the standard library's plumbing (contextlib, functools, typing…) take the layer of their
caller.  With ``--load`` (the bench's JSON output of the same run) the shares are turned
into CPU ms per spin: the server's measured CPU per spin times each layer's share, and
the database's own CPU per spin beside them.  The GIL-holding samples miss the CPU spent
with the GIL released (the kernel's socket work under psycopg and uvloop), which the
split therefore spreads over the layers in proportion.

Layers:
  http       uvicorn, httptools, starlette, FastAPI (routing, dependencies, request
             validation), reelforge's api.py (the endpoint functions, middleware)
  handoff    the thread hand-off: anyio's worker threads, queue/threading, asyncio futures
  service    reelforge.server's own code (sessions, rounds, wallet, store, context)
  rules      the game: reelforge.games, reelforge.engine, reelforge.rng / money
  json       JSON encoding and decoding (json, orjson) and pydantic's dumps and loads
             of the round (model_dump_json / model_validate_json / model_dump)
  sql        the SQL layer in the process: reelforge's sql.py, SQLAlchemy (transactions,
             pool), psycopg (query building, adaptation, result parsing, the protocol)
  ceiling    the bench's ceiling endpoint (bench/ceiling_app.py) outside its SQL and JSON
  other      anything else (the event loop's own C code with no Python frame of ours)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^():]+):(?P<line>\d+)\)$")

LAYERS = ("http", "handoff", "service", "rules", "json", "sql", "ceiling", "other")
LABELS = {
    "http": "HTTP: uvicorn + FastAPI routing and validation",
    "handoff": "thread hand-off (anyio worker threads)",
    "service": "service layer (sessions, rounds, wallet, store)",
    "rules": "the game's rules (engine, games, RNG)",
    "json": "JSON encoding/decoding (reply, stored reply, round state)",
    "sql": "SQL in the driver (sql.py, SQLAlchemy, psycopg)",
    "ceiling": "ceiling endpoint's own code",
    "other": "other (event loop, unattributed)",
}

# (prefix of the frame's file, layer): the first match decides; None = take the caller's.
RULES: tuple[tuple[str, str | None], ...] = (
    ("json/", "json"),
    ("orjson", "json"),
    ("psycopg", "sql"),
    ("sqlalchemy/", "sql"),
    ("reelforge/server/storage/sql.py", "sql"),
    ("reelforge/server/http/api.py", "http"),
    ("reelforge/server/http/app.py", "http"),
    ("reelforge/server/", "service"),
    ("reelforge/games/", "rules"),
    ("reelforge/engine/", "rules"),
    ("reelforge/rng.py", "rules"),
    ("reelforge/money.py", "rules"),
    ("ceiling_app.py", "ceiling"),
    ("anyio/", "handoff"),
    ("starlette/concurrency.py", "handoff"),
    ("threading.py", "handoff"),
    ("queue.py", "handoff"),
    ("concurrent/", "handoff"),
    ("asyncio/futures.py", "handoff"),
    ("asyncio/locks.py", "handoff"),
    ("uvicorn/", "http"),
    ("httptools", "http"),
    ("h11/", "http"),
    ("starlette/", "http"),
    ("fastapi/", "http"),
    ("pydantic/", None),  # decided below by what it was asked to do and by whom
)

_JSONISH = ("json", "dump")


def frame_layer(func: str, file: str, caller: str | None) -> str | None:
    for prefix, layer in RULES:
        if file.startswith(prefix) or f"/{prefix}" in file:
            if prefix == "pydantic/":
                # Round (de)serialisation is JSON work; request validation is HTTP; a game
                # building its models is the game's.
                if any(w in func for w in _JSONISH) and caller in ("service", "rules", "sql", None):
                    return "json"
                return None
            return layer
    return None


def classify(stack: list[tuple[str, str]]) -> str:
    """The layer of one sample: its innermost decisive frame (stack root first)."""
    layers = []
    caller: str | None = None
    for func, file in stack:  # root to leaf, so a pydantic frame knows its caller's layer
        layer = frame_layer(func, file, caller)
        layers.append(layer)
        if layer is not None:
            caller = layer
    for layer in reversed(layers):
        if layer is not None:
            return layer
    return "other"


def parse(line: str) -> tuple[list[tuple[str, str]], int] | None:
    line = line.rstrip("\n")
    if not line.strip():
        return None
    stack_text, _, count = line.rpartition(" ")
    if not count.isdigit():
        return None
    frames = []
    for part in stack_text.split(";"):
        m = FRAME.match(part.strip())
        if m:
            frames.append((m["func"], m["file"]))
        else:
            frames.append((part.strip(), ""))
    return frames, int(count)


def profile(paths: list[Path]) -> tuple[Counter, Counter, int]:
    layers: Counter = Counter()
    leaves: Counter = Counter()
    total = 0
    for path in paths:
        for line in path.read_text(errors="replace").splitlines():
            parsed = parse(line)
            if parsed is None:
                continue
            stack, n = parsed
            layer = classify(stack)
            layers[layer] += n
            func, file = stack[-1] if stack else ("?", "?")
            leaves[(layer, f"{func} ({file})")] += n
            total += n
    return layers, leaves, total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", type=Path, help="the --py-spy DIR of a bench run (or one raw file)")
    ap.add_argument("--load", type=Path, default=None, help="that run's server_load.py JSON output")
    ap.add_argument("--top", type=int, default=0, help="also print the N hottest leaf frames")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()
    paths = sorted(args.dir.glob("worker-*.txt")) if args.dir.is_dir() else [args.dir]
    layers, leaves, total = profile(paths)
    if not total:
        print("no samples", file=sys.stderr)
        return 1
    cpu = None
    if args.load is not None:
        result = json.loads(args.load.read_text())
        if "ceiling" in result and "reelforge" in result:  # a --ceiling run: the reelforge part
            result = result["reelforge"]
        cpu = result.get("cpu", {})
    per_spin = cpu.get("server_cpu_ms_per_spin") if cpu else None
    out = {
        "samples": total,
        "layers": {
            name: {
                "share": round(layers[name] / total, 4),
                **({"ms_per_spin": round(per_spin * layers[name] / total, 3)} if per_spin else {}),
            }
            for name in LAYERS
        },
    }
    if cpu:
        out["server_cpu_ms_per_spin"] = per_spin
        out["db_cpu_ms_per_spin"] = cpu.get("db_cpu_ms_per_spin")
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"{total} samples")
        for name in LAYERS:
            row = out["layers"][name]
            ms = f"{row['ms_per_spin']:7.3f} ms" if "ms_per_spin" in row else ""
            print(f"  {LABELS[name]:<58} {row['share'] * 100:5.1f}%  {ms}")
        if cpu:
            print(f"  {'server process, all layers':<58} {'':6}  {per_spin:7.3f} ms")
            db = cpu.get("db_cpu_ms_per_spin")
            if db is not None:
                print(f"  {'the database own CPU (PostgreSQL backends)':<58} {'':6}  {db:7.3f} ms")
    if args.top:
        print()
        for (layer, leaf), n in leaves.most_common(args.top):
            print(f"{n:6d} {n / total * 100:5.1f}%  {layer:<8} {leaf}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
