"""The id of the HTTP request being served (``X-Request-Id``; set by
``server/http/observability.py``), readable from any layer: the log lines and the webhooks a
request causes carry it.  A context variable, so the thread pool's copy of the request's
context sees it too."""

from __future__ import annotations

import contextvars

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("reelforge_request_id", default=None)


def request_id() -> str | None:
    """The id of the request this code serves, or None outside one (the sweeper, the CLI)."""
    return REQUEST_ID.get()
