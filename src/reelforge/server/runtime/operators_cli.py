"""``reelforge operators ...``: the studio's operator accounts from the command line, the same
operations as the admin API (studio.py), on the server's database (``--db``, else the server's
settings: REELFORGE_DB or the SQLite file in REELFORGE_DATA_DIR).  Replies are JSON."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, NoReturn

import typer

from reelforge.server.core.errors import ApiError

operators_app = typer.Typer(
    help="Operator accounts (casinos) on this server: create, list, configure, keys, suspend.",
    no_args_is_help=True,
)

DbOpt = Annotated[
    str | None,
    typer.Option("--db", help="SQLAlchemy URL (default: the server's, REELFORGE_DB or .reelforge)."),
]
DataDirOpt = Annotated[str | None, typer.Option("--data-dir", help="The server's data folder.")]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="A setting as name=value (JSON values: --set currencies='[\"EUR\"]', --set autoplay=false;"
        " name= clears it).",
    ),
]
ProfileOpt = Annotated[str | None, typer.Option("--profile", help="Jurisdiction profile: default, gb or es.")]


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _settings(pairs: list[str] | None) -> dict[str, Any]:
    """``name=value`` pairs: a JSON value where the text is one, else the text; empty: None."""
    out: dict[str, Any] = {}
    for pair in pairs or ():
        name, sep, text = pair.partition("=")
        if not sep or not name:
            _fail(f"--set takes name=value, not {pair!r}")
        if text == "":
            out[name] = None
            continue
        try:
            out[name] = json.loads(text)
        except ValueError:
            out[name] = text
    return out


@contextmanager
def _server(db: str | None, data_dir: str | None) -> Iterator[Any]:
    from reelforge.server.core.config import Settings
    from reelforge.server.runtime.service import GameServer

    overrides: dict[str, Any] = {}
    if db:
        overrides["db"] = db
    if data_dir:
        overrides["data_dir"] = data_dir
    server = GameServer(Settings(**overrides))
    try:
        server.migrate()
        yield server
    finally:
        server.engine.dispose()


def _run(db: str | None, data_dir: str | None, call: Callable[[Any], Any]) -> None:
    with _server(db, data_dir) as server:
        try:
            result = call(server)
        except ApiError as exc:
            _fail(f"{exc.code}: {exc.message}", code=1)
    typer.echo(json.dumps(result, indent=2))


@operators_app.command("create")
def create(
    name: Annotated[str, typer.Argument(help="The casino's name (unique).")],
    set_: SetOpt = None,
    profile: ProfileOpt = None,
    db: DbOpt = None,
    data_dir: DataDirOpt = None,
) -> None:
    """A new operator and its first API key (printed once: give it to the casino)."""
    settings = _settings(set_)
    _run(db, data_dir, lambda s: s.studio.create(name, settings, profile))


@operators_app.command("list")
def list_(db: DbOpt = None, data_dir: DataDirOpt = None) -> None:
    """Every operator with its settings and keys (never the keys themselves)."""
    _run(db, data_dir, lambda s: s.studio.list())


@operators_app.command("show")
def show(operator_id: int, db: DbOpt = None, data_dir: DataDirOpt = None) -> None:
    _run(db, data_dir, lambda s: s.studio.show(operator_id))


@operators_app.command("configure")
def configure(
    operator_id: int,
    set_: SetOpt = None,
    profile: ProfileOpt = None,
    db: DbOpt = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Change settings (wallet_mode, wallet_url, wallet_secret, webhook_url, webhook_secret,
    currencies, games, rate limits, token_ttl_seconds, max_sessions_per_player, autoplay,
    autoplay_max_spins) and the profile."""
    settings = _settings(set_)
    _run(db, data_dir, lambda s: s.studio.configure(operator_id, settings, profile))


@operators_app.command("add-key")
def add_key(
    operator_id: int,
    label: Annotated[str | None, typer.Option("--label", help="What the key is for.")] = None,
    db: DbOpt = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Another API key for the operator (printed once)."""
    _run(db, data_dir, lambda s: s.studio.add_key(operator_id, label))


@operators_app.command("revoke-key")
def revoke_key(operator_id: int, key_id: int, db: DbOpt = None, data_dir: DataDirOpt = None) -> None:
    """Refuse the key from now on."""
    _run(db, data_dir, lambda s: s.studio.revoke_key(operator_id, key_id))


@operators_app.command("suspend")
def suspend(operator_id: int, db: DbOpt = None, data_dir: DataDirOpt = None) -> None:
    """Close the operator: sessions closed, rounds in play finished by the default play."""
    _run(db, data_dir, lambda s: s.studio.suspend(operator_id))


@operators_app.command("resume")
def resume(operator_id: int, db: DbOpt = None, data_dir: DataDirOpt = None) -> None:
    _run(db, data_dir, lambda s: s.studio.resume(operator_id))


@operators_app.command("report")
def report(
    start: Annotated[str | None, typer.Option("--from", help="ISO date or date-time, inclusive.")] = None,
    end: Annotated[str | None, typer.Option("--to", help="ISO date or date-time, exclusive.")] = None,
    db: DbOpt = None,
    data_dir: DataDirOpt = None,
) -> None:
    """GGR per operator and currency, and RTP in play against the exact figure per game and variant."""
    _run(db, data_dir, lambda s: s.studio_report(start, end))
