"""Webhooks: the operator hears of rounds completed, rounds voided and sessions closed.

An event is enqueued in the outbox (:mod:`reelforge.server.wallets.outbox`, kind ``webhook``) *in the
transaction that makes it happen*, so it is sent if and only if that transaction committed,
and it survives a crash of the process.  The outbox worker of any server process then POSTs it
to the operator's webhook URL (an operator account's, or ``REELFORGE_WEBHOOK_URL`` for the
deployment's own), signed like the seamless wallet protocol
(:mod:`reelforge.seamless.protocol`: ``X-Reelforge-Timestamp`` and ``X-Reelforge-Signature``,
HMAC-SHA256 of ``"<timestamp>.<body>"`` with that operator's secret), and retries with the
outbox's backoff until the receiver answers 2xx.

Delivery is at least once: a receiver can see an event again (a reply lost, a worker killed
after the POST).  Every event carries an ``id`` that is the same on every delivery (and in the
``X-Reelforge-Event-Id`` header): receivers deduplicate on it.  The body is the same bytes on
every attempt; the timestamp and signature are fresh, so a retry hours later is still inside
the receiver's replay window.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import httpx
from sqlalchemy import Connection

from reelforge.seamless.protocol import CONTENT_TYPE, canonical_json, sign_headers
from reelforge.server.core.request_id import request_id
from reelforge.server.storage.store import iso, now
from reelforge.server.wallets.outbox import WEBHOOK, Handler, OutboxMessage, enqueue

if TYPE_CHECKING:
    from reelforge.engine.round import Round
    from reelforge.server.wallets.wallet import Account

log = logging.getLogger("reelforge.server")

ROUND_COMPLETED = "round.completed"
ROUND_VOIDED = "round.voided"
SESSION_CLOSED = "session.closed"
EVENTS = (ROUND_COMPLETED, ROUND_VOIDED, SESSION_CLOSED)

EVENT_HEADER = "X-Reelforge-Event"
EVENT_ID_HEADER = "X-Reelforge-Event-Id"
ATTEMPT_HEADER = "X-Reelforge-Delivery-Attempt"


class Target(Protocol):
    """Whose events these are and where they go (operators/accounts.py ``Effective``)."""

    @property
    def operator_id(self) -> int: ...

    @property
    def webhook_url(self) -> str: ...


def enabled(settings: Target) -> bool:
    return bool(settings.webhook_url)


def event_id(event: str, subject_id: int) -> str:
    """The event's id, the same on every delivery: ``round.completed:42``.  Each round
    completes or is voided once and each session closes once, so it names one event."""
    return f"{event}:{subject_id}"


def emit(
    conn: Connection, settings: Target, event: str, subject_id: int, data: dict[str, Any], at: float
) -> str | None:
    """Enqueue one event in the caller's transaction; its id (None: the operator has no
    webhooks).  The outbox row names the operator: the event goes to its URL at delivery."""
    if not settings.webhook_url:
        return None
    eid = event_id(event, subject_id)
    payload = {"id": eid, "type": event, "created_at": iso(at), "data": data}
    if (rid := request_id()) is not None:  # the request that caused it (none: the sweeper's)
        payload["request_id"] = rid
    # One event per id: not read back, so it goes with the round's other writes.
    row = {"operator_id": settings.operator_id, "event": payload}
    enqueue(conn, WEBHOOK, f"webhook:{eid}", row, now=at, read_back=False)
    return eid


# -- the events --------------------------------------------------------------------------------


def round_completed(
    conn: Connection,
    settings: Target,
    player: Account,
    round_id: int,
    rnd: Round,
    balance_after: int,
    completed_by: str,
    session_id: int | None,
) -> None:
    """A round reached its end (at its start, by an action, by autoplay or by the sweeper)."""
    if not settings.webhook_url:
        return
    data = {
        "round_id": round_id,
        "player": player.external_id,
        "currency": player.currency,
        "session_id": session_id,
        "game": rnd.game,
        "game_version": rnd.game_version,
        "variant": rnd.variant,
        "mode": rnd.mode,
        "stake": rnd.stake,
        "win": rnd.win,
        "balance_after": balance_after,
        "completed_by": completed_by,
    }
    emit(conn, settings, ROUND_COMPLETED, round_id, data, now())


def round_voided(
    conn: Connection,
    settings: Target,
    player: Account,
    row: Any,
    reason: str,
    balance_after: int,
    side: dict[str, int],
    at: float,
) -> None:
    """The operator voided a round in play: its stake (``refund``) went back."""
    if not settings.webhook_url:
        return
    data = {
        "round_id": row.id,
        "player": player.external_id,
        "currency": player.currency,
        "session_id": row.session_id,
        "game": row.game,
        "game_version": row.game_version,
        "variant": row.variant,
        "mode": row.mode,
        "stake": row.stake,
        "refund": row.stake,
        "reason": reason,
        "balance_after": balance_after,
        "side": side,
    }
    emit(conn, settings, ROUND_VOIDED, row.id, data, at)


def session_closed(
    conn: Connection, settings: Target, session: Any, player: Any, reason: str, at: float
) -> None:
    """A session closed: by the player, a limit, the operator (revoked) or a newer session."""
    if not settings.webhook_url:
        return
    data = {
        "session_id": session.id,
        "player": player.external_id,
        "currency": player.currency,
        "profile": session.profile,
        "reason": reason,
        "opened_at": iso(session.created_at),
        "closed_at": iso(at),
        "staked": session.staked,
        "won": session.won,
        "net_position": session.won - session.staked,
    }
    emit(conn, settings, SESSION_CLOSED, session.id, data, at)


# -- delivery ----------------------------------------------------------------------------------


class WebhookFailed(Exception):
    """The receiver did not take the event (no 2xx, a timeout, no connection): retried."""


class WebhookSender:
    """The outbox handler for ``webhook`` rows: one signed POST per attempt.  Any answer but
    2xx, and any transport error, raises, so the outbox retries with its backoff; it never
    gives up on its own (after ``alert_after`` attempts the row is reported as alerting)."""

    def __init__(
        self, url: str, secret: str, timeout_s: float = 5.0, client: httpx.Client | None = None
    ) -> None:
        self.url = url
        self.secret = secret
        # Redirects are not followed: a 3xx is a misconfiguration, retried and logged.
        self.client = client or httpx.Client(timeout=timeout_s, follow_redirects=False)

    def headers(self, event: dict[str, Any], attempt: int, body: bytes) -> dict[str, str]:
        return {
            "Content-Type": CONTENT_TYPE,
            "User-Agent": "reelforge-webhooks/1",
            EVENT_HEADER: str(event.get("type", "")),
            EVENT_ID_HEADER: str(event.get("id", "")),
            ATTEMPT_HEADER: str(attempt),
            **sign_headers(self.secret, body),
        }

    def send(self, event: dict[str, Any], attempt: int) -> None:
        body = canonical_json(event)
        try:
            reply = self.client.post(self.url, content=body, headers=self.headers(event, attempt, body))
        except httpx.HTTPError as exc:
            raise WebhookFailed(f"POST {self.url}: {type(exc).__name__}: {exc}") from exc
        if not 200 <= reply.status_code < 300:
            raise WebhookFailed(f"POST {self.url} answered {reply.status_code}")

    def __call__(self, message: OutboxMessage) -> None:
        self.send(*unwrap(message))


def unwrap(message: OutboxMessage) -> tuple[dict[str, Any], int]:
    """The event of an outbox row and the attempt (rows queued before operator accounts hold
    the bare event: the deployment's own operator's)."""
    payload = message.payload
    return payload.get("event", payload), message.attempt


def operator_of(message: OutboxMessage, default: int) -> int:
    return int(message.payload.get("operator_id", default))


class WebhookRouter:
    """The outbox handler for ``webhook`` rows of every operator: each event is sent to its
    operator's URL and signed with its secret, as configured at delivery (``target_of``: the
    operator's (url, secret), or None when it has no webhooks now: the event is dropped and
    logged, as one never enqueued would be)."""

    def __init__(
        self,
        target_of: Callable[[int], tuple[str, str] | None],
        timeout_s: float = 5.0,
        default_operator: int = 1,
    ) -> None:
        self.target_of = target_of
        self.default_operator = default_operator
        # One HTTP client for every operator's URL (redirects not followed, as the sender's).
        self.client = httpx.Client(timeout=timeout_s, follow_redirects=False)
        self.senders: dict[tuple[str, str], WebhookSender] = {}

    def __call__(self, message: OutboxMessage) -> None:
        target = self.target_of(operator_of(message, self.default_operator))
        event, attempt = unwrap(message)
        if target is None:
            log.warning("webhook %s dropped: its operator has no webhook URL now", event.get("id"))
            return
        sender = self.senders.get(target)
        if sender is None:
            sender = self.senders[target] = WebhookSender(*target, client=self.client)
        sender.send(event, attempt)


def handlers(target_of: Callable[[int], tuple[str, str] | None], timeout_s: float) -> dict[str, Handler]:
    """``{"webhook": router}``: every operator's events, each to its own URL."""
    return {WEBHOOK: WebhookRouter(target_of, timeout_s)}
