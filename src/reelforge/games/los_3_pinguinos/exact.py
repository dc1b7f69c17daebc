"""Exact RTP of the lower and the upper game, as fractions, from the data file alone.

All 4,096 stops are enumerated; :mod:`.strategy` values every position (prizes, ladders
as Markov chains, the Disco as one draw of its table, nudges by the best reachable line, the
held game by the best or suggested hold) for three plays: AUTO (best holds and nudges,
collect on ladders), the default play (the suggested hold, best nudges, collect) and
AUTO-RISK (best holds and nudges, every ladder played to its end), the best play and the worst
reasonable one.  Bonuses count at their cash worth ``bonus_worth`` (see :mod:`.machine_best`);
every bet has the same RTP (its prizes are the unit bet's, scaled).

The upper game's figures are per bet (:mod:`.upper_exact`): :func:`upper_report`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from . import strategy as S
from . import upper_exact as U
from .data_model import LowerData
from .machine_best import machine_report
from .payline import evaluate, line_symbols

F = Fraction


def components(d: LowerData, play: str) -> dict[str, Fraction]:
    """The RTP split into the line as it lands, what holds add and what nudges add."""
    v = S.values(d, play)
    ladders = S.PLAYS[play][0]
    n = len(S.ALL_STOPS)
    unit = d.game.unit
    by_kind: dict[str, Fraction] = {"cash": F(0), "bonus": F(0), "disco": F(0)}
    for stops in S.ALL_STOPS:
        o = evaluate(d, line_symbols(d, stops))
        if o.kind != "none":
            by_kind[o.kind] += S.prize_value(d, o, ladders)
    line = sum(by_kind.values(), F(0))
    final = sum(v.final_paid, F(0))
    landed = sum(v.landed_paid, F(0))
    return {
        "line_cash": by_kind["cash"] / n / unit,
        "line_bonuses": by_kind["bonus"] / n / unit,
        "line_disco": by_kind["disco"] / n / unit,
        "held_games": (final - line) / n / unit,
        "nudges": (landed - final) / n / unit,
    }


def line_hit_frequency(d: LowerData) -> Fraction:
    hits = sum(1 for s in S.ALL_STOPS if evaluate(d, line_symbols(d, s)).kind != "none")
    return F(hits, len(S.ALL_STOPS))


def exact_report(game_id: str, d: LowerData) -> dict[str, Any]:
    plays = {p: S.values(d, p).rtp_cents / d.game.unit for p in S.PLAYS}
    rtp = plays["auto"]
    comps = components(d, "auto")
    return {
        "game": game_id,
        "variant": d.game.variant,
        "mode": "base",
        "method": "exact",
        "rtp": float(rtp),
        "rtp_fraction": f"{rtp.numerator}/{rtp.denominator}",
        "play": "auto: best holds and nudges, collect on ladders (the best play: no ladder PLAY is "
        "worth more)",
        "accounting": f"the lower game alone, a Bonus counted at its cash worth, {d.bonus_worth} cents "
        "(what the upper game returns per Bonus staked); by design this is the whole machine's cash "
        "return under the same play: machine_rtp_by_play",
        "rtp_by_play": {p: float(x) for p, x in plays.items()},
        "rtp_by_play_fraction": {p: f"{x.numerator}/{x.denominator}" for p, x in plays.items()},
        "plays": dict(S.PLAY_NAMES),
        "machine_rtp_by_play": machine_report(d),
        "components": {k: float(x) for k, x in comps.items()},
        "hit_frequency": float(line_hit_frequency(d)),
        "hit_frequency_meaning": "paid games showing a prize on the line as they land (before nudges "
        "and held games)",
        "bonus_value_cents": d.game.bonus_value,
        "bonus_worth_cents": d.bonus_worth,
        "ladder_values_risk": {
            kind: [float(x) for x in S.ladder_values(d, kind)] for kind in ("sube_bonos", "sube_nada")
        },
    }


# -- the upper game ------------------------------------------------------------------------

UPPER_PLAY = (
    "COLLECT ALL on every Double-or-Bonuses; AUTO-PLAY minigames; the vertical-lines counter and "
    "the accumulator at their long-run rates under upper-only play"
)


def _pair(f: U.BetFigures, lines: int) -> dict[str, float]:
    return {play: float(f.rtp(play, lines)) for play in U.PLAYS}


def upper_bet_row(d: LowerData, i: int) -> dict[str, Any]:
    bet = d.upper.bets[i]
    offer, offer8 = d.upper.offer(i, 5), d.upper.offer(i, 8)
    f = U.bet_figures(d, i)
    o5, o8 = U.offer_chance(d, i, 5), U.offer_chance(d, i, 8)
    collect, risk = f.rtp("collect"), f.rtp("risk")
    s = f.eight_share
    played = {k: float((1 - s) * o5 * f.e5.triggers[k] + s * o8 * f.e8.triggers[k]) for k in f.e5.triggers}
    return {
        "stake": f.stake,
        "cash": bet.cash,
        "bonuses": bet.bonuses,
        "value": f.stake,
        "multiplier": bet.multiplier,
        "offer": f"{offer.yes}/{offer.yes + offer.no}",
        "offer_8": f"{offer8.yes}/{offer8.yes + offer8.no}",
        "rtp": float(collect),
        "rtp_fraction": U._frac(collect),
        "rtp_risk": float(risk),
        "rtp_risk_fraction": U._frac(risk),
        "lines5": _pair(f, 5),
        "lines8": _pair(f, 8),
        "eight_line_share": float(s),
        "accumulator_fills_per_game": float(f.fills),
        "winning_spin_value": {play: float(f.winning.value[play]) for play in U.PLAYS},
        "minigame_chance": played,
        "hit_frequency_5": float(f.e5.pays),
    }


def upper_components(d: LowerData, i: int) -> dict[str, Fraction]:
    """Bet ``i``'s configured COLLECT figure split into the line prizes, what the offered
    minigames add over them, and the WINNING SPINs."""
    f = U.bet_figures(d, i)
    o5, o8 = U.offer_chance(d, i, 5), U.offer_chance(d, i, 8)
    s = f.eight_share
    line = (1 - s) * f.e5.base["collect"] + s * f.e8.base["collect"]
    mini = (1 - s) * o5 * f.e5.minigame_gain["collect"] + s * o8 * f.e8.minigame_gain["collect"]
    return {
        "line_prizes": line / f.stake,
        "minigames": mini / f.stake,
        "winning_spin": f.fills * f.winning.value["collect"] / f.stake,
    }


def upper_report(game_id: str, d: LowerData) -> dict[str, Any]:
    """The upper game's exact report: bet 0's configured COLLECT figure as ``rtp``, every
    bet in ``by_bet``."""
    first = U.bet_figures(d, 0)
    rtp = first.rtp("collect")
    _, pi = U.counter_chain(d)
    return {
        "game": game_id,
        "variant": d.game.variant,
        "mode": "upper",
        "method": "exact",
        "rtp": float(rtp),
        "rtp_fraction": U._frac(rtp),
        "accounting": "a design figure: the upper game alone over the bet's value, its Bonuses at "
        f"{d.game.bonus_value} cents; in cash an upper game returns the variant's RTP x its cash plus "
        f"{d.bonus_worth} cents per Bonus staked. The variant's RTP is the whole machine's cash return: "
        "mode base, machine_rtp_by_play",
        "play": UPPER_PLAY,
        "hit_frequency": float(first.e5.pays),
        "components": {k: float(x) for k, x in upper_components(d, 0).items()},
        "bonus_value_cents": d.game.bonus_value,
        "currency": d.game.currency,
        "assumes": f"the machine's Bonuses at or below the {d.game.bonus_cap} cap (above it every prize is "
        "collected: the COLLECT figure)",
        "eight_line_share": float(first.eight_share),
        "counter_distribution": [float(x) for x in pi],
        "accumulator_fills_per_game": float(first.fills),
        "by_bet": [upper_bet_row(d, i) for i in range(len(d.upper.bets))],
    }
