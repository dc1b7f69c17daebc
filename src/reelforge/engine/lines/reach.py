"""What a lines game tells its reachability report: every line and scatter prize's exact
odds and the feature's, the max win's odds (from the win law), and a max-win sequence found
by search: the best-paying window per spin, dealt until the cap."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from numba import njit

from reelforge.engine.report.odds import MaxWinOdds, Odds
from reelforge.engine.report.script import Planned, Script

from .data_model import LinesData
from .evaluate import REELS, five_wild
from .exact import exact_figures, reel_frequencies, scatter_law
from .kernel import _line_credits, kernel_tables

METHOD = (
    "searched over the strips (engine.lines.reach.best_stops): a base window with enough scatters "
    "for the feature paying the most, a free-spin window that retriggers paying the most, then the "
    "best-paying free-spin window, spin after spin until the cap"
)


def line_prize_law(d: LinesData, strips: Sequence[Sequence[str]]) -> dict[tuple[str, int], Fraction]:
    """P(one line pays ``code`` x ``length``) on these strips: the prize the line's best
    combination pays (:func:`.evaluate.line_result`), from each reel's symbol frequencies."""
    freq = reel_frequencies(strips)
    wild = d.wild
    law: dict[tuple[str, int], Fraction] = {}
    codes = sorted({c for f in freq for c in f})
    for symbols in itertools.product(codes, repeat=REELS):
        p = Fraction(1)
        for r, c in enumerate(symbols):
            p *= freq[r].get(c, Fraction(0))
            if not p:
                break
        if not p:
            continue
        w = 0
        while w < REELS and symbols[w] == wild:
            w += 1
        if w == REELS:
            code, pay = five_wild(d)
            key = (code, REELS) if pay else None
        else:
            x, length = symbols[w], w + 1
            while length < REELS and symbols[length] in (x, wild):
                length += 1
            x_pay, w_pay = d.line_pay(x, length), d.wild_pays.get(w, 0)
            key = (x, length) if x_pay and x_pay >= w_pay else ((str(wild), w) if w_pay else None)
        if key is not None:
            law[key] = law.get(key, Fraction(0)) + p
    return law


def _zero_reason(d: LinesData, strips: Sequence[Sequence[str]], code: str, length: int) -> str:
    """Why the data rules a line prize out: the first reel of the run showing neither it nor a wild."""
    for r in range(length):
        shown = set(strips[r])
        if code not in shown and (code == d.wild or d.wild not in shown):
            return f"reel {r + 1} of these strips shows neither {d.symbols[code].name} nor a wild"
    return ""


def prize_odds(
    d: LinesData, mode: str, law_top: tuple[int, float, float] | None
) -> tuple[list[Odds], MaxWinOdds]:
    rows: list[Odds] = []
    sets = [("base game", d.base_reels.strips, "line of a base spin")]
    if d.free_reels is not None:
        sets.append(("free spins", d.free_reels.strips, "line of a free spin"))
    prizes = [(c, n) for c, pays in d.line_pays.items() for n in sorted(pays) if pays[n]]
    prizes += [(str(d.wild), n) for n, pay in sorted(d.wild_pays.items()) if pay]
    for group, strips, per in sets:
        law = line_prize_law(d, strips)
        for code, n in prizes:
            p = law.get((code, n), Fraction(0))
            pay = d.wild_pays[n] if code == d.wild and n in d.wild_pays else d.line_pay(code, n)
            rows.append(
                Odds(
                    group=f"line prizes, {group}",
                    prize=f"line:{code}x{n}",
                    name=f"{n} × {d.symbols[code].name}",
                    pays=f"{pay}× the line bet",
                    probability=p,
                    per=per,
                    source="engine.lines.reach.line_prize_law (each reel's symbol frequencies)",
                    design="" if p else _zero_reason(d, strips, code, n),
                )
            )
    for group, reels in [("base game", d.base), *([("free spins", d.free)] if d.free_reels else [])]:
        counts = scatter_law(d, reels)
        for k, pay in sorted(d.scatter_pays.items()):
            p = sum((q for n, q in counts.items() if n == k), Fraction(0))
            rows.append(
                Odds(
                    group=f"scatters, {group}",
                    prize=f"scatter:{k}",
                    name=f"{k} × {d.symbols[str(d.scatter)].name}",
                    pays=f"{pay}× the total bet",
                    probability=p,
                    per=f"{'base' if group == 'base game' else 'free'} spin",
                    source="engine.lines.exact.scatter_law (each reel's 3-row windows)",
                )
            )
    figures = exact_figures(d)
    rows.append(
        Odds(
            group="feature",
            prize="free_spins",
            name="Free spins",
            pays=f"{d.free_spins.multiplier}× every win" if d.free_spins else "",
            probability=figures.feature_frequency,
            per="base round",
            source="engine.lines.exact.exact_figures",
        )
    )
    if law_top is None:
        return rows, MaxWinOdds(None, None, "no win law")
    _, low, high = law_top
    return rows, MaxWinOdds(low, high, "the round's exact win law (engine.lines.distribution), its top cell")


@njit(cache=True)
def _best_window(win, scat, scatter_pay, lines, pay, wild_pay, wild, five_wild, si, cands, counts, need):  # type: ignore[no-untyped-def]
    """The best-paying stops among the candidates (``cands[r, :counts[r]]``), with at least
    ``need`` scatters in view: ``(credits before any multiplier, stops)``."""
    best = -1
    out = np.zeros(5, dtype=np.int64)
    stops = np.zeros(5, dtype=np.int64)
    for a in range(counts[0]):
        stops[0] = cands[0, a]
        for b in range(counts[1]):
            stops[1] = cands[1, b]
            for c in range(counts[2]):
                stops[2] = cands[2, c]
                for e in range(counts[3]):
                    stops[3] = cands[3, e]
                    for f in range(counts[4]):
                        stops[4] = cands[4, f]
                        k = 0
                        for r in range(5):
                            k += scat[si, r, stops[r]]
                        if k < need:
                            continue
                        credits = _line_credits(win, si, stops, lines, pay, wild_pay, wild, five_wild)
                        credits += scatter_pay[k]
                        if credits > best:
                            best = credits
                            out[:] = stops
    return best, out


def _view(strip: Sequence[str], stop: int) -> list[str]:
    return [strip[(stop + r) % len(strip)] for r in range(3)]


def best_stops(d: LinesData, free: bool, need: int) -> tuple[int, list[int]]:
    """Stops of a window paying a lot: reel 1 any stop, reels 2-5 those showing the wild, the
    scatter or the top symbol (a search, not the maximum)."""
    t = kernel_tables(d)
    si = 1 if free else 0
    strips = (d.free_reels if free else d.base_reels).strips  # type: ignore[union-attr]
    top = max(d.line_pays, key=lambda c: d.line_pays[c].get(5, 0))
    keep = {d.wild, d.scatter, top}
    cands = np.zeros((5, max(len(s) for s in strips)), dtype=np.int64)
    counts = np.zeros(5, dtype=np.int64)
    for r, strip in enumerate(strips):
        chosen = [s for s in range(len(strip)) if r == 0 or keep & set(_view(strip, s))]
        cands[r, : len(chosen)] = chosen
        counts[r] = len(chosen)
    scatter_pay = t.scatter[si, :, 0].copy()
    credits, stops = _best_window(
        t.win, t.scat, scatter_pay, t.lines, t.pay, t.wild_pay, t.params[0], t.params[1], si, cands, counts,
        need,
    )
    return int(credits), [int(s) for s in stops]


def max_win_plan(d: LinesData) -> tuple[list[Planned], str, None]:
    """One round to the cap: the base window with three scatters paying most, a retriggering
    free spin, then the best free-spin window until the cap; the draws are the reels' stops."""
    fs = d.free_spins
    if fs is None or d.free_reels is None:
        raise ValueError(f"{d.game.id}: no free spins, no searched max win")
    need = min(fs.award)
    base_pay, base = best_stops(d, free=False, need=need)
    retrigger_pay, retrigger = best_stops(d, free=True, need=min(fs.retrigger) if fs.retrigger else 0)
    big_pay, big = best_stops(d, free=True, need=0)
    cap = d.game.max_win * d.lines
    spins, total = 1, base_pay + fs.multiplier * retrigger_pay
    while total < cap:
        total += fs.multiplier * big_pay
        spins += 1
    script = base + retrigger + big * (spins - 1)
    note = (
        f"base stops {base} ({base_pay:,} credits, the feature), a retriggering free spin {retrigger} "
        f"({retrigger_pay:,} × {fs.multiplier}), then {spins - 1} free spins {big} ({big_pay:,} × "
        f"{fs.multiplier}) to the cap of {cap:,} credits"
    )
    return [Planned(start=lambda _attempt: Script(script))], note, None
