"""Any lines game on the PAR sheet: its base and free-spin strips, line and scatter pays, the
paylines, every line prize's exact odds per reel set, the max win from the law, and the
feature's rate beside the simulation's count."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from reelforge.engine.report.fmt import mult, one_in_cell, prob_cell
from reelforge.engine.report.par_adapter import Adapter, capped_wins, variant_file
from reelforge.engine.report.tables import Cell, MaxWin, RateCheck, ReelSet, Table

from .data_model import LinesData
from .exact import exact_figures

REEL_LABELS = [f"Reel {i}" for i in range(1, 6)]
TRIGGERS = ("free_spins_triggers",)  # the kernel's counter of features


class LinesAdapter(Adapter):
    @property
    def d(self) -> LinesData:
        return self.game.data(self.variant)  # type: ignore[no-any-return]

    def data_files(self) -> list[Path]:
        return [variant_file(self.game.folder / "data", self.variant)]  # type: ignore[attr-defined]

    def reel_sets(self) -> list[ReelSet]:
        d = self.d
        names = {code: s.name for code, s in d.symbols.items()}
        out = [ReelSet("Base game", REEL_LABELS, list(d.base_reels.strips), names=names)]
        if d.free_reels is not None:
            note = f"every win ×{d.free_spins.multiplier}" if d.free_spins else ""
            out.append(ReelSet("Free spins", REEL_LABELS, list(d.free_reels.strips), note, names))
        return out

    def paytables(self) -> list[Table]:
        d = self.d
        lengths = sorted({n for pays in d.line_pays.values() for n in pays})
        rows: list[list[Cell | str]] = []
        for code, pays in d.line_pays.items():
            cells = [Cell(f"{pays.get(n, 0):,}", cls="num") for n in lengths]
            rows.append([f"{d.symbols[code].name} ({code})", *cells])
        for n, pay in sorted(d.wild_pays.items()):
            cells = [Cell(f"{pay:,}" if m == n else "", cls="num") for m in lengths]
            rows.append([f"{n} × {d.symbols[str(d.wild)].name} alone", *cells])
        line_table = Table(
            f"Line pays (× the line bet; {d.lines} lines, the total bet is {d.lines} line bets)",
            ["symbol", *(f"{n} in a row" for n in lengths)],
            rows,
            "A line pays its best combination from reel 1; the wild substitutes for every symbol but "
            "the scatter.",
        )
        scatter = Table(
            "Scatter pays (× the total bet, anywhere in view)",
            ["scatters", "pays"],
            [[str(k), Cell(f"{v:,}", cls="num")] for k, v in sorted(d.scatter_pays.items())],
        )
        lines = Table(
            "Paylines (row of each reel, 0 = top)",
            ["line", "rows"],
            [[str(i + 1), " ".join(str(r) for r in line)] for i, line in enumerate(d.paylines)],
        )
        return [line_table, scatter, lines]

    def prize_odds(self, exact: dict[str, Any]) -> list[Table]:
        from .reach import line_prize_law

        d = self.d
        out = []
        for title, strips in [("base game", d.base_reels.strips)] + (
            [("free spins", d.free_reels.strips)] if d.free_reels is not None else []
        ):
            law = line_prize_law(d, strips)
            rows: list[list[Cell | str]] = []
            for (code, n), p in sorted(law.items(), key=lambda kv: -kv[1]):
                rows.append([f"{n} × {d.symbols[code].name}", prob_cell(p), one_in_cell(p)])
            out.append(Table(f"Line prizes per line, {title}", ["prize", "probability", "odds"], rows))
        return out

    def max_win(self, exact: dict[str, Any]) -> MaxWin:
        d = self.d
        top, p = self.game.win_distribution(self.variant, self.mode).max_win()  # type: ignore[attr-defined]
        stakes = top / d.lines
        return MaxWin(
            stakes,
            p,
            f"the {d.game.max_win:,}× cap: a round ends when its win reaches it (largest reachable win "
            f"{mult(stakes)} the stake)",
            bracket=p.low < p.high,
            odds_note="the round's exact win law, its top cell",
        )

    def checks(self, exact: dict[str, Any]) -> list[RateCheck]:
        f = exact_figures(self.d)
        return [
            RateCheck("Free spins feature", "feature_frequency", float(f.feature_frequency), TRIGGERS),
        ]

    @property
    def stake_credits(self) -> int:
        return self.d.lines

    @property
    def cap_credits(self) -> int | None:
        return self.d.game.max_win * self.d.lines

    def replay(self, seed: np.random.SeedSequence, rounds: int) -> np.ndarray:
        from .kernel import play_rounds

        bg = np.random.PCG64DXSM(seed)
        parts, left = [], rounds
        while left > 0:  # blocks: the rows of a whole chunk would take memory for nothing
            n = min(left, 1 << 16)
            parts.append(capped_wins(play_rounds(self.d, bg, n)))
            left -= n
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


__all__ = ["LinesAdapter"]
