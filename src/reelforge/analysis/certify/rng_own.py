"""Our own tests on scaled outcomes: every reel and weight table of the game
(:mod:`.rng_tables`) drawn through the production scaling code (``randbelow`` for a stop,
:func:`reelforge.rng.weighted_index` for a weight table) and put through
:mod:`reelforge.analysis.randomness`: chi-square against the table's own law, the runs test
and the lag-1 serial correlation, each passing at 99% (``p > 0.01``).

Many tests at 99% fail now and then on a perfect source (one in a hundred each), so the
family's verdict is on the count: it passes when the failures are no more than the 99th
percentile of Binomial(tests, 0.01), which a perfect source exceeds one time in a hundred.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from reelforge.analysis import randomness
from reelforge.rng import RandomSource, weighted_index

from .rng_tables import DrawTable

LEVEL = 0.01


@dataclass(frozen=True)
class TableResult:
    table: DrawTable
    draws: int
    p: dict[str, float | None]  # chi_square, runs, serial_lag1 (None: not applicable)
    serial_r: float | None

    @property
    def failures(self) -> list[str]:
        return [k for k, p in self.p.items() if p is not None and p <= LEVEL]


def draw(source: RandomSource, table: DrawTable, n: int) -> np.ndarray:
    if table.kind == "reel":
        size = len(table.weights)
        return np.fromiter((source.randbelow(size) for _ in range(n)), dtype=np.int64, count=n)
    weights = list(table.weights)
    return np.fromiter((weighted_index(source, weights) for _ in range(n)), dtype=np.int64, count=n)


def check_table(source: RandomSource, table: DrawTable, n: int) -> TableResult:
    values = draw(source, table, n)
    size = len(table.weights)
    weights = None if table.kind == "reel" else table.weights
    p: dict[str, float | None] = {"chi_square": randomness.chi_square_p(values, size, weights)}
    centre = (size - 1) / 2
    above = int((values > centre).sum())
    # The runs test needs draws on both sides of the centre (a table whose weight is nearly
    # all on one side can give none on the other in a short sample).
    below = int((values < centre).sum())
    p["runs"] = randomness.runs_p(values, size) if above and below else None
    r = None
    # With two outcomes the lag-1 correlation is a function of the number of runs (given the
    # counts): the same test twice would count one chance failure as two.
    if size > 2 and values.min() != values.max():
        r, p["serial_lag1"] = randomness.serial_correlation(values)
    else:
        p["serial_lag1"] = None
    return TableResult(table, n, p, r)


def allowed_failures(tests: int) -> int:
    """The 99th percentile of the failure count of ``tests`` independent tests at 99%."""
    return int(stats.binom.ppf(0.99, tests, LEVEL)) if tests else 0


def family_verdict(results: list[TableResult]) -> tuple[int, int, int, bool]:
    """``(tests, failures, allowed, passed)``."""
    tests = sum(1 for r in results for p in r.p.values() if p is not None)
    failures = sum(len(r.failures) for r in results)
    allowed = allowed_failures(tests)
    return tests, failures, allowed, failures <= allowed


def fmt_p(p: float | None) -> str:
    if p is None:
        return "n/a"
    return f"{p:.4f}" if p >= 1e-4 or p == 0 or math.isnan(p) else f"{p:.2e}"
