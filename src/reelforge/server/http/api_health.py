"""The health routes orchestrators and load balancers probe: ``/api/v1/health`` and
``/api/v1/health/live`` (the process answers), ``/api/v1/health/ready`` (it can serve: the
database answers and the exact figures are loaded; runtime/readiness.py).  None of them
touches the database or is rate limited (guards.EXEMPT_PATHS)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import Response

from reelforge.server.http import api_models as m
from reelforge.server.http.api_docs import replies
from reelforge.server.runtime.readiness import Readiness


def add_routes(app: FastAPI, readiness: Readiness, json_response: object) -> None:
    respond = json_response  # api.json_response (passed in: api.py imports this module)

    @app.get("/api/v1/health", tags=["health"], responses=replies(200, m.Health, 413))
    def health() -> Response:
        """Liveness (the older name of `/health/live`)."""
        return respond(200, {"ok": True})  # type: ignore[operator]

    @app.get("/api/v1/health/live", tags=["health"], responses=replies(200, m.Health, 413))
    def live() -> Response:
        """The process answers HTTP: restart it only when this fails."""
        return respond(200, {"ok": True})  # type: ignore[operator]

    ready_replies = replies(
        200,
        m.ReadyState,
        413,
        503,
        notes={
            503: "Not ready (`not_ready`): the database does not answer yet, or the exact figures "
            "are still loading; the message says which.  Send no traffic here until 200."
        },
    )

    @app.get("/api/v1/health/ready", tags=["health"], responses=ready_replies)
    async def ready() -> Response:
        """Ready to serve: the database answered (and was migrated) and every game's exact
        figures are loaded."""
        state = readiness.state()
        if state["ready"]:
            return respond(200, state)  # type: ignore[operator]
        return respond(503, {"error": {"code": "not_ready", "message": readiness.why_not()}})  # type: ignore[operator]
