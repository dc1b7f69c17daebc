"""Single-core speed of the Los 3 Pinguinos upper-game kernel, beside the readable rules and the C ceiling.

Usage: python bench/pinguinos_upper_kernel.py [--rounds 20000000] [--python-rounds 10000]
       [--c-spins 20000000] [--repeats 3]

After a JIT warm-up (and the per-bet lookup tables, built before any timing), times
``upper_kernel.simulate_chunk`` (statistics included) of every RTP variant at the €0.20+1 bet
under COLLECT, and of the 95 variant at the €15+150 bet (mixed sevens) under COLLECT and
AUTO-RISK, on one core; the pure-Python rules (``start(..., mode="upper")``, then
``auto_action`` and ``advance`` until complete, the machine carried over) on the 95 variant at
the €0.20+1 bet under COLLECT; and the C reference loop of ``shared/bench/lines_ref.py`` (a
plain 40-line 5x3 base game: the ceiling a compiled Monte Carlo loop reaches on this machine)
in the same job.  Each timed section reports the machine's busy share while it ran and the
part that was not this job (``other_busy``: trust a ratio only when it is near 0).  The kernel
and the C reference are timed ``--repeats`` times, interleaved, and the fastest run of each is
reported with every run's rate.  Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.games.los_3_pinguinos import LosTresPinguinos
from reelforge.games.los_3_pinguinos.upper_kernel import simulate_chunk, tables
from reelforge.rng import SeededRandom

sys.path.insert(0, str(Path(__file__).parent))
from benchlib import best, c_rate, measured

TARGET_VS_C = 0.25  # as the lower game's kernel: at least a quarter of the C reference's rate


def kernel_rate(game: LosTresPinguinos, variant: str, bet: int, risk: bool, rounds: int) -> dict[str, Any]:
    d = game.data(variant)

    def run() -> dict[str, Any]:
        start = time.perf_counter()
        stats = simulate_chunk(d, np.random.SeedSequence(1), rounds, bet, risk)
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
    stake = d.upper_stakes[0]
    settings = {"auto_advance": True, "auto_risk": False}

    def run() -> dict[str, Any]:
        rng = SeededRandom(1)
        machine: dict[str, Any] = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
        start = time.perf_counter()
        for _ in range(rounds):
            machine["bonuses"] = d.upper.bets[0].bonuses  # Bonuses for every game
            rnd = game.start(stake, rng, variant=variant, mode="upper", player_state=machine)
            while not rnd.complete:
                action = game.auto_action(rnd, settings)
                assert action is not None
                game.advance(d, rnd, action, rng)
            machine = rnd.player_state
        seconds = time.perf_counter() - start
        return {"rounds": rounds, "seconds": round(seconds, 3), "rounds_per_second": rounds / seconds}

    return measured(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000_000, help="kernel rounds timed per case")
    parser.add_argument("--python-rounds", type=int, default=10_000, help="rules rounds timed (95 variant)")
    parser.add_argument("--c-spins", type=int, default=20_000_000, help="C reference spins")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of the kernel and the C reference")
    args = parser.parse_args()

    game = LosTresPinguinos()
    top = len(game.data().upper.bets) - 1
    cases = {f"{v} bet 0 collect": (v, 0, False) for v in game.variants}
    cases |= {f"95 bet {top} collect": ("95", top, False), f"95 bet {top} risk": ("95", top, True)}
    setup = time.perf_counter()
    for v, bet, risk in cases.values():  # the tables and the JIT, outside the timing
        tables(game.data(v), bet)
        simulate_chunk(game.data(v), np.random.SeedSequence(0), 10_000, bet, risk)
    setup = time.perf_counter() - setup
    kernel_runs: dict[str, list[dict[str, Any]]] = {name: [] for name in cases}
    c_runs: list[dict[str, Any]] = []
    for _ in range(max(args.repeats, 1)):
        for name, (v, bet, risk) in cases.items():
            kernel_runs[name].append(kernel_rate(game, v, bet, risk, args.rounds))
        c_run = c_rate(args.c_spins)
        if c_run is not None:
            c_runs.append(c_run)
    kernel = {name: best(runs, "rounds_per_second") for name, runs in kernel_runs.items()}
    c_ref = best(c_runs, "spins_per_second") if c_runs else None
    python = python_rate(game, "95", args.python_rounds)
    slowest = min(k["rounds_per_second"] for k in kernel.values())
    ratio = slowest / c_ref["spins_per_second"] if c_ref else None
    out: dict[str, Any] = {
        "setup_seconds": round(setup, 1),
        "kernel": kernel,
        "python_rules": {"95 bet 0 collect": python},
        "c_reference": c_ref,
        "kernel_vs_python": kernel["95 bet 0 collect"]["rounds_per_second"] / python["rounds_per_second"],
        "kernel_vs_c_reference": {
            name: (k["rounds_per_second"] / c_ref["spins_per_second"] if c_ref else None)
            for name, k in kernel.items()
        },
        "slowest_kernel_vs_c_reference": ratio,
        "target_vs_c_reference": TARGET_VS_C,
        "meets_target": None if ratio is None else ratio >= TARGET_VS_C,
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
