"""The ``reelforge`` command: list games, exact RTP, Monte Carlo, terminal play, demo.

Bad input (unknown game, variant or mode, a stake not offered, a non-positive count)
ends with a one-line ``error: ...`` on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import json
import math
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from reelforge.analysis.certify.command import certify_command
from reelforge.analysis.par.command import par_command
from reelforge.analysis.simulate import DEFAULT_CHUNK_ROUNDS, Interrupted, validate
from reelforge.analysis.simulate import simulate as run_simulation
from reelforge.analysis.stake.command import export_app
from reelforge.analysis.tune_cli import tune_command
from reelforge.cli_tables import (
    ROUND_HITS,
    distribution_table,
    exact_table,
    report_hit_name,
    simulation_table,
)
from reelforge.engine.capabilities import has
from reelforge.engine.exact_store import ExactStore
from reelforge.engine.game import Game, levels_for, win_distribution
from reelforge.engine.terminal.text import bet_name
from reelforge.games import get_game, registry
from reelforge.money import InvalidBet, find_bet, format_minor
from reelforge.rng import SeededRandom, SystemRandom
from reelforge.seamless.command import operator_wallet_command
from reelforge.server.reports.report_cli import report_command
from reelforge.server.runtime.operators_cli import operators_app
from reelforge.sim_progress import progress_bar

app = typer.Typer(
    name="reelforge",
    help="Slot-game engine: exact math, fast simulation, terminal play.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

DEMO_ROUNDS = 1_000_000
DEMO_SEED = 20240601

GameOpt = Annotated[str, typer.Argument(help="Game id, see `reelforge games`.", show_default=False)]
VariantOpt = Annotated[str | None, typer.Option("--variant", help="RTP variant (default: the game's).")]
ModeOpt = Annotated[str, typer.Option("--mode", help="Game mode.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _out() -> Console:
    # Built per call: Rich writes to whatever sys.stdout is then (a test runner swaps it).
    return Console(highlight=False)


def fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _message(exc: BaseException) -> str:
    # KeyError's str() is the repr of its argument; the text itself reads better.
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn the engine's refusals of bad input into a one-line error and exit code 2."""
    try:
        yield
    except (InvalidBet, ValueError, KeyError) as exc:
        fail(_message(exc))


@contextmanager
def run_errors() -> Iterator[None]:
    """Failures of the environment, not the input: one line and exit code 1.  Anything
    else is a bug and keeps its traceback."""
    try:
        yield
    except ImportError as exc:  # e.g. a game whose simulation kernel is not installed
        fail(f"simulation unavailable: {exc}", code=1)
    except OSError as exc:  # e.g. a Dask scheduler that cannot be reached
        fail(f"{type(exc).__name__}: {exc}", code=1)


def load_game(game_id: str, variant: str | None = None, mode: str | None = None) -> Game:
    try:
        game = get_game(game_id)
    except KeyError as exc:
        fail(_message(exc))
    if variant is not None and variant not in game.variants:
        fail(f"unknown RTP variant {variant!r} for {game.id}; offered: {', '.join(game.variants)}")
    if mode is not None and mode not in game.modes:
        fail(f"unknown mode {mode!r} for {game.id}; offered: {', '.join(game.modes)}")
    return game


def _currency(game: Game) -> str:
    return str(game.info().get("currency", "GBP"))


def emit_json(data: Any) -> None:
    # Plain echo, not Rich: Rich would wrap long lines and colour the JSON.
    typer.echo(json.dumps(data, indent=2))


# -- games ------------------------------------------------------------------------------


def game_summary(game: Game) -> dict[str, Any]:
    return {
        "id": game.id,
        "name": game.name,
        "version": game.version,
        "modes": list(game.modes),
        "variants": list(game.variants),
        "default_variant": game.default_variant,
        "bet_levels": [b.to_json() for b in game.bet_levels()],
    }


@app.command()
def games(as_json: JsonOpt = False) -> None:
    """List the registered games: modes, RTP variants and stakes."""
    entries = [game_summary(g) for g in registry().values()]
    if as_json:
        emit_json(entries)
        return
    table = Table(title="Games")
    table.add_column("id", no_wrap=True)
    for col in ("name", "version", "modes", "RTP variants", "stakes"):
        table.add_column(col)
    for g, entry in zip(registry().values(), entries, strict=True):
        cur = _currency(g)
        variants = [v + "*" if v == entry["default_variant"] else v for v in entry["variants"]]
        money = [format_minor(b["stake"], cur) for b in entry["bet_levels"]]
        # A long ladder of stakes reads better as its ends and a count (--json has them all).
        stakes = ", ".join(money) if len(money) <= 4 else f"{money[0]} .. {money[-1]} ({len(money)})"
        table.add_row(
            entry["id"],
            entry["name"],
            entry["version"],
            ", ".join(entry["modes"]),
            "\n".join(variants),
            stakes,
        )
    table.caption = "* default RTP variant"
    _out().print(table)


# -- rtp --------------------------------------------------------------------------------


@app.command()
def rtp(
    game_id: GameOpt,
    variant: VariantOpt = None,
    mode: ModeOpt = "base",
    as_json: JsonOpt = False,
    distribution: Annotated[
        bool, typer.Option("--distribution", help="Exact law of one round's win: bands, odds, volatility.")
    ] = False,
    play: Annotated[
        str | None,
        typer.Option("--play", help="With --distribution: the play of a game with decisions (auto-risk)."),
    ] = None,
    stake: Annotated[
        int | None,
        typer.Option("--stake", help="With --distribution: the stake (minor units), where the law needs it."),
    ] = None,
) -> None:
    """Exact RTP of a game and its breakdown by component (or, with --distribution, the exact
    distribution of one round's win)."""
    game = load_game(game_id, variant, mode)
    options: dict[str, Any] = {"play": play and play.replace("-", "_"), "stake": stake}
    options = {k: v for k, v in options.items() if v is not None}
    if options and not distribution:
        fail(f"--{' and --'.join(options)} {'go' if len(options) > 1 else 'goes'} with --distribution")
    if distribution:
        with user_errors(), Console(stderr=True).status("computing the exact win distribution..."):
            try:
                dist = win_distribution(game, variant=variant, mode=mode, **options)
            except NotImplementedError as exc:  # the game says why it has no exact law here
                fail(f"{game.id} has no exact win distribution in mode {mode}: {exc}")
        if dist is None:
            fail(f"{game.id} has no exact win distribution (mode {mode}) yet")
        if as_json:
            emit_json(dist.as_dict())
        else:
            _out().print(distribution_table(dist))
        return
    with user_errors(), Console(stderr=True).status("computing the exact RTP..."):
        result = with_hit_names(game, variant, mode, game.exact(variant=variant, mode=mode))
    if as_json:
        emit_json(result)
    else:
        _out().print(exact_table(result))


def round_hit_frequency(game: Game, variant: str | None, mode: str) -> float | None:
    """The exact chance that a round wins anything (1 - P(no win) of the game's exact win
    distribution at its default play and bet, the ones its report and simulation use), for a
    game whose report counts hits otherwise; None elsewhere."""
    if report_hit_name(game, mode) is None:
        return None
    try:
        dist = win_distribution(game, variant=variant, mode=mode)
    except NotImplementedError:
        return None
    return None if dist is None else 1 - float(dist.p_no_win().value)


def with_hit_names(game: Game, variant: str | None, mode: str, result: dict[str, Any]) -> dict[str, Any]:
    """The exact report, its hit frequency named where it is not the round figure, and the
    round figure beside it (``round_hit_frequency``)."""
    name = report_hit_name(game, mode)
    if name is None:
        return result
    return {
        **result,
        "hit_frequency_name": name,
        "round_hit_frequency": round_hit_frequency(game, variant, mode),
    }


# -- simulate ---------------------------------------------------------------------------


def exact_or_none(game: Game, variant: str | None, mode: str) -> dict[str, Any] | None:
    """The exact report a simulation is set against: as kept on disk for this data and code
    (engine/exact_store.py, as the server reads it), computed and kept when not yet there."""
    try:
        return ExactStore().exact(game, variant or game.default_variant, mode)
    except NotImplementedError:  # a game without exact math: show the MC figure alone
        return None


@app.command()
def simulate(
    game_id: GameOpt,
    rounds: Annotated[
        int, typer.Option("--rounds", help="Rounds to simulate; with --precision, the most to simulate.")
    ] = 1_000_000,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed (default: a random one, reported).")
    ] = None,
    variant: VariantOpt = None,
    mode: ModeOpt = "base",
    workers: Annotated[int, typer.Option("--workers", help="Local Dask worker processes.")] = 1,
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", help="Dask scheduler, tcp://host:port.")
    ] = None,
    precision: Annotated[
        float | None,
        typer.Option(
            "--precision",
            help="Stop once the 99% CI is RTP ± P or narrower, P in percentage points "
            "(0.05: ±0.05%), checked after each chunk in chunk order.",
        ),
    ] = None,
    chunk_rounds: Annotated[
        int,
        typer.Option("--chunk-rounds", help="Rounds per chunk; part of the seed (other size, other rounds)."),
    ] = DEFAULT_CHUNK_ROUNDS,
    as_json: JsonOpt = False,
) -> None:
    """Monte Carlo RTP with a 99% interval; the same seed gives the same result on any number
    of workers.  Ctrl-C stops it, prints what was counted and exits with code 130."""
    game = load_game(game_id, variant, mode)
    if rounds <= 0:
        fail(f"--rounds must be positive, got {rounds}")
    if workers <= 0:
        fail(f"--workers must be positive, got {workers}")
    if seed is not None and seed < 0:
        fail(f"--seed must be non-negative, got {seed}")
    if precision is not None and not (math.isfinite(precision) and precision > 0):
        fail(f"--precision must be a positive number of RTP points (0.05 for ±0.05%), got {precision}")
    if chunk_rounds <= 0:
        fail(f"--chunk-rounds must be positive, got {chunk_rounds}")
    seed = secrets.randbits(63) if seed is None else seed
    with user_errors():
        validate(game, rounds, seed, variant, mode)
    try:
        try:
            with run_errors(), progress_bar(f"simulating {game.id}", rounds) as update:
                sim = run_simulation(
                    game,
                    rounds,
                    seed,
                    variant=variant,
                    mode=mode,
                    workers=workers,
                    scheduler=scheduler,
                    chunk_rounds=chunk_rounds,
                    precision=None if precision is None else precision / 100,
                    progress=update,
                )
        except Interrupted as exc:
            if exc.result is None:
                typer.echo("interrupted before the first chunk was counted: nothing to show", err=True)
                raise typer.Exit(130) from None
            sim = exc.result
        if as_json:
            if report_hit_name(game, mode) is not None:  # the one meaning a simulation counts
                sim = {**sim, "hit_frequency_name": ROUND_HITS}
            emit_json(sim)
        else:
            # After Ctrl-C the partial figures come at once: no exact calculation (seconds for
            # some games) stands between the key press and them.
            exact, round_hits = None, None
            if sim["stop"] != "interrupted":
                try:
                    with run_errors():
                        exact = exact_or_none(game, variant, mode)
                        round_hits = round_hit_frequency(game, variant, mode)
                except KeyboardInterrupt:  # the run is whole: show it without the exact figure
                    typer.echo("interrupted: the exact RTP is left out", err=True)
                    sim["stop"] = "interrupted"
            _out().print(simulation_table(sim, exact, round_hits))
    except KeyboardInterrupt:  # Ctrl-C again, while the first one was being wound up
        typer.echo("interrupted", err=True)
        raise typer.Exit(130) from None
    if sim["stop"] == "interrupted":
        again = f"--rounds {sim['rounds']} --seed {seed}"
        if chunk_rounds != DEFAULT_CHUNK_ROUNDS:
            again += f" --chunk-rounds {chunk_rounds}"
        typer.echo(f"interrupted: counted {sim['rounds']:,} rounds, the same as `{again}`", err=True)
        raise typer.Exit(130)


# -- play -------------------------------------------------------------------------------


@app.command()
def play(
    game_id: GameOpt,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Reproducible play (default: OS randomness).")
    ] = None,
    stake: Annotated[
        int | None,
        typer.Option(
            "--stake",
            help="Stake in minor units (default: lowest); an upper bet of Los 3 Pinguinos by its value "
            "(100 is €0.20 + 1 Bonus).",
        ),
    ] = None,
    balance: Annotated[int, typer.Option("--balance", help="Starting balance in minor units.")] = 10_000,
    rounds: Annotated[int | None, typer.Option("--rounds", help="Stop after this many rounds.")] = None,
    variant: VariantOpt = None,
    mode: ModeOpt = "base",
    bonuses: Annotated[
        int | None,
        typer.Option(
            "--bonuses",
            help="Los 3 Pinguinos: start with N Bonuses on the machine (default 0; upper bets take "
            "them, the lower game wins them).",
        ),
    ] = None,
) -> None:
    """Play in the terminal: Enter to spin, choose at every decision, q to quit."""
    from reelforge.play import TerminalPlay

    game = load_game(game_id, variant, mode)
    levels = levels_for(game, variant, mode)  # an upper bet of Los 3 Pinguinos is its own table
    cur = _currency(game)
    if stake is None:
        stake = min(b.stake for b in levels)
    try:
        find_bet(levels, stake)
    except InvalidBet:
        info = game.info()
        offered = ", ".join(f"{b.stake} ({bet_name(info, mode, b.stake, cur)})" for b in levels)
        fail(f"{game.name} does not offer a stake of {stake}; offered stakes (minor units): {offered}")
    if balance < 0:
        fail(f"--balance must not be negative, got {balance}")
    if rounds is not None and rounds <= 0:
        fail(f"--rounds must be positive, got {rounds}")
    if seed is not None and seed < 0:
        fail(f"--seed must be non-negative, got {seed}")
    rng = SeededRandom(seed) if seed is not None else SystemRandom()
    player = TerminalPlay(
        game,
        rng,
        console=_out(),
        read_line=sys.stdin.readline,
        variant=variant,
        mode=mode,
        echo=not sys.stdin.isatty(),
    )
    if bonuses is not None or "bonuses" in game.side_balances:
        # A machine with Bonuses starts with the ones given (none by default), so the session
        # can show them before the first game.
        start_state = _machine_with_bonuses(game, variant, bonuses or 0)
        player.player_state[game.state_key(stake, mode) or ""] = start_state  # the machine: one key
    try:
        player.run(stake=stake, balance=balance, max_rounds=rounds)
    except KeyboardInterrupt:  # Ctrl-C is a way to leave, not a crash
        typer.echo("\ninterrupted", err=True)
        raise typer.Exit(130) from None


def _machine_with_bonuses(game: Game, variant: str | None, bonuses: int) -> dict[str, Any]:
    """A new machine holding ``bonuses`` (play money, like --balance)."""
    if "bonuses" not in game.side_balances or not has(game, "machine_state"):
        fail(f"--bonuses is for a game with Bonuses; {game.name} has none")
    if bonuses < 0:
        fail(f"--bonuses must not be negative, got {bonuses}")
    return game.fresh_player_state(variant, {"bonuses": bonuses})  # type: ignore[attr-defined, no-any-return]


# -- demo -------------------------------------------------------------------------------


@app.command()
def demo(
    rounds: Annotated[int, typer.Option("--rounds", help="Rounds per game.")] = DEMO_ROUNDS,
    seed: Annotated[int, typer.Option("--seed", help="Simulation seed.")] = DEMO_SEED,
) -> None:
    """Every game: exact RTP breakdown, then a seeded Monte Carlo checked against it."""
    if rounds <= 0:
        fail(f"--rounds must be positive, got {rounds}")
    if seed < 0:
        fail(f"--seed must be non-negative, got {seed}")
    out = _out()
    for game in registry().values():
        out.rule(f"[bold]{game.name}[/]  ({game.id} {game.version})")
        with run_errors():
            with Console(stderr=True).status("computing the exact RTP..."):
                exact = exact_or_none(game, None, "base")
                round_hits = round_hit_frequency(game, None, "base")
            if exact is not None:
                exact = with_hit_names(game, None, "base", exact)
                out.print(exact_table(exact, title="Exact RTP"))
            with progress_bar(f"simulating {game.id}", rounds) as update:
                sim = run_simulation(game, rounds, seed, workers=1, progress=update)
        out.print(simulation_table(sim, exact, round_hits))


@app.command()
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    db: Annotated[
        str | None,
        typer.Option("--db", help="SQLAlchemy URL (postgresql+psycopg://user@host/db); env REELFORGE_DB."),
    ] = None,
    workers: Annotated[int, typer.Option("--workers", help="Worker processes sharing the database.")] = 1,
    data_dir: Annotated[
        str | None, typer.Option("--data-dir", help="Where SQLite and the operator key live (.reelforge).")
    ] = None,
    demo: Annotated[
        bool, typer.Option("--demo", help="Let anyone open a play-money session (local play only).")
    ] = False,
) -> None:
    """Run the game server: HTTP API under /api/v1 (OpenAPI at /docs), SQLite by default."""
    import os

    import uvicorn

    from reelforge.server.core.config import Settings
    from reelforge.server.runtime.service import GameServer

    if workers < 1:
        fail(f"--workers must be at least 1, got {workers}")
    if db:
        os.environ["REELFORGE_DB"] = db
    if data_dir:
        os.environ["REELFORGE_DATA_DIR"] = data_dir
    if demo:
        os.environ["REELFORGE_DEMO_MODE"] = "1"
    settings = Settings()
    from sqlalchemy.exc import OperationalError

    waiting = None
    with run_errors():
        server = GameServer(settings)
        try:
            server.migrate()  # once here, so workers start on a migrated schema
        except OperationalError as exc:  # the database is down: each worker waits for it
            waiting = str(exc.orig or exc).strip().splitlines()[0]
        server.engine.dispose()
    key_path = settings.data_dir / "operator.key"
    out = _out()
    out.print(f"reelforge server on http://{host}:{port}/  database: {_redact(settings.database_url())}")
    if not settings.operator_key:
        out.print(f"operator API key: in {key_path} (X-Operator-Key header)")
    out.print(f"games: {', '.join(sorted(server.games))}; API docs at http://{host}:{port}/docs")
    if settings.admin_key:
        out.print(f"admin API (operator accounts): http://{host}:{port}/api/v1/admin/ (X-Admin-Key)")
    if settings.demo_mode:
        out.print(f"demo mode: play in a browser at http://{host}:{port}/ (play money)")
    if waiting:
        out.print(f"the database does not answer ({waiting}): live now, ready once it answers")
    out.print(f"health: http://{host}:{port}/api/v1/health/live and /api/v1/health/ready")
    if workers > 1:  # the workers' /metrics counters shared through files (observability.py)
        import shutil

        shared = settings.data_dir / "prometheus"
        shutil.rmtree(shared, ignore_errors=True)
        shared.mkdir(parents=True, mode=0o700)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(shared.resolve())
    from reelforge.server.http.http_protocol import protocol_class

    uvicorn.run(
        "reelforge.server.http.app:create_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
        access_log=False,
        http=protocol_class(),  # a request the HTTP parser refuses gets the API's JSON 400 too
    )


app.command("tune")(tune_command)  # reelforge.analysis.tune_cli: a new RTP variant's data file
app.command("par")(par_command)  # reelforge.analysis.par.command: the PAR sheet
app.command("certify")(certify_command)  # reelforge.analysis.certify: the evidence bundle
app.command("report")(report_command)  # reelforge.server.reports.report_cli: the operator report
app.add_typer(export_app, name="export")  # reelforge.analysis.stake: Stake Engine's math files
app.command("operator-wallet")(operator_wallet_command)  # reelforge.seamless: reference wallet
app.add_typer(operators_app, name="operators")  # reelforge.server.runtime.operators_cli: casinos


def _redact(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
