"""Single-core speed of the Los 3 Pinguinos kernel per variant, beside the readable rules and the C ceiling.

Usage: python bench/pinguinos_kernel.py [--rounds 20000000] [--python-rounds 10000]
       [--c-spins 20000000] [--repeats 3]

After a JIT warm-up (and the one-off AUTO decision tables, built before any timing), times
``simulate_chunk`` of every RTP variant (the AUTO play: best holds and nudges, collect on
ladders, the Disco stopped at once; statistics included) on one core, the pure-Python rules
(``start``, then ``auto_action`` and ``advance`` until complete, the machine state carried
over) on the 95 variant, and the C reference loop of ``shared/bench/lines_ref.py`` (a plain
40-line 5x3 base game: the ceiling a compiled Monte Carlo loop reaches on this machine) in
the same job.  Each timed section also reports the machine's busy share while it ran (from
/proc/stat, all cores) and the part of it that was not this job (``other_busy``: other
people's work on a shared machine; trust a ratio only when it is near 0).  The kernel and
the C reference are timed ``--repeats`` times, interleaved, and the fastest run of each is
reported (with every run's rate), which damps, but cannot remove, the noise of a busy
machine.  Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.games.los_3_pinguinos import LosTresPinguinos, strategy
from reelforge.games.los_3_pinguinos.kernel import simulate_chunk, tables
from reelforge.rng import SeededRandom

sys.path.insert(0, str(Path(__file__).parent))
from benchlib import best, c_rate, measured

TARGET_VS_C = 0.25  # the target: at least a quarter of the C reference's rate
AUTO = {"auto_advance": True, "auto_risk": False}


def kernel_rate(game: LosTresPinguinos, variant: str, rounds: int) -> dict[str, Any]:
    d = game.data(variant)

    def run() -> dict[str, Any]:
        start = time.perf_counter()
        stats = simulate_chunk(d, np.random.SeedSequence(1), rounds)
        seconds = time.perf_counter() - start
        return {
            "rounds": rounds,
            "seconds": round(seconds, 3),
            "rounds_per_second": rounds / seconds,
            "rtp": stats.summary()["rtp"],
        }

    return measured(run)


def python_rate(game: LosTresPinguinos, variant: str, rounds: int) -> dict[str, Any]:
    d = game.data(variant)
    # the rules' own exact tables (AUTO's decisions, and the default play's for the default
    # action they offer beside a nudge) are built on first use: outside the timing
    strategy.values(d, "auto")
    strategy.values(d, "default")

    def run() -> dict[str, Any]:
        rng = SeededRandom(1)
        player_state = None
        start = time.perf_counter()
        for _ in range(rounds):
            rnd = game.start(d.game.unit, rng, variant=variant, player_state=player_state)
            while not rnd.complete:
                action = game.auto_action(rnd, AUTO)
                assert action is not None
                game.advance(d, rnd, action, rng)
            player_state = rnd.player_state
        seconds = time.perf_counter() - start
        return {"rounds": rounds, "seconds": round(seconds, 3), "rounds_per_second": rounds / seconds}

    return measured(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000_000, help="kernel rounds timed per variant")
    parser.add_argument("--python-rounds", type=int, default=10_000, help="rules rounds timed (95 variant)")
    parser.add_argument("--c-spins", type=int, default=20_000_000, help="C reference spins")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of the kernel and the C reference")
    args = parser.parse_args()

    game = LosTresPinguinos()
    variants = game.variants
    setup = time.perf_counter()
    for v in variants:  # the AUTO decision tables (exact fractions) and the JIT, outside the timing
        tables(game.data(v))
        simulate_chunk(game.data(v), np.random.SeedSequence(0), 10_000)
    setup = time.perf_counter() - setup  # the rules' default-play tables come on top, in python_rate
    kernel_runs: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
    c_runs: list[dict[str, Any]] = []
    for _ in range(max(args.repeats, 1)):
        for v in variants:
            kernel_runs[v].append(kernel_rate(game, v, args.rounds))
        c_run = c_rate(args.c_spins)
        if c_run is not None:
            c_runs.append(c_run)
    kernel = {v: best(runs, "rounds_per_second") for v, runs in kernel_runs.items()}
    c_ref = best(c_runs, "spins_per_second") if c_runs else None
    python = python_rate(game, game.default_variant, args.python_rounds)
    slowest = min(k["rounds_per_second"] for k in kernel.values())
    ratio = slowest / c_ref["spins_per_second"] if c_ref else None
    out: dict[str, Any] = {
        "setup_seconds": round(setup, 1),
        "kernel": kernel,
        "python_rules": {game.default_variant: python},
        "c_reference": c_ref,
        "kernel_vs_python": kernel[game.default_variant]["rounds_per_second"] / python["rounds_per_second"],
        "kernel_vs_c_reference": {
            v: (k["rounds_per_second"] / c_ref["spins_per_second"] if c_ref else None)
            for v, k in kernel.items()
        },
        "slowest_kernel_vs_c_reference": ratio,
        "target_vs_c_reference": TARGET_VS_C,
        "meets_target": None if ratio is None else ratio >= TARGET_VS_C,
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
