"""Single-core speed of the Ghost of Gambini kernel per mode, beside the readable rules and the C ceiling.

Usage: python bench/gambini_kernel.py [--rounds 20000000] [--buy-rounds 2000000]
       [--python-rounds 10000] [--python-buy-rounds 3000] [--c-spins 20000000] [--repeats 3]

After a JIT warm-up, times ``simulate_chunk`` of each mode (``base``: panel, piggies,
Lock & Spin, cap continuation and statistics included; the two bought features) on one
core, the pure-Python rules (``start`` then ``advance`` until complete, piggies carried
over), and the C reference loop of ``shared/bench/lines_ref.py`` (a plain 40-line 5x3 base
game: the ceiling a compiled Monte Carlo loop reaches on this machine) in the same job.
Each timed section also reports the machine's busy share while it ran (from /proc/stat, all
cores) and the part of it that was not this job (``other_busy``: other people's work on a
shared machine; trust a ratio only when it is near 0).  The kernel and the C reference are
timed ``--repeats`` times, interleaved, and the fastest run of each is reported (with every
run's rate), which damps, but cannot remove, the noise of a busy machine.  Prints one JSON
object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.games.ghost_of_gambini import GhostOfGambini
from reelforge.games.ghost_of_gambini.kernel import MODES, simulate_chunk
from reelforge.rng import SeededRandom

sys.path.insert(0, str(Path(__file__).parent))
from benchlib import best, c_rate, measured

TARGET_VS_C = 0.5  # the target: base mode at least half the C reference's rate


def kernel_rate(game: GhostOfGambini, mode: str, rounds: int) -> dict[str, Any]:
    d = game.data()
    simulate_chunk(d, np.random.SeedSequence(0), 10_000, mode)  # JIT (or cache load) outside the timing

    def run() -> dict[str, Any]:
        start = time.perf_counter()
        stats = simulate_chunk(d, np.random.SeedSequence(1), rounds, mode)
        seconds = time.perf_counter() - start
        return {
            "rounds": rounds,
            "seconds": round(seconds, 3),
            "rounds_per_second": rounds / seconds,
            "rtp_uncapped": stats.summary()["rtp_uncapped"],
        }

    return measured(run)


def python_rate(game: GhostOfGambini, mode: str, rounds: int) -> dict[str, Any]:
    d = game.data()
    stake = game.bet_levels()[0].stake

    def run() -> dict[str, Any]:
        rng = SeededRandom(1)
        player_state = None
        start = time.perf_counter()
        for _ in range(rounds):
            rnd = game.start(stake, rng, mode=mode, player_state=player_state)
            while not rnd.complete:
                game.advance(d, rnd, rng)
            if mode == "base":
                player_state = rnd.player_state
        seconds = time.perf_counter() - start
        return {"rounds": rounds, "seconds": round(seconds, 3), "rounds_per_second": rounds / seconds}

    return measured(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000_000, help="kernel rounds timed, base mode")
    parser.add_argument("--buy-rounds", type=int, default=2_000_000, help="kernel rounds timed, buy modes")
    parser.add_argument("--python-rounds", type=int, default=10_000, help="rules rounds timed, base mode")
    parser.add_argument("--python-buy-rounds", type=int, default=3_000, help="rules rounds timed, buy modes")
    parser.add_argument("--c-spins", type=int, default=20_000_000, help="C reference spins")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of the kernel and the C reference")
    args = parser.parse_args()

    game = GhostOfGambini()
    kernel_runs: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
    c_runs: list[dict[str, Any]] = []
    for _ in range(max(args.repeats, 1)):
        for m in MODES:
            kernel_runs[m].append(kernel_rate(game, m, args.rounds if m == "base" else args.buy_rounds))
        c_run = c_rate(args.c_spins)
        if c_run is not None:
            c_runs.append(c_run)
    kernel = {m: best(runs, "rounds_per_second") for m, runs in kernel_runs.items()}
    c_ref = best(c_runs, "spins_per_second") if c_runs else None
    python = {
        m: python_rate(game, m, args.python_rounds if m == "base" else args.python_buy_rounds) for m in MODES
    }
    base = kernel["base"]["rounds_per_second"]
    ratio = base / c_ref["spins_per_second"] if c_ref else None
    out: dict[str, Any] = {
        "kernel": kernel,
        "python_rules": python,
        "c_reference": c_ref,
        "kernel_vs_python": {
            m: kernel[m]["rounds_per_second"] / python[m]["rounds_per_second"] for m in MODES
        },
        "base_kernel_vs_c_reference": ratio,
        "target_vs_c_reference": TARGET_VS_C,
        "meets_target": None if ratio is None else ratio >= TARGET_VS_C,
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
