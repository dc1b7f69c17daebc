"""Ghost of Gambini's win distributions: the exact figures, and the base game's simulated bands.

Usage: python bench/gambini_distribution.py [--rounds 100000000] [--seed 2024] [--batch 1000000]

Prints one JSON object: for each bought feature the exact law's figures (volatility index,
max-win odds, bands); for the base game the exact figures :func:`distribution.base_figures`
gives (volatility index, the max win's odds bracketed) and, since its law is not computed,
the bands *simulated* by the numba kernel (the rules' play, stopping at the cap), each with a
99% interval from batch means: successive base rounds share the piggies, so rounds are not
independent; ``--batch`` rounds per batch, each batch carrying the piggies on from the last
(the run starts with new piggies), and a Student-t interval over the batches' band
frequencies.  Also the simulated SD with its batch-means interval, beside the exact one.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time

import numpy as np
from scipy.stats import t as student

from reelforge.engine.distribution import BAND_EDGES
from reelforge.games import get_game
from reelforge.games.ghost_of_gambini import kernel as K
from reelforge.games.ghost_of_gambini.distribution import base_figures


def _edges(stake: int, cap: int) -> list[tuple[str, int, int]]:
    """(label, first credit, last credit + 1) of WinDistribution's bands, the cap its own."""
    out = [("0 (no win)", 0, 1)]
    for low, high in itertools.pairwise(BAND_EDGES):
        out.append((f"({low}x, {high}x]", low * stake + 1, min(high * stake + 1, cap)))
    out.append((f"({BAND_EDGES[-1]}x, cap)", BAND_EDGES[-1] * stake + 1, cap))
    out.append(("the cap", cap, cap + 1))
    return out


def simulated_bands(rounds: int, seed: int, batch: int) -> dict[str, object]:
    game = get_game("ghost-of-gambini")
    d = game.data()
    stake, cap = d.game.base_credits, d.max_win_credits
    bands = _edges(stake, cap)
    bitgen = np.random.PCG64DXSM(np.random.SeedSequence(seed))
    piggies = (0, 0)
    freq = []  # per batch: band frequencies
    sums = []  # per batch: mean win, mean win^2 (stakes)
    started = time.perf_counter()
    for _ in range(rounds // batch):
        rows = K.play_rounds(d, bitgen, batch, "base", piggies)
        piggies = (int(rows[-1, K.R_PIGGY_L]), int(rows[-1, K.R_PIGGY_R]))
        win = rows[:, K.R_WIN]
        freq.append([np.count_nonzero((win >= a) & (win < b)) / batch for _, a, b in bands])
        x = win / stake
        sums.append((x.mean(), (x * x).mean()))
    seconds = time.perf_counter() - started
    f = np.array(freq)
    s = np.array(sums)
    n = len(f)
    q = student.ppf(0.995, n - 1)
    out_bands = []
    for i, (label, _, _) in enumerate(bands):
        m = f[:, i].mean()
        half = q * f[:, i].std(ddof=1) / math.sqrt(n)
        out_bands.append({"band": label, "simulated": m, "ci99": [max(0.0, m - half), m + half]})
    m1, m2 = s[:, 0].mean(), s[:, 1].mean()
    # the SD from the batch means of X and X^2 (delta method: the interval is for E[X^2])
    half2 = q * s[:, 1].std(ddof=1) / math.sqrt(n)
    sd = math.sqrt(m2 - m1 * m1)
    sd_ci = [math.sqrt(max(0.0, m2 - half2 - m1 * m1)), math.sqrt(m2 + half2 - m1 * m1)]
    return {
        "rounds": n * batch,
        "batches": n,
        "seed": seed,
        "seconds": round(seconds, 1),
        "bands": out_bands,
        "sd": sd,
        "sd_ci99": sd_ci,
        "rtp": m1,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100_000_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--batch", type=int, default=1_000_000)
    args = parser.parse_args()
    game = get_game("ghost-of-gambini")
    out: dict[str, object] = {}
    started = time.perf_counter()
    for mode in ("buy-lock-spin", "buy-super-lock-spin"):
        wd = game.win_distribution(mode=mode).as_dict()
        wd["mean"] = wd["mean"]["value"]
        out[mode] = {k: v for k, v in wd.items() if k not in ("rtp_uncapped",)}
    out["exact_seconds_buys"] = round(time.perf_counter() - started, 1)
    started = time.perf_counter()
    base = base_figures(game.data())
    base.pop("by_state")
    out["base_exact"] = base
    out["exact_seconds_base"] = round(time.perf_counter() - started, 1)
    out["base_simulated"] = simulated_bands(args.rounds, args.seed, args.batch)
    print(json.dumps(out, indent=1, default=str))


if __name__ == "__main__":
    main()
