"""Gathering a PAR sheet's figures: the exact part from the data file and the calculators,
the simulated part from :func:`reelforge.analysis.simulate.simulate` (and a replay of the
same rounds one by one for the band tallies), and the comparisons between them."""

from __future__ import annotations

import datetime as dt
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import reelforge
from reelforge.analysis.simulate import chunk_seed, chunk_sizes, simulate
from reelforge.engine.distribution import Bounded
from reelforge.engine.game import Game, levels_for
from reelforge.engine.game import win_distribution as game_win_distribution
from reelforge.engine.report.fmt import mult
from reelforge.engine.report.par_adapter import sha256
from reelforge.money import format_minor

from .adapter import adapter_for
from .model import Cell, Comparison, ExactPart, SimPart, Table
from .stats import empirical, funnel, histogram, power_sums, sd_interval, wilson

Say = Callable[[str], None]
PACKAGE_ROOT = Path(reelforge.__file__).resolve().parent


def _quiet(_: str) -> None:
    pass


# -- the exact part ----------------------------------------------------------------------------


def win_distribution(game: Game, variant: str, mode: str) -> tuple[Any | None, str]:
    """The game's exact win distribution (:func:`reelforge.engine.game.win_distribution`), or
    None and why not."""
    try:
        dist = game_win_distribution(game, variant, mode)
    except NotImplementedError as exc:  # a game that says why its structure defeats it
        why = str(exc).strip().rstrip(".")
        prefix = "exact distribution not available:"
        return None, why[len(prefix) :].strip() if why.lower().startswith(prefix) else why
    if dist is None:
        return None, f"{game.name} offers no exact win distribution in mode {mode}"
    return dist, ""


def _bets(game: Game, variant: str, mode: str, currency: str) -> Table:
    rows: list[list[Cell | str]] = []
    for level in levels_for(game, variant, mode):
        cost = game.cost(level.stake, mode)
        rows.append(
            [
                Cell(format_minor(level.coin, currency), cls="num"),
                Cell(str(level.credits), cls="num"),
                Cell(format_minor(level.stake, currency), "bet", level.stake, "num"),
                Cell(format_minor(cost, currency), cls="num"),
            ]
        )
    return Table(
        f"Bet levels ({mode})",
        ["coin (per credit)", "credits", "stake", "debited per round"],
        rows,
        "Every bet has the same RTP: prizes scale with the stake.",
        id="bets",
    )


def gather_exact(game: Game, variant: str | None, mode: str, say: Say = _quiet) -> ExactPart:
    started = time.perf_counter()
    variant = variant or game.default_variant
    adapter = adapter_for(game, variant, mode)
    info = game.info()
    currency = str(info.get("currency", "GBP"))
    say("exact RTP")
    exact = game.exact(variant=variant, mode=mode)
    say("win distribution")
    dist, why = win_distribution(game, variant, mode)
    stake, cap = adapter.stake_credits, adapter.cap_credits
    if dist is not None and stake is not None and (dist.cap is None or dist.cap * stake % dist.stake == 0):
        # The law is authoritative for the cap; in the simulation's units of win.
        cap = None if dist.cap is None else dist.cap * stake // dist.stake
    say("odds")
    hit_ok, hit_note = adapter.hit_comparable()
    files = []
    for path in adapter.data_files():
        try:
            name = str(path.resolve().relative_to(PACKAGE_ROOT))
        except ValueError:
            name = path.name
        files.append((name, sha256(path)))
    return ExactPart(
        game_id=game.id,
        game_name=game.name,
        version=game.version,
        variant=variant,
        mode=mode,
        currency=currency,
        data_files=files,
        reel_sets=adapter.reel_sets(),
        paytables=adapter.paytables(),
        bets=_bets(game, variant, mode, currency),
        exact=exact,
        odds=adapter.prize_odds(exact),
        extra=adapter.extra_tables(exact),
        max_win=adapter.max_win(exact),
        distribution=dist,
        distribution_note=why or adapter.distribution_note(),
        checks=adapter.checks(exact),
        hit_comparable=hit_ok,
        hit_note=hit_note,
        stake_credits=stake,
        cap_credits=cap,
        seconds=time.perf_counter() - started,
        sd=None if dist is not None else adapter.exact_sd(),
        notes=adapter.notes(exact),
    )


def exact_rtp(part: ExactPart) -> Bounded:
    frac = part.exact.get("rtp_fraction")
    if isinstance(frac, str):
        return Bounded.of(Fraction(frac))
    return Bounded(float(part.exact["rtp"]), float(part.exact["rtp"]))


# -- the simulated part ------------------------------------------------------------------------


def run_simulation(game: Game, part: ExactPart, rounds: int, seed: int, say: Say = _quiet) -> SimPart:
    """``rounds`` rounds through :func:`simulate`, then the same chunks replayed round by round
    (the kernels' ``play_rounds``) for the band tallies and the moments of the win."""
    started = time.perf_counter()
    say(f"simulating {rounds:,} rounds (seed {seed})")
    result = simulate(game, rounds, seed, variant=part.variant, mode=part.mode)
    adapter = adapter_for(game, part.variant, part.mode)
    stake = part.stake_credits
    if stake is None:
        return SimPart(
            result,
            replay_note="the game's rounds cannot be replayed one by one: no band tallies",
            seconds=time.perf_counter() - started,
        )
    hist: Counter[int] = Counter()
    say("replaying the rounds for the band tallies")
    for index, size in enumerate(chunk_sizes(rounds, result["chunk_rounds"])):
        wins = adapter.replay(chunk_seed(seed, index), size)
        if wins is None:
            return SimPart(
                result,
                replay_note="the game's rounds cannot be replayed one by one",
                seconds=time.perf_counter() - started,
            )
        hist.update(histogram(wins))
    n, total = sum(hist.values()), sum(w * c for w, c in hist.items())
    replay_rtp = total / (n * stake)
    if n == result["rounds"] and abs(replay_rtp - result["rtp"]) <= 1e-12 * max(1.0, result["rtp"]):
        note = "The band tallies replay the simulation's very rounds (their total win is the simulation's)"
    else:
        note = (
            f"The replayed rounds differ from the simulation's (replayed RTP {replay_rtp:.6%}): a round "
            "that reached the cap plays on in the simulation, so the streams part there"
        )
    return SimPart(result, dict(hist), note, time.perf_counter() - started)


# -- exact beside simulated --------------------------------------------------------------------


def _interval(sim: dict[str, Any], capped: bool) -> tuple[float, float, float]:
    if capped:
        lo, hi = sim["ci99"]
        return sim["rtp"], lo, hi
    lo, hi = sim["ci99_uncapped"]
    return sim["rtp_uncapped"], lo, hi


def comparisons(part: ExactPart, sim: SimPart | None) -> list[Comparison]:
    """The headline figures, exact beside simulated (99% intervals)."""
    r = sim.result if sim is not None else None
    n = sim.rounds if sim is not None else 0
    out: list[Comparison] = []
    capped_rtp = bool(part.exact.get("max_win_cap_included", part.cap_credits is None))
    label = "RTP" if part.cap_credits is None else "RTP (the cap not applied)"
    if capped_rtp and part.cap_credits is not None:
        label = "RTP (the cap applied)"
    v = _interval(r, capped_rtp) if r is not None else (None, None, None)
    out.append(Comparison(label, "rtp", "pct", exact_rtp(part), *v))
    dist = part.distribution
    if dist is not None and part.cap_credits is not None and not capped_rtp:
        v = _interval(r, True) if r is not None else (None, None, None)
        out.append(
            Comparison(
                "RTP as played (the cap applied; the distribution's mean)",
                "rtp_capped",
                "pct",
                dist.mean(),
                *v,
            )
        )
    hit = part.exact.get("hit_frequency")
    if hit is not None or r is not None:
        if r is not None:
            k = round(r["hit_frequency"] * n)
            lo, hi = wilson(k, n)
            simv: tuple[float | None, float | None, float | None] = (r["hit_frequency"], lo, hi)
        else:
            simv = (None, None, None)
        out.append(
            Comparison(
                "Hit frequency",
                "hit_frequency",
                "pct",
                None if hit is None else Bounded(float(hit), float(hit)),
                *simv,
                note=part.hit_note,
                compare=part.hit_comparable,
            )
        )
    if dist is not None and not part.hit_comparable:
        # The law counts what the simulation's hits count: a round that wins anything.
        any_win = dist.p_no_win()
        exact_any = Bounded(1 - any_win.high, 1 - any_win.low)
        if r is not None:
            k = round(r["hit_frequency"] * n)
            lo, hi = wilson(k, n)
            simv = (r["hit_frequency"], lo, hi)
        else:
            simv = (None, None, None)
        out.append(Comparison("A round wins anything (1 − P(no win))", "any_win", "pct", exact_any, *simv))
    sd_exact = dist.sd() if dist is not None else part.sd
    if sim is not None and sim.histogram and part.stake_credits:
        s, lo, hi = sd_interval(power_sums(sim.histogram), part.stake_credits)
        sd_sim: tuple[float | None, float | None, float | None] = (s, lo, hi)
    elif r is not None:
        sd_sim = (r["std"], None, None)
    else:
        sd_sim = (None, None, None)
    out.append(
        Comparison(
            "Standard deviation of a round (volatility index, × stake)",
            "sd",
            "x",
            sd_exact,
            *sd_sim,
            note="simulated interval: asymptotic (delta method)",
        )
    )
    features = r["features"] if r is not None else {}
    for c in part.checks:
        if r is None:
            out.append(
                Comparison(c.label, c.key, "prob", Bounded(c.exact, c.exact), None, None, None, c.note)
            )
            continue
        k = sum(int(features.get(name, {}).get("count", 0)) for name in c.counters)
        total = n if c.per is None else int(features.get(c.per, {}).get("count", 0))
        lo, hi = wilson(k, total)
        out.append(
            Comparison(
                c.label,
                c.key,
                "prob",
                Bounded(c.exact, c.exact),
                k / total if total else None,
                lo,
                hi,
                c.note,
            )
        )
    return out


@dataclass
class BandRow:
    label: str
    exact: Bounded | None
    count: int | None
    freq: float | None
    low: float | None
    high: float | None

    @property
    def outside(self) -> bool:
        if self.exact is None or self.low is None or self.high is None:
            return False
        return self.exact.high < self.low or self.exact.low > self.high


def band_rows(part: ExactPart, sim: SimPart | None) -> list[BandRow]:
    """The exact law's bands beside the simulated rounds' (cut by the same code, matched by
    label), or the simulated ones alone where there is no exact law."""
    dist = part.distribution
    exact = {b.label: b.probability for b in dist.bands()} if dist is not None else {}
    simulated: dict[str, int] = {}
    n = 0
    if sim is not None and sim.histogram and part.stake_credits:
        n = sum(sim.histogram.values())
        law = empirical(sim.histogram, dist, part.stake_credits, part.cap_credits)
        for b in law.bands():
            assert b.probability.exact is not None
            simulated[b.label] = int(b.probability.exact * n)
        if exact and list(simulated) != list(exact):
            raise ValueError(f"the simulated bands {list(simulated)} are not the law's {list(exact)}")
    out = []
    for label in exact or simulated:
        k = simulated.get(label)
        if k is None:
            out.append(BandRow(label, exact.get(label), None, None, None, None))
        else:
            lo, hi = wilson(k, n)
            out.append(BandRow(label, exact.get(label), k, k / n, lo, hi))
    return out


# -- the whole sheet ---------------------------------------------------------------------------


@dataclass
class Sheet:
    part: ExactPart
    sim: SimPart | None
    comparisons: list[Comparison]
    bands: list[BandRow]
    funnel_center: float
    funnel_sd: float | None
    funnel_sd_source: str  # "exact" | "simulated" | ""
    generated: str
    notes: list[str] = field(default_factory=list)

    @property
    def funnel(self) -> list[tuple[int, list[tuple[float, float]]]]:
        return [] if self.funnel_sd is None else funnel(self.funnel_center, self.funnel_sd)

    @property
    def outside(self) -> list[str]:
        """Keys of the figures whose exact value lies outside the simulated interval."""
        keys = [c.key for c in self.comparisons if c.outside]
        return keys + [f"band:{b.label}" for b in self.bands if b.outside]


def assemble(part: ExactPart, sim: SimPart | None, generated: str | None = None) -> Sheet:
    comps = comparisons(part, sim)
    dist = part.distribution
    center = exact_rtp(part).value
    if dist is not None:
        sd: float | None = dist.sd().value
        source = "exact"
    elif part.sd is not None:
        sd, source = part.sd.value, "exact"
    elif sim is not None:
        sd_c = next(c for c in comps if c.key == "sd")
        sd, source = sd_c.sim, "simulated"
    else:
        sd, source = None, ""
    notes = []
    if part.cap_credits is not None and part.stake_credits:
        notes.append(f"One round's win is capped at {mult(part.cap_credits / part.stake_credits)} the stake.")
    when = generated or dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return Sheet(part, sim, comps, band_rows(part, sim), center, sd, source, when, notes)


def build_sheet(
    game: Game,
    variant: str | None = None,
    mode: str = "base",
    rounds: int = 1_000_000,
    seed: int = 2024,
    say: Say = _quiet,
) -> Sheet:
    part = gather_exact(game, variant, mode, say)
    sim = run_simulation(game, part, rounds, seed, say) if rounds > 0 else None
    return assemble(part, sim)


__all__ = ["Sheet", "assemble", "build_sheet", "gather_exact", "run_simulation"]
