"""How the sheet prints numbers: one place, so every figure of a kind has the same precision
(the tests read the printed digits back and hold them to the calculators' values)."""

from __future__ import annotations

import math
from fractions import Fraction

from reelforge.engine.distribution import Bounded

from .tables import Cell

PCT_PLACES = 4  # RTP, components, hit frequency: 95.9706%
PROB_DIGITS = 6  # probabilities: 6 significant digits


def pct(x: float, places: int = PCT_PLACES) -> str:
    return f"{x * 100:.{places}f}%"


def prob(p: float) -> str:
    if p == 0:
        return "0"
    return f"{p:.{PROB_DIGITS}g}"


def one_in(p: float | None) -> str:
    if p is None or p <= 0:
        return "never"
    n = 1 / p
    if n < 1e7:
        return f"1 in {n:,.1f}"
    return f"1 in {n:.4g}"


def mult(x: float | None) -> str:
    if x is None:
        return "—"
    if float(x).is_integer():
        return f"{x:,.0f}×"
    return f"{x:,.4g}×" if x < 100 else f"{x:,.1f}×"


def num(x: float, digits: int = 6) -> str:
    if x == 0:
        return "0"
    if abs(x) >= 1e6 or abs(x) < 1e-3:
        return f"{x:.{digits}g}"
    return f"{x:,.{digits}g}" if abs(x) < 1000 else f"{x:,.2f}"


def fraction_text(f: Fraction | None) -> str:
    if f is None:
        return ""
    text = f"{f.numerator}/{f.denominator}"
    return text if len(text) <= 80 else f"a fraction of {len(str(f.denominator))}-digit denominator"


def to_bounded(x: float | Fraction | Bounded) -> Bounded:
    if isinstance(x, Bounded):
        return x
    if isinstance(x, Fraction):
        return Bounded.of(x)
    return Bounded(float(x), float(x))


def bounded_note(b: Bounded) -> str:
    """The enclosure, for a tooltip: exact, or ``[low, high]``."""
    if b.exact is not None:
        return "exact: " + fraction_text(b.exact)
    if b.low == b.high:
        return "exact (to the float)"
    return f"enclosure [{b.low:.10g}, {b.high:.10g}]"


def prob_cell(p: float | Fraction | Bounded | None, key: str | None = None) -> Cell:
    if p is None:
        return Cell("not available", key=key, cls="na")
    b = to_bounded(p)
    return Cell(prob(b.value), key=key, value=b.value, cls="num", title=bounded_note(b))


def pct_cell(x: float | Fraction | Bounded | None, key: str | None = None, places: int = PCT_PLACES) -> Cell:
    if x is None:
        return Cell("not available", key=key, cls="na")
    b = to_bounded(x)
    return Cell(pct(b.value, places), key=key, value=b.value, cls="num", title=bounded_note(b))


def one_in_cell(p: float | Fraction | Bounded | None, key: str | None = None) -> Cell:
    if p is None:
        return Cell("—", cls="na")
    b = to_bounded(p)
    return Cell(one_in(b.value), key=key, value=(1 / b.value) if b.value > 0 else None, cls="num")


def finite(x: float) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)
