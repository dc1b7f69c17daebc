"""Session tokens: unpredictable, never stored in clear.

A token is ``HMAC-SHA256(server secret, nonce)`` with a fresh random nonce; the database
keeps only the token's SHA-256 (to find the session) and the nonce in the idempotency
record of the request that opened it, so a replayed request can hand back the same token
without the token ever being written down.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets


def new_nonce() -> str:
    return secrets.token_urlsafe(24)


def derive_token(secret: str, nonce: str) -> str:
    mac = hmac.new(secret.encode(), nonce.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
