"""A long Monte Carlo of Reign of Gnomes with the kernel, in one process, chunk by chunk.

Usage: python bench/gnomes_mc.py [--rounds 100000000] [--seed 2024] [--chunk 1048576]

Chunk ``i`` of ``2**20`` rounds is seeded by ``SeedSequence(seed).spawn(n_chunks)[i]`` (the
driver's scheme, so the result matches ``reelforge simulate`` with the same seed and
chunk size); the chunks' SimStats merge by exact integer sums.  Prints progress, then the
exact RTP against the Monte Carlo figures (capped and uncapped, with 99% intervals),
feature frequencies, speed and peak memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

from reelforge.analysis.simulate import chunk_seeds, chunk_sizes
from reelforge.engine.stats import SimStats
from reelforge.games.reign_of_gnomes import ReignOfGnomes
from reelforge.games.reign_of_gnomes.kernel import simulate_chunk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100_000_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--chunk", type=int, default=2**20)
    args = parser.parse_args()

    game = ReignOfGnomes()
    d = game.data()
    exact = game.exact()
    sizes = chunk_sizes(args.rounds, args.chunk)
    seeds = chunk_seeds(args.seed, len(sizes))
    total = SimStats(stake=d.game.base_credits)
    simulate_chunk(d, seeds[0], 1000)  # JIT (or cache load) before the clock starts
    start = time.perf_counter()
    report_every = max(1, len(sizes) // 20)
    for i, (size, seed) in enumerate(zip(sizes, seeds, strict=True)):
        total = total.merge(simulate_chunk(d, seed, size))
        if (i + 1) % report_every == 0 or i + 1 == len(sizes):
            elapsed = time.perf_counter() - start
            print(
                f"  {total.rounds:>13,} rounds  {elapsed:7.1f} s  {total.rounds / elapsed:>12,.0f} rounds/s"
                f"  rtp so far {total.win_uncapped / (total.rounds * total.stake):.6f}",
                file=sys.stderr,
                flush=True,
            )
    seconds = time.perf_counter() - start
    s = total.summary()
    n = total.rounds
    c = total.counters
    out = {
        "rounds": n,
        "seed": args.seed,
        "chunks": len(sizes),
        "exact_rtp": exact["rtp"],
        "rtp": s["rtp"],
        "ci99": s["ci99"],
        "rtp_uncapped": s["rtp_uncapped"],
        "ci99_uncapped": s["ci99_uncapped"],
        "exact_inside_uncapped_ci99": s["ci99_uncapped"][0] <= exact["rtp"] <= s["ci99_uncapped"][1],
        "cap_effect": s["cap_effect"],
        "std_per_round": s["std"],
        "max_win_x_stake": s["max_win"],
        "max_win_hits": c["max_win_hits"],
        "hit_frequency": s["hit_frequency"],
        "exact_hit_frequency": exact["hit_frequency"],
        "free_spins_frequency": c["free_spins_triggers"] / n,
        "exact_free_spins_frequency": exact["free_spins_frequency"],
        "free_spins_one_in": n / c["free_spins_triggers"],
        "mean_free_spins_per_trigger": c["free_spins_played"] / c["free_spins_triggers"],
        "exact_mean_free_spins": exact["mean_free_spins"],
        "retriggers_per_free_spin": c["retriggers"] / c["free_spins_played"],
        "wheel_share": {
            k.removeprefix("wheel_"): v / c["free_spins_played"]
            for k, v in c.items()
            if k.startswith("wheel_")
        },
        "spin_to_win_games_per_feature": c["spin_to_win_games"] / c["wheel_spin_to_win"],
        "seconds": round(seconds, 2),
        "rounds_per_second": n / seconds,
        # ru_maxrss is KiB on Linux
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
