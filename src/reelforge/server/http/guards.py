"""The outermost middlewares: a request rate limit per caller, and the security headers on
every reply.  Both are plain ASGI, installed by :func:`install` as the last middlewares of
``create_app``, so they wrap everything inside it (the error rewriting, the body limit and
any middleware that answers routes itself).  docs/security.md describes them.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reelforge.server.core.config import Settings
from reelforge.server.operators.directory import Directory

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

    def take(self, caller: bytes, rate: float | None = None, burst: int | None = None) -> float:
        """Take one request from the caller's bucket: 0 when allowed, else the seconds until
        the next one would be.  ``rate`` and ``burst``: the caller's own (its operator's),
        else the buckets'."""
        rate = self.rate if rate is None else rate
        burst = self.burst if burst is None else burst
        now = self.clock()
        bucket = self.buckets.get(caller)
        if bucket is None:
            bucket = self.buckets[caller] = Bucket(float(burst), now)
            if len(self.buckets) > MAX_BUCKETS:
                self.buckets.popitem(last=False)
        else:
            self.buckets.move_to_end(caller)
            bucket.tokens = min(float(burst), bucket.tokens + (now - bucket.at) * rate)
            bucket.at = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / rate


def _digest(value: bytes) -> bytes:
    # Buckets are keyed by a digest: the limiter keeps no session token in clear.
    return hashlib.sha256(value).digest()


class RateLimit:
    """429 ``rate_limited`` with ``Retry-After`` for a caller over its rate, before the app
    sees the request.  Callers under /api/: a session (its bearer token), an operator (a key
    of its: its own, separate limit, or none) and anyone else by client address.  Each
    operator's limits are its account's (the server's settings by default); the limiter
    knows a key's or a token's operator once a request of it was authenticated (until then
    the server's limits apply).  A rate of 0 turns that limit off."""

    def __init__(self, app: ASGIApp, settings: Settings, directory: Directory) -> None:
        self.app = app
        self.directory = directory
        self.settings = settings
        # Buckets keep the server's limits; a caller whose operator has its own passes them.
        self.sessions = TokenBuckets(settings.rate_limit_per_second or 1.0, settings.rate_limit_burst)
        self.operator = TokenBuckets(
            settings.operator_rate_limit_per_second or 1.0, settings.operator_rate_limit_burst
        )

    def caller(self, scope: Scope) -> tuple[TokenBuckets | None, bytes, float, int]:
        """The caller's buckets (None: not limited), its name, its rate and burst."""
        s = self.settings
        headers = dict(scope.get("headers", []))
        key = headers.get(b"x-operator-key")
        if key is not None:
            digest = _digest(key)
            owner = self.directory.key_owners.get(digest)
            if owner is not None:  # its account's limits, the server's until it is read
                found = self.directory.cached(owner)
                e = s if found is None else found.settings
                rate, burst = e.operator_rate_limit_per_second, e.operator_rate_limit_burst
                return (self.operator if rate > 0 else None), b"o:%d" % owner, rate, burst
        auth = headers.get(b"authorization", b"")
        if auth[:7].lower() == b"bearer " and auth[7:].strip():
            digest = _digest(auth[7:].strip())
            owner = self.directory.token_owners.get(digest)
            found = None if owner is None else self.directory.cached(owner)
            rate, burst = (
                (found.settings.rate_limit_per_second, found.settings.rate_limit_burst)
                if found is not None
                else (s.rate_limit_per_second, s.rate_limit_burst)
            )
            return (self.sessions if rate > 0 else None), b"t:" + digest, rate, burst
        client = scope.get("client") or ("", 0)
        rate, burst = s.rate_limit_per_second, s.rate_limit_burst
        return (self.sessions if rate > 0 else None), b"a:" + str(client[0]).encode(), rate, burst

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/") or scope["path"] in EXEMPT_PATHS:
            await self.app(scope, receive, send)
            return
        buckets, caller, rate, burst = self.caller(scope)
        wait = buckets.take(caller, rate, burst) if buckets is not None else 0.0
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


def install(app: FastAPI, settings: Settings, directory: Directory) -> None:
    """Add the guards as the outermost middlewares: call it after every other add_middleware
    in create_app (the last one added is the first to see a request)."""
    app.add_middleware(RateLimit, settings=settings, directory=directory)
    app.add_middleware(SecurityHeaders)
