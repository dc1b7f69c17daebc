"""Exact RTP of a ``lines`` game, as fractions, from the strips alone.

* **Line pays.**  A stop shows three consecutive symbols, so on an unweighted strip each row
  shows each symbol with the strip's own frequency, and a line's five symbols sit on five
  independent reels.  Every line therefore has the same expected pay, and one line's is a sum
  over the leading wild run ``W``, the symbol ``X`` that ends it and the run length ``L``:
  ``P = prod_{i<W} w_i * x_W * prod_{W<i<L} (x_i + w_i) * (1 - x_L - w_L)`` (the last factor
  only for ``L < 5``), with ``x_i``, ``w_i`` the frequencies of ``X`` and of the wild on reel
  ``i``, paying ``max(wild_pays[W], line_pays[X][L])`` (:mod:`.evaluate`).
* **Scatters.**  The count in view is the sum of each reel's count in its 3-row window, whose
  law is read off the strip stop by stop; the reels convolve.
* **Free spins.**  The spins are independent and alike, and whether another is played
  depends only on the spins before it, so a feature's expected win is the expected number of
  spins times one free spin's expected win (Wald's identity).  The number of spins is a
  Markov chain on (spins awarded, spins played): a spin showing ``k`` scatters adds
  ``retrigger[k]`` spins, never beyond ``max_spins``; its expectation is solved exactly.

The hit frequency and the largest win need the joint view of the window: they come from the
enumeration of every window (:mod:`.enumerate`), which also checks the line figure above.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from reelforge.engine.exact import symbol_count_distribution
from reelforge.engine.memo import by_identity
from reelforge.engine.reels import ReelSet

from .data_model import REELS, LinesData
from .evaluate import five_wild


def reel_frequencies(strips: Sequence[Sequence[str]]) -> list[dict[str, Fraction]]:
    out = []
    for strip in strips:
        n = len(strip)
        counts: dict[str, int] = {}
        for s in strip:
            counts[s] = counts.get(s, 0) + 1
        out.append({s: Fraction(c, n) for s, c in counts.items()})
    return out


def line_expectation(d: LinesData, strips: Sequence[Sequence[str]]) -> Fraction:
    """Expected credits one line pays on these strips (before any multiplier)."""
    freq = reel_frequencies(strips)
    wild = d.wild
    wf = [f.get(wild, Fraction(0)) if wild is not None else Fraction(0) for f in freq]
    total = Fraction(0)
    lead = Fraction(1)  # P(the first w reels all show the wild)
    for w in range(REELS):
        w_pay = d.wild_pays.get(w, 0)
        for x, px in freq[w].items():
            if x == wild:
                continue
            p = lead * px
            for length in range(w + 1, REELS + 1):
                stop = 1 - freq[length].get(x, Fraction(0)) - wf[length] if length < REELS else Fraction(1)
                pay = max(w_pay, d.line_pay(x, length))
                if pay:
                    total += p * stop * pay
                if length < REELS:
                    p *= freq[length].get(x, Fraction(0)) + wf[length]
                    if not p:
                        break
        lead *= wf[w]
        if not lead:
            break
    if lead and wild is not None:
        total += lead * five_wild(d)[1]
    return total


def scatter_law(d: LinesData, reels: ReelSet) -> dict[int, Fraction]:
    """``P(k scatters in view)`` for every ``k``."""
    if d.scatter is None:
        return {0: Fraction(1)}
    return symbol_count_distribution(reels, d.scatter)


def spin_expectation(
    d: LinesData, strips: Sequence[Sequence[str]], scatters: dict[int, Fraction]
) -> Fraction:
    """Expected credits of one spin (lines and scatter pays, no multiplier)."""
    lines = d.lines * line_expectation(d, strips)
    return lines + sum((p * d.scatter_pays.get(k, 0) * d.lines for k, p in scatters.items()), Fraction(0))


def expected_spins(d: LinesData, retrigger_law: dict[int, Fraction]) -> dict[int, Fraction]:
    """``{award: E[spins a feature that starts with award spins plays]}`` for each award.

    ``E(a, t)``: spins still to come with ``a`` awarded and ``t`` played (``t < a``)."""
    fs = d.free_spins
    assert fs is not None
    moves = [(p, fs.retrigger.get(k, 0)) for k, p in retrigger_law.items()]

    @cache
    def e(a: int, t: int) -> Fraction:
        if t >= a:
            return Fraction(0)
        out = Fraction(1)
        for p, extra in moves:
            out += p * e(min(a + extra, fs.max_spins), t + 1)
        return out

    result = {}
    for a in sorted(set(fs.award.values())):
        for t in range(fs.max_spins, -1, -1):  # bottom up: the recursion stays shallow
            for b in range(a, fs.max_spins + 1):
                e(b, t)
        result[a] = e(a, 0)
    return result


@dataclass(frozen=True)
class ExactFigures:
    rtp: Fraction
    components: dict[str, Fraction]  # fractions of the stake
    feature_frequency: Fraction
    mean_free_spins: Fraction  # per feature
    hit_frequency: Fraction  # the base spin pays anything
    largest_win: int  # credits: the most a round can reach under the rules, cap included
    cap_never_binds: bool  # the cap is at or above every win the reels can deal


def rtp_parts(d: LinesData) -> dict[str, Fraction]:
    """The RTP's parts in fractions of the stake: cheap (no enumeration)."""
    stake = d.lines
    base_scatters = scatter_law(d, d.base)
    base_lines = d.lines * line_expectation(d, d.base_reels.strips) / stake
    base_scatter = sum((p * d.scatter_pays.get(k, 0) for k, p in base_scatters.items()), Fraction(0))
    parts = {"base_lines": base_lines, "base_scatter": base_scatter, "free_spins": Fraction(0)}
    fs = d.free_spins
    if fs is not None and d.free_reels is not None:
        free_scatters = scatter_law(d, d.free)
        per_spin = fs.multiplier * spin_expectation(d, d.free_reels.strips, free_scatters) / stake
        spins = expected_spins(d, free_scatters)
        parts["free_spins"] = sum(
            (base_scatters.get(k, Fraction(0)) * spins[a] * per_spin for k, a in fs.award.items()),
            Fraction(0),
        )
    return parts


def feature_figures(d: LinesData) -> tuple[Fraction, Fraction]:
    """(P(a base spin triggers free spins), E[spins per feature])."""
    fs = d.free_spins
    if fs is None:
        return Fraction(0), Fraction(0)
    base = scatter_law(d, d.base)
    spins = expected_spins(d, scatter_law(d, d.free))
    p = sum((base.get(k, Fraction(0)) for k in fs.award), Fraction(0))
    mean = (
        sum((base.get(k, Fraction(0)) * spins[a] for k, a in fs.award.items()), Fraction(0)) / p if p else p
    )
    return p, mean


@by_identity(maxsize=8)
def exact_figures(d: LinesData) -> ExactFigures:
    from .enumerate import spin_laws

    parts = rtp_parts(d)
    laws = spin_laws(d)
    if laws.base.line_expectation() != d.lines * line_expectation(d, d.base_reels.strips):
        raise AssertionError("the window enumeration and the closed form disagree on the base line pays")
    feature, mean_spins = feature_figures(d)
    cap = d.game.max_win * d.lines
    reach = laws.largest_round_win(d)
    return ExactFigures(
        rtp=sum(parts.values(), Fraction(0)),
        components=parts,
        feature_frequency=feature,
        mean_free_spins=mean_spins,
        hit_frequency=laws.base.hit_frequency(d),
        largest_win=min(cap, reach),
        cap_never_binds=reach <= cap,
    )
