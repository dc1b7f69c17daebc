"""What an operator's monitoring reads: ``GET /metrics`` (Prometheus' text format, from its
client library), a request id on every request and reply, and JSON log lines that carry it.

- Every HTTP request is counted and timed by method, route (the route's template, so
  ``/api/v1/rounds/{round_id}/actions``, never a raw path) and status (``Observe``).
- Its id is the caller's ``X-Request-Id`` when that is 1-64 characters of ``[A-Za-z0-9._-]``,
  else a new one; the reply carries it back, the log lines written while it is served carry it
  (a context variable, which the thread pool inherits), and so do the webhooks it enqueues.
- The outbox's depth and oldest age and the database pool's use are read at each scrape
  (``ServerCollector``); the rounds, stakes, wins and wallet calls are counted where they
  commit (``server/core/metrics.py``).
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from sqlalchemy import Engine, text
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reelforge.server.core import metrics
from reelforge.server.core.request_id import REQUEST_ID, request_id

_VALID_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")
ROUTE_KEY = "reelforge.route"  # a scope key: the route template a fast path answered (hot_routes.py)


class Observe:
    """ASGI middleware, outermost: the request id, and the request's count and time."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = next((v for k, v in scope["headers"] if k == b"x-request-id"), None)
        rid = given.decode() if given is not None and _VALID_ID.fullmatch(given) else uuid.uuid4().hex
        token = REQUEST_ID.set(rid)
        started = time.perf_counter()
        status = 500  # a request that ends without a reply (the client gone) counts as one

        async def replying(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), (b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, replying)
        finally:
            REQUEST_ID.reset(token)
            route = scope.get(ROUTE_KEY) or _route_template(scope)
            method = scope["method"]
            metrics.child(metrics.LATENCY, method, route).observe(time.perf_counter() - started)
            metrics.child(metrics.REQUESTS, method, route, str(status)).inc()


def _route_template(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    if path is None:
        return "unmatched"
    return path or "/ (client)"  # the browser client's mount has the empty path


class ServerCollector(Collector):
    """Read at each scrape: the outbox's messages waiting (and failed) with the oldest's age,
    and the database pool's connections in use."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def collect(self) -> Iterator[GaugeMetricFamily]:
        pool = self.engine.pool
        used = GaugeMetricFamily(
            "reelforge_db_pool_connections", "This process's database pool, by state.", labels=["state"]
        )
        for state, read in (("checked_out", "checkedout"), ("size", "size"), ("overflow", "overflow")):
            if hasattr(pool, read):
                used.add_metric([state], float(getattr(pool, read)()))
        yield used
        depth = GaugeMetricFamily(
            "reelforge_outbox_messages", "Outbox messages not delivered, by status.", labels=["status"]
        )
        age = GaugeMetricFamily(
            "reelforge_outbox_oldest_age_seconds", "Age of the oldest undelivered message.", labels=["status"]
        )
        try:
            with self.engine.connect() as conn:
                rows = conn.execute(
                    text(
                        "SELECT status, count(*), min(created_at) FROM outbox"
                        " WHERE status IN ('pending', 'failed') GROUP BY status"
                    )
                ).all()
        except Exception:  # the database is down: the scrape still answers, without these
            return
        found = {r[0]: (int(r[1]), float(r[2])) for r in rows}
        now = time.time()
        for status in ("pending", "failed"):
            count, oldest = found.get(status, (0, now))
            depth.add_metric([status], float(count))
            age.add_metric([status], max(0.0, now - oldest) if count else 0.0)
        yield depth
        yield age


def metrics_response(engine: Engine) -> Response:
    """``GET /metrics``: the process's (or, with several workers, the whole server's)
    counters, then what is read now."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        shared = CollectorRegistry()
        MultiProcessCollector(shared)
        counted = generate_latest(shared)
    else:
        counted = generate_latest(REGISTRY)
    now = CollectorRegistry()
    now.register(ServerCollector(engine))
    return Response(counted + generate_latest(now), media_type=CONTENT_TYPE_LATEST)


class JsonLogs(logging.Formatter):
    """One JSON object a line: time, level, logger, message, the request id, any exception."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = request_id()
        if rid is not None:
            out["request_id"] = rid
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def json_logging(level: int = logging.INFO) -> None:
    """The server's loggers (``reelforge.*``) as JSON lines on stderr, in UTC."""
    handler = logging.StreamHandler()
    formatter = JsonLogs()
    formatter.converter = time.gmtime
    handler.setFormatter(formatter)
    root = logging.getLogger("reelforge")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False
