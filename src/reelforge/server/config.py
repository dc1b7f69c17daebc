"""Server settings, from the environment (``REELFORGE_*``) or the command line."""

from __future__ import annotations

import secrets
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATA_DIR = Path(".reelforge")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="REELFORGE_", extra="ignore")

    db: str = Field(default="", description="SQLAlchemy URL; empty means SQLite in data_dir")
    data_dir: Path = DEFAULT_DATA_DIR
    operator_key: str = Field(default="", description="operator API key; empty: generated and saved")
    token_ttl_seconds: int = Field(default=8 * 3600, ge=60)
    pending_timeout_seconds: int = Field(default=24 * 3600, ge=1)
    sweep_interval_seconds: float = Field(default=30.0, gt=0)
    max_body_bytes: int = Field(default=16 * 1024, ge=1024)
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
    # Threads serving requests per process.  Few is faster: more threads only fight over the
    # GIL (measured: 2 threads gave 326 spins/s where 40 gave 219 on two cores).
    threads: int = Field(default=2, ge=1, le=256)

    def database_url(self) -> str:
        if self.db:
            return self.db
        return f"sqlite:///{(self.data_dir / 'reelforge.db').as_posix()}"

    def resolved_operator_key(self) -> str:
        """The configured key, or one generated once and kept in ``data_dir/operator.key``."""
        if self.operator_key:
            return self.operator_key
        path = self.data_dir / "operator.key"
        if path.exists():
            return path.read_text().strip()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(32)
        path.write_text(key + "\n")
        path.chmod(0o600)
        return key
