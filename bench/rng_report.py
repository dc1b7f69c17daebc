"""RNG evidence for a test lab: chi-square, runs and lag-1 serial correlation at 99% on the
production source (OS CSPRNG) and the simulation source, on raw output and on scaled
outcomes (reel stops of Reign of Gnomes' base reels).

Usage: python bench/rng_report.py [DRAWS]   (default 1,000,000 per check)
Prints one JSON object; each check says its statistic, p-value and pass (p > 0.01).
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np
from scipy import stats

from reelforge.games import get_game
from reelforge.rng import SeededRandom, SystemRandom


def checks(values: np.ndarray, n: int) -> dict[str, dict[str, float | bool]]:
    observed = np.bincount(values, minlength=n)
    chi = stats.chisquare(observed)
    centre = (n - 1) / 2
    signs = values[values != centre] > centre
    n1, n2 = int(signs.sum()), int((~signs).sum())
    runs = 1 + int(np.count_nonzero(signs[1:] != signs[:-1]))
    mean = 2 * n1 * n2 / (n1 + n2) + 1
    var = 2 * n1 * n2 * (2 * n1 * n2 - n1 - n2) / ((n1 + n2) ** 2 * (n1 + n2 - 1))
    z_runs = (runs - mean) / math.sqrt(var)
    x = values.astype(float)
    r = float(np.corrcoef(x[:-1], x[1:])[0, 1])
    z_corr = r * math.sqrt(len(values))
    out = {
        "chi_square": {"statistic": float(chi.statistic), "p": float(chi.pvalue)},
        "runs": {"z": z_runs, "p": float(2 * stats.norm.sf(abs(z_runs)))},
        "serial_lag1": {"r": r, "p": float(2 * stats.norm.sf(abs(z_corr)))},
    }
    for v in out.values():
        v["pass"] = v["p"] > 0.01
    return out


def main() -> None:
    draws = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    data = get_game("reign-of-gnomes").data()
    reel_lengths = [len(s) for s in data.base_reels.strips]
    report: dict[str, object] = {"draws_per_check": draws}
    for name, src in (("system", SystemRandom()), ("seeded", SeededRandom(20261130))):
        bytes_ = np.frombuffer(b"".join(src.randbelow(2**64).to_bytes(8, "little")
                                        for _ in range(draws // 8)), dtype=np.uint8)
        report[f"{name}_raw_bytes"] = checks(bytes_.astype(np.int64), 256)
        stops = np.array([src.randbelow(reel_lengths[i % 5]) for i in range(draws)])
        report[f"{name}_reel1_stops"] = checks(stops[0::5], reel_lengths[0])
    verdict = all(c["pass"] for key, v in report.items() if key != "draws_per_check" for c in v.values())
    report["all_pass_at_99"] = verdict
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
