"""A 1,000,000,000-round run of every game mode through the simulation driver, and the
scaling from one worker to two.

Usage: python bench/billion.py [--rounds 1000000000] [--scaling-rounds 100000000]
                               [--workers 2] [--seed 2026] [--only GAME[:MODE]] [-o FILE]

Each mode's long run goes through ``reelforge.analysis.simulate.simulate`` (the driver
behind ``reelforge simulate``) on a local Dask cluster of ``--workers`` processes, with the
default RTP variant, and is checked against the exact RTP (inside the 99% interval or not).
The scaling run plays the same ``--scaling-rounds`` in one process and on two workers: the
results are identical by construction (the chunks are counted in order), so only the time
differs; the ratio is the speed-up.  Every figure carries the machine's busy share while
it ran (``machine_busy``; ``other_busy`` is what other jobs took).  Prints one JSON object
and writes it to ``-o`` (default bench/out/billion.json).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchlib import measured
from reelforge.analysis.simulate import simulate
from reelforge.games import get_game

ROOT = Path(__file__).resolve().parents[1]
MODES = [
    ("reign-of-gnomes", "base"),
    ("ghost-of-gambini", "base"),
    ("ghost-of-gambini", "buy-lock-spin"),
    ("ghost-of-gambini", "buy-super-lock-spin"),
    ("los-3-pinguinos", "base"),
    ("los-3-pinguinos", "upper"),
]


def one_run(game_id: str, mode: str, rounds: int, seed: int, workers: int) -> dict[str, Any]:
    game = get_game(game_id)
    exact = game.exact(mode=mode)
    rtp = float(exact["rtp"])

    def work() -> dict[str, Any]:
        t0 = time.perf_counter()
        sim = simulate(game, rounds, seed, mode=mode, workers=workers)
        sim["wall_seconds"] = time.perf_counter() - t0  # cluster start-up included
        return sim

    sim = measured(work)
    lo, hi = sim["ci99"]
    keep = ("rounds", "rtp", "ci99", "hit_frequency", "std", "max_win", "seconds", "wall_seconds",
            "rounds_per_second", "workers", "chunks", "machine_busy", "other_busy")  # fmt: skip
    out = {k: sim[k] for k in keep if k in sim}
    out.update(game=game_id, mode=mode, variant=sim["variant"], seed=seed, exact_rtp=rtp,
               exact_inside_99=bool(lo <= rtp <= hi))  # fmt: skip
    return out


def scaling(game_id: str, mode: str, rounds: int, seed: int) -> dict[str, Any]:
    game = get_game(game_id)
    game.simulate_chunk(1000, np.random.SeedSequence(0), mode=mode)  # compile the kernel first
    runs = {}
    for workers in (1, 2):
        sim = measured(lambda w=workers: simulate(game, rounds, seed, mode=mode, workers=w))
        runs[workers] = sim
    same = all(runs[1][k] == runs[2][k] for k in ("rtp", "hit_frequency", "rounds"))
    return {
        "game": game_id, "mode": mode, "rounds": rounds,
        "one_worker_rounds_per_second": runs[1]["rounds_per_second"],
        "two_workers_rounds_per_second": runs[2]["rounds_per_second"],
        "speed_up": runs[2]["rounds_per_second"] / runs[1]["rounds_per_second"],
        "identical_results": same,
        "machine_busy": [runs[1].get("machine_busy"), runs[2].get("machine_busy")],
        "other_busy": [runs[1].get("other_busy"), runs[2].get("other_busy")],
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000_000)
    parser.add_argument("--scaling-rounds", type=int, default=100_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--only", action="append", default=[], help="GAME or GAME:MODE (repeatable)")
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "bench/out/billion.json")
    args = parser.parse_args()

    chosen = [
        (g, m) for g, m in MODES
        if not args.only or any(o in (g, f"{g}:{m}") for o in args.only)
    ]  # fmt: skip
    report: dict[str, Any] = {"runs": [], "scaling": None}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    for game_id, mode in chosen:
        run = one_run(game_id, mode, args.rounds, args.seed, args.workers)
        report["runs"].append(run)
        print(json.dumps(run), file=sys.stderr, flush=True)
        args.output.write_text(json.dumps(report, indent=1) + "\n")  # kept as it goes
    if args.scaling_rounds:
        report["scaling"] = scaling("reign-of-gnomes", "base", args.scaling_rounds, args.seed)
    args.output.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
