"""Exact RTP of Ghost of Gambini, as fractions, from the data file alone.

Derivation (docs/games/ghost-of-gambini.md has it in full):

* The 15 positions stop independently.  The center's final symbol mixes the magic shot,
  its own strip and the center rewind (:func:`center_distribution`); every other position
  shows its strip's symbols uniformly.
* Lines: the first reel never shows a wild, so a line pays only for the symbol on reel 1;
  its run is a product of independent per-position match probabilities.
* Collection: with a wild in the center every coin and jackpot of the 14 outer positions is
  paid (independent of the center); the jackpot rewind picks one of the blanks in view
  uniformly, so position ``p`` is picked with probability ``E[1 / (1 + blanks elsewhere)]``
  (a convolution of Bernoullis); the ghost's coins are ``E[count] * E[prize]``.
* Lock & Spin: positions are exchangeable, so the board is the count of bronze, silver and
  gold frames; every ghost raises the board's progress ``b + 2s + 3g``, so the chain over
  (board, counter) is acyclic and solved backwards for its value and forwards for the
  distribution of the final board.  Frames pay the mean of their prize table.
* Piggy banks: a Markov chain on the two sizes; the base game's RTP is the expected return
  of one spin under its stationary distribution.  The expected return of the next spin in
  each state (``by_state``) and the relative values (bias) of the states are published.

The max-win cap is not in the RTP: :func:`cap_bound` bounds its effect, which is far below
1e-9 (the doc says by how much).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .data_model import N_POS, GambiniData
from .exact_common import F, cache
from .exact_feature import feature_result
from .exact_panel import (
    center_distribution,
    ghost_coin_credits,
    jackpot_rewind,
    line_prizes,
    outer_prize_credits,
)
from .exact_piggies import PiggyChain, bias, piggy_chain, stopping_values


@dataclass(frozen=True)
class BaseResult:
    rtp: Fraction
    components: dict[str, Fraction]  # fractions of the stake
    p_gambini: Fraction
    p_ghost: Fraction
    spin_credits: Fraction  # lines + collection, credits per spin
    chain: PiggyChain


@cache
def base_result(d: GambiniData) -> BaseResult:
    bet = d.game.base_credits
    center = center_distribution(d)
    p_g, p_h = center.get(d.wilds.gambini, F(0)), center.get(d.wilds.ghost, F(0))
    lines = sum((c for _, c in line_prizes(d).values()), F(0))
    outer = outer_prize_credits(d)
    rewind, _ = jackpot_rewind(d)
    ghost = ghost_coin_credits(d)
    chain = piggy_chain(d)
    pi = chain.stationary
    components = {
        "lines": lines / bet,
        "collection": (p_g + p_h) * outer / bet,
        "jackpot_rewind": (p_g + p_h) * rewind / bet,
        "ghost_coins": p_h * ghost / bet,
    }
    for kind in ("lock_spin_3", "lock_spin_4", "super_lock_spin_3", "super_lock_spin_4"):
        super_, spins = kind.startswith("super"), int(kind[-1])
        value = feature_result(d, super_, spins).value
        components[kind] = (
            sum((pi[s] * chain.trigger[s].get(kind, F(0)) for s in chain.states), F(0)) * value / bet
        )
    spin_credits = lines + (p_g + p_h) * (outer + rewind) + p_h * ghost
    return BaseResult(sum(components.values(), F(0)), components, p_g, p_h, spin_credits, chain)


def exact_report(game_id: str, d: GambiniData, mode: str) -> dict[str, Any]:
    """The JSON ``reelforge rtp`` prints."""
    bet = d.game.base_credits
    out: dict[str, Any] = {"game": game_id, "variant": d.game.variant, "mode": mode, "method": "exact"}
    if mode == "base":
        from .odds import hit_frequency  # odds builds on this module

        r = base_result(d)
        chain = r.chain
        features = sum(
            (chain.stationary[s] * sum(chain.trigger[s].values(), F(0)) for s in chain.states), F(0)
        )
        reward = {s: r.spin_credits + chain.feature_credits[s] for s in chain.states}
        h = bias(chain, reward, r.rtp * bet)
        gain = stopping_values(chain, {s: float(reward[s] / bet) - 1 for s in chain.states})
        out.update(
            {
                "rtp": float(r.rtp),
                "rtp_fraction": f"{r.rtp.numerator}/{r.rtp.denominator}",
                "components": {k: float(v) for k, v in r.components.items()},
                "hit_frequency": float(hit_frequency(d)),
                "center_wild_frequency": float(r.p_gambini + r.p_ghost),
                "feature_frequency": float(features),
                "feature_one_in": float(1 / features),
                "by_state": [
                    {
                        "piggies": list(s),
                        "share": float(chain.stationary[s]),
                        "next_spin_rtp": float(reward[s] / bet),
                        "bias_stakes": float(h[s] / bet),
                        "stop_gain_stakes": gain[s],
                        "feature_chance": float(sum(chain.trigger[s].values(), F(0))),
                    }
                    for s in chain.states
                ],
            }
        )
    else:
        super_ = mode == "buy-super-lock-spin"
        fr = feature_result(d, super_, d.buy.spins)
        price = d.price_credits(mode)
        rtp = fr.value / price
        out.update(
            {
                "rtp": float(rtp),
                "rtp_fraction": f"{rtp.numerator}/{rtp.denominator}",
                "components": {"super_lock_spin" if super_ else "lock_spin": float(rtp)},
                "hit_frequency": 1.0,
                "price_x_bet": price // bet,
                "mean_frames": [float(x) for x in fr.mean_frames()],
                "mean_spins": float(fr.mean_spins),
                "all_gold": float(fr.final_boards.get((0, 0, N_POS), F(0))),
            }
        )
    out["max_win_cap_included"] = False
    return out
