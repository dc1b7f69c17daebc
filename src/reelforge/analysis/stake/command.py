"""``reelforge export stake``: the command (cli.py only registers the ``export`` group)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from reelforge.analysis.stake.export import (
    DEFAULT_BOOKS,
    DEFAULT_FILL_ROUNDS,
    DEFAULT_SEARCH_ROUNDS,
    DEFAULT_SPLIT_ROUNDS,
    NotExportable,
    export_mode,
)
from reelforge.analysis.stake.files import write_export
from reelforge.analysis.stake.modes import refusal
from reelforge.analysis.stake.verify import Report, verify
from reelforge.analysis.stake.weights import BandUncovered
from reelforge.games import get_game

export_app = typer.Typer(help="Export a game for another platform.", no_args_is_help=True)


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


@export_app.command("stake")
def stake_command(
    game_id: Annotated[
        str | None, typer.Argument(help="Game id, see `reelforge games`.", show_default=False)
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="The folder to write the files to.", show_default=False),
    ] = None,
    mode: Annotated[
        list[str] | None,
        typer.Option("--mode", help="Only this mode (repeatable; default: every one that can be)."),
    ] = None,
    books: Annotated[
        int, typer.Option("--books", min=1, help="The most books (rounds) per mode.")
    ] = DEFAULT_BOOKS,
    variant: Annotated[
        str | None, typer.Option("--variant", help="RTP variant (default: the game's).")
    ] = None,
    search_rounds: Annotated[
        int, typer.Option("--search-rounds", min=0, help="Rounds played to find the books.")
    ] = DEFAULT_SEARCH_ROUNDS,
    split_rounds: Annotated[
        int,
        typer.Option(
            "--split-rounds", min=0, help="The most rounds played on from the best ones for rare bands."
        ),
    ] = DEFAULT_SPLIT_ROUNDS,
    fill_rounds: Annotated[
        int,
        typer.Option(
            "--fill-rounds", min=0, help="The most rounds played on towards payouts without a book."
        ),
    ] = DEFAULT_FILL_ROUNDS,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of the search (the files depend on it alone).")
    ] = 1,
    check: Annotated[
        Path | None, typer.Option("--verify", help="Check an export folder instead.", show_default=False)
    ] = None,
) -> None:
    """Stake Engine's static math files (books, lookup tables, index.json) for every mode whose
    rounds need no persistent state and no decision, weighted by the exact win law.  With
    --verify DIR: the platform's published checks and reelforge's against the exact figures."""
    console = Console(width=max(shutil.get_terminal_size().columns, 130))  # the summary's columns whole
    if check is not None:
        report = verify(check)
        _print_report(console, report)
        raise typer.Exit(0 if report.ok else 1)
    if game_id is None or output is None:
        _fail("give a GAME and -o DIR (or --verify DIR)")
    try:
        game = get_game(game_id)
    except KeyError as exc:
        _fail(str(exc.args[0]) if exc.args else str(exc))
    variant = variant or game.default_variant
    if variant not in game.variants:
        _fail(f"{game.id} has no variant {variant!r}; it has {', '.join(game.variants)}")
    wanted = mode or list(game.modes)
    unknown = [m for m in wanted if m not in game.modes]
    if unknown:
        _fail(f"{game.id} has no mode {', '.join(unknown)}; it has {', '.join(game.modes)}")
    refused = {m: r for m in wanted if (r := refusal(game, variant, m))}
    for m, why in refused.items():
        console.print(f"[yellow]{m}: not exported[/]: {why}")
    if len(refused) == len(wanted):
        _fail(f"{game.id}: no mode can be exported as fixed books", 1)
    done = []
    for m in wanted:
        if m in refused:
            continue
        try:
            done.append(
                export_mode(
                    game,
                    variant,
                    m,
                    books=books,
                    search_rounds=search_rounds,
                    split_rounds=split_rounds,
                    fill_rounds=fill_rounds,
                    seed=seed,
                    say=lambda msg: console.print(f"[dim]{msg}[/]"),
                )
            )
        except NotExportable as exc:
            refused[m] = str(exc)
            console.print(f"[yellow]{m}: not exported[/]: {exc}")
        except BandUncovered as exc:
            _fail(f"{game.id} {m}: {exc}", 1)
    if not done:
        _fail(f"{game.id}: no mode could be exported", 1)
    write_export(output, game, variant, done, refused)
    table = Table(title=f"{game.name} {variant}: Stake Engine export in {output}")
    for col in (
        "mode",
        "cost",
        "books",
        "exact RTP",
        "table RTP",
        "rounding cost",
        "hit rate",
        "max win",
        "1 in",
    ):
        table.add_column(col, justify="right" if col != "mode" else "left")
    for m in done:
        t = m.table
        table.add_row(
            m.mode,
            f"{m.cost}x",
            f"{len(m.books):,}",
            f"{float(m.law.exact_rtp):.8%}",
            f"{float(t['rtp']):.8%}",
            f"{float(m.law.rounding_cost):+.5%}",
            f"{float(t['hit_rate']):.6f}",
            f"{t['max_payout'] / 100:,g}x",
            f"{t['max_win_one_in']:.4g}",
        )
    console.print(table)


def _print_report(console: Console, report: Report) -> None:
    def show(checks: list) -> None:
        for c in checks:
            mark = "[green]ok[/]" if c.ok else ("[yellow]warn[/]" if c.warning else "[red]FAIL[/]")
            console.print(f"  {mark}  {c.name}" + (f"  [dim]({c.detail})[/]" if c.detail else ""))

    console.print(f"[bold]{report.folder}[/]")
    show(report.checks)
    for m in report.modes:
        console.print(f"[bold]mode {m.name}[/] (cost {m.cost:g})")
        if m.stats:
            s = m.stats
            console.print(
                f"  RTP {float(s['rtp']):.10f}  SD {s['sd']:.4f}  hit rate {float(s['hit_rate']):.6f}  "
                f"max win {s['max_payout'] / 100:,g}x at 1 in {s['max_win_one_in']:.4g}  "
                f"P(win < bet) {float(s['p_win_below_bet']):.6f}  books {s['rows']:,}"
            )
        show(m.checks)
    console.print("[green]all checks passed[/]" if report.ok else "[red]checks failed[/]")
    sys.stdout.flush()
