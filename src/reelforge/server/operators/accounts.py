"""An operator account as the server uses it: what the studio configured
(:class:`OperatorSettings`, every field optional) and what is in force once the server's own
settings fill the gaps (:class:`Effective`).

What is a server setting (``REELFORGE_*``) is the default of every account: the rate limits,
the session's lifetime and the sessions a player may hold.  The wallet and webhook endpoints are
a casino's own: an account the studio creates has none until configured (its rounds pay on the
server's ledger, it hears no webhooks); only the deployment's own operator (``server_defaults``,
the one the upgrade of a single-operator database made) takes the server's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from reelforge.server.core.config import Settings

ACTIVE = "active"
SUSPENDED = "suspended"
DEFAULT_OPERATOR_ID = 1  # the deployment's own: demo players and the REELFORGE_OPERATOR_KEY are its
SERVER_OPERATOR_ID = 0  # server_settings rows of the server itself, not of any operator

Currency = Field(pattern=r"^[A-Z]{3}$")
SECRET_FIELDS = ("wallet_secret", "webhook_secret")


class OperatorSettings(BaseModel):
    """What the studio set for one operator; None: the default (see the module).  The
    profile, the RTP variants, the bets per currency and the currencies per game are the
    operator's too, kept as its rows of ``server_settings`` and set through its own API."""

    model_config = ConfigDict(extra="forbid", strict=True)

    wallet_mode: Literal["internal", "seamless"] | None = None
    wallet_url: str | None = Field(default=None, min_length=1, max_length=2048)
    wallet_secret: str | None = Field(default=None, min_length=1, max_length=512)
    webhook_url: str | None = Field(default=None, min_length=1, max_length=2048)
    webhook_secret: str | None = Field(default=None, min_length=1, max_length=512)
    # The currencies its players may hold (None: any); the games it offers (None: all).
    currencies: list[str] | None = Field(default=None, max_length=64)
    games: list[str] | None = Field(default=None, max_length=256)
    rate_limit_per_second: float | None = Field(default=None, ge=0)
    rate_limit_burst: int | None = Field(default=None, ge=1)
    operator_rate_limit_per_second: float | None = Field(default=None, ge=0)
    operator_rate_limit_burst: int | None = Field(default=None, ge=1)
    token_ttl_seconds: int | None = Field(default=None, ge=60, le=30 * 24 * 3600)
    max_sessions_per_player: int | None = Field(default=None, ge=1, le=1000)
    # Autoplay: off for all its players, or a run's cap below the profile's (None: the profile's).
    autoplay: bool | None = None
    autoplay_max_spins: int | None = Field(default=None, ge=1, le=10_000)

    @model_validator(mode="after")
    def _urls_and_codes(self) -> Self:
        for name in ("wallet_url", "webhook_url"):
            url = getattr(self, name)
            if url is not None and not url.startswith(("http://", "https://")):
                raise ValueError(f"{name} must be an http:// or https:// URL")
        for code in self.currencies or ():
            if len(code) != 3 or not code.isascii() or not code.isupper() or not code.isalpha():
                raise ValueError(f"currency {code!r} is not a three-letter ISO 4217 code")
        return self

    def merged(self, changes: dict[str, Any]) -> OperatorSettings:
        """These settings with ``changes`` applied (a None value clears a field), checked."""
        return OperatorSettings.model_validate({**self.model_dump(), **changes})

    def public(self) -> dict[str, Any]:
        """For replies and listings: the secrets only said to be set."""
        out = self.model_dump()
        for name in SECRET_FIELDS:
            out[name] = None if out[name] is None else "set"
        return out

    def stored(self) -> str:
        return json.dumps(self.model_dump(exclude_none=True), sort_keys=True)


@dataclass(frozen=True)
class Effective:
    """An operator's settings in force (its own, else the server's): what requests read."""

    operator_id: int
    wallet_mode: str
    wallet_url: str
    wallet_secret: str
    webhook_url: str
    webhook_secret: str
    currencies: tuple[str, ...] | None
    games: frozenset[str] | None
    rate_limit_per_second: float
    rate_limit_burst: int
    operator_rate_limit_per_second: float
    operator_rate_limit_burst: int
    token_ttl_seconds: int
    max_sessions_per_player: int
    autoplay: bool
    autoplay_max_spins: int | None

    def offers(self, game_id: str) -> bool:
        return self.games is None or game_id in self.games


def effective(operator_id: int, own: OperatorSettings, server: Settings, server_defaults: bool) -> Effective:
    def pick(name: str) -> Any:
        value = getattr(own, name)
        return getattr(server, name) if value is None else value

    def endpoint(name: str) -> str:
        value = getattr(own, name)
        if value is not None:
            return value
        if not server_defaults:
            return ""
        found = getattr(server, name)
        return found.get_secret_value() if hasattr(found, "get_secret_value") else str(found)

    wallet_mode = own.wallet_mode or (server.wallet_mode if server_defaults else "internal")
    return Effective(
        operator_id=operator_id,
        wallet_mode=wallet_mode,
        wallet_url=endpoint("wallet_url"),
        wallet_secret=endpoint("wallet_secret"),
        webhook_url=endpoint("webhook_url"),
        webhook_secret=endpoint("webhook_secret"),
        currencies=tuple(own.currencies) if own.currencies is not None else None,
        games=frozenset(own.games) if own.games is not None else None,
        rate_limit_per_second=pick("rate_limit_per_second"),
        rate_limit_burst=pick("rate_limit_burst"),
        operator_rate_limit_per_second=pick("operator_rate_limit_per_second"),
        operator_rate_limit_burst=pick("operator_rate_limit_burst"),
        token_ttl_seconds=pick("token_ttl_seconds"),
        max_sessions_per_player=pick("max_sessions_per_player"),
        autoplay=own.autoplay is not False,
        autoplay_max_spins=own.autoplay_max_spins,
    )


@dataclass(frozen=True)
class Operator:
    """One operator account as read at ``version``."""

    id: int
    name: str
    status: str
    version: int
    server_defaults: bool
    own: OperatorSettings
    settings: Effective
    created_at: float
    updated_at: float
    suspended_at: float | None

    @property
    def active(self) -> bool:
        return self.status == ACTIVE

    def settings_scope(self) -> str:
        """Its idempotency scope for calls naming no player (bets, variants, currencies)."""
        return f"operator:{self.id}"
