"""Exact RTP of Reign of Gnomes, as a fraction, from the data file alone.

Derivation (docs/games/reign-of-gnomes.md has it in full):

* A spin of any reel set: way wins by :func:`reelforge.engine.exact.ways_expectation`,
  scatters by the distribution of their count.
* Spin To Win: games repeat until one has a way win (probability ``p``); the multiplier
  is ``1 + losses``, geometric and independent of the winning game's amount, so the
  feature pays ``E[win | win] * E[1 + losses] = E[W] / p**2``.
* Ice Diamonds: the diamonds collected (picking in any fixed order from a uniformly
  shuffled layout) by a recursion over (diamonds left, empties left, empties found).
* Free spins are i.i.d.; each adds ``free_spins[k]`` more with the probability of ``k``
  scatters, ``m`` on average.  The count played is a stopping time, so by Wald's
  identity a trigger of ``F`` spins plays ``F / (1 - m)`` spins on average and pays that
  many times the mean free-spin win.

The max-win cap is not in this figure: its effect is measured by simulation and given
on the doc page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache

from reelforge.engine.exact import (
    symbol_count_distribution,
    ways_expectation,
    ways_expectation_by_symbol,
    ways_hit_and_scatter,
)
from reelforge.engine.reels import ReelSet

from .data_model import GnomesData, IceDiamonds


@dataclass(frozen=True)
class SpinStats:
    """Per-spin expectations of one reel set, in credits."""

    ways: Fraction
    scatter_pay: Fraction
    scatter_dist: dict[int, Fraction]
    retrigger_spins: Fraction  # expected free spins this spin awards


def spin_stats(d: GnomesData, reels: ReelSet) -> SpinStats:
    dist = symbol_count_distribution(reels, d.scatter)
    scatter_pay = sum(
        (p * d.scatter_pays.get(k, 0) * d.game.base_credits for k, p in dist.items()), Fraction(0)
    )
    retrigger = sum((p * d.free_spins.get(k, 0) for k, p in dist.items()), Fraction(0))
    return SpinStats(ways_expectation(reels, d.ways_pays, d.wild), scatter_pay, dist, retrigger)


def ice_diamonds_distribution(ice: IceDiamonds) -> dict[int, Fraction]:
    """P(diamonds collected = n) for a uniformly shuffled layout picked in any fixed order."""

    @cache
    def walk(diamonds_left: int, empties_left: int, empties_found: int) -> tuple[tuple[int, Fraction], ...]:
        collected = ice.diamonds - diamonds_left
        if diamonds_left == 0 or empties_found == ice.empties_to_end:
            return ((collected, Fraction(1)),)
        left = diamonds_left + empties_left
        out: dict[int, Fraction] = {}
        if diamonds_left:
            for n, p in walk(diamonds_left - 1, empties_left, empties_found):
                out[n] = out.get(n, Fraction(0)) + p * Fraction(diamonds_left, left)
        if empties_left:
            for n, p in walk(diamonds_left, empties_left - 1, empties_found + 1):
                out[n] = out.get(n, Fraction(0)) + p * Fraction(empties_left, left)
        return tuple(sorted(out.items()))

    return dict(walk(ice.diamonds, ice.stones - ice.diamonds, 0))


def ice_diamonds_level_distribution(ice: IceDiamonds) -> list[Fraction]:
    levels = [Fraction(0)] * len(ice.levels)
    for n, p in ice_diamonds_distribution(ice).items():
        levels[ice.level_for(n)] += p
    return levels


def spin_to_win_stats(d: GnomesData) -> tuple[Fraction, Fraction]:
    """``(p, expected pay)`` of the Spin To Win feature: ``p`` = a game's win chance."""
    joint = ways_hit_and_scatter(d.spin_to_win, d.ways_pays, d.wild, d.scatter)
    p = sum((prob for (hit, _), prob in joint.items() if hit), Fraction(0))
    mean_win = ways_expectation(d.spin_to_win, d.ways_pays, d.wild)
    return p, mean_win / (p * p)


@dataclass
class ExactResult:
    rtp: Fraction
    components: dict[str, Fraction]
    hit_frequency: Fraction
    free_spins_frequency: Fraction
    mean_free_spins: Fraction  # per trigger, retriggers included
    retrigger_rate: Fraction  # expected extra spins per free spin
    wheel_award_wins: dict[str, Fraction] = field(default_factory=dict)  # credits per award
    details: dict[str, object] = field(default_factory=dict)


def exact_rtp(d: GnomesData) -> ExactResult:
    credits = d.game.base_credits
    base = spin_stats(d, d.base)
    free = spin_stats(d, d.free)
    rw = [spin_stats(d, reels) for reels in d.random_wild_reels]
    p_stw, stw_pay = spin_to_win_stats(d)
    ice_levels = ice_diamonds_level_distribution(d.ice_diamonds)
    ice_pay = sum(
        (p * lv.award * credits for p, lv in zip(ice_levels, d.ice_diamonds.levels, strict=True)), Fraction(0)
    )

    total_weight = sum(d.wheel_weights)
    award_win: dict[str, Fraction] = {}
    award_prob: dict[str, Fraction] = {}
    retrigger = Fraction(0)
    for seg in d.wheel:
        prob = Fraction(seg.weight, total_weight)
        if seg.award == "multiplier":
            assert seg.multiplier is not None
            win = seg.multiplier * free.ways + free.scatter_pay
            extra = free.retrigger_spins
        elif seg.award == "spin_to_win":
            win = free.ways + free.scatter_pay + stw_pay
            extra = free.retrigger_spins
        elif seg.award == "random_wilds":
            win = sum((s.ways + s.scatter_pay for s in rw), Fraction(0)) / len(rw)
            extra = sum((s.retrigger_spins for s in rw), Fraction(0)) / len(rw)
        else:
            win = free.ways + free.scatter_pay + ice_pay
            extra = free.retrigger_spins
        award_win[seg.label] = award_win.get(seg.label, Fraction(0)) + win * prob
        award_prob[seg.label] = award_prob.get(seg.label, Fraction(0)) + prob
        retrigger += prob * extra
    if retrigger >= 1:
        raise ValueError(f"free spins add {float(retrigger):.3f} spins per spin: the feature never ends")

    initial = sum((p * d.free_spins.get(k, 0) for k, p in base.scatter_dist.items()), Fraction(0))
    mean_spins_played = initial / (1 - retrigger)  # per base game
    components = {
        "base_ways": base.ways / credits,
        "base_scatter": base.scatter_pay / credits,
    }
    for label, win in award_win.items():
        components[f"free_spins_{label}"] = mean_spins_played * win / credits
    rtp = sum(components.values(), Fraction(0))

    joint = ways_hit_and_scatter(d.base, d.ways_pays, d.wild, d.scatter)
    hit = sum((p for (way_hit, k), p in joint.items() if way_hit or k in d.scatter_pays), Fraction(0))
    fs_freq = sum((p for k, p in base.scatter_dist.items() if k in d.free_spins), Fraction(0))
    return ExactResult(
        rtp=rtp,
        components=components,
        hit_frequency=hit,
        free_spins_frequency=fs_freq,
        mean_free_spins=mean_spins_played / fs_freq,
        retrigger_rate=retrigger,
        wheel_award_wins={k: v / award_prob[k] for k, v in award_win.items()},
        details={
            "spin_to_win_win_probability": p_stw,
            "spin_to_win_mean_pay_credits": stw_pay,
            "ice_diamonds_levels": ice_levels,
            "ice_diamonds_mean_pay_credits": ice_pay,
            "free_spin_scatter_distribution": free.scatter_dist,
            "base_scatter_distribution": base.scatter_dist,
        },
    )


def prize_probabilities(d: GnomesData) -> dict[str, Fraction]:
    """Probability per base game of every paytable prize (way wins by symbol and length,
    scatter counts): each must be more likely than 1 in 100,000,000."""
    out: dict[str, Fraction] = {}
    for symbol, per_len in ways_expectation_by_symbol(d.base, d.ways_pays, d.wild).items():
        for length, (p, _) in per_len.items():
            out[f"{symbol}x{length}"] = p
    dist = symbol_count_distribution(d.base, d.scatter)
    for k in d.scatter_pays:
        out[f"{d.scatter}x{k}"] = dist.get(k, Fraction(0))
    return out
