"""Los 3 Pinguinos on the PAR sheet: the lower game (3 reels of 16, one payline, holds,
nudges, ladders, the Disco) and the upper game (5/8 lines, minigames, WINNING SPIN), each a
mode of its own.  Bonuses count ``bonus_value`` cents, as in every RTP figure of the game."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.engine.report.fmt import mult, one_in_cell, pct_cell, prob_cell
from reelforge.engine.report.par_adapter import Adapter, capped_wins, variant_file, weights_table
from reelforge.engine.report.tables import Cell, MaxWin, ReelSet, Table
from reelforge.money import format_minor

from . import kernel, upper_kernel
from .data_model import LowerData
from .payline import evaluate, line_symbols
from .rules import DATA_DIR
from .strategy import ALL_STOPS
from .upper_exact import prize_odds

REELS = ["Reel 1", "Reel 2", "Reel 3"]


class PinguinosAdapter(Adapter):
    @property
    def d(self) -> LowerData:
        return self.game.data(self.variant)  # type: ignore[attr-defined, no-any-return]

    @property
    def upper(self) -> bool:
        return self.mode == "upper"

    def _eur(self, cents: int) -> str:
        return format_minor(int(cents), self.d.game.currency)

    def data_files(self) -> list[Path]:
        path = variant_file(DATA_DIR, self.variant)
        return [path, DATA_DIR / "upper.toml"]

    def reel_sets(self) -> list[ReelSet]:
        d = self.d
        if self.upper:
            return [
                ReelSet(
                    "Upper game",
                    REELS,
                    list(d.upper.strips),
                    "A reel's window is the stop above, the stop and the stop below; "
                    f"{len(d.upper.lines)} paylines, 8 with the vertical-lines counter above zero.",
                    d.upper.symbols,
                )
            ]
        marks = "; ".join(
            f"reel {r + 1}: stops {', '.join(str(s) for s in stops)}"
            for r, stops in enumerate(d.vertical_lines)
        )
        return [
            ReelSet(
                "Lower game",
                REELS,
                list(d.strips),
                f"One payline: the stop's symbol. Stops carrying the vertical-lines sign ({marks}).",
                d.symbols,
            )
        ]

    def paytables(self) -> list[Table]:
        return self._upper_paytables() if self.upper else self._lower_paytables()

    def _lower_paytables(self) -> list[Table]:
        d = self.d
        unit = d.game.unit
        rows: list[list[Cell | str]] = []
        for s, cents in d.pays.items():
            ladder = "Sube-Nada" if s in d.yellow else "Sube-Bonos" if s in d.blue else ""
            rows.append(
                [
                    s,
                    d.symbols[s],
                    Cell(self._eur(cents), cls="num"),
                    Cell(mult(cents / unit), cls="num"),
                    ladder,
                ]
            )
        pays = Table(
            f"Three on the line (at the {self._eur(unit)} bet; every bet pays the same multiple)",
            ["symbol", "name", "pays", "× the bet", "ladder"],
            rows,
            f"The wild {d.wild} lands on reels 1 and 3; three {d.disco} start the Disco game.",
        )
        bv = d.game.bonus_value
        bonus = Table(
            f"Bonus symbols {d.bonus} on the line (wilds join them)",
            ["symbols", "Bonuses", "worth (× the bet)"],
            [[str(n), str(b), Cell(mult(b * bv / unit), cls="num")] for n, b in sorted(d.bonus_pays.items())],
            f"One Bonus counts {self._eur(bv)} in every RTP figure.",
        )
        discos = [
            weights_table(
                f"Disco at the {self._eur(bet)} bet: each of {d.disco_game.penguins} penguins draws a prize",
                {
                    (f"{k[1:]} Bonuses" if k[0] == "B" else self._eur(int(k[1:]))): w
                    for k, w in d.disco_table(bet // unit).items()
                },
                "prize",
                "Each bet has its own table (the seed's ranges per bet), with the same mean cash and Bonuses "
                "per cent staked; a cash prize up to the 3 Bells prize enters Sube-Bonos.",
            )
            for bet in d.game.bets
        ]
        lad = d.ladders
        lrows: list[list[Cell | str]] = []
        for i, cents in enumerate(lad.scale):
            sb = lad.sube_bonos[i] if i < len(lad.sube_bonos) else None
            sn = lad.sube_nada[i] if i < len(lad.sube_nada) else None
            lrows.append(
                [
                    Cell(self._eur(cents), cls="num"),
                    Cell("top" if sb is None else f"{sb.up}/{sb.up + sb.fail}", cls="num"),
                    Cell("top" if sn is None else f"{sn.up}/{sn.up + sn.fail}", cls="num"),
                ]
            )
        ladders = Table(
            "Ladders: the chance to go up from each prize", ["prize", "Sube-Bonos", "Sube-Nada"], lrows
        )
        chances = Table(
            "Designed chances",
            ["event", "chance"],
            [
                [
                    "a pair without a prize holds the next game",
                    prob_cell(Fraction(d.hold.yes, d.hold.yes + d.hold.no)),
                ],
                [
                    "a near miss is offered nudges",
                    prob_cell(Fraction(d.nudges.offer.yes, d.nudges.offer.yes + d.nudges.offer.no)),
                ],
            ],
        )
        nudges = weights_table(
            "Nudges offered",
            d.nudges.count,
            "nudges",
            "A near miss is at most two nudges from an improvement; an offer draws among the counts"
            " that reach it (at least the fewest nudges that improve the line), weights as listed.",
        )
        return [pays, bonus, *discos, ladders, chances, nudges]

    def _upper_paytables(self) -> list[Table]:
        u = self.d.upper
        pays = Table(
            "Three on a line (at the unit upper bet, €0.20 + 1 Bonus; × the bet's multiplier)",
            ["symbol", "name", "pays"],
            [[s, u.symbols[s], Cell(self._eur(c), cls="num")] for s, c in u.pays.items()],
            f"Minigame symbols: {', '.join(f'{s} {g}' for s, g in u.minigames.items())}.",
        )
        brows: list[list[Cell | str]] = []
        for b, stake in zip(u.bets, self.d.upper_stakes, strict=True):
            mixed = ", ".join(f"{self._eur(c)}: {w}" for c, w in b.mixed.items()) or "—"
            brows.append(
                [
                    f"{self._eur(b.cash)} + {b.bonuses} Bonuses",
                    Cell(self._eur(stake), cls="num"),
                    str(b.multiplier),
                    Cell(self._eur(b.minigame_floor), cls="num"),
                    Cell(self._eur(b.max_prize), cls="num"),
                    mixed,
                ]
            )
        bets = Table(
            "Upper bets",
            ["bet", "value", "multiplier", "minigame floor", "maximum prize", "mixed sevens (prize: weight)"],
            brows,
        )
        out = [pays, bets]
        out.append(
            Table(
                "Roulette sections",
                ["section", "prize"],
                [[str(i + 1), Cell(self._eur(c), cls="num")] for i, c in enumerate(u.roulette.sections)],
            )
        )
        out.append(weights_table(f"Fishing: each of {u.fishing.penguins} penguins catches", u.fishing.catch))
        out.append(weights_table(f"Slides: {u.slides.platforms} platforms drawn from", u.slides.prizes))
        out.append(weights_table("Double-or-Bonuses", u.double.model_dump()))
        return out

    def prize_odds(self, exact: dict[str, Any]) -> list[Table]:
        return self._upper_odds() if self.upper else self._lower_odds()

    def _lower_odds(self) -> list[Table]:
        d = self.d
        unit = d.game.unit
        seen: Counter[tuple[str, str, int]] = Counter()
        for stops in ALL_STOPS:
            o = evaluate(d, line_symbols(d, stops))
            if o.kind == "cash":
                seen[("cash", o.symbol or "", o.cents)] += 1
            elif o.kind == "bonus":
                seen[("bonus", d.bonus, o.bonuses)] += 1
            elif o.kind == "disco":
                seen[("disco", d.disco, 0)] += 1
        n = len(ALL_STOPS)
        rows: list[list[Cell | str]] = []
        for (kind, symbol, amount), c in sorted(seen.items(), key=lambda kv: -kv[1]):
            p = Fraction(c, n)
            if kind == "cash":
                name, pays, key = f"3 × {symbol}", self._eur(amount), f"prize:{symbol}"
            elif kind == "bonus":
                name, pays, key = f"Bonus line ({amount} Bonuses)", f"{amount} Bonuses", f"prize:B{amount}"
            else:
                name, pays, key = f"3 × {symbol}: the Disco game", "Disco", "prize:disco"
            rows.append([name, Cell(pays, cls="num"), prob_cell(p, key), one_in_cell(p)])
        return [
            Table(
                f"Prizes on the line as it lands (per paid game at {self._eur(unit)})",
                ["prize", "pays", "probability", "odds"],
                rows,
                "Exact, over all 4,096 stop combinations, before holds, nudges and ladders: what the "
                "player's decisions then add is in the components above (AUTO play).",
                id="prize-odds",
            )
        ]

    def _upper_odds(self) -> list[Table]:
        rows: list[list[Cell | str]] = []
        for o in prize_odds(self.d, 0):
            rows.append(
                [
                    o.name,
                    Cell(self._eur(o.cents), cls="num"),
                    prob_cell(o.chance, f"prize:{o.name}"),
                    one_in_cell(o.chance),
                ]
            )
        return [
            Table(
                "Advertised prizes at €0.20 + 1 Bonus, per paid game (5 lines, before Double-or-Bonuses)",
                ["prize", "pays", "probability", "odds"],
                rows,
                "Exact (upper_exact.prize_odds). Other bets: docs/games/los-3-pinguinos.md.",
                id="prize-odds",
            )
        ]

    def extra_tables(self, exact: dict[str, Any]) -> list[Table]:
        if not self.upper:
            plays = exact.get("rtp_by_play", {})
            rows: list[list[Cell | str]] = [[p, pct_cell(v, f"play:{p}")] for p, v in plays.items()]
            return [
                Table(
                    "Lower game alone by play (a Bonus at its cash worth)",
                    ["play", "RTP"],
                    rows,
                    f"A Bonus counts {exact.get('bonus_worth_cents')} cents, what the upper game returns per "
                    "Bonus staked. best = auto: best holds and nudges, collect on ladders; default: the "
                    "suggested hold; auto_risk: every ladder played to its end; worst: never hold or nudge.",
                ),
                self._machine_table(exact.get("machine_rtp_by_play", {})),
            ]
        rows = []
        for b in exact.get("by_bet", []):
            rows.append(
                [
                    Cell(self._eur(b["stake"]), cls="num"),
                    f"{self._eur(b['cash'])} + {b['bonuses']} Bonuses",
                    pct_cell(b["rtp"], f"bet:{b['stake']}"),
                    pct_cell(b["rtp_risk"]),
                    prob_cell(b["eight_line_share"]),
                ]
            )
        return [
            Table(
                "RTP by upper bet",
                ["value", "bet", "RTP (COLLECT)", "RTP (AUTO-RISK)", "share of 8-line games"],
                rows,
                "The vertical-lines counter and the accumulators are the machine's persistent state: the "
                "RTP is over their long-run law (counter_distribution in `reelforge rtp --json`).",
            )
        ]

    def _machine_table(self, machine: dict[str, Any]) -> Table:
        """The promised RTP: the whole machine's cash return per play (``machine_rtp_by_play``)."""
        rows: list[list[Cell | str]] = []
        best = machine.get("best")
        if best:
            lo, hi = best["bounds"]
            rows.append(
                [
                    "best (the promised RTP: no play returns more)",
                    "every pairing",
                    pct_cell(Fraction(hi), "machine:best"),
                    pct_cell(Fraction(lo), "machine:best:attained"),
                ]
            )
        for play, figure in machine.items():
            if play == "best":
                continue
            for row in figure["by_pairing"]:
                pairing = f"{self._eur(row['lower_bet'])} with {row['upper_bet']}"
                mark = " ≈" if row.get("approximate") else ""
                rows.append(
                    [
                        play + mark,
                        pairing,
                        pct_cell(row["rtp_5_lines"], f"machine:{play}:{row['upper_stake']}:5"),
                        pct_cell(row["rtp_8_lines"], f"machine:{play}:{row['upper_stake']}:8"),
                    ]
                )
        return Table(
            "Whole machine: cash return by play",
            ["play", "pairing", "5-line upper games (best: bound)", "8-line upper games (best: attained)"],
            rows,
            "Cash out over cash in, lower and upper games together; Bonuses, the counter and accumulators "
            "internal. A pairing plays lower rounds until the Bonuses cover the upper bet, then upper games. "
            "≈: AUTO-RISK's upper games win more Bonuses than they stake; the long run at the cap is "
            "approximate. Proof and method: docs/games/los-3-pinguinos.md, 'The promised RTP'.",
            id="machine-rtp",
        )

    def max_win(self, exact: dict[str, Any]) -> MaxWin:
        d = self.d
        if self.upper:
            bet = d.upper.bets[0]
            top = next(o for o in prize_odds(d, 0) if o.name == "maximum")
            stake = d.upper_stakes[0]
            return MaxWin(
                2 * bet.max_prize / stake,
                None,
                f"the bet's maximum prize, {self._eur(bet.max_prize)} ({mult(bet.max_prize / stake)}), "
                "in the paid game and again in the WINNING SPIN it may owe",
                odds_note=f"The maximum prize in a paid game: {one_in_cell(top.chance).text} (exact); the "
                "odds of two in one round are not computed.",
            )
        top = kernel.max_round_win(d)
        unit = d.game.unit
        tops = ", ".join(
            f"{self._eur(kernel.max_round_win(d, b // unit))} at {self._eur(b)}" for b in d.game.bets[1:]
        )
        return MaxWin(
            top / d.game.unit,
            None,
            f"the top of the scale, {self._eur(top)} at the {self._eur(unit)} bet (one prize a round); "
            f"the Disco's top prize at the other bets: {tops}",
            odds_note="Its exact odds depend on the play's holds, nudges and Disco picks: not computed here.",
        )

    def hit_comparable(self) -> tuple[bool, str]:
        if self.upper:
            return False, (
                "exact: a paid 5-line game pays a line prize; simulated: a round (with its "
                "WINNING SPIN, on 5 or 8 lines) wins anything: not the same event"
            )
        return False, (
            "exact: the line pays as it lands; simulated: the round (held game and nudges "
            "included) wins anything: not the same event"
        )

    def notes(self, exact: dict[str, Any]) -> list[str]:
        return [f"Every return counts a Bonus at {exact.get('bonus_value_cents', 80)} cents."]

    def distribution_note(self) -> str:
        return "the game offers no exact win distribution"

    @property
    def stake_credits(self) -> int:
        return self.d.upper_stakes[0] if self.upper else self.d.game.unit

    def replay(self, seed: np.random.SeedSequence, rounds: int) -> np.ndarray:
        bg = np.random.PCG64DXSM(seed)
        machine: dict[str, Any] = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
        parts = []
        left = rounds
        while left > 0:
            n = min(left, 1 << 16)
            if self.upper:  # the machine's counter and accumulator carry over, as in simulate_chunk
                rows = upper_kernel.play_rounds(self.d, bg, n, 0, False, machine=machine)
            else:
                rows = kernel.play_rounds(self.d, bg, n)
            parts.append(capped_wins(rows))
            left -= n
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
