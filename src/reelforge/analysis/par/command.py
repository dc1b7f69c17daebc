"""``reelforge par``: the command (cli.py only registers it)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer

from reelforge.engine.game import Game
from reelforge.games import get_game

from .pdf import PdfUnavailable, print_pdf

DEFAULT_SEED = 2024  # a fixed default: the same command writes the same sheet (but its date)


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _game(game_id: str, variant: str | None, mode: str) -> Game:
    try:
        game = get_game(game_id)
    except KeyError as exc:
        _fail(str(exc.args[0]) if exc.args else str(exc))
    if variant is not None and variant not in game.variants:
        _fail(f"unknown RTP variant {variant!r} for {game.id}; offered: {', '.join(game.variants)}")
    if mode not in game.modes:
        _fail(f"unknown mode {mode!r} for {game.id}; offered: {', '.join(game.modes)}")
    return game


def par_command(
    game_id: Annotated[str, typer.Argument(help="Game id, see `reelforge games`.", show_default=False)],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="The HTML file to write.", show_default=False)
    ],
    variant: Annotated[
        str | None, typer.Option("--variant", help="RTP variant (default: the game's).")
    ] = None,
    mode: Annotated[str, typer.Option("--mode", help="Game mode.")] = "base",
    rounds: Annotated[
        int, typer.Option("--rounds", help="Rounds to simulate beside the exact figures (0: none).")
    ] = 1_000_000,
    seed: Annotated[int, typer.Option("--seed", help="Simulation seed.")] = DEFAULT_SEED,
    pdf: Annotated[
        Path | None,
        typer.Option("--pdf", help="Also print the sheet to this PDF (through /usr/bin/chromium)."),
    ] = None,
) -> None:
    """A PAR sheet: reels, paytable, exact RTP and odds, win distribution, volatility, and a
    simulation beside the exact figures, as one offline HTML file (and a PDF)."""
    game = _game(game_id, variant, mode)
    if rounds < 0:
        _fail(f"--rounds must be 0 or more, got {rounds}")
    if seed < 0:
        _fail(f"--seed must be non-negative, got {seed}")

    from .gather import build_sheet  # matplotlib and the game kernels: only when a sheet is made
    from .render import render

    def say(step: str) -> None:
        typer.echo(f"par: {step}", err=True)

    sheet = build_sheet(game, variant, mode, rounds, seed, say)
    html = render(sheet)
    try:
        output.write_text(html, encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write {output}: {exc}", code=1)
    typer.echo(f"wrote {output} ({len(html) / 1024:,.0f} KiB)")
    if sheet.outside:
        typer.echo(f"OUTSIDE its simulated 99% interval: {', '.join(sheet.outside)}", err=True)
    if pdf is not None:
        try:
            print_pdf(html, pdf)
        except PdfUnavailable as exc:
            _fail(str(exc), code=1)
        typer.echo(f"wrote {pdf}")
