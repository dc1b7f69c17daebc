"""The ASGI application the ``reelforge serve`` workers load, configured from the
environment (``REELFORGE_*``), plus the sweeper that finishes rounds left waiting and the
outbox worker that delivers webhooks."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio.to_thread
from fastapi import FastAPI

from reelforge.server.core.config import Settings
from reelforge.server.http.api import create_app
from reelforge.server.http.observability import json_logging
from reelforge.server.runtime.outbox_runner import start_outbox
from reelforge.server.runtime.readiness import Readiness
from reelforge.server.runtime.service import GameServer

log = logging.getLogger("reelforge.server")


class Sweeper:
    """Completes rounds left waiting longer than the configured time (default play).
    Safe to run in every process: each round is finished under its player's lock, once."""

    def __init__(self, server: GameServer) -> None:
        self.server = server
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="reelforge-sweeper", daemon=True)

    def _loop(self) -> None:
        while not self.stop.wait(self.server.settings.sweep_interval_seconds):
            try:
                done = self.server.complete_stale_rounds()
                if done:
                    log.info("completed %d round(s) left waiting", done)
            except Exception:  # keep sweeping; a database hiccup must not end the thread
                log.exception("sweeping stale rounds failed")


def build(settings: Settings | None = None, *, migrate: bool = True) -> FastAPI:
    """The app.  A database that answers is migrated here, before the first request; one that
    does not is waited for by the readiness thread the app starts (runtime/readiness.py), the
    process live meanwhile.  That thread then loads every game's kept exact figures."""
    settings = settings or Settings()
    server = GameServer(settings)
    readiness = Readiness(server, migrate=migrate)
    if not readiness.check_database_now():
        log.warning("the database does not answer (%s): live, waiting for it", readiness.last_error)
    sweeper = Sweeper(server)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        anyio.to_thread.current_default_thread_limiter().total_tokens = settings.threads
        readiness.start()
        sweeper.thread.start()
        outbox = start_outbox(server)  # webhooks and wallet deliveries: see outbox_runner.py
        await server.context.attach_loop()  # the spin's requests on this loop (context.py)
        yield
        await server.context.detach_loop()
        readiness.stop.set()
        sweeper.stop.set()
        if outbox is not None:
            await anyio.to_thread.run_sync(outbox.stop)  # ends after the delivery in flight

    app = create_app(server, readiness)
    app.router.lifespan_context = lifespan
    app.state.server = server
    return app


def create_from_env() -> FastAPI:
    """Uvicorn factory: each worker process builds its app from the environment; its log
    lines are JSON, each with the request id it was written under (observability.py)."""
    json_logging()
    return build(Settings())
