"""What ``/openapi.json`` says of each route's replies: every status it can answer, with the
body's schema (:mod:`reelforge.server.http.api_models`) and the headers worth knowing.

A route lists its statuses with :func:`replies`; the groups below are the refusals shared by
many routes.  A status a route can answer but does not list is a bug, as is one it lists but
cannot answer: ``tests/test_openapi.py`` drives the API and holds every reply to this.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel

from reelforge.server.http import api_models as m

PLAYER = (401, 403, 413, 429)
"""Every player route: no valid session token (401), the session closed (403), a body too
large (413, checked before routing, on any request), too many requests (429, guards.py)."""

OPERATOR = (401, 403, 413, 429)
"""Every operator route: no valid X-Operator-Key (401), the key's operator suspended (403
``operator_suspended``), a body too large (413), too many requests (429, where the operator's
calls are limited)."""

ADMIN = (401, 404, 413, 429)
"""Every admin route: no valid X-Admin-Key (401), no admin API here (404: no
REELFORGE_ADMIN_KEY), a body too large (413), too many requests (429)."""

KEYED = (400, 409, 422)
"""Every route that takes an Idempotency-Key: the key missing or malformed (400), a request in
conflict with a concurrent one (409), the key used for a different request (422)."""

ERRORS: dict[int, str] = {
    400: "Refused: a missing or malformed Idempotency-Key (a header the HTTP parser cannot read "
    "too), or a value the server checks itself (a stake, mode, bet, setting, limit, profile or "
    "variant not offered).",
    401: "No valid credentials: the session token (player routes), X-Operator-Key (operator "
    "routes: missing, unknown or revoked) or X-Admin-Key (admin routes) is missing, unknown or expired.",
    402: "Insufficient funds: the balance, or a side balance (`insufficient_<currency>`), does not "
    "cover it. Nothing moved.",
    403: "Not allowed: the session is closed (`session_closed`, also when a time or spend limit is "
    "reached now) or this is forbidden here (`spend_limit`, `bonus_buy_forbidden`, "
    "`autoplay_forbidden`, `scripted_draws_refused`), or the operator is suspended "
    "(`operator_suspended`).",
    404: "Not found: no such game, round, player or operator here (another player's round, and "
    "anything of another operator, is not found).",
    409: "In conflict with the state: e.g. a round still in play (`round_pending`) or no longer "
    "in play, a stale `expected_step`, an action not allowed now, an autoplay running or not, "
    "a game not offered in the player's wallet currency (`currency_not_offered`), "
    "or a concurrent request (`conflict`).",
    413: "The request body is over the server's limit (`body_too_large`).",
    422: "The request does not validate (`invalid_request`: malformed JSON, nested too deep "
    "included, or a body, path or query value of the wrong type or range, never coerced), or its "
    "Idempotency-Key was used for a different request (`idempotency_key_reused`).",
    503: "A seamless deployment's operator wallet did not answer (`wallet_unavailable`): nothing "
    "was played or kept; try again.",  # health/ready gives its own note (not_ready)
    429: "Too many requests from this session, operator or client address (`rate_limited`), "
    "or, starting a round, too soon: the jurisdiction's minimum time between game cycles has "
    "not passed (`too_soon`); `Retry-After` says how long to wait.",
}

REPLAYED_HEADER = {
    "Idempotency-Replayed": {
        "description": "Present, `true`, when this is the stored first reply to a repeated "
        "Idempotency-Key (nothing changed this time); absent on the first reply.",
        "schema": {"type": "string", "enum": ["true"]},
    }
}

RETRY_AFTER_HEADER = {
    "Retry-After": {
        "description": "Whole seconds to wait before trying again.",
        "required": True,
        "schema": {"type": "integer", "minimum": 1},
    }
}


def _summary(model: type[BaseModel]) -> str:
    return (model.__doc__ or model.__name__).strip().split("\n\n")[0].replace("\n", " ")


def replies(
    success: int | tuple[int, ...],
    model: type[BaseModel],
    *errors: int | tuple[int, ...],
    keyed: bool = False,
    replayed: bool = False,
    notes: dict[int, str] | None = None,
) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route: its success status (or statuses) with ``model``, and every
    error status in ``errors`` (ints or the groups above), each an
    :class:`~reelforge.server.http.api_models.ErrorReply`.  ``keyed``: the route takes an
    Idempotency-Key (adds :data:`KEYED`, and the replay header on success); ``replayed``: the
    replay header without the statuses of :data:`KEYED`."""
    out: dict[int | str, dict[str, Any]] = {}
    for status in (success,) if isinstance(success, int) else success:
        out[status] = {"model": model, "description": (notes or {}).get(status, _summary(model))}
        if keyed or replayed:
            out[status]["headers"] = REPLAYED_HEADER
    statuses: set[int] = set(KEYED) if keyed else set()
    for e in errors:
        statuses.update((e,) if isinstance(e, int) else e)
    for status in sorted(statuses):
        out[status] = {"model": m.ErrorReply, "description": (notes or {}).get(status, ERRORS[status])}
        if status == 429:
            out[status]["headers"] = RETRY_AFTER_HEADER
    return out


def finish_openapi(app: FastAPI) -> None:
    """Tidy the generated document: FastAPI adds a 422 with its own validation-error body to
    every route with a parameter; this API's 422 is an :class:`ErrorReply`, and a route that
    cannot answer 422 (its only parameters are headers that take any string) says none.  The
    404 and 405 a path answers for methods no route takes, and the 503 of any route while the
    database does not answer, are described once, in components."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        doc = build()
        for path in doc.get("paths", {}).values():
            for op in path.values():
                reply = op.get("responses", {}).get("422", {})
                ref = reply.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref", "")
                if ref.endswith("/HTTPValidationError"):
                    del op["responses"]["422"]
        schemas = doc.get("components", {}).get("schemas", {})
        for name in ("HTTPValidationError", "ValidationError"):
            schemas.pop(name, None)
        error = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorReply"}}}
        doc.setdefault("components", {})["responses"] = {
            "NotFound": {"description": "A path no route has (under /api/): `not_found`.", "content": error},
            "MethodNotAllowed": {
                "description": "A method no route takes at a path some route has: "
                "`method_not_allowed`, with `Allow`.",
                "headers": {
                    "Allow": {
                        "description": "The methods routes take at this path, comma-separated.",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                },
                "content": error,
            },
            "DatabaseUnavailable": {
                "description": "Any route that reads or writes the database, while it does not "
                "answer (down, restarting, the connection lost): `database_unavailable`. Send the "
                "same request again after `Retry-After`, with the same Idempotency-Key: its stored "
                "reply comes back if it had committed.",
                "headers": {
                    "Retry-After": {
                        "description": "Whole seconds to wait before sending it again.",
                        "required": True,
                        "schema": {"type": "integer", "minimum": 1},
                    }
                },
                "content": error,
            },
        }
        app.openapi_schema = doc
        return doc

    app.openapi = openapi  # type: ignore[method-assign]
