"""The tables the ``reelforge`` command prints: game lists, exact results, win
distributions and Monte Carlo runs (Rich renderables; the commands live in cli.py)."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from reelforge.engine.distribution import WinDistribution
from reelforge.engine.game import Game
from reelforge.games import get_game
from reelforge.money import format_minor


def pct(x: float, places: int = 4) -> str:
    return f"{x * 100:.{places}f}%"


_SHOWN = {
    "game", "variant", "mode", "rtp", "components", "hit_frequency", "method",
    "hit_frequency_name", "hit_frequency_meaning", "round_hit_frequency",
}  # fmt: skip

# Two meanings of "hit frequency", each shown under its own name.  A simulation counts the
# rounds that win anything (cash or Bonuses, every game and feature of the round); where a
# game's exact report counts something else, its figure keeps the name below, and `rtp` and
# `simulate` add the round figure from the game's exact win distribution (1 - P(no win)).
ROUND_HITS = "round hit frequency (rounds winning anything)"


def report_hit_name(game: Game, mode: str) -> str | None:
    """The name of a game's exact ``hit_frequency`` where it is not the round figure."""
    return game.report_hit_names.get(mode)


def _cell(value: Any) -> str:
    """A figure as a table shows it: floats to 6 significant digits, lists of numbers
    comma-separated."""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list | tuple) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value
    ):
        return ", ".join(_cell(v) for v in value)
    return str(value)


def _is_rows(value: Any) -> bool:
    """A list of records with the same keys (e.g. Ghost of Gambini's ``by_state``)."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(r, dict) for r in value)
        and all(r.keys() == value[0].keys() for r in value)
    )


def _is_number_map(value: Any) -> bool:
    """A mapping of names to numbers (e.g. Los 3 Pinguinos' ``rtp_by_play``)."""
    return (
        isinstance(value, dict)
        and bool(value)
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value.values())
    )


def _is_rtp_records(value: Any) -> bool:
    """A mapping of names to records that each carry an ``rtp`` figure (e.g. Los 3 Pinguinos'
    ``machine_rtp_by_play``): a table of the figures, the records' details left to --json."""
    return (
        isinstance(value, dict)
        and bool(value)
        and all(isinstance(v, dict) and isinstance(v.get("rtp"), int | float) for v in value.values())
    )


def map_table(name: str, values: dict[str, Any]) -> Table:
    """One row per name; an RTP figure as a percentage."""
    table = Table(title=name.replace("_", " "), title_justify="left")
    table.add_column("")
    table.add_column("RTP (of stake)" if "rtp" in name else "value", justify="right")
    for key, v in values.items():
        table.add_row(str(key).replace("_", " "), pct(v) if "rtp" in name else _cell(v))
    return table


def rows_table(name: str, rows: list[dict[str, Any]]) -> Table:
    table = Table(title=name.replace("_", " "), title_justify="left")
    columns = list(rows[0])
    for col in columns:
        table.add_column(col.replace("_", " "), justify="right")
    for row in rows:
        table.add_row(*(_cell(row[col]) for col in columns))
    return table


def bets_table(rows: list[dict[str, Any]], currency: str) -> Table:
    """Los 3 Pinguinos' upper game: one row per bet, its exact figures in percent of its value."""
    table = Table(title="RTP by bet (Bonuses at their value; COLLECT unless marked)", title_justify="left")
    for col in ("bet", "value", "minigame offer 5 / 8 lines", "RTP", "AUTO-RISK", "5 lines", "8 lines"):
        table.add_column(col, justify="right")

    def chance(fraction: str) -> str:
        yes, total = (int(x) for x in fraction.split("/"))
        return f"{100 * yes / total:.2f}%"

    for r in rows:
        bonuses = f"{r['bonuses']} Bonus" + ("" if r["bonuses"] == 1 else "es")
        table.add_row(
            f"{format_minor(r['cash'], currency)} + {bonuses}",
            format_minor(r["value"], currency),
            f"{chance(r['offer'])} / {chance(r['offer_8'])}",
            f"[bold]{pct(r['rtp'])}[/]",
            pct(r["rtp_risk"]),
            pct(r["lines5"]["collect"]),
            pct(r["lines8"]["collect"]),
        )
    return table


def hits_cell(hits: float) -> str:
    one_in = f"1 in {1 / hits:.2f}" if hits > 0 else "never"
    return f"{pct(hits, 2)}  ({one_in})"


def exact_table(result: dict[str, Any], title: str | None = None) -> RenderableType:
    table = Table(title=title or f"{result['game']}  variant {result['variant']}  mode {result['mode']}")
    table.add_column("component")
    table.add_column("RTP (of stake)", justify="right")
    for name, value in result["components"].items():
        table.add_row(name, pct(value))
    table.add_section()
    table.add_row("[bold]total[/]", f"[bold]{pct(result['rtp'])}[/]")
    # The figure's name (a game's own words for what it counts, where it gives them).
    meaning = result.get("hit_frequency_meaning")
    name = result.get("hit_frequency_name") or (f"hit frequency ({meaning})" if meaning else "hit frequency")
    table.add_row(str(name), hits_cell(float(result["hit_frequency"])))
    if result.get("round_hit_frequency") is not None:
        table.add_row(ROUND_HITS, hits_cell(float(result["round_hit_frequency"])))
    table.add_row("method", str(result.get("method", "")))
    notes = []
    more: list[RenderableType] = []
    for key, value in result.items():
        if key in _SHOWN:
            continue
        if key == "by_bet" and _is_rows(value):  # the Pinguinos' upper game: figures per bet
            more.append(bets_table(value, str(result.get("currency", "EUR"))))
            continue
        if _is_rows(value):  # e.g. the RTP by piggy-bank state: a table of its own
            more.append(rows_table(key, value))
            continue
        if _is_number_map(value):  # e.g. the RTP by play: a table of its own
            more.append(map_table(key, value))
            continue
        if _is_rtp_records(value):  # e.g. the whole machine's RTP by play
            more.append(map_table(key, {k: v["rtp"] for k, v in value.items()}))
            continue
        shown = _cell(value)
        if len(shown) > 30:  # e.g. the exact fraction: a line under the tables, not a folded cell
            notes.append(f"{key.replace('_', ' ')}: {shown}")
        else:
            table.add_row(key.replace("_", " "), shown)
    # Printed under the table at full width: a caption would wrap to the table's.
    if not notes and not more:
        return table
    return Group(table, *more, *([Text("\n".join(notes), style="dim")] if notes else []))


def _odds(p: float) -> str:
    return "never" if p <= 0 else f"1 in {1 / p:,.0f}" if p < 1e-3 else f"1 in {1 / p:,.2f}"


def distribution_table(dist: WinDistribution) -> RenderableType:
    """The bands of one round's win in stakes, with the figures read off the law."""
    title = f"{dist.game}  variant {dist.variant}  mode {dist.mode}  win distribution"
    if "play_name" in dist.details:  # games with decisions: the law is the play's
        title += f"\nplay: {dist.details['play_name']}"
    if "bet_cents" in dist.details:
        stake = format_minor(int(dist.details["bet_cents"]), str(dist.details.get("currency", "GBP")))
        title += f"  at a stake of {stake}"
    table = Table(title=title, title_justify="left")
    table.add_column("win (x stake)")
    table.add_column("probability", justify="right")
    table.add_column("odds", justify="right")
    table.add_column("+-", justify="right")
    for band in dist.bands():
        p = band.probability
        table.add_row(band.label, f"{p.value:.6e}", _odds(p.value), f"{p.bound:.1e}")
    top, p_top = dist.max_win()
    figures = Table(show_header=False, title="figures", title_justify="left")
    figures.add_column("")
    figures.add_column("", justify="right")
    mean, sd = dist.mean(), dist.sd()
    figures.add_row("RTP (mean, cap applied)", f"{pct(mean.value, 6)}  +- {mean.bound * 100:.1e} points")
    figures.add_row("volatility index (SD, stakes)", f"{sd.value:.6f}  +- {sd.bound:.1e}")
    figures.add_row("P(no win)", f"{pct(dist.p_no_win().value)}")
    figures.add_row("P(return <= stake)", f"{pct(dist.p_at_most_stake().value)}")
    odds = f"{p_top.value:.6e}  ({_odds(p_top.value)})  +- {p_top.bound:.1e}"
    figures.add_row(f"max win {top / dist.stake:,.0f}x", odds)
    figures.add_row("method", dist.method)
    return Group(table, figures, Text(f"error bound: {dist.error_bound}", style="dim"))


def simulation_table(
    sim: dict[str, Any], exact: dict[str, Any] | None, round_hits: float | None = None
) -> Table:
    """The run's figures beside the exact ones; ``round_hits``: the exact round hit frequency
    where the game's report counts hits otherwise (its ``report_hit_names``)."""
    table = Table(title=f"{sim['game']}  variant {sim['variant']}  mode {sim['mode']}  Monte Carlo")
    table.add_column("measure")
    table.add_column("value", justify="right")
    lo, hi = sim["ci99"]
    ulo, uhi = sim["ci99_uncapped"]
    table.add_row("rounds", f"{sim['rounds']:,}")
    stopped = stop_text(sim)
    if stopped:
        table.add_row("stopped", stopped)
    table.add_row("seed", str(sim["seed"]))
    table.add_row("chunk size", f"{sim['chunk_rounds']:,} rounds ({sim['chunks']:,} chunks)")
    table.add_row("RTP", f"{pct(sim['rtp'])}  (99% CI {pct(lo)} .. {pct(hi)})")
    table.add_row("RTP uncapped", f"{pct(sim['rtp_uncapped'])}  (99% CI {pct(ulo)} .. {pct(uhi)})")
    if exact is not None:
        # exact() may leave the max-win cap out: compare like with like.
        capped = bool(exact.get("max_win_cap_included", False))
        low, high = (lo, hi) if capped else (ulo, uhi)
        inside = low <= exact["rtp"] <= high
        verdict = "[green]inside[/]" if inside else "[bold red]OUTSIDE[/]"
        which = "capped" if capped else "uncapped"
        table.add_row("exact RTP", f"{pct(exact['rtp'])}  {verdict} the 99% CI ({which})")
    table.add_row("cap effect", pct(sim["cap_effect"]))
    table.add_row("std per round", f"{sim['std']:.3f} x stake")
    hits = float(sim["hit_frequency"])
    if report_hit_name(get_game(sim["game"]), sim["mode"]) is None:
        table.add_row("hit frequency", pct(hits, 2))
    else:
        cell = pct(hits, 2)
        if round_hits is not None:  # the binomial's 99% interval around the run's count
            half = 2.5758293035489 * math.sqrt(max(hits * (1 - hits), 1e-300) / sim["rounds"])
            inside = abs(round_hits - hits) <= half
            verdict = "[green]inside[/]" if inside else "[bold red]OUTSIDE[/]"
            cell += f"  (exact {pct(round_hits, 2)}  {verdict} the 99% CI ±{pct(half, 2)})"
        table.add_row(ROUND_HITS, cell)
    table.add_row("max win", f"{sim['max_win']:,.2f} x stake")
    for name, f in sim["features"].items():
        one_in = f"1 in {f['one_in']:,.1f}" if f["one_in"] else "never"
        table.add_row(f"  {name}", f"{f['count']:,}  ({one_in})")
    table.add_row("workers", str(sim["workers"]))
    table.add_row("speed", f"{sim['rounds_per_second']:,.0f} rounds/s")
    return table


def points(fraction: float) -> str:
    return f"{fraction * 100:.4f}"


def stop_text(sim: dict[str, Any]) -> str:
    """Why the run ended, when that is not simply ``--rounds`` reached without ``--precision``."""
    half = sim["ci99_half_width"]
    if sim["stop"] == "interrupted":
        return f"[bold yellow]interrupted[/] (Ctrl-C) after {sim['rounds']:,} of {sim['rounds_max']:,} rounds"
    if sim["precision"] is None:
        return ""
    target = f"±{points(sim['precision'])} points"
    if sim["stop"] == "precision":
        return f"precision reached: ±{points(half)}, target {target}"
    return f"[bold red]precision not reached[/]: ±{points(half)} at --rounds, target {target}"
