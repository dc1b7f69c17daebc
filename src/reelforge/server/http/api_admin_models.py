"""The admin API's reply bodies (api_admin.py), in the OpenAPI document beside the others
(api_models.py)."""

from __future__ import annotations

from pydantic import Field

from reelforge.server.http.api_models import Open, Reply, Timestamp


class KeyView(Reply):
    """One API key of an operator: never the key, only its first characters."""

    id: int
    prefix: str
    label: str | None
    created_at: Timestamp
    revoked_at: Timestamp | None


class OperatorView(Reply):
    """An operator account: what the studio set (``settings``, secrets shown as "set"), what
    is in force once the server's defaults fill the rest (``in_force``), its profile, its keys."""

    id: int
    name: str
    status: str = Field(description="active or suspended")
    server_defaults: bool = Field(description="the deployment's own: unset endpoints are the server's")
    settings: Open
    in_force: Open
    profile: str
    created_at: Timestamp
    updated_at: Timestamp
    suspended_at: Timestamp | None
    keys: list[KeyView]


class OperatorCreated(Reply):
    """The new operator and its first API key (shown in this reply only)."""

    operator: OperatorView
    key: str
    key_id: int


class Operators(Reply):
    """Every operator account."""

    operators: list[OperatorView]


class KeyAdded(Reply):
    """A new API key of the operator (shown in this reply only)."""

    operator: int
    key: str
    key_id: int


class KeyRevoked(Reply):
    """The key is refused from now on."""

    operator: int
    key: KeyView


class Suspended(Reply):
    """The operator is suspended: what its suspension closed and finished."""

    operator: OperatorView
    sessions_closed: int
    autoplays_stopped: int
    rounds_finished: int


class StudioReport(Open):
    """The report across operators: money per operator and currency (GGR), and each game,
    variant and mode in play against its exact RTP over every operator's rounds."""
