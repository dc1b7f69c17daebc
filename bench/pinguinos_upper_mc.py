"""A long Monte Carlo of the Los 3 Pinguinos upper game at one bet and play, with its kernel.

Usage: python bench/pinguinos_upper_mc.py [--variant 95] [--bet 100] [--risk]
                                          [--rounds 100000000] [--seed 2024] [--chunk 1048576]

``--bet`` is the upper stake (the bet's value in cents: 100, 500, 2500, 5000, 7500, 13500);
the play is COLLECT ALL, or AUTO-RISK with ``--risk``; Bonuses are uncapped (the exact
figures' assumption).  Chunk ``i`` is seeded by ``SeedSequence(seed).spawn(n_chunks)[i]`` (the
driver's scheme) and starts from a new machine (counter and accumulator at 0), carried from
round to round.  Prints the exact RTP (``exact(variant, mode="upper")["by_bet"][i]``: ``rtp``
for COLLECT, ``rtp_risk`` for AUTO-RISK) against the Monte Carlo's 99% interval, the hit
frequency, every kernel counter per round, speed and peak memory, as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from typing import Any

from reelforge.analysis.simulate import chunk_seeds, chunk_sizes
from reelforge.engine.stats import SimStats
from reelforge.games.los_3_pinguinos import LosTresPinguinos
from reelforge.games.los_3_pinguinos.upper_kernel import simulate_chunk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default=None)
    parser.add_argument("--bet", type=int, default=100, help="upper stake, cents (cash + Bonuses x 80)")
    parser.add_argument("--risk", action="store_true", help="AUTO-RISK: play every fraction")
    parser.add_argument("--rounds", type=int, default=100_000_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--chunk", type=int, default=2**20)
    parser.add_argument("--no-exact", action="store_true", help="skip the exact figure")
    args = parser.parse_args()

    game = LosTresPinguinos()
    d = game.data(args.variant)
    bet, _ = d.upper_bet(args.bet)
    exact: float | None = None
    exact_seconds = 0.0
    if not args.no_exact:
        t0 = time.perf_counter()
        row: dict[str, Any] = game.exact(variant=args.variant, mode="upper")["by_bet"][bet]
        exact = row["rtp_risk" if args.risk else "rtp"]
        exact_seconds = time.perf_counter() - t0
    simulate_chunk(d, chunk_seeds(args.seed, 1)[0], 1000, bet, args.risk)  # the JIT, outside the timing
    sizes = chunk_sizes(args.rounds, args.chunk)
    seeds = chunk_seeds(args.seed, len(sizes))
    total = SimStats(stake=d.upper_stakes[bet])
    start = time.perf_counter()
    report_every = max(1, len(sizes) // 10)
    for i, (size, seed) in enumerate(zip(sizes, seeds, strict=True)):
        total = total.merge(simulate_chunk(d, seed, size, bet, args.risk))
        if (i + 1) % report_every == 0 or i + 1 == len(sizes):
            elapsed = time.perf_counter() - start
            print(
                f"  {total.rounds:>13,} rounds  {elapsed:7.1f} s  {total.rounds / elapsed:>12,.0f} rounds/s"
                f"  rtp so far {total.win / (total.rounds * total.stake):.6f}",
                file=sys.stderr,
                flush=True,
            )
    seconds = time.perf_counter() - start
    s = total.summary()
    n = total.rounds
    lo, hi = s["ci99"]
    out = {
        "game": game.id,
        "mode": "upper",
        "variant": d.game.variant,
        "bet": args.bet,
        "bet_index": bet,
        "play": "auto_risk" if args.risk else "collect",
        "rounds": n,
        "seed": args.seed,
        "chunks": len(sizes),
        "exact_rtp": exact,
        "rtp": s["rtp"],
        "ci99": s["ci99"],
        "ci99_half_width": (hi - lo) / 2,
        "exact_inside_ci99": None if exact is None else lo <= exact <= hi,
        "z": None if exact is None else (s["rtp"] - exact) / ((hi - lo) / 2) * 2.5758293035489004,
        "std_per_round": s["std"],
        "max_win_x_stake": s["max_win"],
        "hit_frequency": s["hit_frequency"],
        "per_round": {k: v / n for k, v in sorted(total.counters.items())},
        "seconds": round(seconds, 2),
        "rounds_per_second": n / seconds,
        "exact_seconds": round(exact_seconds, 2),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,  # KiB on Linux
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
