"""What the kernel benchmarks share: the machine's busy share while a piece of work runs,
the best of repeated runs, and the C reference (``shared/bench/lines_ref.py``) run in the
same job.  Imported by the bench scripts (run from the repository root)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

C_REFERENCE = Path(__file__).resolve().parents[2] / "shared/bench/lines_ref.py"


def _cpu_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of all cores since boot; (0, 0) where /proc/stat is missing."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return 0, 0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # guest time is already inside user and nice
    return total - idle, total


def _own_cpu() -> float:
    """CPU seconds of this process and its finished children."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def measured(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run ``fn`` and add the machine's busy share while it ran."""
    busy0, total0 = _cpu_ticks()
    own0 = _own_cpu()
    wall0 = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - wall0
    busy1, total1 = _cpu_ticks()
    own = _own_cpu() - own0
    if total1 > total0:
        share = (busy1 - busy0) / (total1 - total0)
        cores = os.cpu_count() or 1
        out["machine_busy"] = round(share, 3)
        out["other_busy"] = round(max(share - own / (wall * cores), 0.0), 3)
    return out


def best(runs: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The fastest of repeated runs, with every run's rate beside it."""
    out = dict(max(runs, key=lambda r: r[key]))
    out["runs_per_second"] = [round(r[key]) for r in runs]
    return out


def c_rate(spins: int) -> dict[str, Any] | None:
    if not C_REFERENCE.exists():
        print(f"C reference not found at {C_REFERENCE}: skipped", file=sys.stderr)
        return None

    def run() -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, str(C_REFERENCE), str(spins)], check=True, capture_output=True, text=True
        )
        return json.loads(done.stdout.strip().splitlines()[-1])

    return measured(run)
