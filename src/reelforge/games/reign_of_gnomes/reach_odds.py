"""Reign of Gnomes' prizes and features with their exact odds, from the game's calculators
(``engine.exact`` over the reel sets, ``games/reign_of_gnomes/exact.py``)."""

from __future__ import annotations

from fractions import Fraction

from reelforge.engine.exact import symbol_count_distribution, ways_expectation_by_symbol
from reelforge.engine.reels import ReelSet
from reelforge.engine.report.odds import MaxWinOdds, Odds

from .data_model import GnomesData
from .exact import exact_rtp

WAYS = "engine.exact.ways_expectation_by_symbol"
SCATTERS = "engine.exact.symbol_count_distribution"
EXACT = "games/reign_of_gnomes/exact.exact_rtp"


def _design(d: GnomesData, reels: ReelSet, length: int) -> str:
    """A ``length`` of a kind cannot pay when the next reel shows a wild in every window."""
    if length < len(reels.strips) and all(d.wild in w for _, w in reels.windows_of_reel(length)):
        return f"reel {length + 1} shows a wild in every window: every {length} of a kind extends (data)"
    return ""


def _ways(d: GnomesData, reels: ReelSet, group: str, per: str) -> list[Odds]:
    got = ways_expectation_by_symbol(reels, d.ways_pays, d.wild)
    out = []
    for symbol, pays in d.ways_pays.items():
        for length, credits in sorted(pays.items()):
            p = got.get(symbol, {}).get(length, (Fraction(0), Fraction(0)))[0]
            why = _design(d, reels, length) if p == 0 else ""
            out.append(
                Odds(
                    group,
                    f"way:{symbol}x{length}",
                    f"{length} × {symbol} ({d.symbols[symbol]})",
                    f"{credits:,} credits a way",
                    p,
                    per,
                    WAYS,
                    design=why,
                )
            )
    return out


def _scatters(d: GnomesData, reels: ReelSet, group: str, per: str) -> list[Odds]:
    dist = symbol_count_distribution(reels, d.scatter)
    out = []
    for k in sorted(set(d.scatter_pays) | set(d.free_spins)):
        pays = f"{d.scatter_pays.get(k, 0):,}× the stake + {d.free_spins.get(k, 0)} free spins"
        out.append(
            Odds(
                group,
                f"scatter:{k}",
                f"{k} × {d.scatter} anywhere",
                pays,
                dist.get(k, Fraction(0)),
                per,
                SCATTERS,
            )
        )
    return out


def odds(d: GnomesData, mode: str) -> tuple[list[Odds], MaxWinOdds]:
    out = _ways(d, d.base, "Way prizes", "base spin")
    out += _scatters(d, d.base, "Scatter prizes", "base spin")
    out += _ways(
        d, d.free, "Way prizes in free spins (free reels, before the wheel's multiplier)", "free spin"
    )
    out += _scatters(d, d.free, "Scatters in free spins (retrigger)", "free spin")
    out += _ways(d, d.spin_to_win, "Way prizes in Spin To Win (before its multiplier)", "Spin To Win game")
    for i, rw in enumerate(d.random_wild_reels):
        out += _ways(d, rw, f"Way prizes with Random Wilds set {i + 1}", f"free spin with set {i + 1}")
    r = exact_rtp(d)
    feat = "Features"
    out.append(
        Odds(
            feat,
            "feature:free_spins",
            "Dragon Spins triggered",
            "free spins",
            r.free_spins_frequency,
            "base spin",
            EXACT,
        )
    )
    total = sum(d.wheel_weights)
    for seg in d.wheel:
        out.append(
            Odds(
                feat,
                f"feature:wheel_{seg.label}",
                f"Golden Wheel: {seg.label}",
                seg.label,
                Fraction(seg.weight, total),
                "free spin",
                "data: wheel weight / total",
            )
        )
    p_stw = r.details["spin_to_win_win_probability"]
    assert isinstance(p_stw, Fraction)
    out.append(
        Odds(
            feat,
            "feature:spin_to_win_win",
            "Spin To Win: a game wins",
            "its way win × (1 + games lost)",
            p_stw,
            "Spin To Win game",
            EXACT,
        )
    )
    levels = r.details["ice_diamonds_levels"]
    assert isinstance(levels, list)
    for i, (p, lv) in enumerate(zip(levels, d.ice_diamonds.levels, strict=True)):
        out.append(
            Odds(
                feat,
                f"feature:ice_level_{i + 1}",
                f"Ice Diamonds level {i + 1}",
                f"{lv.award:,}× the stake",
                p,
                "Ice Diamonds award",
                EXACT,
            )
        )
    none = MaxWinOdds(
        None, None, "not computed here: the game's exact win law (win_distribution, ~20 s) has it"
    )
    return out, none
