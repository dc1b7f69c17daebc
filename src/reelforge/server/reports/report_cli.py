"""``reelforge report``: the operator report (:mod:`reelforge.server.reports.reports`) as Rich tables
or JSON.  Registered in ``reelforge.cli`` with ``app.command("report")(report_command)``.

Bad input (a date that does not parse, an empty period, no database at the URL) ends with one
``error: ...`` line on stderr and exit code 2; a database that cannot be reached, code 1.
SQLAlchemy and the reports load only when the command runs: other commands do not pay for them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from reelforge.money import format_minor

if TYPE_CHECKING:
    from sqlalchemy import Engine


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _pct(x: float | None, places: int = 2) -> str:
    return "" if x is None else f"{x * 100:.{places}f}%"


def _open(url: str) -> Engine:
    from sqlalchemy import inspect
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from .reports import report_engine

    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        _fail(f"--db: not a database URL: {exc}")
    shown = parsed.render_as_string(hide_password=True)
    if parsed.get_backend_name() == "sqlite" and not (parsed.database and Path(parsed.database).is_file()):
        _fail(f"no database at {shown} (the server creates it when it first starts)")
    engine = report_engine(url)
    try:
        if not inspect(engine).has_table("rounds"):
            _fail(f"no reelforge database at {shown}: it has no rounds table")
    except SQLAlchemyError as exc:
        _fail(f"cannot read {shown}: {type(exc).__name__}: {str(exc).splitlines()[0]}", code=1)
    return engine


def _period_text(period: dict[str, Any]) -> str:
    start, end = period["from"], period["to"]
    if start and end:
        return f"from {start} to {end} (exclusive)"
    if start:
        return f"from {start}"
    if end:
        return f"before {end}"
    return "all time"


def _flag(row: dict[str, Any]) -> str:
    flag, z = row["flag"], row["z_score"]
    shown = f"{flag} (z {z:+.2f})" if z is not None else flag
    style = {"outside": "bold red", "ok": "green"}.get(flag, "yellow")
    return f"[{style}]{shown}[/]"


def _where(table: Table) -> None:
    for col in ("game", "variant", "mode"):
        table.add_column(col)


def money_table(report: dict[str, Any]) -> Table:
    """One row per game, variant, mode and currency, then the totals per currency."""
    table = Table(title=f"Completed rounds, {_period_text(report['period'])}", title_justify="left")
    _where(table)
    for col in ("rounds", "stakes", "wins", "GGR", "RTP in play", "voided"):
        table.add_column(col, justify="right")
    for row in report["games"]:
        cur = row["currency"]
        table.add_row(
            row["game"],
            row["variant"],
            row["mode"],
            f"{row['rounds']:,}",
            format_minor(row["stakes"], cur),
            format_minor(row["wins"], cur),
            format_minor(row["ggr"], cur),
            _pct(row["rtp"]),
            f"{row['voided']:,}",
        )
    table.add_section()
    for tot in report["totals"]:
        cur = tot["currency"]
        table.add_row(
            f"[bold]total {cur}[/]",
            "",
            "",
            f"{tot['rounds']:,}",
            format_minor(tot["stakes"], cur),
            format_minor(tot["wins"], cur),
            f"[bold]{format_minor(tot['ggr'], cur)}[/]",
            _pct(tot["rtp"]),
            f"{tot['voided']:,}",
        )
    return table


def rtp_table(report: dict[str, Any]) -> tuple[Table, list[str]]:
    """The RTP in play against the theoretical figure and its band, per row; and the notes
    the theoretical figures carry, numbered as the rows mark them."""
    table = Table(title="RTP in play against the exact figures (99% band)", title_justify="left")
    _where(table)
    for col in ("RTP in play", "theoretical", "99% band"):
        table.add_column(col, justify="right")
    table.add_column("flag")
    table.add_column("note", justify="right")
    notes: list[str] = []
    for row in report["games"]:
        theory, b, mark = row["theoretical"], row["band"], ""
        if theory["note"]:
            notes.append(f"{row['game']} {row['variant']} {row['mode']}: {theory['note']}")
            mark = str(len(notes))
        table.add_row(
            row["game"],
            row["variant"],
            row["mode"],
            _pct(row["rtp"]),
            _pct(theory["rtp"]),
            f"{b['low'] * 100:.2f}–{_pct(b['high'])}" if b else "",
            _flag(row),
            mark,
        )
    return table, notes


def _pending(report: dict[str, Any]) -> list[str]:
    return [
        f"{t['currency']}: {t['pending']:,} rounds started in the period are still in play "
        f"({format_minor(t['pending_stakes'], t['currency'])} staked), not counted"
        for t in report["totals"]
        if t["pending"]
    ]


def players_table(report: dict[str, Any]) -> Table:
    table = Table(title="Players (net: won - staked, the player's result)", title_justify="left")
    table.add_column("player")
    for col in ("rounds", "staked", "won", "net", "voided"):
        table.add_column(col, justify="right")
    for p in report["players"]:
        cur = p["currency"]
        table.add_row(
            p["player"],
            f"{p['rounds']:,}",
            format_minor(p["staked"], cur),
            format_minor(p["won"], cur),
            format_minor(p["net"], cur),
            f"{p['voided']:,}",
        )
    return table


def report_command(
    db: Annotated[
        str | None,
        typer.Option("--db", help="SQLAlchemy URL (default: the server's, REELFORGE_DB or .reelforge)."),
    ] = None,
    start: Annotated[
        str | None, typer.Option("--from", help="ISO date or date-time, inclusive (UTC unless zoned).")
    ] = None,
    end: Annotated[str | None, typer.Option("--to", help="ISO date or date-time, exclusive.")] = None,
    game: Annotated[str | None, typer.Option("--game", help="Only this game id.")] = None,
    players: Annotated[bool, typer.Option("--players", help="Also the totals per player.")] = False,
    no_theory: Annotated[
        bool, typer.Option("--no-theory", help="Money only: skip the theoretical figures (seconds each).")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Operator report: completed rounds per game, RTP variant and mode over a period (stakes,
    wins, GGR, RTP in play against the exact RTP and its 99% band), per player with --players."""
    from sqlalchemy.exc import SQLAlchemyError

    from reelforge.server.core.config import Settings
    from reelforge.server.reports import report_theory

    from .reports import Period, ReportError, build_report

    try:
        period = Period.parse(start, end)
    except ReportError as exc:
        _fail(str(exc))
    engine = _open(db or Settings().database_url())
    theory = report_theory.no_theory if no_theory else report_theory.theoretical
    try:
        with Console(stderr=True).status("reading the rounds and computing the theoretical figures..."):
            report = build_report(engine, period, game=game, players=players, theory=theory)
    except SQLAlchemyError as exc:
        _fail(f"{type(exc).__name__}: {str(exc).splitlines()[0]}", code=1)
    finally:
        engine.dispose()
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    out = Console(highlight=False)
    out.print(money_table(report))
    for line in _pending(report):
        out.print(escape(line), style="dim")
    if report["games"]:
        table, notes = rtp_table(report)
        out.print(table)
        for i, note in enumerate(notes, 1):
            out.print(escape(f"[{i}] {note}"), style="dim")
    out.print(escape(f"counts: {report['counts']}"), style="dim")
    out.print(escape(f"band: {report['band']}"), style="dim")
    if players:
        out.print(players_table(report))
