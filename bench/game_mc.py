"""A long Monte Carlo of one game, mode and RTP variant with its kernel, in one process.

Usage: python bench/game_mc.py --game ghost-of-gambini [--mode base] [--variant V]
                               [--rounds 100000000] [--seed 2024] [--chunk 1048576]

Chunk ``i`` is seeded by ``SeedSequence(seed).spawn(n_chunks)[i]`` (the driver's scheme, so
the result matches ``reelforge simulate`` with the same seed and chunk size).  In Ghost of
Gambini's base game each chunk starts with new piggies (0, 0) and carries them from round
to round; the bias this start puts on the mean is |h(0, 0)| / chunk stakes (h from the
exact report), printed beside the interval.  Prints the exact RTP against the Monte Carlo (capped and
uncapped, 99% intervals), the feature and hit frequencies against their exact values, every
kernel counter per round, speed and peak memory, as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

from reelforge.analysis.simulate import chunk_seeds, chunk_sizes
from reelforge.engine.stats import SimStats
from reelforge.games import get_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--mode", default="base")
    parser.add_argument("--variant", default=None)
    parser.add_argument("--rounds", type=int, default=100_000_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--chunk", type=int, default=2**20)
    args = parser.parse_args()

    game = get_game(args.game)
    exact = game.exact(variant=args.variant, mode=args.mode)
    first = game.simulate_chunk(1000, chunk_seeds(args.seed, 1)[0], variant=args.variant, mode=args.mode)
    sizes = chunk_sizes(args.rounds, args.chunk)
    seeds = chunk_seeds(args.seed, len(sizes))
    total = SimStats(stake=first.stake)  # the 1,000 rounds above compiled the kernel
    start = time.perf_counter()
    report_every = max(1, len(sizes) // 20)
    for i, (size, seed) in enumerate(zip(sizes, seeds, strict=True)):
        total = total.merge(game.simulate_chunk(size, seed, variant=args.variant, mode=args.mode))
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
    out = {
        "game": args.game,
        "mode": args.mode,
        "variant": exact["variant"],
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
        "hit_frequency": s["hit_frequency"],
        "exact_hit_frequency": exact["hit_frequency"],
        "per_round": {k: v / n for k, v in sorted(total.counters.items())},
        "seconds": round(seconds, 2),
        "rounds_per_second": n / seconds,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,  # KiB on Linux
    }
    if "by_state" in exact:
        h00 = next(r["bias_stakes"] for r in exact["by_state"] if r["piggies"] == [0, 0])
        out["exact_feature_frequency"] = exact["feature_frequency"]
        out["start_bias_bound"] = abs(h00) / args.chunk
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
