"""Ghost of Gambini on the PAR sheet: 15 independent strips, 40 lines, coins and jackpots,
piggy banks (persistent state: the return by state), Lock & Spin, the bought features."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.engine.distribution import Bounded
from reelforge.engine.report.fmt import mult, num, one_in_cell, pct_cell, prob_cell
from reelforge.engine.report.par_adapter import Adapter, capped_wins, variant_file, weights_table
from reelforge.engine.report.tables import Cell, MaxWin, RateCheck, ReelSet, Table

from . import kernel, odds
from .base_moments import round_moments
from .data_model import CENTER, N_ROWS, Feature, GambiniData
from .exact import base_result
from .exact_panel import line_prizes
from .rules import DATA_DIR

ROWS = ("top", "mid", "bottom")
FEATURE_KINDS = ("lock_spin_3", "lock_spin_4", "super_lock_spin_3", "super_lock_spin_4")
_PIGGY_LEFT = kernel.COLUMNS.index("piggy_left")
_PIGGY_RIGHT = kernel.COLUMNS.index("piggy_right")


def _kind_name(kind: str) -> str:
    name = "Super Lock & Spin" if kind.startswith("super") else "Lock & Spin"
    return f"{name}, {kind[-1]} spins"


class GambiniAdapter(Adapter):
    @property
    def d(self) -> GambiniData:
        return self.game.data(self.variant)  # type: ignore[attr-defined, no-any-return]

    def data_files(self) -> list[Path]:
        return [variant_file(DATA_DIR, self.variant)]

    def reel_sets(self) -> list[ReelSet]:
        labels = [f"R{p // N_ROWS + 1} {ROWS[p % N_ROWS]}" for p in range(len(self.d.strips))]
        note = (
            f"Fifteen independent strips, one per window position; {labels[CENTER]} is the center "
            "(royals, Gambini and the ghost only)."
        )
        if self.mode != "base":
            note += " A bought feature plays Lock & Spin without spinning them."
        return [
            ReelSet("Base game (one strip per position)", labels, list(self.d.strips), note, self.d.symbols)
        ]

    def paytables(self) -> list[Table]:
        d = self.d
        bet = d.game.base_credits
        lengths = sorted({n for pays in d.pays.values() for n in pays})
        rows: list[list[Cell | str]] = []
        for s, pays in d.pays.items():
            row: list[Cell | str] = [s, d.symbols[s]]
            for n in lengths:
                c = pays.get(n)
                row.append(Cell("—" if c is None else f"{c:,} ({mult(c / bet)})", cls="num"))
            rows.append(row)
        lines = Table(
            f"Line pays (credits per line; {len(d.lines)} lines, 1 credit each; in brackets × the stake)",
            ["symbol", "name", *[f"{n} of a kind" for n in lengths]],
            rows,
            "Only a line's longest run from reel 1 pays; the lines' prizes add up. Gambini and the ghost "
            "land only in the center and are wild for every line symbol.",
        )
        prizes: list[list[Cell | str]] = [
            [c, d.symbols[c], Cell(f"{v:,}", cls="num"), Cell(mult(v / bet), cls="num")]
            for c, v in d.coin_values.items()
        ]
        prizes += [
            [j, d.symbols[j], Cell(f"{v * bet:,}", cls="num"), Cell(mult(v), cls="num")]
            for j, v in d.jackpots.items()
        ]
        coins = Table(
            "Coins and jackpots (collected with Gambini or the ghost in the center)",
            ["symbol", "name", "credits", "× the stake"],
            prizes,
        )
        out = [lines, coins]
        out.append(weights_table("Magic shot (start of a base spin)", d.magic_shot.model_dump()))
        out.append(weights_table("Ghost coins thrown", d.ghost_coins.count, "coins"))
        out.append(weights_table("Ghost coin prize", d.ghost_coins.prizes, "prize"))
        out.append(weights_table("Gambini's piggy toss", d.piggies.gambini_toss, "piggy"))
        for name, f in (("Lock & Spin", d.lock_spin), ("Super Lock & Spin", d.super_lock_spin)):
            out.extend(_feature_tables(name, f))
        out.append(
            Table(
                "Feature buy",
                ["feature", "price (× the stake)", "spins"],
                [
                    ["Lock & Spin", Cell(mult(d.buy.lock_spin), cls="num"), str(d.buy.spins)],
                    ["Super Lock & Spin", Cell(mult(d.buy.super_lock_spin), cls="num"), str(d.buy.spins)],
                ],
            )
        )
        return out

    def prize_odds(self, exact: dict[str, Any]) -> list[Table]:
        d = self.d
        bet = d.game.base_credits
        rows: list[list[Cell | str]] = []
        for (symbol, length), (n, credits) in sorted(line_prizes(d).items(), key=lambda kv: -kv[1][0]):
            rows.append(
                [
                    f"{length} × {symbol}",
                    Cell(f"{d.pays[symbol][length]:,} per line", cls="num"),
                    prob_cell(n, f"prize:{symbol}x{length}"),
                    one_in_cell(n),
                    pct_cell(credits / bet),
                ]
            )
        lines = Table(
            "Line prizes, per base spin",
            ["prize", "pays", "expected lines paying it", "odds", "RTP share"],
            rows,
            "Exact (exact_panel.line_prizes): the expected number of lines paying the prize per spin; "
            "for a prize this rare it is the chance of seeing it, to within the chance of two at once.",
            id="prize-odds",
        )
        jp = odds.jackpot_odds(d)
        jrows: list[list[Cell | str]] = []
        for name, e in jp.items():
            jrows.append(
                [name]
                + [
                    one_in_cell(e[k], f"jackpot:{name}:{k}")
                    for k in ("base_spin", "lock_spin", "buy-lock-spin", "buy-super-lock-spin")
                ]
            )
        jackpots = Table(
            "Jackpots: the chance to win at least one",
            [
                "jackpot",
                "base spin of a round",
                "Lock & Spin of a round",
                "bought Lock & Spin",
                "bought Super Lock & Spin",
            ],
            jrows,
            "Exact (odds.jackpot_odds), base-game columns over the piggy banks' long run.",
        )
        return [lines, jackpots, self._feature_odds(exact)]

    def _feature_odds(self, exact: dict[str, Any]) -> Table:
        d = self.d
        rows: list[list[Cell | str]] = []
        if self.mode == "base":
            r = base_result(d)
            chain = r.chain
            total = Fraction(0)
            for kind in FEATURE_KINDS:
                p = sum(
                    (chain.stationary[s] * chain.trigger[s].get(kind, Fraction(0)) for s in chain.states),
                    Fraction(0),
                )
                total += p
                rows.append([_kind_name(kind), prob_cell(p, f"feature:{kind}"), one_in_cell(p)])
            rows.insert(
                0, ["Any feature (a piggy pops)", prob_cell(total, "feature:any"), one_in_cell(total)]
            )
            rows.append(["Gambini in the center", prob_cell(r.p_gambini), one_in_cell(r.p_gambini)])
            rows.append(["The ghost in the center", prob_cell(r.p_ghost), one_in_cell(r.p_ghost)])
            note = "Exact, per base spin over the piggy banks' stationary law (exact_piggies.piggy_chain)."
        else:
            rows.append(
                [
                    "Board ends all gold",
                    prob_cell(exact["all_gold"], "feature:all_gold"),
                    one_in_cell(exact["all_gold"]),
                ]
            )
            rows.append(["Spins played (mean)", Cell(num(exact["mean_spins"]), cls="num"), ""])
            for level, m in zip(("bronze", "silver", "gold"), exact["mean_frames"], strict=True):
                rows.append([f"{level} frames at the end (mean)", Cell(num(m), cls="num"), ""])
            note = "Exact, per bought feature (exact_feature.feature_result)."
        return Table("Features", ["feature", "probability / value", "odds"], rows, note, id="feature-odds")

    def extra_tables(self, exact: dict[str, Any]) -> list[Table]:
        if "by_state" not in exact:
            return []
        rows: list[list[Cell | str]] = []
        for s in exact["by_state"]:
            left, right = s["piggies"]
            key = f"state:{left},{right}"
            rows.append(
                [
                    f"({left}, {right})",
                    prob_cell(s["share"]),
                    pct_cell(s["next_spin_rtp"], key),
                    prob_cell(s["feature_chance"]),
                    Cell(f"{s['bias_stakes']:+.3f}", cls="num"),
                    Cell(f"{s['stop_gain_stakes']:.3f}", cls="num"),
                ]
            )
        return [
            Table(
                "Return by state (the two piggy banks' sizes)",
                [
                    "piggies (left, right)",
                    "long-run share",
                    "next spin's RTP",
                    "feature chance next spin",
                    "relative value h (stakes)",
                    "gain of the best stop (stakes)",
                ],
                rows,
                "The piggies are per player and bet level and persist. The RTP is the long-run mean over "
                "these states; a state's next-spin RTP is what one spin returns from it, and h its value "
                "relative to the long run (exact: the chain's bias equation).",
                id="by-state",
            )
        ]

    def max_win(self, exact: dict[str, Any]) -> MaxWin:
        d = self.d
        m = odds.max_win_odds(d)
        cap = d.max_win_credits / d.price_credits(self.mode)  # a bought feature's stake is its price
        if self.mode == "base":
            lo, hi = m["base"]
            return MaxWin(
                cap,
                Bounded(float(lo), float(hi)),
                f"the cap, {d.game.max_win:,}× the stake: at least {m['grands_alone']} GRAND pots in one "
                f"feature reach it; with the largest base win beside them, {m['grands_with_base']} might",
                bracket=True,
                odds_note="The exact probabilities of both bracket the odds (odds.max_win_odds).",
            )
        p = m[self.mode]
        return MaxWin(
            cap,
            Bounded.of(p),
            f"the cap, {d.game.max_win:,}× the bet ({mult(cap)} the price): at least {m['grands_alone']} "
            "GRAND pots",
            odds_note="Exact (odds.max_win_odds).",
        )

    def checks(self, exact: dict[str, Any]) -> list[RateCheck]:
        if self.mode != "base":
            return [RateCheck("Board ends all gold", "all_gold", float(exact["all_gold"]), ("all_gold",))]
        r = base_result(self.d)
        chain = r.chain
        out = [
            RateCheck(
                "Any feature",
                "feature_frequency",
                float(exact["feature_frequency"]),
                FEATURE_KINDS,
                note="rounds carry the piggies, so they are not independent: the interval is approximate",
            ),
            RateCheck(
                "Gambini or the ghost in the center",
                "center_wild_frequency",
                float(exact["center_wild_frequency"]),
                ("center_gambini", "center_ghost"),
            ),
        ]
        for kind in FEATURE_KINDS:
            p = sum(
                (chain.stationary[s] * chain.trigger[s].get(kind, Fraction(0)) for s in chain.states),
                Fraction(0),
            )
            out.append(RateCheck(_kind_name(kind), kind, float(p), (kind,)))
        return out

    def notes(self, exact: dict[str, Any]) -> list[str]:
        if self.mode != "base":
            return []
        return [
            "Rounds carry the piggy banks, so successive rounds are not independent: the simulated "
            "intervals and the RTP band after n rounds treat them as independent and are approximate."
        ]

    def exact_sd(self) -> Bounded | None:
        """The base round's SD over the piggies' stationary law, bracketed by the cap's slack
        (``base_moments``); a bought feature's comes from its law."""
        if self.mode != "base":
            return None
        lo, hi = round_moments(self.d)["stationary"].sd_bounds(self.d.game.base_credits)  # type: ignore[attr-defined]
        return Bounded(lo, hi)

    @property
    def stake_credits(self) -> int:
        return self.d.price_credits(self.mode)

    @property
    def cap_credits(self) -> int | None:
        return self.d.max_win_credits

    def replay(self, seed: np.random.SeedSequence, rounds: int) -> np.ndarray:
        bg = np.random.PCG64DXSM(seed)
        piggies = (0, 0)  # as simulate_chunk: two new piggies, carried from round to round
        parts = []
        left = rounds
        while left > 0:
            n = min(left, 1 << 16)
            rows = kernel.play_rounds(self.d, bg, n, self.mode, piggies)
            if self.mode == "base":
                piggies = (int(rows[-1, _PIGGY_LEFT]), int(rows[-1, _PIGGY_RIGHT]))
            parts.append(capped_wins(rows))
            left -= n
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _feature_tables(name: str, f: Feature) -> list[Table]:
    out = [
        weights_table(f"{name}: ghosts at the start", f.start_ghosts, "ghosts"),
        weights_table(f"{name}: ghosts landing per spin", f.ghosts_per_spin, "ghosts"),
        weights_table(f"{name}: ghost colour", f.colours, "colour"),
    ]
    for level in ("bronze", "silver", "gold"):
        table = getattr(f.frames, level)
        if table:
            out.append(weights_table(f"{name}: a {level} frame turns into", table, "prize"))
    return out
