"""Server settings, from the environment (``REELFORGE_*``) or the command line."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Literal, Self

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from reelforge.server.core.data_dir import FILE_MODE, secure_dir, tighten, write_secret

DEFAULT_DATA_DIR = Path(".reelforge")


class Settings(BaseSettings):
    # hide_input_in_errors: a refused value (a secret, say) is never echoed in the error.
    model_config = SettingsConfigDict(env_prefix="REELFORGE_", extra="ignore", hide_input_in_errors=True)

    db: str = Field(default="", description="SQLAlchemy URL; empty means SQLite in data_dir")
    data_dir: Path = DEFAULT_DATA_DIR
    # Where the games' exact figures are kept once computed (engine/exact_store.py); unset:
    # $REELFORGE_FIGURES_DIR, else the user's cache (~/.cache/reelforge/figures).
    figures_dir: Path | None = None
    # Secrets are SecretStr: a settings repr or validation error never shows them.
    operator_key: SecretStr = Field(
        default=SecretStr(""), description="operator API key; empty: generated and saved"
    )
    # The studio's key for the admin API (/api/v1/admin/: operator accounts); empty: no admin API.
    admin_key: SecretStr = Field(default=SecretStr(""), max_length=512)
    token_ttl_seconds: int = Field(default=8 * 3600, ge=60)
    pending_timeout_seconds: int = Field(default=24 * 3600, ge=1)
    sweep_interval_seconds: float = Field(default=30.0, gt=0)
    max_body_bytes: int = Field(default=16 * 1024, ge=1024)
    # Requests a second per session token (and per client address for calls with neither a
    # token nor the operator key), with a burst allowance: 429 beyond (guards.py).  A client
    # makes a few a second; the load bench's 32 players about 10 each.  0: no limit.
    rate_limit_per_second: float = Field(default=30.0, ge=0)
    rate_limit_burst: int = Field(default=60, ge=1)
    # The operator's calls (a valid X-Operator-Key), limited separately; 0 (default): exempt.
    operator_rate_limit_per_second: float = Field(default=0.0, ge=0)
    operator_rate_limit_burst: int = Field(default=200, ge=1)
    # Test-only: lets a request script the first draws of a round (browser tests force a
    # feature).  Production refuses such requests.
    allow_scripted_draws: bool = False
    # Test-only, and only with scripted draws allowed: every draw comes from one seeded stream,
    # so browser tests see the same outcomes on every run.
    test_seed: int | None = None
    test_games: bool = False
    # Demo mode (local play, `./run.sh`): anyone may open a session for a fresh player with
    # play money.  Off unless asked for; an operator deployment never enables it.
    demo_mode: bool = False
    demo_balance: int = Field(default=100_000, ge=0)
    pool_size: int = Field(default=8, ge=1)
    # GET /metrics (Prometheus' text format); off: 404.
    metrics: bool = True
    # A database that does not answer at start is waited for (runtime/readiness.py): the
    # first retry after this long, doubling up to the cap; the process is live meanwhile,
    # and ready once the database answers and the exact figures are loaded.
    database_wait_first_seconds: float = Field(default=0.5, gt=0)
    database_wait_max_seconds: float = Field(default=10.0, gt=0)
    # Threads serving requests per process.  Few is faster: more threads only fight over the
    # GIL (measured: 2 threads gave 326 spins/s where 40 gave 219 on two cores).
    threads: int = Field(default=2, ge=1, le=256)
    # PostgreSQL with the server's own ledger: a spin's two requests run on the event loop
    # with async connections instead of in the thread pool (no hand-off, no GIL contention).
    on_loop: bool = True
    # Live sessions a player may hold: opening one more closes the oldest ("replaced"), unless
    # the session-open body asks to keep the others (docs/server.md, "One session per player").
    max_sessions_per_player: int = Field(default=1, ge=1, le=1000)
    # Webhooks (round completed, round voided, session closed): POSTed, signed with the secret,
    # to this URL from the outbox; empty: none are sent (nor enqueued).
    webhook_url: str = Field(default="", max_length=2048)
    webhook_secret: SecretStr = Field(default=SecretStr(""), max_length=512)
    webhook_timeout_seconds: float = Field(default=5.0, gt=0, le=60)
    # The wallet rounds pay through: the server's own ledger (``internal``), or the operator's
    # seamless wallet over HTTP (``seamless``, docs/wallet.md; reelforge.server.wallets.seamless_wallet).
    wallet_mode: Literal["internal", "seamless"] = "internal"
    wallet_url: str = Field(default="", description="the operator wallet's base URL (seamless)")
    wallet_secret: SecretStr = Field(default=SecretStr(""), description="the shared HMAC secret")
    wallet_timeout_seconds: float = Field(default=5.0, gt=0, le=120)
    # A debit's compensating rollback is stored before the debit is sent and fires this long
    # after, unless the round was stored first: longer than a round start can take.
    wallet_rollback_grace_seconds: float = Field(default=60.0, gt=0)
    # The outbox worker each process runs (webhooks, seamless credits and rollbacks): how often
    # it looks without being woken, the first retry delay (doubling up to the cap), and its
    # lease, which must outlast a delivery (the wallet's and the webhook's timeouts).
    outbox_poll_seconds: float = Field(default=1.0, gt=0)
    outbox_base_delay_seconds: float = Field(default=1.0, gt=0)
    outbox_max_delay_seconds: float = Field(default=60.0, gt=0)
    outbox_lease_seconds: float = Field(default=120.0, gt=0)
    # Deliveries under way at once per process (credits, rollbacks, webhooks).
    outbox_concurrency: int = Field(default=8, ge=1, le=64)

    @model_validator(mode="after")
    def _seamless_needs(self) -> Self:
        if self.wallet_mode != "seamless":
            return self
        if not self.wallet_url or not self.wallet_secret.get_secret_value():
            raise ValueError("wallet_mode seamless needs wallet_url and wallet_secret")
        if self.demo_mode:
            raise ValueError("demo mode plays on the server's own ledger, not a seamless wallet")
        for name in ("wallet_rollback_grace_seconds", "outbox_lease_seconds"):
            if getattr(self, name) <= self.wallet_timeout_seconds:
                raise ValueError(f"{name} must be longer than wallet_timeout_seconds")
        return self

    @model_validator(mode="after")
    def _webhooks_are_signed(self) -> Self:
        if self.webhook_url:
            if not self.webhook_url.startswith(("http://", "https://")):
                raise ValueError("webhook_url must be an http:// or https:// URL")
            if not self.webhook_secret:
                raise ValueError("webhook_url needs webhook_secret: every webhook is signed")
            if self.outbox_lease_seconds <= self.webhook_timeout_seconds:
                raise ValueError("outbox_lease_seconds must exceed webhook_timeout_seconds")
        return self

    def database_url(self) -> str:
        if self.db:
            return self.db
        return f"sqlite:///{(self.data_dir / 'reelforge.db').as_posix()}"

    def resolved_operator_key(self) -> str:
        """The configured key, or one generated once and kept in ``data_dir/operator.key``
        (the folder 0700, the file 0600: data_dir.py)."""
        if self.operator_key:
            return self.operator_key.get_secret_value()
        secure_dir(self.data_dir)
        path = self.data_dir / "operator.key"
        if path.exists():
            tighten(path, FILE_MODE)
            return path.read_text().strip()
        key = secrets.token_urlsafe(32)
        write_secret(path, key + "\n")
        return key
