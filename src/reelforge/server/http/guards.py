"""The outermost middlewares: a request rate limit per caller, and the security headers on
every reply.  Both are plain ASGI, installed by :func:`install` as the last middlewares of
``create_app``, so they wrap everything inside it (the error rewriting, the body limit and
any middleware that answers routes itself).  docs/security.md describes them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reelforge.server.core.config import Settings

# Exempt from the limit: a load balancer's health probe must never be told to wait.
EXEMPT_PATHS = frozenset({"/api/v1/health", "/api/v1/health/live", "/api/v1/health/ready", "/metrics"})
MAX_BUCKETS = 100_000  # callers remembered at once; the least recently seen go first

# Every reply: no MIME sniffing, no framing by another site, no full URL (a launch URL holds
# the session token) sent as the Referer to another origin.
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]
# JSON replies (the API) load nothing and are never framed.
API_CSP = b"default-src 'none'; frame-ancestors 'none'"


@dataclass
class Bucket:
    tokens: float
    at: float


class TokenBuckets:
    """Token buckets by caller: ``rate`` requests a second on average, ``burst`` at once.
    At most :data:`MAX_BUCKETS` are kept: a forgotten caller starts again with a full bucket,
    so the bound costs at most one extra burst to a caller unseen for that long."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.buckets: OrderedDict[bytes, Bucket] = OrderedDict()

    def take(self, caller: bytes) -> float:
        """Take one request from the caller's bucket: 0 when allowed, else the seconds until
        the next one would be."""
        now = self.clock()
        bucket = self.buckets.get(caller)
        if bucket is None:
            bucket = self.buckets[caller] = Bucket(float(self.burst), now)
            if len(self.buckets) > MAX_BUCKETS:
                self.buckets.popitem(last=False)
        else:
            self.buckets.move_to_end(caller)
            bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.at) * self.rate)
            bucket.at = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self.rate


def _digest(value: bytes) -> bytes:
    # Buckets are keyed by a digest: the limiter keeps no session token in clear.
    return hashlib.sha256(value).digest()


class RateLimit:
    """429 ``rate_limited`` with ``Retry-After`` for a caller over its rate, before the app
    sees the request.  Callers under /api/: a session (its bearer token), the operator (the
    valid X-Operator-Key: its own, separate limit, or none) and anyone else by client
    address.  A rate of 0 turns that limit off."""

    def __init__(self, app: ASGIApp, settings: Settings, operator_key: str) -> None:
        self.app = app
        self.operator_key = operator_key.encode()
        self.sessions = self._buckets(settings.rate_limit_per_second, settings.rate_limit_burst)
        self.operator = self._buckets(
            settings.operator_rate_limit_per_second, settings.operator_rate_limit_burst
        )

    @staticmethod
    def _buckets(rate: float, burst: int) -> TokenBuckets | None:
        return TokenBuckets(rate, burst) if rate > 0 else None

    def caller(self, scope: Scope) -> tuple[TokenBuckets | None, bytes]:
        headers = dict(scope.get("headers", []))
        key = headers.get(b"x-operator-key")
        if key is not None and hmac.compare_digest(key, self.operator_key):
            return self.operator, b"operator"
        auth = headers.get(b"authorization", b"")
        if auth[:7].lower() == b"bearer " and auth[7:].strip():
            return self.sessions, b"t:" + _digest(auth[7:].strip())
        client = scope.get("client") or ("", 0)
        return self.sessions, b"a:" + str(client[0]).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/") or scope["path"] in EXEMPT_PATHS:
            await self.app(scope, receive, send)
            return
        buckets, caller = self.caller(scope)
        wait = buckets.take(caller) if buckets is not None else 0.0
        if not wait:
            await self.app(scope, receive, send)
            return
        retry = max(1, math.ceil(wait))
        body = json.dumps(
            {"error": {"code": "rate_limited", "message": f"too many requests: retry in {retry} s"}}
        ).encode()
        start: Message = {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(retry).encode()),
            ],
        }
        await send(start)
        await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every reply, and :data:`API_CSP` to JSON replies
    that carry no policy of their own (the client's files carry theirs: webclient.py)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def add(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                extra = [(n, v) for n, v in SECURITY_HEADERS if n not in names]
                content_type = dict((n.lower(), v) for n, v in headers).get(b"content-type", b"")
                if b"content-security-policy" not in names and content_type.startswith(b"application/json"):
                    extra.append((b"content-security-policy", API_CSP))
                message = {**message, "headers": headers + extra}
            await send(message)

        await self.app(scope, receive, add)


def install(app: FastAPI, settings: Settings, operator_key: str) -> None:
    """Add the guards as the outermost middlewares: call it after every other add_middleware
    in create_app (the last one added is the first to see a request)."""
    app.add_middleware(RateLimit, settings=settings, operator_key=operator_key)
    app.add_middleware(SecurityHeaders)
