"""The sheet's charts: matplotlib, rendered to SVG text that goes inline into the HTML.

No pyplot (no global figure state, no GUI backend); the SVG is stripped of its XML prolog,
DOCTYPE, metadata and namespace declarations: inline SVG in HTML needs none of them, and they
are the only URLs matplotlib writes (the sheet must carry no URL at all).  A fixed hash salt
and no date make the same figures give the same SVG.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence

import matplotlib
from matplotlib.figure import Figure

from .gather import BandRow
from .model import CONFIDENCE

EXACT = "#1f4e79"
SIM = "#c0392b"
BANDS = ("#deebf7", "#b3d1ea", "#86b5db")  # 99%, 95%, 90%: light to dark, widest first

_RC = {
    "svg.fonttype": "none",  # text stays text: small, selectable, searchable
    "svg.hashsalt": "reelforge-par",
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def to_svg(fig: Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    svg = buf.getvalue()
    svg = re.sub(r"<\?xml[^>]*\?>\s*", "", svg)
    svg = re.sub(r"<!DOCTYPE[^>]*>\s*", "", svg)
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", svg)
    if "http" in svg:  # a new matplotlib writing another URL: better a failure than a link
        raise ValueError("matplotlib's SVG still holds a URL")
    return svg.strip()


def win_distribution_chart(rows: Sequence[BandRow]) -> str:
    """Probability of each band on a log scale: exact bars, simulated frequencies as points
    with their 99% intervals (or bars of their own when there is no exact law)."""
    labels = [r.label for r in rows]
    x = list(range(len(rows)))
    has_exact = any(r.exact is not None for r in rows)
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(8.2, 3.4))
        ax = fig.subplots()
        floor = math.inf
        if has_exact:
            heights = [r.exact.value if r.exact is not None else 0.0 for r in rows]
            ax.bar(x, heights, color=EXACT, width=0.7, label="exact")
            floor = min((h for h in heights if h > 0), default=math.inf)
        sx = [i for i, r in enumerate(rows) if r.freq]
        if sx:
            freq = [rows[i].freq or 0.0 for i in sx]
            lo = [max((rows[i].freq or 0.0) - (rows[i].low or 0.0), 0.0) for i in sx]
            hi = [max((rows[i].high or 0.0) - (rows[i].freq or 0.0), 0.0) for i in sx]
            if has_exact:
                ax.errorbar(
                    sx,
                    freq,
                    yerr=[lo, hi],
                    fmt="o",
                    color=SIM,
                    ms=3.5,
                    capsize=2.5,
                    lw=1,
                    label="simulated (99% interval)",
                )
            else:
                ax.bar(sx, freq, color=SIM, width=0.7, alpha=0.85, label="simulated")
                ax.errorbar(
                    sx,
                    freq,
                    yerr=[lo, hi],
                    fmt="none",
                    ecolor="#333",
                    capsize=2.5,
                    lw=1,
                    label="99% interval",
                )
            floor = min(floor, min(f for f in freq if f > 0))
        ax.set_yscale("log")
        if math.isfinite(floor):
            ax.set_ylim(bottom=10 ** math.floor(math.log10(floor) - 0.5), top=1.5)
        ax.set_xticks(x, labels, rotation=35, ha="right")
        ax.set_ylabel("probability per round (log scale)")
        ax.set_xlabel("win per round, in multiples of the stake")
        ax.grid(axis="y", which="major", color="#ddd", lw=0.6)
        ax.set_axisbelow(True)
        ax.legend(frameon=False, loc="upper right")
        return to_svg(fig)


def rtp_funnel_chart(
    funnel: Sequence[tuple[int, list[tuple[float, float]]]],
    center: float,
    sim_point: tuple[int, float, float, float] | None = None,
    sd_source: str = "exact",
) -> str:
    """The RTP band after n rounds, 90/95/99%, n on a log axis; the simulation's own RTP and
    interval at its round count, when there is one."""
    ns = [n for n, _ in funnel]
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(8.2, 3.4))
        ax = fig.subplots()
        for k in reversed(range(len(CONFIDENCE))):  # the widest band first, then narrower on top
            lo = [b[k][0] * 100 for _, b in funnel]
            hi = [b[k][1] * 100 for _, b in funnel]
            ax.fill_between(
                ns,
                lo,
                hi,
                color=BANDS[len(CONFIDENCE) - 1 - k],
                lw=0,
                label=f"{CONFIDENCE[k][0]} of sessions",
            )
        ax.axhline(center * 100, color=EXACT, lw=1.2, label=f"RTP {center * 100:.2f}%")
        if sim_point is not None:
            n, rtp, lo_s, hi_s = sim_point
            ax.errorbar(
                [n],
                [rtp * 100],
                yerr=[[(rtp - lo_s) * 100], [(hi_s - rtp) * 100]],
                fmt="o",
                color=SIM,
                ms=4,
                capsize=3,
                label="this sheet's simulation (99%)",
            )
        ax.set_xscale("log")
        ax.set_xlim(ns[0], ns[-1])
        shown = funnel[1:] if len(funnel) > 2 else funnel  # from 10^3 rounds: 10^2 would flatten the rest
        top = max(b[-1][1] for _, b in shown) * 100
        bottom = min(b[-1][0] for _, b in shown) * 100
        pad = (top - bottom) * 0.05
        ax.set_ylim(max(0.0, bottom - pad), top + pad)
        ax.set_xlabel("rounds played")
        ax.set_ylabel("RTP over the rounds (%)")
        ax.set_title(f"RTP ± z·sd/√n, sd {sd_source}", fontsize=8, color="#555", loc="left")
        ax.grid(which="major", color="#ddd", lw=0.6)
        ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
        return to_svg(fig)
