"""``reelforge certify``: the command (cli.py only registers it)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from reelforge.games import get_game


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def certify_command(
    game_id: Annotated[
        str | None, typer.Argument(help="Game id, see `reelforge games`.", show_default=False)
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="The folder to write the bundle to.", show_default=False),
    ] = None,
    verify: Annotated[
        Path | None,
        typer.Option(
            "--verify", help="Check a bundle's digests against this installation.", show_default=False
        ),
    ] = None,
    variant: Annotated[
        list[str] | None, typer.Option("--variant", help="Only this RTP variant (repeatable; default: all).")
    ] = None,
    mode: Annotated[
        list[str] | None, typer.Option("--mode", help="Only this mode (repeatable; default: all).")
    ] = None,
    rounds: Annotated[
        int, typer.Option("--rounds", help="Simulated rounds per variant and mode.")
    ] = 1_000_000,
    seed: Annotated[int, typer.Option("--seed", help="Simulation seed.")] = 2024,
    rng_draws: Annotated[
        int, typer.Option("--rng-draws", help="Draws per reel or weight table for our own tests.")
    ] = 1_000_000,
    ent_bytes: Annotated[int, typer.Option("--ent-bytes", help="Bytes of raw output for ent.")] = 100_000_000,
    dieharder_test: Annotated[
        list[int] | None,
        typer.Option(
            "--dieharder-test", help="Only this dieharder test number (repeatable; default: all, -a)."
        ),
    ] = None,
    skip_dieharder: Annotated[
        bool, typer.Option("--skip-dieharder", help="Leave dieharder out (a quick, incomplete bundle).")
    ] = False,
) -> None:
    """The certification evidence bundle: digests, PAR sheets, exact versus simulated RTP and
    RNG evidence (dieharder, ent, chi-square, runs and serial tests) for every RTP variant and
    mode, with an index page; or, with --verify DIR, check a bundle's digests."""
    from .digests import verify as verify_bundle

    if verify is not None:
        if game_id is not None or output is not None:
            _fail("--verify DIR takes no game and no -o")
        if not (verify / "manifest.json").is_file():
            _fail(f"{verify} holds no manifest.json")
        try:
            problems = verify_bundle(verify)
        except (KeyError, ValueError) as exc:  # not a manifest this version wrote, or an unknown game
            _fail(f"{verify / 'manifest.json'} cannot be checked: {exc}")
        for line in problems:
            typer.echo(f"MISMATCH {line}")
        if problems:
            typer.echo(f"{len(problems)} mismatch(es): the bundle does not match this installation", err=True)
            raise typer.Exit(1)
        typer.echo(f"{verify}: every digest matches")
        return
    if game_id is None or output is None:
        _fail("give a game and -o DIR (or --verify DIR)")
    try:
        game = get_game(game_id)
    except KeyError as exc:
        _fail(str(exc.args[0]) if exc.args else str(exc))
    for v in variant or []:
        if v not in game.variants:
            _fail(f"unknown RTP variant {v!r} for {game.id}; offered: {', '.join(game.variants)}")
    for m in mode or []:
        if m not in game.modes:
            _fail(f"unknown mode {m!r} for {game.id}; offered: {', '.join(game.modes)}")
    for name, value in (("--rounds", rounds), ("--rng-draws", rng_draws), ("--ent-bytes", ent_bytes)):
        if value <= 0:
            _fail(f"{name} must be positive, got {value}")
    if seed < 0:
        _fail(f"--seed must be non-negative, got {seed}")

    from .bundle import build_bundle
    from .index import INDEX, overall
    from .model import Options
    from .rng_external import MissingTool, require

    try:  # before the long parts, not after them
        require("ent", "ent")
        if not skip_dieharder:
            require("dieharder", "dieharder")
    except MissingTool as exc:
        _fail(str(exc), code=1)
    started = time.time()

    def say(step: str) -> None:
        typer.echo(f"certify [{time.time() - started:7.0f} s]: {step}", err=True)

    options = Options(
        variants=variant or None,
        modes=mode or None,
        rounds=rounds,
        seed=seed,
        rng_draws=rng_draws,
        ent_bytes=ent_bytes,
        dieharder_tests=dieharder_test or None,
        skip_dieharder=skip_dieharder,
        say=say,
    )
    sections = build_bundle(game, output, options)
    for s in sections:
        mark = {True: "PASS", False: "FAIL", None: "----"}[s.passed]
        typer.echo(f"{mark} {s.title}")
        for line in s.summary:
            typer.echo(f"     {line}")
    typer.echo(f"wrote {output / INDEX} ({time.time() - started:,.0f} s)")
    if not overall(sections):
        raise typer.Exit(1)
