"""RNG evidence for a test lab: chi-square, runs and lag-1 serial correlation at 99% on the
production source (OS CSPRNG) and the simulation source, on raw output and on scaled
outcomes (reel stops of Reign of Gnomes' base reels).

Usage: python bench/rng_report.py [DRAWS]   (default 1,000,000 per check)
Prints one JSON object; each check says its statistic, p-value and pass (p > 0.01).
"""

from __future__ import annotations

import json
import sys

import numpy as np

from reelforge.analysis import randomness
from reelforge.games import get_game
from reelforge.rng import SeededRandom, SystemRandom


def main() -> None:
    draws = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    data = get_game("reign-of-gnomes").data()
    reel_lengths = [len(s) for s in data.base_reels.strips]
    report: dict[str, object] = {"draws_per_check": draws}
    for name, src in (("system", SystemRandom()), ("seeded", SeededRandom(20261130))):
        bytes_ = np.frombuffer(b"".join(src.randbelow(2**64).to_bytes(8, "little")
                                        for _ in range(draws // 8)), dtype=np.uint8)
        report[f"{name}_raw_bytes"] = randomness.report(bytes_.astype(np.int64), 256)
        stops = np.array([src.randbelow(reel_lengths[i % 5]) for i in range(draws)])
        report[f"{name}_reel1_stops"] = randomness.report(stops[0::5], reel_lengths[0])
    verdict = all(c["pass"] for key, v in report.items() if key != "draws_per_check" for c in v.values())
    report["all_pass_at_99"] = verdict
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
