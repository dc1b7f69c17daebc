"""Reign of Gnomes on the PAR sheet: 5x3 ways, base / free-spin / Spin To Win / Random Wilds
reel sets, the Golden Wheel, exact per-prize odds from the ways calculator."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.engine.exact import symbol_count_distribution, ways_expectation_by_symbol
from reelforge.engine.report.fmt import mult, num, one_in_cell, pct_cell, prob_cell
from reelforge.engine.report.par_adapter import Adapter, capped_wins, variant_file, weights_table
from reelforge.engine.report.tables import Cell, MaxWin, RateCheck, ReelSet, Table

from . import kernel
from .data_model import GnomesData
from .exact import exact_rtp
from .rules import DATA_DIR

REELS = [f"Reel {i}" for i in range(1, 6)]


class GnomesAdapter(Adapter):
    @property
    def d(self) -> GnomesData:
        return self.game.data(self.variant)  # type: ignore[attr-defined, no-any-return]

    def data_files(self) -> list[Path]:
        return [variant_file(DATA_DIR, self.variant)]

    def reel_sets(self) -> list[ReelSet]:
        d = self.d
        out = [
            ReelSet("Base game", REELS, list(d.base_reels.strips), names=d.symbols),
            ReelSet("Free spins (Dragon Spins)", REELS, list(d.free_reels.strips), names=d.symbols),
            ReelSet(
                "Spin To Win",
                REELS,
                list(d.spin_to_win_reels.strips),
                "the wheel's Spin To Win award replays these until a game wins",
                d.symbols,
            ),
        ]
        for i, rw in enumerate(d.random_wild_sets):
            out.append(
                ReelSet(
                    f"Random Wilds set {i + 1}",
                    REELS[1:4],
                    list(rw.strips),
                    "replaces reels 2-4 of the free-spin reels (reels 1 and 5 stay)",
                    d.symbols,
                )
            )
        return out

    def paytables(self) -> list[Table]:
        d = self.d
        credits = d.game.base_credits
        lengths = sorted({n for pays in d.ways_pays.values() for n in pays})
        rows: list[list[Cell | str]] = []
        for s, pays in d.ways_pays.items():
            row: list[Cell | str] = [s, d.symbols[s]]
            for n in lengths:
                c = pays.get(n)
                row.append(Cell("—" if c is None else f"{c:,} ({mult(c / credits)})", cls="num"))
            rows.append(row)
        ways = Table(
            "Way pays (credits per way; in brackets × the stake)",
            ["symbol", "name", *[f"{n} of a kind" for n in lengths]],
            rows,
            f"243 ways, left to right; the longest combination per symbol pays, times its ways. "
            f"The wild {d.wild} ({d.symbols[d.wild].split(' (')[0]}) substitutes for all but the scatter. "
            f"The stake is {credits} credits.",
        )
        scat = Table(
            f"Scatter {d.scatter} ({d.symbols[d.scatter]})",
            ["scatters in view", "pays (× the stake)", "free spins"],
            [
                [str(k), Cell(mult(v), cls="num"), Cell(str(d.free_spins.get(k, 0)), cls="num")]
                for k, v in sorted(d.scatter_pays.items())
            ],
            "scatters pay anywhere; the same counts retrigger during free spins",
        )
        wheel = weights_table(
            "Golden Wheel (one award each free spin)",
            {seg.label: seg.weight for seg in d.wheel},
            "award",
        )
        ice = d.ice_diamonds
        ice_t = Table(
            f"Ice Diamonds ({ice.stones} stones, {ice.diamonds} diamonds, ends at {ice.diamonds} "
            f"diamonds or {ice.empties_to_end} empty stones)",
            ["level", "diamonds at least", "award (× the stake)"],
            [
                [str(i + 1), str(lv.min_diamonds), Cell(mult(lv.award), cls="num")]
                for i, lv in enumerate(ice.levels)
            ],
        )
        return [ways, scat, wheel, ice_t]

    def prize_odds(self, exact: dict[str, Any]) -> list[Table]:
        d = self.d
        credits = d.game.base_credits
        rows: list[list[Cell | str]] = []
        for symbol, per_len in ways_expectation_by_symbol(d.base, d.ways_pays, d.wild).items():
            for length, (p, e) in sorted(per_len.items()):
                key = f"prize:{symbol}x{length}"
                rows.append(
                    [
                        f"{length} × {symbol}",
                        Cell(f"{d.ways_pays[symbol][length]:,} per way", cls="num"),
                        prob_cell(p, key),
                        one_in_cell(p),
                        pct_cell(e / credits, f"prize-rtp:{symbol}x{length}"),
                    ]
                )
        dist = symbol_count_distribution(d.base, d.scatter)
        for k, pay in sorted(d.scatter_pays.items()):
            p = dist.get(k, Fraction(0))
            rows.append(
                [
                    f"{k} × {d.scatter} (scatter)",
                    Cell(f"{mult(pay)} + {d.free_spins.get(k, 0)} free spins", cls="num"),
                    prob_cell(p, f"prize:{d.scatter}x{k}"),
                    one_in_cell(p),
                    pct_cell(p * pay, f"prize-rtp:{d.scatter}x{k}"),
                ]
            )
        prizes = Table(
            "Paytable prizes, per base-game spin",
            ["prize", "pays", "probability", "odds", "RTP share"],
            rows,
            "Exact (engine.exact.ways_expectation_by_symbol, symbol_count_distribution): the "
            "probability that a spin pays the prize, counted over every stop combination of the base "
            "reels. Free-spin prizes come from the same paytable on the free reels, under the wheel's "
            "awards; their return is in the components above.",
            id="prize-odds",
        )
        return [prizes, self._feature_odds()]

    def _feature_odds(self) -> Table:
        d = self.d
        r = exact_rtp(d)
        det = r.details
        total_w = sum(d.wheel_weights)
        rows: list[list[Cell | str]] = [
            [
                "Free spins triggered (per base game)",
                prob_cell(r.free_spins_frequency, "feature:free_spins"),
                one_in_cell(r.free_spins_frequency),
            ],
        ]
        base_dist: dict[int, Fraction] = det["base_scatter_distribution"]  # type: ignore[assignment]
        for k, spins in sorted(d.free_spins.items()):
            p = base_dist.get(k, Fraction(0))
            rows.append([f"  {k} scatters: {spins} free spins", prob_cell(p), one_in_cell(p)])
        rows.append(
            [
                "Free spins per trigger, retriggers included (mean)",
                Cell(
                    num(float(r.mean_free_spins)), "feature:mean_free_spins", float(r.mean_free_spins), "num"
                ),
                "",
            ]
        )
        rows.append(
            [
                "Free spins added per free spin (mean retrigger)",
                Cell(num(float(r.retrigger_rate)), value=float(r.retrigger_rate), cls="num"),
                "",
            ]
        )
        seen: dict[str, int] = {}
        for seg in d.wheel:
            seen[seg.label] = seen.get(seg.label, 0) + seg.weight
        for label, w in seen.items():
            p = Fraction(w, total_w)
            rows.append(
                [
                    f"Wheel award {label} (per free spin)",
                    prob_cell(p, f"feature:wheel_{label}"),
                    one_in_cell(p),
                ]
            )
        p_stw = det["spin_to_win_win_probability"]
        assert isinstance(p_stw, Fraction)
        rows.append(
            [
                "Spin To Win: a game wins (its multiplier is 1 + the games lost)",
                prob_cell(p_stw),
                one_in_cell(p_stw),
            ]
        )
        levels: list[Fraction] = det["ice_diamonds_levels"]  # type: ignore[assignment]
        for i, (p, lv) in enumerate(zip(levels, d.ice_diamonds.levels, strict=True)):
            rows.append(
                [
                    f"Ice Diamonds level {i + 1} ({mult(lv.award)}), per Ice Diamonds award",
                    prob_cell(p),
                    one_in_cell(p),
                ]
            )
        return Table(
            "Features",
            ["feature", "probability / value", "odds"],
            rows,
            "Exact (games/reign_of_gnomes/exact.py).",
            id="feature-odds",
        )

    def max_win(self, exact: dict[str, Any]) -> MaxWin:
        return MaxWin(
            float(self.d.game.max_win),
            None,
            f"a round's win is capped at {self.d.game.max_win:,}× the stake",
        )

    def checks(self, exact: dict[str, Any]) -> list[RateCheck]:
        d = self.d
        out = [
            RateCheck(
                "Free spins trigger frequency",
                "free_spins_frequency",
                float(exact["free_spins_frequency"]),
                ("free_spins_triggers",),
            )
        ]
        total_w = sum(d.wheel_weights)
        seen: dict[str, int] = {}
        for seg in d.wheel:
            seen[seg.label] = seen.get(seg.label, 0) + seg.weight
        for label, w in seen.items():
            out.append(
                RateCheck(
                    f"Wheel award {label}, per free spin",
                    f"wheel_{label}",
                    w / total_w,
                    (f"wheel_{label}",),
                    per="free_spins_played",
                )
            )
        return out

    @property
    def stake_credits(self) -> int:
        return self.d.game.base_credits

    @property
    def cap_credits(self) -> int | None:
        return self.d.game.max_win * self.d.game.base_credits

    def replay(self, seed: np.random.SeedSequence, rounds: int) -> np.ndarray:
        bg = np.random.PCG64DXSM(seed)
        parts = []
        left = rounds
        while left > 0:  # blocks: the rows of a whole chunk would take ~100 MB
            n = min(left, 1 << 16)
            parts.append(capped_wins(kernel.play_rounds(self.d, bg, n)))
            left -= n
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
