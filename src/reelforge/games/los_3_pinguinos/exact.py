"""Exact RTP of the lower game, as fractions, from the data file alone.

All 4,096 stops are enumerated; :mod:`.strategy` values every position (prizes, ladders
as Markov chains, the Disco as one draw of its table, nudges by the best reachable line, the
held game by the best or suggested hold) for three plays: AUTO (best holds and nudges,
collect on ladders), the default play (the suggested hold, best nudges, collect) and
AUTO-RISK (best holds and nudges, every ladder played to its end).  Bonuses count at
``bonus_value`` cents; every bet has the same RTP (its prizes are the unit bet's, scaled).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from . import strategy as S
from .data_model import LowerData
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
        "play": "auto: best holds and nudges, collect on ladders",
        "rtp_by_play": {p: float(x) for p, x in plays.items()},
        "rtp_by_play_fraction": {p: f"{x.numerator}/{x.denominator}" for p, x in plays.items()},
        "components": {k: float(x) for k, x in comps.items()},
        "hit_frequency": float(line_hit_frequency(d)),
        "bonus_value_cents": d.game.bonus_value,
        "ladder_values_risk": {
            kind: [float(x) for x in S.ladder_values(d, kind)] for kind in ("sube_bonos", "sube_nada")
        },
    }
