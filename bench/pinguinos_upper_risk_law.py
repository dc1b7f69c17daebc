"""Los 3 Pinguinos' upper game under AUTO-RISK: the round's win law, SIMULATED.

Usage: python bench/pinguinos_upper_risk_law.py [--variants 95,90,80,70]
           [--bets 100,500,2500,5000,7500,13500] [--rounds 100000000] [--batches 100]
           [--seed 2026] [--warmup 1000] [--sub 65536] [--out bench/out/pinguinos_upper_risk_law.json]
       python bench/pinguinos_upper_risk_law.py --report bench/out/pinguinos_upper_risk_law.json

The exact law of an upper round is computed for COLLECT ALL only (``upper_distribution.py``);
under AUTO-RISK (every fraction of Double-or-Bonuses played, Bonuses won along the way) only
the mean is exact (``exact(variant, mode="upper")["by_bet"][i]["rtp_risk"]``).  This script
gives the rest of the law by simulation, every figure with a 99% interval:

* the rounds are played by ``upper_kernel.play_rounds(d, bitgen, n, bet, risk=True)`` (the
  kernel checked draw for draw against the rules), Bonuses uncapped as the exact figures
  assume (the machine's Bonuses at or below the 4,000 cap: the balance is a net position);
* a round's win is its cash plus ``bonus_value`` cents per Bonus won (``cash`` and
  ``bonuses`` columns), over the bet's value (cash + Bonuses × ``bonus_value``): the
  accounting of the exact ``rtp_risk`` and of the COLLECT law;
* per (variant, bet), ``--batches`` batches of ``--rounds / --batches`` rounds; batch ``j`` of
  case ``c`` (``c = 6 × variant index + bet index``) is seeded by
  ``SeedSequence(seed).spawn(24)[c].spawn(batches)[j]`` (``PCG64DXSM``), starts from a new
  machine, plays ``--warmup`` rounds that are not counted (so the counter and the
  accumulator are near their long-run law, the one the exact figures use), then carries the
  machine from round to round as the kernel does, ``--sub`` rounds per call;
* the rounds of a batch are **not independent** (the vertical-lines counter decides 5 or 8
  paylines, the accumulator the WINNING SPIN), so no interval treats them as a sample: the
  batches are (own seed, own machine), and the RTP and band intervals are Student-t over the
  batch means; the SD's interval is the batches' delete-one jackknife.  Per band a Wilson
  interval on all rounds (which ignores the dependence) is given too, and the reported
  interval is the wider envelope of the two (a band seen in a few batches only has no
  usable batch-means spread);
* the bands are ``WinDistribution.bands()``'s (``BAND_EDGES``, no cap: the last is open).

Prints a markdown table (and the band tables) and writes one JSON object to ``--out``;
``--report`` prints the tables of a saved run again.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student

from reelforge.engine.distribution import Band, WinDistribution
from reelforge.games.los_3_pinguinos import LosTresPinguinos
from reelforge.games.los_3_pinguinos import upper_kernel as K
from reelforge.games.los_3_pinguinos.data_model import LowerData

VARIANTS = ("95", "90", "80", "70")
N_BETS = 6  # upper.bets: a case's index is 6 x variant index + bet index
LEVEL = 0.99
_INT64_MAX = (1 << 63) - 1


# -- accounting -----------------------------------------------------------------------------------


def round_wins(d: LowerData, rows: np.ndarray) -> np.ndarray:
    """Each round's win in cents: its cash plus ``bonus_value`` cents per Bonus won (the
    exact figures' accounting), checked against the kernel's own ``win`` column."""
    win = rows[:, K.R_CASH] + d.game.bonus_value * rows[:, K.R_BONUSES]
    if not np.array_equal(win, rows[:, K.R_WIN]):
        raise AssertionError("cash + bonus_value x Bonuses differs from the kernel's win column")
    return win


def bands_of(stake: int) -> list[Band]:
    """``WinDistribution.bands()`` for an uncapped law at ``stake`` (labels and edges only)."""
    probe = WinDistribution(
        game="los-3-pinguinos", variant="", mode="upper", stake=stake, cap=None, method="", error_bound="",
        exact_pmf={0: Fraction(1)},
    )  # fmt: skip
    return probe.bands()


def band_starts(stake: int) -> np.ndarray:
    """The first cent of each band, as ``WinDistribution.probability`` reads them: no win is
    ``[0, 1)``, a band ``(low, high]`` is ``[int(low × stake) + 1, int(high × stake) + 1)``,
    the last is open.  The bands tile the amounts: each starts where the last stops."""
    starts = [0]
    stop = 1
    for b in bands_of(stake)[1:]:
        assert b.low_x is not None
        start = int(b.low_x * stake) + 1
        assert start == stop, "the bands do not tile the amounts"
        starts.append(start)
        stop = int(b.high_x * stake) + 1 if b.high_x is not None else -1
    assert stop == -1, "the last band is open"
    return np.array(starts, dtype=np.int64)


@dataclass
class Tally:
    """What a batch adds up, in cents (exact integers)."""

    n_bands: int
    rounds: int = 0
    win: int = 0
    win_sq: int = 0
    cash: int = 0
    bonuses: int = 0
    max_win: int = 0
    bands: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.bands:
            self.bands = [0] * self.n_bands

    def add(self, d: LowerData, rows: np.ndarray, starts: np.ndarray) -> None:
        """Book a block of rounds (``play_rounds`` rows)."""
        if len(rows) == 0:
            return
        win = round_wins(d, rows)
        top = int(win.max())
        if top and len(rows) > _INT64_MAX // (top * top):
            raise ValueError("the block's squared wins would overflow int64: play fewer rounds per call")
        self.rounds += len(rows)
        self.win += int(win.sum())
        self.win_sq += int((win * win).sum())
        self.cash += int(rows[:, K.R_CASH].sum())
        self.bonuses += int(rows[:, K.R_BONUSES].sum())
        self.max_win = max(self.max_win, top)
        counts = np.bincount(np.searchsorted(starts, win, side="right") - 1, minlength=len(starts))
        self.bands = [a + int(b) for a, b in zip(self.bands, counts, strict=True)]


def play_batch(
    d: LowerData, seed: np.random.SeedSequence, rounds: int, bet: int, warmup: int = 1000, sub: int = 65536
) -> Tally:
    """One batch: a new machine, ``warmup`` uncounted rounds, then ``rounds`` AUTO-RISK rounds
    at ``upper.bets[bet]`` played ``sub`` at a time, the machine and the generator carried."""
    bitgen = np.random.PCG64DXSM(seed)
    machine: dict[str, Any] = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
    starts = band_starts(d.upper_stakes[bet])
    if warmup:
        K.play_rounds(d, bitgen, warmup, bet, True, machine=machine)
    tally = Tally(len(starts))
    left = rounds
    while left > 0:
        n = min(sub, left)
        tally.add(d, K.play_rounds(d, bitgen, n, bet, True, machine=machine), starts)
        left -= n
    return tally


# -- intervals ------------------------------------------------------------------------------------


def batch_means(x: np.ndarray) -> dict[str, float]:
    """Mean of the batch values with a Student-t 99% interval over the batches."""
    b = len(x)
    m = float(x.mean())
    half = float(student.ppf(0.5 + LEVEL / 2, b - 1) * x.std(ddof=1) / math.sqrt(b)) if b > 1 else math.inf
    return {"value": m, "low": m - half, "high": m + half, "half_width": half}


def wilson(hits: int, n: int) -> tuple[float, float]:
    """Wilson's 99% score interval for ``hits`` of ``n`` (independent trials)."""
    z = float(norm.ppf(0.5 + LEVEL / 2))
    p = hits / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def sd_jackknife(tallies: list[Tally], stake: int) -> dict[str, float]:
    """SD of a round's win (× the stake) from all rounds, with a 99% interval from the
    delete-one-batch jackknife (Student t over the batches)."""
    n = sum(t.rounds for t in tallies)
    s1 = sum(t.win for t in tallies)
    s2 = sum(t.win_sq for t in tallies)

    def sd(rounds: int, w: int, w2: int) -> float:
        var = Fraction(w2, rounds) - Fraction(w, rounds) ** 2
        return math.sqrt(var) / stake

    full = sd(n, s1, s2)
    b = len(tallies)
    leave = np.array([sd(n - t.rounds, s1 - t.win, s2 - t.win_sq) for t in tallies])
    se = math.sqrt((b - 1) / b * float(((leave - leave.mean()) ** 2).sum()))
    half = float(student.ppf(0.5 + LEVEL / 2, b - 1)) * se
    return {"value": full, "low": full - half, "high": full + half, "half_width": half}


def summarize(tallies: list[Tally], stake: int, exact_rtp: float | None = None) -> dict[str, Any]:
    """Every figure of a case from its batches."""
    n = sum(t.rounds for t in tallies)
    rounds = np.array([t.rounds for t in tallies], dtype=np.float64)
    rtp_b = np.array([t.win for t in tallies], dtype=np.float64) / (rounds * stake)
    rtp = batch_means(rtp_b)
    m1 = sum(t.win for t in tallies) / n
    var_iid = sum(t.win_sq for t in tallies) / n - m1 * m1
    iid_half = float(norm.ppf(0.5 + LEVEL / 2)) * math.sqrt(max(var_iid, 0.0) / n) / stake
    out_bands = []
    for k, band in enumerate(bands_of(stake)):
        hits = sum(t.bands[k] for t in tallies)
        bm = batch_means(np.array([t.bands[k] for t in tallies], dtype=np.float64) / rounds)
        wl, wh = wilson(hits, n)
        low, high = max(0.0, min(bm["low"], wl)), min(1.0, max(bm["high"], wh))
        out_bands.append({
            "band": band.label, "from_x": band.low_x, "to_x": band.high_x, "rounds": hits,
            "value": hits / n, "low": low, "high": high,
            "batch_means": [max(0.0, bm["low"]), bm["high"]], "wilson_iid": [wl, wh],
        })  # fmt: skip
    top = max(t.max_win for t in tallies)
    out: dict[str, Any] = {
        "rounds": n,
        "batches": len(tallies),
        "rtp": rtp,
        "rtp_iid_half_width": iid_half,  # for comparison only: treats the rounds as independent
        "sd": sd_jackknife(tallies, stake),
        "p_no_win": out_bands[0],
        "bands": out_bands,
        "max_win": {"cents": top, "multiple": top / stake},
        "cash_share": sum(t.cash for t in tallies) / max(sum(t.win for t in tallies), 1),
        "bonuses_per_round": sum(t.bonuses for t in tallies) / n,
    }
    if exact_rtp is not None:
        out["exact_rtp_risk"] = exact_rtp
        out["exact_inside"] = rtp["low"] <= exact_rtp <= rtp["high"]
        out["z"] = (rtp["value"] - exact_rtp) / (
            rtp["half_width"] / float(student.ppf(0.5 + LEVEL / 2, len(tallies) - 1))
        )
    return out


def case_seeds(seed: int, case: int, batches: int) -> list[np.random.SeedSequence]:
    """``SeedSequence(seed).spawn(24)[case].spawn(batches)``, built for one case alone."""
    return np.random.SeedSequence(seed, spawn_key=(case,)).spawn(batches)


def run_case(
    game: LosTresPinguinos,
    variant: str,
    bet: int,
    rounds: int,
    batches: int,
    seed: int,
    warmup: int,
    sub: int,
) -> dict[str, Any]:
    d = game.data(variant)
    stake = d.upper_stakes[bet]
    b = d.upper.bets[bet]
    per = rounds // batches
    exact = game.exact(variant=variant, mode="upper")["by_bet"][bet]
    assert exact["stake"] == stake
    case = VARIANTS.index(variant) * N_BETS + bet
    started = time.perf_counter()
    tallies = [play_batch(d, s, per, bet, warmup, sub) for s in case_seeds(seed, case, batches)]
    seconds = time.perf_counter() - started
    out = {
        "variant": variant,
        "bet_index": bet,
        "stake": stake,
        "bet": {"cash": b.cash, "bonuses": b.bonuses, "value_cents": stake, "max_prize_cents": b.max_prize},
        "case": case,
        "seconds": round(seconds, 2),
        "rounds_per_second": per * batches / seconds,
        **summarize(tallies, stake, exact["rtp_risk"]),
        "exact_rtp_risk_fraction": exact["rtp_risk_fraction"],
        "exact_rtp_collect": exact["rtp"],
    }
    return out


# -- output -----------------------------------------------------------------------------------


def bet_name(cash: int, bonuses: int) -> str:
    return f"€{cash / 100:,.2f} + {bonuses} Bonus" + ("" if bonuses == 1 else "es")


def _pc(x: float, digits: int = 4) -> str:
    return f"{x * 100:.{digits}f}%"


def _band_cell(b: dict[str, Any]) -> str:
    if b["rounds"] == 0:
        return f"0 [0, {b['high'] * 100:.6f}]"
    digits = 4 if b["value"] >= 1e-4 else 6
    return f"{b['value'] * 100:.{digits}f}% [{b['low'] * 100:.{digits}f}, {b['high'] * 100:.{digits}f}]"


def markdown(cases: list[dict[str, Any]]) -> str:
    lines = [
        "| variant | bet | rounds | RTP (simulated) | 99% interval | exact AUTO-RISK RTP | exact inside | "
        "SD (× value) | 99% interval | no win | 99% interval | largest win seen |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in cases:
        r, s, p = c["rtp"], c["sd"], c["p_no_win"]
        lines.append(
            f"| {c['variant']} | {bet_name(c['bet']['cash'], c['bet']['bonuses'])} | {c['rounds']:,} | "
            f"{_pc(r['value'])} | [{_pc(r['low'])}, {_pc(r['high'])}] | {_pc(c['exact_rtp_risk'])} | "
            f"{'yes' if c['exact_inside'] else '**no**'} | "
            f"{s['value']:.3f} | [{s['low']:.3f}, {s['high']:.3f}] | "
            f"{_pc(p['value'])} | [{_pc(p['low'])}, {_pc(p['high'])}] | "
            f"€{c['max_win']['cents'] / 100:,.2f} ({c['max_win']['multiple']:,.1f}×) |"
        )
    for variant in dict.fromkeys(c["variant"] for c in cases):
        here = [c for c in cases if c["variant"] == variant]
        lines += [
            "",
            f"Variant {variant}: share of rounds per band of the win (× the bet's value), [99% interval]",
            "",
        ]
        lines.append(
            "| band | " + " | ".join(bet_name(c["bet"]["cash"], c["bet"]["bonuses"]) for c in here) + " |"
        )
        lines.append("|---|" + "---|" * len(here))
        for k, band in enumerate(here[0]["bands"]):
            lines.append(f"| {band['band']} | " + " | ".join(_band_cell(c["bands"][k]) for c in here) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--bets", default="100,500,2500,5000,7500,13500", help="upper stakes, cents")
    parser.add_argument("--rounds", type=int, default=100_000_000, help="rounds per case (after warm-up)")
    parser.add_argument("--batches", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--warmup", type=int, default=1000, help="uncounted rounds per batch")
    parser.add_argument("--sub", type=int, default=65536, help="rounds per play_rounds call")
    parser.add_argument("--out", default="bench/out/pinguinos_upper_risk_law.json")
    parser.add_argument("--report", metavar="JSON", help="print the tables of a saved run; simulate nothing")
    args = parser.parse_args()
    if args.report:
        print(markdown(json.loads(Path(args.report).read_text())["cases"]))
        return
    if args.rounds < args.batches or args.batches < 2:
        parser.error("need at least 2 batches and a round per batch")

    from benchlib import measured  # bench/ is on the path when run as a script

    game = LosTresPinguinos()
    variants = args.variants.split(",")
    stakes = [int(s) for s in args.bets.split(",")]
    for v in variants:
        game.exact(variant=v, mode="upper")  # the exact figures (memoised), outside the timing
    d0 = game.data(variants[0])
    K.play_rounds(d0, np.random.PCG64DXSM(0), 100, 0, True)  # the JIT, outside the timing
    load0 = os.getloadavg()
    cases = []

    def everything() -> dict[str, Any]:
        for v in variants:
            d = game.data(v)
            for stake in stakes:
                bet, _ = d.upper_bet(stake)
                c = measured(lambda v=v, bet=bet: run_case(
                    game, v, bet, args.rounds, args.batches, args.seed, args.warmup, args.sub))  # fmt: skip
                c["load_average"] = list(os.getloadavg())
                cases.append(c)
                print(
                    f"  {v} {stake:>6}: {c['rounds']:,} rounds in {c['seconds']:.1f} s, "
                    f"rtp {c['rtp']['value']:.6f} "
                    f"± {c['rtp']['half_width']:.6f} (exact {c['exact_rtp_risk']:.6f}, "
                    f"{'inside' if c['exact_inside'] else 'OUTSIDE'}), busy {c.get('machine_busy')}",
                    file=sys.stderr, flush=True,
                )  # fmt: skip
        return {}

    started = time.perf_counter()
    whole = measured(everything)
    out = {
        "game": "los-3-pinguinos",
        "mode": "upper",
        "play": "auto_risk",
        "what": "SIMULATED law of one upper round under AUTO-RISK "
        "(every fraction of Double-or-Bonuses played)",
        "command": "python bench/pinguinos_upper_risk_law.py " + " ".join(sys.argv[1:]),
        "seed": args.seed,
        "rounds_per_case": (args.rounds // args.batches) * args.batches,
        "batches": args.batches,
        "warmup_per_batch": args.warmup,
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_count": os.cpu_count(),
        "load_average_start": list(load0),
        "load_average_end": list(os.getloadavg()),
        "machine_busy": whole.get("machine_busy"),
        "other_busy": whole.get("other_busy"),
        "caveats": [
            "rounds within a batch depend on each other through the machine (counter, accumulator): "
            "intervals are over independent batches (batch means; the SD by the batches' jackknife)",
            "Bonuses uncapped (a net position), the exact figures' assumption",
            "each band's interval is the envelope of batch means and Wilson (iid)",
        ],
        "cases": cases,
    }
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1))
    print(markdown(cases))
    print(
        f"\n{len(cases)} cases, {out['seconds']} s, machine busy {out['machine_busy']} "
        f"(other {out['other_busy']}), load {load0} -> {out['load_average_end']}; JSON: {path}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
