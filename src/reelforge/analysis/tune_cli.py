"""``reelforge tune``: the command around :mod:`reelforge.analysis.tune` and its report.

Registered in ``reelforge.cli`` with ``app.command("tune")(tune_command)``.  Bad input (an
unknown game, variant or figure, a target out of range or out of reach) ends with one
``error: ...`` line on stderr and exit code 2, as every other command does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from reelforge.analysis.tune import (
    RTP_TOLERANCE,
    TOLERANCES,
    TuneError,
    TuneResult,
    parse_keep,
    parse_target,
    show,
    tuning_for,
)
from reelforge.analysis.tune import tune as run_tune


def _pct(x: float, places: int = 4) -> str:
    return f"{x * 100:.{places}f}%"


def report(result: TuneResult, names: dict[str, str]) -> list[Table]:
    """What changed (per reel or weight table, before -> after) and the exact figures."""
    changes = Table(title=f"{result.game_id} {result.source_variant} -> {result.variant}: what changed")
    changes.add_column("where")
    changes.add_column("counts before -> after")
    for c in result.changes:
        changes.add_row(c.where, ", ".join(f"{k} {a} -> {b}" for k, (a, b) in c.counts.items()))
    figures = Table(title="exact figures (the game's calculator, on the file as written)")
    for col in ("figure", result.source_variant, result.variant, "tolerance"):
        figures.add_column(col, justify="right" if col != "figure" else "left")
    tol = f"target {_pct(float(result.target), 2)} ± {float(RTP_TOLERANCE) * 100:.2f} points"
    for mode, rtp in result.after.rtp.items():
        figures.add_row(
            f"RTP {mode}", _pct(float(result.before.rtp[mode])), f"[bold]{_pct(float(rtp))}[/]", tol
        )
    for name, value in result.after.figures.items():
        kept = (
            f"kept within {float(TOLERANCES[name]) * 100:g}% relative" if name in result.keep else "not kept"
        )
        label = f"{name} ({names[name]})" if name in names else name
        figures.add_row(label, show(name, result.before.figures[name]), show(name, value), kept)
    return [changes, figures]


def tune_command(
    game_id: Annotated[str, typer.Argument(help="Game id, see `reelforge games`.", show_default=False)],
    target: Annotated[str, typer.Option("--target", help="Target RTP in percent (e.g. 94 or 92.5).")],
    variant: Annotated[
        str | None, typer.Option("--variant", help="The variant to start from (default: the game's).")
    ] = None,
    keep: Annotated[
        str | None,
        typer.Option("--keep", help="Comma-separated: hit-frequency, feature-frequency, volatility."),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="The new variant's name (default: the target, e.g. 94.00).")
    ] = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Data file to write (default: rtp-XXXX.toml here).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable report.")] = False,
) -> None:
    """Write a new RTP variant's data file (strips and weights only), exact RTP within 0.01 points
    of the target, keeping the named figures; the same input gives the same file."""
    try:
        tuning = tuning_for(game_id)
        goal = parse_target(target)
        kept = parse_keep(keep, tuning)
        with Console(stderr=True).status("tuning (exact figures)..."):
            result = run_tune(game_id, goal, variant=variant, keep=kept, name=name)
    except (TuneError, ValueError, KeyError) as exc:
        message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
        typer.echo(f"error: {message}", err=True)
        raise typer.Exit(2) from None
    path = output or Path(f"rtp-{result.variant.replace('.', '')}.toml")
    path.write_text(result.text)
    if as_json:
        typer.echo(json.dumps({**result.to_json(), "file": str(path)}, indent=2))
        return
    console = Console(highlight=False)
    for table in report(result, tuning.figure_names):
        console.print(table)
    console.print(f"wrote {path} (variant {result.variant}, {len(result.steps)} moves)")
