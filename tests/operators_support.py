"""Helpers shared by the operator-account tests (and the route listing test_openapi.py uses)."""

from __future__ import annotations

from typing import Any

from fastapi.routing import APIRoute

from helpers import stops_without
from server_support import Api

ADMIN = {"X-Admin-Key": "adm"}  # the admin key the tests configure (make_server(admin_key="adm"))


def plain_spin(d: Any) -> list[int]:
    """Reign of Gnomes stops showing no scatter: the round ends at its start."""
    return [stops_without(d.base_reels.strips[r], {d.scatter}) for r in range(5)]


def operator_api(client: Any, key: str) -> Api:
    """An ``Api`` whose operator calls carry ``key``."""
    api = Api(client)
    api.op = {"X-Operator-Key": key}
    return api


def api_routes(routes: list[Any]) -> list[APIRoute]:
    """Every API route of the app, the included routers' too."""
    out: list[APIRoute] = []
    for route in routes:
        if isinstance(route, APIRoute):
            out.append(route)
        elif getattr(route, "original_router", None) is not None:  # FastAPI's included router
            out.extend(api_routes(route.original_router.routes))
    return out
