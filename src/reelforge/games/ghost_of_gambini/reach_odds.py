"""Ghost of Gambini's prizes, jackpots and features with their exact odds, from the game's
calculators (``exact_panel.line_prizes``, ``odds.prize_odds`` / ``max_win_odds``, the piggy
chain of ``exact.base_result``, ``exact_feature`` through ``Game.exact``)."""

from __future__ import annotations

from fractions import Fraction

from reelforge.engine.report.odds import MaxWinOdds, Odds

from . import odds as g_odds
from .data_model import N_POS, GambiniData
from .exact import base_result
from .exact_feature import feature_result
from .exact_panel import line_prizes

FEATURE_KINDS = {
    "lock_spin_3": "Lock & Spin, 3 spins",
    "lock_spin_4": "Lock & Spin, 4 spins",
    "super_lock_spin_3": "Super Lock & Spin, 3 spins",
    "super_lock_spin_4": "Super Lock & Spin, 4 spins",
}


def _pays(d: GambiniData, prize: str) -> str:
    bet = d.game.base_credits
    credits = d.prize_credits(prize)
    return f"{credits:,} credits ({credits / bet:,.4g}× the bet)"


def _design(d: GambiniData, prize: str, where: str) -> str:
    """Why ``prize`` cannot come from ``where``, when the data holds it nowhere there."""
    if where == "base_spin":
        if any(prize in strip for strip in d.strips) or prize in d.ghost_coins.prizes:
            return ""
        return "no strip shows it and the ghost throws none (data)"
    features = (
        [d.lock_spin, d.super_lock_spin]
        if where == "lock_spin"
        else [d.super_lock_spin if where == "buy-super-lock-spin" else d.lock_spin]
    )
    tables = [getattr(f.frames, lv) for f in features for lv in ("bronze", "silver", "gold")]
    if any(t.get(prize, 0) for t in tables):
        return ""
    return "no frame table of the feature holds it (data)"


def _prizes(d: GambiniData, mode: str) -> list[Odds]:
    out = []
    src = "games/ghost_of_gambini/odds.prize_odds"
    group = "Coins and jackpots: the chance to win at least one"
    routes = (
        [("base_spin", ", in the base spin", "base round"), ("lock_spin", ", in a Lock & Spin", "base round")]
        if mode == "base"
        else [(mode, "", "bought feature")]
    )
    for prize in [*d.coin_values, *d.jackpots]:
        kind = "jackpot" if prize in d.jackpots else "coin"
        e = g_odds.prize_odds(d, prize)
        for where, label, per in routes:
            p = e[where]
            name = f"{prize} ({d.symbols[prize]}){label}"
            why = _design(d, prize, where) if p == 0 else ""
            out.append(Odds(group, f"{kind}:{prize}", name, _pays(d, prize), p, per, src, design=why))
    return out


def odds(d: GambiniData, mode: str) -> tuple[list[Odds], MaxWinOdds]:
    out: list[Odds] = []
    m = g_odds.max_win_odds(d)
    if mode == "base":
        got = line_prizes(d)
        for symbol, pays in d.pays.items():
            for length, credits in sorted(pays.items()):
                n = got.get((symbol, length), (Fraction(0), Fraction(0)))[0]
                out.append(
                    Odds(
                        "Line prizes",
                        f"line:{symbol}x{length}",
                        f"{length} × {symbol} ({d.symbols[symbol]})",
                        f"{credits:,} credits a line",
                        n,
                        "base spin",
                        "games/ghost_of_gambini/exact_panel.line_prizes",
                        measure="expected count",
                        note="the expected number of lines paying it: for a rare prize, its chance",
                    )
                )
    out += _prizes(d, mode)
    if mode == "base":
        r = base_result(d)
        chain = r.chain
        src = "games/ghost_of_gambini/exact.base_result (piggy chain, stationary law)"
        for kind, label in FEATURE_KINDS.items():
            p = sum(
                (chain.stationary[s] * chain.trigger[s].get(kind, Fraction(0)) for s in chain.states),
                Fraction(0),
            )
            out.append(Odds("Features", f"feature:{kind}", label, "the feature", p, "base round", src))
        out.append(
            Odds(
                "Features",
                "feature:center_gambini",
                "Gambini in the center",
                "collects",
                r.p_gambini,
                "base spin",
                src,
            )
        )
        out.append(
            Odds(
                "Features",
                "feature:center_ghost",
                "The ghost in the center",
                "collects, throws coins",
                r.p_ghost,
                "base spin",
                src,
            )
        )
        lo, hi = m["base"]
        mw = MaxWinOdds(lo, hi, "games/ghost_of_gambini/odds.max_win_odds (cap_odds: a rigorous bracket)")
    else:
        fr = feature_result(d, mode == "buy-super-lock-spin", d.buy.spins)
        all_gold = fr.final_boards.get((0, 0, N_POS), Fraction(0))
        out.append(
            Odds(
                "Features",
                "feature:all_gold",
                "The board ends all gold",
                "every frame gold",
                all_gold,
                "bought feature",
                "games/ghost_of_gambini/exact_feature.feature_result",
            )
        )
        mw = MaxWinOdds(m[mode], m[mode], "games/ghost_of_gambini/odds.max_win_odds (exact)")
    return out, mw
