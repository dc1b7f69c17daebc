"""The sheet as one self-contained HTML file: inline CSS, inline SVG charts, no script, no URL.

Key figures carry ``data-key`` / ``data-value`` (see :mod:`.model`); an exact figure outside
its simulated interval gets the class ``outside`` and the word OUTSIDE.
"""

from __future__ import annotations

from collections import Counter
from html import escape
from importlib.metadata import PackageNotFoundError, version

from reelforge.engine.report.fmt import bounded_note, mult, num, one_in, pct, pct_cell, prob, prob_cell

from .charts import rtp_funnel_chart, win_distribution_chart
from .gather import BandRow, Sheet, exact_rtp
from .model import CONFIDENCE, Cell, CellLike, Comparison, ReelSet, Table
from .style import CSS

SHOWN_EXACT = {
    "game",
    "variant",
    "mode",
    "rtp",
    "rtp_fraction",
    "components",
    "method",
    "by_state",
    "by_bet",
    "rtp_by_play",
    "rtp_by_play_fraction",
    "hit_frequency",
}


def _attr(name: str, value: object) -> str:
    return f' {name}="{escape(str(value), quote=True)}"'


def cell(c: CellLike, tag: str = "td", extra_cls: str = "") -> str:
    if isinstance(c, str):
        c = Cell(c)
    cls = " ".join(x for x in (c.cls, extra_cls) if x)
    attrs = _attr("class", cls) if cls else ""
    if c.key:
        attrs += _attr("data-key", c.key)
    if c.value is not None:
        attrs += _attr("data-value", repr(float(c.value)))
    if c.title:
        attrs += _attr("title", c.title)
    return f"<{tag}{attrs}>{escape(c.text)}</{tag}>"


def table(t: Table, cls: str = "") -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in t.columns)
    thead = f"<thead><tr>{head}</tr></thead>" if any(t.columns) else ""  # a key/value table has none
    body = "".join("<tr>" + "".join(cell(c) for c in row) + "</tr>" for row in t.rows)
    ident = _attr("id", t.id) if t.id else ""
    note = f'<p class="note">{escape(t.note)}</p>' if t.note else ""
    klass = _attr("class", f"block {cls}".strip())
    return (
        f"<figure{klass}{ident}><figcaption>{escape(t.title)}</figcaption>"
        f"<table>{thead}<tbody>{body}</tbody></table>{note}</figure>"
    )


def section(ident: str, title: str, *parts: str) -> str:
    return f'<section id="{ident}"><h2>{escape(title)}</h2>{"".join(parts)}</section>'


def para(text: str, cls: str = "") -> str:
    return f"<p{_attr('class', cls) if cls else ''}>{escape(text)}</p>"


# -- the sections ------------------------------------------------------------------------------


def _header(s: Sheet) -> str:
    p = s.part
    try:
        tool = version("reelforge")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        tool = "source"
    rows: list[list[CellLike]] = [
        ["Game", Cell(f"{p.game_name} ({p.game_id})", "game")],
        ["Version", Cell(p.version, "version")],
        ["RTP variant", Cell(p.variant, "variant")],
        ["Mode", Cell(p.mode, "mode")],
        ["Generated", Cell(s.generated, "generated")],
        ["Exact method", str(p.exact.get("method", ""))],
    ]
    for name, digest in p.data_files:
        rows.append(["Data file", Cell(f"{name}  sha256 {digest}", f"digest:{name}", cls="mono")])
    if s.sim is not None:
        r = s.sim.result
        rows.append(
            [
                "Simulation",
                Cell(
                    f"{r['rounds']:,} rounds, seed {r['seed']}, chunks of {r['chunk_rounds']:,}", "simulation"
                ),
            ]
        )
    cmd = f"reelforge par {p.game_id} --variant {p.variant} --mode {p.mode}"
    if s.sim is not None:
        cmd += f" --rounds {s.sim.rounds} --seed {s.sim.result['seed']}"
    rows.append(["Produced by", Cell(f"reelforge {tool}: {cmd}", "command", cls="mono")])
    t = Table("", ["", ""], rows)
    body = "".join("<tr>" + cell(r[0], "th") + cell(r[1]) + "</tr>" for r in t.rows)
    return (
        f"<header><h1>PAR sheet — {escape(p.game_name)}</h1>"
        f'<p class="sub">variant {escape(p.variant)} · mode {escape(p.mode)} · {escape(s.generated)}</p>'
        f'<table class="meta">{body}</table></header>'
    )


def _summary(s: Sheet) -> str:
    p = s.part
    rtp = exact_rtp(p)
    items = [("RTP (exact)", pct(rtp.value))]
    if p.distribution is not None:  # a round that wins anything, whatever the game counts as a hit
        items.append(("Hit frequency (exact)", pct(1 - p.distribution.p_no_win().value)))
    elif p.exact.get("hit_frequency") is not None:
        items.append(("Hit frequency (exact)", pct(float(p.exact["hit_frequency"]))))
    if s.funnel_sd is not None:
        items.append((f"Volatility index ({s.funnel_sd_source})", f"{s.funnel_sd:.3f}"))
    mw = p.max_win
    if mw.multiple is not None:
        odds = "odds not available" if mw.probability is None else one_in(mw.probability.value)
        if mw.bracket and mw.probability is not None:
            odds = f"{one_in(mw.probability.low)} .. {one_in(mw.probability.high)}"
        if p.distribution is not None:
            _, pr = p.distribution.max_win()
            odds = one_in(pr.value)
        items.append(("Maximum win", f"{mult(mw.multiple)} ({odds})"))
    if s.sim is not None:
        c = s.comparisons[0]
        items.append(("RTP (simulated)", f"{pct(c.sim or 0.0)} [{pct(c.low or 0.0)}, {pct(c.high or 0.0)}]"))
    flags = s.outside
    boxes = "".join(f'<div class="kpi"><span>{escape(k)}</span><b>{escape(v)}</b></div>' for k, v in items)
    warn = (
        f'<p class="alert outside">OUTSIDE: {len(flags)} exact figure(s) fall outside their simulated 99% '
        f"interval: {escape(', '.join(flags))}.</p>"
        if flags
        else ('<p class="ok">Every exact figure lies inside its simulated 99% interval.</p>' if s.sim else "")
    )
    return section("summary", "Summary", f'<div class="kpis">{boxes}</div>', warn)


def _symbol_counts(rs: ReelSet) -> Table:
    counts = [Counter(strip) for strip in rs.strips]
    seen = [sym for sym in rs.names if any(sym in c for c in counts)]
    for strip in rs.strips:
        seen += [sym for sym in dict.fromkeys(strip) if sym not in seen]
    rows: list[list[CellLike]] = []
    for sym in seen:
        total = sum(c[sym] for c in counts)
        rows.append(
            [
                Cell(sym, cls="mono"),
                rs.names.get(sym, ""),
                *[
                    Cell(str(c[sym]) if c[sym] else "·", f"count:{rs.name}:{label}:{sym}", c[sym], "num")
                    for c, label in zip(counts, rs.labels, strict=True)
                ],
                Cell(str(total), cls="num total"),
            ]
        )
    rows.append(
        [
            Cell("stops", cls="total"),
            "",
            *[Cell(str(len(x)), cls="num total") for x in rs.strips],
            Cell(str(sum(len(x) for x in rs.strips)), cls="num total"),
        ]
    )
    return Table(f"{rs.name}: symbol counts", ["symbol", "name", *rs.labels, "total"], rows, rs.note)


def _strip_listing(rs: ReelSet) -> Table:
    longest = max(len(x) for x in rs.strips)
    rows: list[list[CellLike]] = []
    for i in range(longest):
        rows.append(
            [Cell(str(i), cls="num")] + [Cell(x[i] if i < len(x) else "", cls="mono") for x in rs.strips]
        )
    return Table(f"{rs.name}: strips, top to bottom", ["stop", *rs.labels], rows)


def _reels(s: Sheet) -> str:
    if not s.part.reel_sets:
        return section("reels", "Reel strips", para("The game's adapter lists no reel strips.", "na"))
    return section(
        "reels",
        "Reel strips: symbol counts per reel and reel set",
        *[table(_symbol_counts(rs), "counts") for rs in s.part.reel_sets],
        para("Every strip, stop by stop, is listed in the appendix."),
    )


def _components(s: Sheet) -> str:
    p = s.part
    rtp = exact_rtp(p)
    rows: list[list[CellLike]] = []
    comps: dict[str, float] = p.exact.get("components", {})
    for name, v in comps.items():
        share = v / rtp.value if rtp.value else 0.0
        rows.append([name, pct_cell(v, f"component:{name}"), Cell(pct(share, 2), cls="num")])
    rows.append(
        [
            Cell("total", cls="total"),
            Cell(pct(rtp.value), "rtp", rtp.value, "num total", bounded_note(rtp)),
            Cell("100.00%", cls="num total"),
        ]
    )
    comp = Table(
        "Exact RTP by component",
        ["component", "RTP", "share of the RTP"],
        rows,
        _fraction_note(p.exact),
        id="components",
    )
    figs: list[list[CellLike]] = []
    if p.exact.get("hit_frequency") is not None:
        h = float(p.exact["hit_frequency"])
        figs.append(["hit frequency", pct_cell(h, "hit_frequency"), Cell(one_in(h), cls="num")])
    for k, v in p.exact.items():
        if k in SHOWN_EXACT or isinstance(v, dict | list):
            continue
        text = num(v) if isinstance(v, float) else str(v)
        figs.append(
            [k.replace("_", " "), Cell(text, f"exact:{k}", v if isinstance(v, float) else None, "num"), ""]
        )
    others = Table(
        "Other exact figures (reelforge rtp --json)", ["figure", "value", "odds"], figs, id="exact-figures"
    )
    return section("exact", "Exact RTP", table(comp), table(others), *[table(t) for t in p.extra])


def _fraction_note(exact: dict[str, object]) -> str:
    method = str(exact.get("method", "exact"))
    frac = exact.get("rtp_fraction")
    if not isinstance(frac, str):
        return method
    if len(frac) <= 100:
        return f"{method}; the RTP as a fraction: {frac}"
    den = frac.partition("/")[2]
    return f"{method}; the RTP is a fraction of {len(den)}-digit denominator (reelforge rtp --json gives it)"


def _max_win(s: Sheet) -> str:
    p = s.part
    mw = p.max_win
    rows: list[list[CellLike]] = [
        ["maximum win", Cell(mult(mw.multiple), "max_win_multiple", mw.multiple, "num")]
    ]
    if p.distribution is not None:
        top, pr = p.distribution.max_win()
        rows[0] = [
            "maximum win",
            Cell(mult(top / p.distribution.stake), "max_win_multiple", top / p.distribution.stake, "num"),
        ]
        rows += [
            ["probability per round", prob_cell(pr, "max_win_probability")],
            ["odds", Cell(one_in(pr.value), "max_win_one_in", 1 / pr.value if pr.value else None, "num")],
        ]
        how = f"Exact, from the win distribution. The maximum: {mw.text}."
    elif mw.probability is not None and mw.bracket:
        rows += [
            ["probability per round, at least", prob_cell(mw.probability.low, "max_win_probability_low")],
            ["probability per round, at most", prob_cell(mw.probability.high, "max_win_probability_high")],
            ["odds", Cell(f"{one_in(mw.probability.high)} .. {one_in(mw.probability.low)}", cls="num")],
        ]
        how = f"{mw.text}. {mw.odds_note}"
    elif mw.probability is not None:
        rows += [
            ["probability per round", prob_cell(mw.probability, "max_win_probability")],
            ["odds", Cell(one_in(mw.probability.value), cls="num")],
        ]
        how = f"{mw.text}. {mw.odds_note}"
    else:
        rows.append(["odds", Cell("not available", "max_win_probability", cls="na")])
        how = f"{mw.text}. {mw.odds_note}"
    if s.sim is not None:
        rows.append(["largest win in the simulation", Cell(mult(s.sim.result["max_win"]), cls="num")])
    return section(
        "max-win", "Maximum win", table(Table("Maximum win", ["", ""], rows, how, id="max-win-table"))
    )


def _band_cells(b: BandRow) -> list[CellLike]:
    key = b.label
    ex = prob_cell(b.exact, f"band:{key}") if b.exact is not None else Cell("—", cls="na")
    odds = Cell(one_in(b.exact.value), cls="num") if b.exact is not None else Cell("—", cls="na")
    if b.freq is None:
        return [key, ex, odds, Cell("—", cls="na"), Cell("—", cls="na"), ""]
    sim = Cell(prob(b.freq), f"band-sim:{key}", b.freq, "num")
    interval = Cell(f"[{prob(b.low or 0.0)}, {prob(b.high or 0.0)}]", f"band-ci:{key}", cls="num")
    if b.outside:
        mark = Cell("OUTSIDE", f"band-mark:{key}", cls="flag outside")
    else:
        mark = Cell("inside" if b.exact is not None else "", f"band-mark:{key}", cls="muted")
    return [key, ex, odds, sim, interval, mark]


def _distribution(s: Sheet) -> str:
    p = s.part
    dist = p.distribution
    parts: list[str] = []
    if dist is None:
        parts.append(para(f"Exact distribution not available: {p.distribution_note}.", "alert na"))
        if p.sd is not None:  # the first two moments are exact even where the law is not
            sd = Cell(f"{p.sd.value:.6f}", "sd", p.sd.value, "num", bounded_note(p.sd))
            rows = [["standard deviation (× stake)", sd]]
            note = "Exact from the first two moments of a round's win; bracketed by the cap's effect."
            title = "Exact figures of one round's win"
            parts.append(table(Table(title, ["", ""], rows, note, id="dist-figures")))
        if s.sim is not None and s.sim.histogram:
            parts.append(
                para(
                    "The figures below are SIMULATED band frequencies, with their 99% (Wilson) "
                    "intervals, from this sheet's simulation.",
                    "simulated",
                )
            )
    else:
        figs = [
            ["P(no win)", prob_cell(dist.p_no_win(), "p_no_win")],
            ["P(a return at or below the stake)", prob_cell(dist.p_at_most_stake(), "p_at_most_stake")],
            ["mean (the cap applied)", pct_cell(dist.mean(), "dist_mean", 6)],
            [
                "standard deviation (× stake)",
                Cell(f"{dist.sd().value:.6f}", "sd", dist.sd().value, "num", bounded_note(dist.sd())),
            ],
        ]
        parts.append(
            table(
                Table(
                    "Exact distribution of one round's win",
                    ["", ""],
                    figs,
                    f"{dist.method}. Error bound: {dist.error_bound}.",
                    id="dist-figures",
                )
            )
        )
    if s.bands:
        rows = [_band_cells(b) for b in s.bands]
        cls = "bands" + ("" if dist is not None else " simulated")
        parts.append(
            table(
                Table(
                    "Win bands (multiples of the stake)",
                    ["band", "exact probability", "odds", "simulated", "99% interval", ""],
                    rows,
                    "A band (a, b] holds the wins above a and at most b times the stake.",
                    id="bands",
                ),
                cls,
            )
        )
        parts.append(
            f'<figure class="chart" id="chart-distribution">{win_distribution_chart(s.bands)}'
            "<figcaption>Win distribution per round (log scale)</figcaption></figure>"
        )
    return section("distribution", "Win distribution", *parts)


def _volatility(s: Sheet) -> str:
    if s.funnel_sd is None:
        return section("volatility", "Volatility", para("No standard deviation is available.", "na"))
    src = s.funnel_sd_source
    lead = (
        f"Volatility index (standard deviation of one round's win, × stake, {src}): {s.funnel_sd:.4f}. "
        "After n rounds the RTP observed lies, with the stated chance, within RTP ± z·sd/√n "
        "(the normal approximation: rough below about 10^4 rounds for a skewed game)."
    )
    rows: list[list[CellLike]] = []
    for n, bands in s.funnel:
        rows.append(
            [Cell(f"{n:,}", cls="num")]
            + [
                Cell(f"{pct(lo, 2)} .. {pct(hi, 2)}", f"funnel:{n}:{name}", cls="num")
                for (name, _), (lo, hi) in zip(CONFIDENCE, bands, strict=True)
            ]
        )
    cls = "simulated" if src == "simulated" else ""
    point = None
    if s.sim is not None:
        c = s.comparisons[0]
        if c.sim is not None and c.low is not None and c.high is not None:
            point = (s.sim.rounds, c.sim, c.low, c.high)
    chart = rtp_funnel_chart(s.funnel, s.funnel_center, point, src)
    return section(
        "volatility",
        "Volatility and the RTP band after n rounds",
        para(lead, cls),
        table(
            Table(
                "RTP band after n rounds",
                ["rounds", *[f"{name} of sessions" for name, _ in CONFIDENCE]],
                rows,
                id="funnel",
            ),
            cls,
        ),
        f'<figure class="chart" id="chart-funnel">{chart}'
        "<figcaption>RTP band after n rounds</figcaption></figure>",
    )


def _odds(s: Sheet) -> str:
    if not s.part.odds:
        return section("odds", "Odds of every prize and feature", para("Not available for this game.", "na"))
    return section("odds", "Odds of every prize and feature", *[table(t) for t in s.part.odds])


def _fmt(kind: str, x: float | None) -> str:
    if x is None:
        return "—"
    return pct(x) if kind == "pct" else f"{x:.4f}" if kind == "x" else prob(x)


def _comparison_row(c: Comparison) -> str:
    cls = "outside" if c.outside else ""
    exact = Cell(
        _fmt(c.kind, c.exact.value) if c.exact is not None else "not available",
        f"exact:{c.key}",
        c.exact.value if c.exact is not None else None,
        "num" if c.exact is not None else "na",
    )
    sim = Cell(_fmt(c.kind, c.sim), f"sim:{c.key}", c.sim, "num")
    iv = "—" if c.low is None or c.high is None else f"[{_fmt(c.kind, c.low)}, {_fmt(c.kind, c.high)}]"
    interval = Cell(iv, f"ci:{c.key}", cls="num")
    if c.outside:
        mark = Cell("OUTSIDE", f"mark:{c.key}", cls="flag outside")
    elif not c.compare:
        mark = Cell("not compared", f"mark:{c.key}", cls="muted")
    else:
        mark = Cell(
            "inside" if c.exact is not None and c.low is not None else "", f"mark:{c.key}", cls="muted"
        )
    note = Cell(c.note, cls="note-cell")
    return (
        f"<tr{_attr('class', cls) if cls else ''}{_attr('data-row', c.key)}>"
        + cell(c.label)
        + cell(exact)
        + cell(sim)
        + cell(interval)
        + cell(mark)
        + cell(note)
        + "</tr>"
    )


def _simulation(s: Sheet) -> str:
    if s.sim is None:
        return section("simulation", "Simulation", para("No simulation was run (--rounds 0).", "na"))
    r = s.sim.result
    head = "".join(f"<th>{h}</th>" for h in ("figure", "exact", "simulated", "99% interval", "", "note"))
    body = "".join(_comparison_row(c) for c in s.comparisons)
    comp = (
        f'<figure class="block" id="comparisons"><figcaption>Exact beside simulated</figcaption>'
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        "<p class=\"note\">99% intervals: the RTP's from the simulation's own standard deviation (normal); "
        "frequencies by Wilson's score interval; the standard deviation by the delta method (asymptotic). "
        "OUTSIDE marks an exact figure, its whole enclosure, outside the interval: at 99% about one "
        "figure in a hundred falls outside by chance alone.</p></figure>"
    )
    run = (
        f"{r['rounds']:,} rounds, seed {r['seed']}, {r['chunks']} chunk(s) of up to {r['chunk_rounds']:,}: "
        f"{r['seconds']:.2f} s ({r['rounds_per_second']:,.0f} rounds/s) in the kernel. {s.sim.replay_note}."
    )
    rows: list[list[CellLike]] = [
        [
            k.replace("_", " "),
            Cell(f"{v['count']:,}", cls="num"),
            Cell(prob(v["per_round"]), cls="num"),
            Cell("—" if v["one_in"] is None else f"1 in {v['one_in']:,.1f}", cls="num"),
        ]
        for k, v in r["features"].items()
    ]
    counters = Table(
        "Simulated counters",
        ["counter", "count", "per round", "odds"],
        rows,
        "The game's own counters, as `reelforge simulate --json` reports them.",
    )
    return section("simulation", "Simulation beside the exact figures", para(run), comp, table(counters))


def _appendix(s: Sheet) -> str:
    parts = [table(_strip_listing(rs), "strips") for rs in s.part.reel_sets]
    return section("appendix", "Appendix: reel strips", *parts) if parts else ""


def render(s: Sheet) -> str:
    p = s.part
    body = "".join(
        [
            _header(s),
            _summary(s),
            _reels(s),
            section("paytable", "Paytable", *[table(t) for t in p.paytables]),
            section("bets", "Bet levels", table(p.bets)),
            _components(s),
            _odds(s),
            _max_win(s),
            _distribution(s),
            _volatility(s),
            _simulation(s),
            section("notes", "Notes", *[para(n) for n in [*s.notes, *p.notes]]) if s.notes or p.notes else "",
            _appendix(s),
        ]
    )
    attrs = (
        _attr("data-game", p.game_id)
        + _attr("data-variant", p.variant)
        + _attr("data-mode", p.mode)
        + _attr("data-outside", len(s.outside))
    )
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>PAR sheet — {escape(p.game_name)} '
        f"{escape(p.variant)} {escape(p.mode)}</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{CSS}</style></head><body{attrs}><main>{body}</main></body></html>\n"
    )
