"""Single-core speed of the Reign of Gnomes kernel, beside the readable rules and the C ceiling.

Usage: python bench/gnomes_kernel.py [--rounds 20000000] [--python-rounds 10000] [--c-spins 20000000]

After a JIT warm-up, times ``simulate_chunk`` (features, cap continuation and statistics
included) on one core, the pure-Python rules with the default play, and the C reference
loop of ``shared/bench/lines_ref.py`` (a plain 40-line 5x3 base game: the ceiling a
compiled Monte Carlo loop reaches on this machine) in the same job.  Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.engine.game import play_default
from reelforge.games.reign_of_gnomes import ReignOfGnomes
from reelforge.games.reign_of_gnomes.kernel import simulate_chunk
from reelforge.rng import SeededRandom

C_REFERENCE = Path(__file__).resolve().parents[2] / "shared/bench/lines_ref.py"


def kernel_rate(game: ReignOfGnomes, rounds: int) -> dict[str, Any]:
    d = game.data()
    simulate_chunk(d, np.random.SeedSequence(0), 10_000)  # JIT (or cache load) outside the timing
    start = time.perf_counter()
    stats = simulate_chunk(d, np.random.SeedSequence(1), rounds)
    seconds = time.perf_counter() - start
    return {
        "rounds": rounds,
        "seconds": round(seconds, 3),
        "rounds_per_second": rounds / seconds,
        "rtp_uncapped": stats.summary()["rtp_uncapped"],
    }


def python_rate(game: ReignOfGnomes, rounds: int) -> dict[str, Any]:
    rng = SeededRandom(1)
    stake = game.bet_levels()[0].stake
    start = time.perf_counter()
    for _ in range(rounds):
        play_default(game, game.start(stake, rng), rng)
    seconds = time.perf_counter() - start
    return {"rounds": rounds, "seconds": round(seconds, 3), "rounds_per_second": rounds / seconds}


def c_rate(spins: int) -> dict[str, Any] | None:
    if not C_REFERENCE.exists():
        print(f"C reference not found at {C_REFERENCE}: skipped", file=sys.stderr)
        return None
    done = subprocess.run(
        [sys.executable, str(C_REFERENCE), str(spins)], check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000_000, help="kernel rounds timed")
    parser.add_argument("--python-rounds", type=int, default=10_000, help="rules-engine rounds timed")
    parser.add_argument("--c-spins", type=int, default=20_000_000, help="C reference spins")
    args = parser.parse_args()

    game = ReignOfGnomes()
    kernel = kernel_rate(game, args.rounds)
    python = python_rate(game, args.python_rounds)
    c_ref = c_rate(args.c_spins)
    out: dict[str, Any] = {
        "kernel": kernel,
        "python_rules": python,
        "c_reference": c_ref,
        "kernel_vs_python": kernel["rounds_per_second"] / python["rounds_per_second"],
        "kernel_vs_c_reference": (kernel["rounds_per_second"] / c_ref["spins_per_second"]) if c_ref else None,
        "target_rounds_per_second": 3_000_000,
        "meets_target": kernel["rounds_per_second"] >= 3_000_000,
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
