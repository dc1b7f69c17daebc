"""The ``reelforge`` command: list games, exact RTP, Monte Carlo, terminal play, demo.

Bad input (unknown game, variant or mode, a stake not offered, a non-positive count)
ends with a one-line ``error: ...`` on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import json
import secrets
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console, Group, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from reelforge.analysis.simulate import simulate as run_simulation
from reelforge.analysis.simulate import validate
from reelforge.engine.game import Game, levels_for
from reelforge.games import get_game, registry
from reelforge.money import InvalidBet, find_bet, format_minor
from reelforge.rng import SeededRandom, SystemRandom

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


def pct(x: float, places: int = 4) -> str:
    return f"{x * 100:.{places}f}%"


def emit_json(data: Any) -> None:
    # Plain echo, not Rich: Rich would wrap long lines and colour the JSON.
    typer.echo(json.dumps(data, indent=2))


@contextmanager
def progress_bar(description: str, total: int) -> Iterator[Callable[[int, int], None]]:
    """A Rich bar on stderr (stdout stays clean for --json); silent when not a terminal."""
    console = Console(stderr=True)
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
    task = bar.add_task(description, total=total)

    def update(done: int, _total: int) -> None:
        bar.update(task, completed=done)

    with bar:
        yield update


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

_SHOWN = {"game", "variant", "mode", "rtp", "components", "hit_frequency", "method"}


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


def exact_table(result: dict[str, Any], title: str | None = None) -> RenderableType:
    table = Table(title=title or f"{result['game']}  variant {result['variant']}  mode {result['mode']}")
    table.add_column("component")
    table.add_column("RTP (of stake)", justify="right")
    for name, value in result["components"].items():
        table.add_row(name, pct(value))
    table.add_section()
    table.add_row("[bold]total[/]", f"[bold]{pct(result['rtp'])}[/]")
    hits = float(result["hit_frequency"])
    one_in = f"1 in {1 / hits:.2f}" if hits > 0 else "never"
    table.add_row("hit frequency", f"{pct(hits, 2)}  ({one_in})")
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
        shown = _cell(value)
        if len(shown) > 30:  # e.g. the exact fraction: a line under the tables, not a folded cell
            notes.append(f"{key.replace('_', ' ')}: {shown}")
        else:
            table.add_row(key.replace("_", " "), shown)
    # Printed under the table at full width: a caption would wrap to the table's.
    if not notes and not more:
        return table
    return Group(table, *more, *([Text("\n".join(notes), style="dim")] if notes else []))


@app.command()
def rtp(
    game_id: GameOpt, variant: VariantOpt = None, mode: ModeOpt = "base", as_json: JsonOpt = False
) -> None:
    """Exact RTP of a game and its breakdown by component."""
    game = load_game(game_id, variant, mode)
    with user_errors(), Console(stderr=True).status("computing the exact RTP..."):
        result = game.exact(variant=variant, mode=mode)
    if as_json:
        emit_json(result)
    else:
        _out().print(exact_table(result))


# -- simulate ---------------------------------------------------------------------------


def simulation_table(sim: dict[str, Any], exact: dict[str, Any] | None) -> Table:
    table = Table(title=f"{sim['game']}  variant {sim['variant']}  mode {sim['mode']}  Monte Carlo")
    table.add_column("measure")
    table.add_column("value", justify="right")
    lo, hi = sim["ci99"]
    ulo, uhi = sim["ci99_uncapped"]
    table.add_row("rounds", f"{sim['rounds']:,}")
    table.add_row("seed", str(sim["seed"]))
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
    table.add_row("hit frequency", pct(sim["hit_frequency"], 2))
    table.add_row("max win", f"{sim['max_win']:,.2f} x stake")
    for name, f in sim["features"].items():
        one_in = f"1 in {f['one_in']:,.1f}" if f["one_in"] else "never"
        table.add_row(f"  {name}", f"{f['count']:,}  ({one_in})")
    table.add_row("workers", str(sim["workers"]))
    table.add_row("speed", f"{sim['rounds_per_second']:,.0f} rounds/s")
    return table


def exact_or_none(game: Game, variant: str | None, mode: str) -> dict[str, Any] | None:
    try:
        return game.exact(variant=variant, mode=mode)
    except NotImplementedError:  # a game without exact math: show the MC figure alone
        return None


@app.command()
def simulate(
    game_id: GameOpt,
    rounds: Annotated[int, typer.Option("--rounds", help="Rounds to simulate.")] = 1_000_000,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed (default: a random one, reported).")
    ] = None,
    variant: VariantOpt = None,
    mode: ModeOpt = "base",
    workers: Annotated[int, typer.Option("--workers", help="Local Dask worker processes.")] = 1,
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", help="Dask scheduler, tcp://host:port.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Monte Carlo RTP with a 99% interval; the same seed gives the same result."""
    game = load_game(game_id, variant, mode)
    if rounds <= 0:
        fail(f"--rounds must be positive, got {rounds}")
    if workers <= 0:
        fail(f"--workers must be positive, got {workers}")
    if seed is not None and seed < 0:
        fail(f"--seed must be non-negative, got {seed}")
    seed = secrets.randbits(63) if seed is None else seed
    with user_errors():
        validate(game, rounds, seed, variant, mode)
    with run_errors():
        with progress_bar(f"simulating {game.id}", rounds) as update:
            sim = run_simulation(
                game,
                rounds,
                seed,
                variant=variant,
                mode=mode,
                workers=workers,
                scheduler=scheduler,
                progress=update,
            )
        if as_json:
            emit_json(sim)
            return
        exact = exact_or_none(game, variant, mode)
    _out().print(simulation_table(sim, exact))


# -- play -------------------------------------------------------------------------------


@app.command()
def play(
    game_id: GameOpt,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Reproducible play (default: OS randomness).")
    ] = None,
    stake: Annotated[
        int | None, typer.Option("--stake", help="Stake in minor units (default: lowest).")
    ] = None,
    balance: Annotated[int, typer.Option("--balance", help="Starting balance in minor units.")] = 10_000,
    rounds: Annotated[int | None, typer.Option("--rounds", help="Stop after this many rounds.")] = None,
    variant: VariantOpt = None,
    mode: ModeOpt = "base",
    bonuses: Annotated[
        int | None,
        typer.Option(
            "--bonuses", help="Los 3 Pinguinos: the Bonuses the machine starts with (upper bets take them)."
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
        offered = ", ".join(f"{b.stake} ({format_minor(b.stake, cur)})" for b in levels)
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
    if bonuses is not None:
        start_state = _machine_with_bonuses(game, variant, bonuses)
        player.player_state[game.state_key(stake, mode) or ""] = start_state  # the machine: one key
    try:
        player.run(stake=stake, balance=balance, max_rounds=rounds)
    except KeyboardInterrupt:  # Ctrl-C is a way to leave, not a crash
        typer.echo("\ninterrupted", err=True)
        raise typer.Exit(130) from None


def _machine_with_bonuses(game: Game, variant: str | None, bonuses: int) -> dict[str, Any]:
    """A new Los 3 Pinguinos machine holding ``bonuses`` (play money, like --balance)."""
    from reelforge.games.los_3_pinguinos import LosTresPinguinos
    from reelforge.games.los_3_pinguinos.rules import read_machine

    if not isinstance(game, LosTresPinguinos):
        fail(f"--bonuses is for Los 3 Pinguinos; {game.name} has no Bonuses")
    if bonuses < 0:
        fail(f"--bonuses must not be negative, got {bonuses}")
    return {**read_machine(game.data(variant), None), "bonuses": bonuses}


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
            if exact is not None:
                out.print(exact_table(exact, title="Exact RTP"))
            with progress_bar(f"simulating {game.id}", rounds) as update:
                sim = run_simulation(game, rounds, seed, workers=1, progress=update)
        out.print(simulation_table(sim, exact))


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

    from reelforge.server.config import Settings
    from reelforge.server.service import GameServer

    if workers < 1:
        fail(f"--workers must be at least 1, got {workers}")
    if db:
        os.environ["REELFORGE_DB"] = db
    if data_dir:
        os.environ["REELFORGE_DATA_DIR"] = data_dir
    if demo:
        os.environ["REELFORGE_DEMO_MODE"] = "1"
    settings = Settings()
    with run_errors():
        server = GameServer(settings)
        server.migrate()  # once here, so workers start on a migrated schema
        server.engine.dispose()
    key_path = settings.data_dir / "operator.key"
    out = _out()
    out.print(f"reelforge server on http://{host}:{port}/  database: {_redact(settings.database_url())}")
    if not settings.operator_key:
        out.print(f"operator API key: in {key_path} (X-Operator-Key header)")
    out.print(f"games: {', '.join(sorted(server.games))}; API docs at http://{host}:{port}/docs")
    if settings.demo_mode:
        out.print(f"demo mode: play in a browser at http://{host}:{port}/ (play money)")
    uvicorn.run(
        "reelforge.server.app:create_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
        access_log=False,
    )


def _redact(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
