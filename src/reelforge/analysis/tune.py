"""Tuning a game to a target RTP: a new variant's data file, changing strips or weights only.

The search is game-blind: a game's ``tuning.py`` (``reelforge.engine.tuning.GameTuning``)
gives its stages, each moving one mode's RTP with its own knobs, and the exact figures every
single move leads to.  Each stage runs a steepest descent on the distance to the target:

* from the current data, every candidate move is scored by the exact RTP it leads to;
  candidates that take a kept figure outside its tolerance (relative to the source
  variant) are out;
* the move that lands closest to the target is made (ties: the smaller drift of the kept
  figures, then the stage's own order of candidates), so the first moves are large and the
  last ones fine;
* the stage stops once within :data:`AIM` of the target, or when no move gets closer.

Keeping the volatility (``--keep volatility``): the figure is the variance of one round's
win in stakes squared (``reelforge.engine.tuning.SQUARED``), exact where the SD is not; an SD
within 5% of the source's is a variance within ``0.95**2 .. 1.05**2`` of it, and its drift,
for ties, is half the variance's relative change (the SD's, to first order).  Every
candidate is scored with it, not only the best few: each game computes a candidate's
variance exactly from what the move changes, the rest cached (Reign of Gnomes: the base
spin's moments from per-reel window tables, the changed reel's rebuilt, a few milliseconds;
Ghost of Gambini: the coins' and frames' values put into the base round's moments, whose
line and jackpot-rewind sums do not depend on them).  A stage computes only the kept
figures for its candidates, so a search that keeps none pays for none.

No randomness anywhere and every figure an exact fraction: the same source, target and
options give the same moves and a byte-identical file.  The file written is then read back,
and the game's own exact calculator (not the search's bookkeeping) must find every mode's
RTP within :data:`RTP_TOLERANCE` of the target and every kept figure within its tolerance;
otherwise nothing is written and the tuner says why.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from reelforge.engine.tuning import (
    KEEPABLE,
    SQUARED,
    Change,
    Exact,
    Figures,
    GameTuning,
    Move,
    figure_value,
    find_source,
)

RTP_TOLERANCE = Fraction(1, 10_000)  # 0.01 percentage points
AIM = Fraction(1, 100_000)  # a stage stops trying once within 0.001 points
MAX_STEPS = 120  # moves per stage; the shipped variants take 3 to 30

# Relative tolerance of each figure the designer may keep, against the source variant (the
# volatility's is of the SD, not of the variance carried).
TOLERANCES: dict[str, Fraction] = {
    "hit-frequency": Fraction(2, 100),
    "feature-frequency": Fraction(2, 100),
    "volatility": Fraction(5, 100),
}

# Games with tuning knobs: their ``tuning`` module exposes ``TUNING``.
TUNABLE = {
    "reign-of-gnomes": "reelforge.games.reign_of_gnomes.tuning",
    "ghost-of-gambini": "reelforge.games.ghost_of_gambini.tuning",
    "golden-scarab": "reelforge.games.data_only.golden_scarab",  # data only: its game.tuning()
}


class TuneError(ValueError):
    """Input the tuner refuses, or a target it cannot reach: the message says which."""


@dataclass(frozen=True)
class Step:
    stage: str  # the mode whose RTP the move was for
    move: Move
    rtp: Fraction  # that mode's RTP after the move


@dataclass
class TuneResult:
    game_id: str
    source_variant: str
    variant: str
    target: Fraction
    keep: list[str]
    text: str  # the new data file
    before: Exact
    after: Exact
    changes: list[Change]
    steps: list[Step] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        def figures(e: Exact) -> dict[str, Any]:
            return {
                "rtp": {m: float(v) for m, v in e.rtp.items()},
                "rtp_fraction": {m: f"{v.numerator}/{v.denominator}" for m, v in e.rtp.items()},
                **{k: figure_value(k, v) for k, v in e.figures.items()},
                "figure_fraction": {k: f"{v.numerator}/{v.denominator}" for k, v in e.figures.items()},
            }

        return {
            "game": self.game_id,
            "source_variant": self.source_variant,
            "variant": self.variant,
            "target": float(self.target),
            "keep": self.keep,
            "before": figures(self.before),
            "after": figures(self.after),
            "changes": [{"where": c.where, "counts": c.counts} for c in self.changes],
            "steps": [{"mode": s.stage, "where": s.move.where, "what": s.move.what} for s in self.steps],
        }


def tuning_for(game_id: str) -> GameTuning[Any]:
    module = TUNABLE.get(game_id)
    if module is None:
        raise TuneError(f"{game_id} has no tuning knobs; reelforge tune knows {', '.join(TUNABLE)}")
    return importlib.import_module(module).TUNING


def parse_target(text: str) -> Fraction:
    """A target RTP in percent of the stake ("94", "94.00", "94%") as a fraction of the stake."""
    raw = text.strip().removesuffix("%").strip()
    try:
        pct = Fraction(raw)
    except (ValueError, ZeroDivisionError):
        raise TuneError(f"--target must be an RTP in percent, e.g. 94 or 92.5; got {text!r}") from None
    if not 1 < pct < 100:
        raise TuneError(f"--target is an RTP in percent of the stake, above 1 and below 100; got {text!r}")
    return pct / 100


def parse_keep(text: str | None, tuning: GameTuning[Any]) -> list[str]:
    """``--keep a,b``: the figures to keep, checked against what the game can compute."""
    return check_keep([k.strip() for k in (text or "").split(",") if k.strip()], tuning)


def check_keep(names: list[str], tuning: GameTuning[Any]) -> list[str]:
    for name in names:
        if name not in KEEPABLE:
            raise TuneError(f"unknown figure to keep {name!r}; --keep takes {', '.join(KEEPABLE)}")
        if name not in tuning.keepable:
            raise TuneError(
                f"{tuning.game_id} cannot compute {name} exactly; it keeps {', '.join(tuning.keepable)}"
            )
    return list(dict.fromkeys(names))


def _limits(before: Exact, keep: list[str]) -> dict[str, tuple[Fraction, Fraction]]:
    out = {}
    for name in keep:
        value, tol = before.figures[name], TOLERANCES[name]
        power = 2 if name in SQUARED else 1  # the figure's tolerance, on its square
        out[name] = (value * (1 - tol) ** power, value * (1 + tol) ** power)
    return out


def _drift(figures: Figures, before: Exact, keep: list[str]) -> Fraction:
    """The kept figures' relative changes summed (a squared one's halved: its root's, to first
    order), to break ties between equally close candidates."""
    return sum(
        (
            abs(figures[k] / before.figures[k] - 1) / (2 if k in SQUARED else 1)
            for k in keep
            if k in figures and before.figures[k]
        ),
        Fraction(0),
    )


@dataclass(frozen=True)
class Reached:
    data: Any
    rtp: Fraction  # the stage's mode's exact RTP
    blocked: frozenset[str]  # kept figures that ruled out a closer move when the stage stopped


def descend(
    stage: Any, data: Any, target: Fraction, before: Exact, keep: list[str], steps: list[Step]
) -> Reached:
    """One stage's steepest descent."""
    limits = _limits(before, keep)
    kept = [k for k in keep if k in stage.changes]
    asked = frozenset(kept)
    rtp = stage.figures(data, asked)["rtp"]
    floor = stage.floor(data)
    if floor is not None and target < floor - RTP_TOLERANCE:
        raise TuneError(
            f"target {_pct(target)} is out of reach for the {stage.mode} game: its knobs ({stage.knobs}) "
            f"cannot take it below {_pct(floor)}"
        )
    blocked: set[str] = set()
    for _ in range(MAX_STEPS):
        gap = abs(rtp - target)
        if gap <= AIM:
            break
        best: tuple[Fraction, Fraction, Move, Figures] | None = None
        blocked = set()
        for move, figures in stage.candidates(data, asked):
            new_gap = abs(figures["rtp"] - target)
            if new_gap >= gap:
                continue
            out = [k for k in kept if k in figures and not limits[k][0] <= figures[k] <= limits[k][1]]
            if out:
                blocked.update(out)
                continue
            score = (new_gap, _drift(figures, before, kept))
            if best is None or score < best[:2]:
                best = (*score, move, figures)
        if best is None:
            break
        data = stage.apply(data, best[2])
        exact = stage.figures(data, asked)
        rtp = exact["rtp"]
        for k in ("rtp", *kept):  # the cheap candidate figures must be the exact ones
            if exact[k] != best[3][k]:
                raise AssertionError(f"{stage.mode}: {best[2]} predicted {k} {best[3][k]}, exact {exact[k]}")
        steps.append(Step(stage.mode, best[2], rtp))
        blocked = set()  # a move was made: what blocked others did not stop the stage
    return Reached(data, rtp, frozenset(blocked))


def tune(
    game_id: str,
    target: Fraction,
    *,
    variant: str | None = None,
    keep: list[str] | None = None,
    name: str | None = None,
    default_variant: str | None = None,
) -> TuneResult:
    """Tune ``variant`` (the game's default) of ``game_id`` to ``target``; the new variant is
    called ``name`` (the target, two decimals: "94.00")."""
    tuning = tuning_for(game_id)
    keep = check_keep(keep or [], tuning)
    if not 0 < target < 1:
        raise TuneError(f"the target is a fraction of the stake between 0 and 1, got {target}")
    if default_variant is None:
        from reelforge.games import get_game

        default_variant = get_game(game_id).default_variant
    source = find_source(tuning, variant, default_variant)
    name = name or f"{float(target * 100):.2f}"
    before = tuning.exact(source.data, keep)
    data = source.data
    steps: list[Step] = []
    reached: dict[str, Reached] = {}
    for make in tuning.stages():
        stage = make(data)
        reached[stage.mode] = descend(stage, data, target, before, keep, steps)
        data = reached[stage.mode].data
    off = {m: r for m, r in reached.items() if abs(r.rtp - target) > RTP_TOLERANCE}
    if off:
        raise TuneError(f"target {_pct(target)} is out of reach{_held(before, keep)}: {_detail(off)}")
    tuned = tuning.rename(data, name)
    text = tuning.dump(source.text, tuned)
    # The file as written, read back and put through the game's own exact calculator.
    check = tuning.parse(text, f"tuned {name}")
    after = tuning.exact(check, keep)
    verify(tuning, before, after, target, keep)
    return TuneResult(
        game_id,
        tuning.variant_of(source.data),
        name,
        target,
        keep,
        text,
        before,
        after,
        tuning.changes(source.data, check),
        steps,
    )


def _held(before: Exact, keep: list[str]) -> str:
    if not keep:
        return ""
    held = [f"{k} within {float(TOLERANCES[k]) * 100:g}% of {show(k, before.figures[k])}" for k in keep]
    return f" while keeping {', '.join(held)}"


def _detail(off: dict[str, Reached]) -> str:
    parts = []
    for mode, r in off.items():
        blocked = " and ".join(sorted(r.blocked))
        why = f" (every closer move takes {blocked} out of its band)" if r.blocked else ""
        parts.append(f"{mode} reaches {_pct(r.rtp)} at best{why}")
    return "; ".join(parts)


def verify(tuning: GameTuning[Any], before: Exact, after: Exact, target: Fraction, keep: list[str]) -> None:
    for mode, rtp in after.rtp.items():
        if abs(rtp - target) > RTP_TOLERANCE:
            raise TuneError(
                f"{mode}: exact RTP {_pct(rtp)} misses the target {_pct(target)} by over 0.01 points"
            )
    for name in keep:
        lo, hi = _limits(before, [name])[name]
        if not lo <= after.figures[name] <= hi:
            raise TuneError(
                f"{name} moved from {show(name, before.figures[name])} to {show(name, after.figures[name])}"
            )


def show(name: str, value: Fraction) -> str:
    """A figure as the report prints it: the volatility index as a number, the rest in percent."""
    return f"{figure_value(name, value):.4f}" if name in SQUARED else _pct(value)


def _pct(x: Fraction) -> str:
    return f"{float(x) * 100:.4f}%"
