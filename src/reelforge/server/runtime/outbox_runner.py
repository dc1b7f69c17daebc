"""The outbox worker of a server process: one :class:`~reelforge.server.wallets.outbox.OutboxWorker`
started by the app (``app.py``'s lifespan, beside the sweeper) with every handler this process
delivers.  Add a kind's handler in :func:`handlers_for` (webhooks are here; seamless wallet
credits and rollbacks join them the same way), so one worker and one place serve them all.

Every process runs one: claims are leased and ``SKIP LOCKED`` on PostgreSQL, so several
processes share the rows without delivering one twice at the same time.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from reelforge.server.runtime.service import GameServer
from reelforge.server.wallets import webhooks
from reelforge.server.wallets.outbox import (
    WALLET_CREDIT,
    WALLET_ROLLBACK,
    Handler,
    OutboxMessage,
    OutboxWorker,
)

log = logging.getLogger("reelforge.server")


def handlers_for(server: GameServer) -> dict[str, Handler]:
    """``{kind: handler}`` for every outbox kind: webhooks and seamless wallet credits and
    rollbacks, each routed at delivery to its operator's URL and wallet (operators can be
    configured for either at any time)."""
    context = server.context

    def webhook_target(operator_id: int) -> tuple[str, str] | None:
        e = context.run(lambda conn: context.operator(conn, operator_id)).settings
        return (e.webhook_url, e.webhook_secret) if e.webhook_url else None

    out = webhooks.handlers(webhook_target, server.settings.webhook_timeout_seconds)

    def wallet_delivery(kind: str) -> Handler:
        def deliver(message: OutboxMessage) -> None:
            wallet = context.wallet_for_transaction(
                str(message.payload.get("transaction_id")), message.payload.get("original_transaction_id")
            )
            wallet.handlers()[kind](message)

        return deliver

    out[WALLET_CREDIT] = wallet_delivery(WALLET_CREDIT)
    out[WALLET_ROLLBACK] = wallet_delivery(WALLET_ROLLBACK)
    return out


def make_outbox(server: GameServer, handlers: Mapping[str, Handler] | None = None) -> OutboxWorker | None:
    """The process's outbox worker over ``handlers`` (default: :func:`handlers_for`), not yet
    started (tests drive one by hand); None when ``handlers`` is empty."""
    chosen = dict(handlers_for(server) if handlers is None else handlers)
    if not chosen:
        return None
    s = server.settings
    worker = OutboxWorker(
        server.engine,
        chosen,
        lease_s=s.outbox_lease_seconds,
        base_delay_s=s.outbox_base_delay_seconds,
        max_delay_s=s.outbox_max_delay_seconds,
        poll_s=s.outbox_poll_seconds,
        concurrency=s.outbox_concurrency,
    )
    server.context.attach_outbox(worker)  # seamless wallets wake it after a commit that queued
    return worker


def start_outbox(server: GameServer, handlers: Mapping[str, Handler] | None = None) -> OutboxWorker | None:
    """Start the process's outbox worker thread (:func:`make_outbox`); None when there is
    nothing to deliver.  Stop it with ``worker.stop()``."""
    worker = make_outbox(server, handlers)
    if worker is None:
        return None
    worker.start()
    log.info("outbox worker %s delivering %s", worker.name, ", ".join(sorted(worker.handlers)))
    return worker
