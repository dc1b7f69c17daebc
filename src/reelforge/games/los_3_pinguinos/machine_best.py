"""The whole machine's cash return under each play, and the best play's, with its proof.

Only cash enters and leaves the machine: the lower bets and the upper bets' cash go in, prizes
come out.  Bonuses, the vertical-lines counter and the accumulators are the machine's internal
state (a Bonus has no cash value but what it wins in the upper game).  A variant's promised RTP
is this cash return under the player's best play.

**Rounds.**  A lower round at bet b has expected cash out ``C_L``, cash in ``b`` and Bonuses won
``B_L``; an upper game at bet k (its WINNING SPINs at their long-run rate, 5 or 8 lines) has cash
out ``C_U``, cash in ``cash_k``, and stakes ``bonus_k`` Bonuses while winning ``B_U`` (AUTO-RISK
only).  Every figure is an exact fraction from :mod:`.strategy` and :mod:`.upper_exact`.

**A play's figure** (:func:`play_figure`): at a pairing of a lower bet and an upper bet, lower
rounds until the Bonuses cover the upper bet, then upper games while they do.  The Bonuses stay
bounded, so in the long run as many are staked as won: ``x`` upper games per lower round with
``B_L = x (bonus_k - B_U)``, and the cash return is ``(C_L + x C_U) / (b + x cash_k)`` exactly
(renewal-reward).  The counter's share of 8-line upper games moves ``C_U`` a little: the figure
is given for 5 and 8 lines, and every share lies between.  When an upper game under the play
wins more Bonuses than it stakes (AUTO-RISK), the Bonuses climb to the 4,000 cap, above which no
fraction is played: the long run mixes risked and collected upper games in the proportion that
balances the Bonuses (a prize that crosses the cap part-way is counted as played whole: that
figure is approximate and named so).

**The best play** (:func:`best_play`).  Let a Bonus be worth ``w`` cents (``bonus_worth``) and
``λ`` a ratio.  Every round's *gain* is ``g = max E[cash out + w ΔBonuses] - λ cash in``, the
maximum over the decisions inside the round (holds, nudges, ladders, the Double-or-Bonuses).  If
``g <= 0`` for every round a player can choose, then over any N rounds of any play, cash out
``<= λ`` cash in ``+ w (B_0 - B_N) <= λ`` cash in ``+ w B_0``: no play returns more than ``λ`` in
the long run (``B_N >= 0``; a Bonus balance, a cap or a counter that refuses a round only takes
choices away).  So ``λ_ub = max over rounds of (max E[cash + w ΔB]) / cash in`` is a bound no
play can beat, where:

* the accumulator cannot be timed: the gain is the same in every accumulator state once the
  WINNING SPIN's value is spread by the accumulator chain's relative values (a potential), so
  each upper game counts its WINNING SPINs at the long-run rate;
* the counter (5 or 8 lines) is bounded by taking the larger of the two;
* inside a round, :mod:`.strategy` maximises over every hold, nudge and ladder decision; in the
  Double-or-Bonuses a played fraction f returns at most ``2 p f`` in cash and ``(1 - p) f`` in
  Bonuses worth ``w / bonus_value`` each, so COLLECT ALL is best whenever
  ``2 p + (1 - p) w / bonus_value <= 1`` (checked; the maximum only caps a double further).

A play attains ``λ_lb``: the best pairing's figure under those same decisions (the smaller of its
5-line and 8-line figures, so whatever the counter does).  The best play's figure lies in
``[λ_lb, λ_ub]``; the data are designed so that every round's ratio is the variant's target, and
the two bounds differ by the tuning's rounding only.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from reelforge.engine.memo import by_identity

from . import strategy as S
from . import upper_exact as U
from .data_model import LowerData
from .upper_minigames_exact import double_chance

F = Fraction
# whole-machine play -> (lower play, upper play)
MACHINE_PLAYS = {
    "best": ("best", "collect"),
    "auto": ("auto", "collect"),
    "default": ("default", "collect"),
    "auto_risk": ("auto_risk", "risk"),
    "worst": ("worst", "collect"),
}
MACHINE_PLAY_NAMES = {
    "best": "the best play: lower rounds with every decision for the most cash plus Bonuses at their "
    "worth, every Bonus spent in upper games, COLLECT ALL",
    "auto": "AUTO (AUTO-ADVANCE on, AUTO-RISK off): best holds and nudges, collect every ladder; upper "
    "games with COLLECT ALL",
    "default": "the default play (what the machine suggests): the suggested hold, best nudges, collect; "
    "upper games with COLLECT ALL",
    "auto_risk": "AUTO-RISK (and AUTO-ADVANCE): every ladder and every Double-or-Bonuses fraction risked",
    "worst": "the worst reasonable play: never hold, never nudge, always collect; upper games with "
    "COLLECT ALL",
}


@dataclass(frozen=True)
class Round:
    """One kind of round under a play: expected cash out, cash in, Bonuses won and staked."""

    cash_out: Fraction
    cash_in: Fraction
    bonuses_won: Fraction
    bonuses_staked: Fraction

    def gain(self, worth: Fraction) -> Fraction:
        """``E[cash + worth × ΔBonuses]``: the round's value with Bonuses at ``worth``."""
        return self.cash_out + worth * (self.bonuses_won - self.bonuses_staked)


def lower_round(d: LowerData, bet: int, play: str) -> Round:
    coin = d.multiplier(bet)
    v = S.values(d, play)
    return Round(coin * v.cash_cents, F(bet), coin * v.bonuses, F(0))


def upper_round(d: LowerData, i: int, play: str, lines: int) -> Round:
    """An upper game at bet ``i`` on ``lines`` paylines, WINNING SPINs at the long-run rate."""
    f = U.bet_figures(d, i)
    game = f.e5 if lines == 5 else f.e8
    bet = d.upper.bets[i]

    def per_game(key: str) -> Fraction:
        return game.value[key] + f.fills * f.winning.value[key]

    if play == "collect":
        return Round(per_game("collect"), F(bet.cash), F(0), F(bet.bonuses))
    cash = per_game("risk_cash")
    bonuses = (per_game("risk") - cash) / d.game.bonus_value
    return Round(cash, F(bet.cash), bonuses, F(bet.bonuses))


def _ratio(lower: Round, upper: Round) -> tuple[Fraction, Fraction]:
    """(cash return, upper games per lower round) of the long run that spends every Bonus."""
    net = upper.bonuses_staked - upper.bonuses_won
    x = lower.bonuses_won / net
    return (lower.cash_out + x * upper.cash_out) / (lower.cash_in + x * upper.cash_in), x


def _at_cap(collect: Round, risk: Round) -> tuple[Fraction, Fraction]:
    """Upper games only, the Bonuses held at the cap: the share φ of risked games balances the
    Bonuses, ``φ (B_risk - stake) = (1 - φ) stake``; returns (cash return, φ)."""
    phi = risk.bonuses_staked / risk.bonuses_won
    cash = phi * risk.cash_out + (1 - phi) * collect.cash_out
    return cash / risk.cash_in, phi


def pairings(d: LowerData) -> list[tuple[int, int]]:
    """(lower bet, upper bet index): each upper bet with the lower bet of the same cash."""
    return [(bet.cash, i) for i, bet in enumerate(d.upper.bets) if bet.cash in d.game.bets]


def _name(d: LowerData, i: int) -> str:
    bet = d.upper.bets[i]
    return f"€{bet.cash / 100:.2f} + {bet.bonuses} Bonus{'es' if bet.bonuses != 1 else ''}"


@by_identity()
def play_figure(d: LowerData, play: str) -> dict[str, Any]:
    """A play's whole-machine cash return at every pairing (5-line and 8-line figures)."""
    lower_play, upper_play = MACHINE_PLAYS[play]
    rows = []
    for lower_bet, i in pairings(d):
        lower = lower_round(d, lower_bet, lower_play)
        row: dict[str, Any] = {"lower_bet": lower_bet, "upper_bet": _name(d, i)}
        row["upper_stake"] = d.upper_stakes[i]
        by_lines: dict[int, Fraction] = {}
        for lines in (5, 8):
            upper = upper_round(d, i, upper_play, lines)
            if upper.bonuses_won >= upper.bonuses_staked:
                collect = upper_round(d, i, "collect", lines)
                by_lines[lines], phi = _at_cap(collect, upper)
                row["approximate"] = (
                    "an upper game under this play wins more Bonuses than it stakes: the long run sits at "
                    f"the {d.game.bonus_cap}-Bonus cap, {float(phi):.2%} of upper games risked (a prize "
                    "crossing the cap part-way counted as risked whole)"
                )
                row["upper_games_per_lower_round"] = None
            else:
                by_lines[lines], x = _ratio(lower, upper)
                row["upper_games_per_lower_round"] = float(x)
        lo, hi = sorted(by_lines.values())
        row.update(
            rtp=float(lo),
            rtp_5_lines=float(by_lines[5]),
            rtp_8_lines=float(by_lines[8]),
            bounds=[U._frac(lo), U._frac(hi)],
        )
        rows.append(row)
    return {"play": MACHINE_PLAY_NAMES[play], "rtp": rows[0]["rtp"], "by_pairing": rows}


@dataclass(frozen=True)
class BestPlay:
    attained: Fraction  # λ_lb: a play reaches it (the best pairing, whatever the counter does)
    bound: Fraction  # λ_ub: no play returns more
    pairing: tuple[int, int]  # (lower bet, upper bet index) attaining λ_lb
    ratios: dict[str, Fraction]  # every round's E[cash + worth ΔB] / cash in
    worth: Fraction
    collect_all_best: bool


@by_identity()
def best_play(d: LowerData) -> BestPlay:
    w = F(d.bonus_worth)
    p = double_chance(d)
    collect_all_best = 2 * p + (1 - p) * w / d.game.bonus_value <= 1
    if not collect_all_best:
        raise ValueError(
            f"variant {d.game.variant}: with a Bonus worth {w} cents a played Double-or-Bonuses fraction "
            "returns more than it risks; the certificate needs COLLECT ALL to be the best play there"
        )
    ratios: dict[str, Fraction] = {}
    for bet in d.game.bets:
        r = lower_round(d, bet, "best")
        ratios[f"lower €{bet / 100:.2f}"] = r.gain(w) / r.cash_in
    for i in range(len(d.upper.bets)):
        for lines in (5, 8):
            r = upper_round(d, i, "collect", lines)
            ratios[f"upper {_name(d, i)}, {lines} lines"] = r.gain(w) / r.cash_in
    bound = max(ratios.values())
    best_lb, best_pair = F(-1), (0, 0)
    for lower_bet, i in pairings(d):
        lower = lower_round(d, lower_bet, "best")
        lb = min(_ratio(lower, upper_round(d, i, "collect", lines))[0] for lines in (5, 8))
        if lb > best_lb:
            best_lb, best_pair = lb, (lower_bet, i)
    return BestPlay(best_lb, bound, best_pair, ratios, w, collect_all_best)


def machine_report(d: LowerData) -> dict[str, Any]:
    """``machine_rtp_by_play``: the whole machine's cash return per play, ``best`` with its proof."""
    b = best_play(d)
    out: dict[str, Any] = {
        "best": {
            "play": MACHINE_PLAY_NAMES["best"],
            "rtp": float(b.bound),
            "attained": float(b.attained),
            "bounds": [U._frac(b.attained), U._frac(b.bound)],
            "attained_at": {"lower_bet": b.pairing[0], "upper_bet": _name(d, b.pairing[1])},
            "bonus_worth_cents": d.bonus_worth,
            "round_ratios": {k: float(v) for k, v in b.ratios.items()},
            "proof": "no play beats rtp: every round's E[cash + worth x dBonuses] / cash in is at most it "
            "(round_ratios); a play attains `attained` (docs/games/los-3-pinguinos.md, 'The promised RTP')",
        }
    }
    for play in ("auto", "default", "auto_risk", "worst"):
        out[play] = play_figure(d, play)
    return out


# -- a machine whose bets mix RTP variants ---------------------------------------------------------


def _at_worth(d: LowerData, worth: int) -> LowerData:
    """The variant's data with its Bonuses weighed at ``worth`` cents (its decisions follow)."""
    return d.model_copy(update={"game": {**d.game.model_dump(), "bonus_worth": worth}})


def upper_ratio_bound(d: LowerData, i: int, lines: int, worth: int) -> Fraction:
    """An upper bound on an upper game's ``E[cash + worth ΔBonuses] / cash in`` over every
    Double-or-Bonuses policy: a played fraction f returns at most ``2 p f`` in cash plus
    ``(1 - p) f`` in Bonuses worth ``worth / bonus_value`` each (the maximum only caps a double),
    so a prize is worth at most ``max(1, 2p + (1 - p) worth / bonus_value)`` times itself.
    Exact (COLLECT ALL) while that factor is 1."""
    r = upper_round(d, i, "collect", lines)
    p = double_chance(d)
    factor = max(F(1), 2 * p + (1 - p) * F(worth, d.game.bonus_value))
    return (factor * r.cash_out - worth * r.bonuses_staked) / r.cash_in


@dataclass(frozen=True)
class MixedBound:
    bound: Fraction  # no play returns more, on a machine configured so
    worth: int  # the Bonus worth (cents) whose certificate gives it
    attained: Fraction  # a play reaches it (lower decisions best at that worth, COLLECT ALL or AUTO-RISK)
    pairing: tuple[int, int]  # (lower bet, upper bet index) attaining it
    ratios: dict[str, Fraction]  # every round's ratio at that worth
    upper_only_at_cap: Fraction | None  # upper games alone under AUTO-RISK at the cap (approximate)


def mixed_bound(
    data: dict[str, LowerData], lower: dict[int, str], upper: dict[int, str], worths: range = range(0, 161)
) -> MixedBound:
    """The best play's whole-machine cash return when each lower bet (cents -> variant) and
    each upper bet (index -> variant) is dealt at its own variant, as an operator may set per
    bet.  Bonuses cross bets, so no single design worth holds: for every worth w the largest
    round ratio is a bound (the certificate of :func:`best_play`, upper games bounded by
    :func:`upper_ratio_bound`), and it is convex in w, so the least over whole cents is found
    by ternary search.  A play attains ``attained`` (standard play, lower decisions best at that
    worth, upper games under COLLECT ALL or AUTO-RISK); where upper games alone under AUTO-RISK
    keep their Bonuses up, their figure at the cap (``upper_only_at_cap``, approximate) is a
    second play.  The best play
    lies between the larger of the two and ``bound``."""
    cache: dict[int, dict[str, Fraction]] = {}

    def ratios(w: int) -> dict[str, Fraction]:
        if w not in cache:
            out: dict[str, Fraction] = {}
            for bet, v in lower.items():
                r = lower_round(_at_worth(data[v], w), bet, "best")
                out[f"lower €{bet / 100:.2f} ({v})"] = r.gain(F(w)) / r.cash_in
            for i, v in upper.items():
                for lines in (5, 8):
                    key = f"upper {_name(data[v], i)}, {lines} lines ({v})"
                    out[key] = upper_ratio_bound(data[v], i, lines, w)
            cache[w] = out
        return cache[w]

    def top(w: int) -> Fraction:
        return max(ratios(w).values())

    lo, hi = worths.start, worths.stop - 1
    while hi - lo > 2:
        m1, m2 = lo + (hi - lo) // 3, hi - (hi - lo) // 3
        if top(m1) <= top(m2):
            hi = m2
        else:
            lo = m1
    w = min(range(lo, hi + 1), key=top)
    attained, pairing = F(-1), (0, 0)
    for bet, v in lower.items():
        low = lower_round(_at_worth(data[v], w), bet, "best")
        for i, u in upper.items():
            for play in ("collect", "risk"):  # COLLECT ALL, or every fraction risked
                ups = [upper_round(data[u], i, play, lines) for lines in (5, 8)]
                if any(up.bonuses_won >= up.bonuses_staked for up in ups):
                    continue  # no balance with lower rounds: the cap case below
                figure = min(_ratio(low, up)[0] for up in ups)
                if figure > attained:
                    attained, pairing = figure, (bet, i)
    # Upper games alone can pay for themselves: under AUTO-RISK a game may win more Bonuses than
    # it stakes, and the machine then sits at the cap (approximate: see play_figure).
    at_cap = F(-1)
    for i, u in upper.items():
        for lines in (5, 8):
            risk = upper_round(data[u], i, "risk", lines)
            if risk.bonuses_won > risk.bonuses_staked:
                at_cap = max(at_cap, _at_cap(upper_round(data[u], i, "collect", lines), risk)[0])
    return MixedBound(top(w), w, attained, pairing, ratios(w), at_cap if at_cap >= 0 else None)
