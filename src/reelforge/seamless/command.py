"""``reelforge operator-wallet``: run the reference operator wallet (also ``python -m
reelforge.seamless.reference_wallet``).  Imports stay inside the command so that the CLI's
other commands do not pay for FastAPI and the database."""

from __future__ import annotations

from typing import Annotated

import typer


def parse_player(spec: str):  # type: ignore[no-untyped-def]  # -> PlayerSeed (imported lazily)
    """``ID:CURRENCY:BALANCE[:TOKEN]`` → a player seed; ``typer.BadParameter`` if malformed."""
    from pydantic import ValidationError

    from reelforge.seamless.reference_wallet import PlayerSeed

    parts = spec.split(":", 3)
    if len(parts) < 3 or not parts[2].isdigit():
        raise typer.BadParameter(f"{spec!r}: expected ID:CURRENCY:BALANCE[:TOKEN], BALANCE in minor units")
    try:
        return PlayerSeed(
            player_id=parts[0],
            currency=parts[1],
            balance=int(parts[2]),
            token=parts[3] if len(parts) > 3 else None,
        )
    except ValidationError as exc:
        raise typer.BadParameter(f"{spec!r}: {exc.errors()[0]['msg']}") from exc


def operator_wallet_command(
    secret: Annotated[
        str,
        typer.Option(
            "--secret",
            envvar="REELFORGE_WALLET_SECRET",
            help="Shared HMAC secret (or env).",
            show_default=False,
        ),
    ],
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8100,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    db: Annotated[str, typer.Option("--db", help="SQLAlchemy URL of the wallet's ledger.")] = (
        "sqlite:///operator-wallet.db"
    ),
    player: Annotated[
        list[str] | None,
        typer.Option(
            "--player",
            help="Create a player ID:CURRENCY:BALANCE[:TOKEN] if absent (repeatable; minor units).",
        ),
    ] = None,
    faults: Annotated[
        bool,
        typer.Option("--faults", help="Test mode: fault injection, /_ledger and /_players (unsigned!)."),
    ] = False,
) -> None:
    """Run the reference operator wallet (seamless protocol, docs/wallet.md)."""
    import uvicorn

    from reelforge.seamless.reference_wallet import create_app

    seeds = [parse_player(spec) for spec in player or []]
    app = create_app(db, secret, faults=faults, players=seeds)
    mode = "  FAULT INJECTION ON (tests only)" if faults else ""
    typer.echo(f"reference operator wallet on http://{host}:{port}/{mode}")
    # A stop waits at most 2 s for requests in flight (an injected stall can run for minutes).
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False, timeout_graceful_shutdown=2)
