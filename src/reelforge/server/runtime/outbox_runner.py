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
from reelforge.server.wallets.outbox import Handler, OutboxWorker
from reelforge.server.wallets.seamless_wallet import SeamlessWallet

log = logging.getLogger("reelforge.server")


def handlers_for(server: GameServer) -> dict[str, Handler]:
    """``{kind: handler}`` for every outbox kind this deployment delivers ({} for none)."""
    out: dict[str, Handler] = {}
    out.update(webhooks.handlers(server.settings))
    wallet = server.context.wallet
    if isinstance(wallet, SeamlessWallet):  # its credits and rollbacks
        out.update(wallet.handlers())
    return out


def make_outbox(server: GameServer, handlers: Mapping[str, Handler] | None = None) -> OutboxWorker | None:
    """The process's outbox worker over ``handlers`` (default: :func:`handlers_for`), not yet
    started (tests drive one by hand); None when there is nothing to deliver."""
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
    wallet = server.context.wallet
    if isinstance(wallet, SeamlessWallet):
        wallet.attach(worker)  # woken after each commit that queued a delivery
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
