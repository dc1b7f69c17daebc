"""Is this process alive, and is it ready to serve?  The two answers orchestrators probe
apart (``GET /api/v1/health/live``, ``GET /api/v1/health/ready``).

A process is live as soon as it answers HTTP.  It is ready once the database answers (the
schema migrated) and every game's kept exact figures are loaded, so that no request computes
them (``ServerContext.exact_for``).  A process started while its database is down does not
exit: it waits for it with capped exponential backoff (``database_wait_*`` settings), saying
so in its log and in the readiness answer, and becomes ready when the database comes.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from contextlib import suppress
from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, OperationalError

from reelforge.server.play.profiles import is_bonus_buy

log = logging.getLogger("reelforge.server")


def backoff_delays(first: float, cap: float) -> Any:
    """first, 2·first, 4·first, … capped at ``cap``: the waits between connection attempts."""
    delay = first
    while True:
        yield delay
        delay = min(cap, delay * 2)


class Readiness:
    """Brings a server process to ready: database, migrations, kept figures (in that order).

    ``check_database_now`` tries once, in the caller's thread (the app's build: a database
    that is up is migrated before the first request, as before); ``start`` runs the rest, or
    all of it when the database was down, in a thread of its own.
    """

    def __init__(self, server: Any, *, migrate: bool = True) -> None:
        self.server = server  # the GameServer
        self.migrate = migrate
        self.stop = threading.Event()
        self.database_ready = False
        self.figures_ready = False
        self.attempts = 0
        self.last_error: str | None = None
        self.figures_loaded = 0
        self.figures_error: str | None = None
        self.figures_total = sum(len(g.variants) for g in server.games.values())
        self.started_at = time.monotonic()
        self.ready_after: float | None = None  # seconds from construction to ready
        self.thread = threading.Thread(target=self._run, name="reelforge-readiness", daemon=True)

    @property
    def ready(self) -> bool:
        return self.database_ready and self.figures_ready

    def state(self) -> dict[str, Any]:
        """What ``/health/ready`` answers: ready or not, and what it waits for."""
        waiting = []
        if not self.database_ready:
            waiting.append("database")
        if not self.figures_ready:
            waiting.append("figures")
        out: dict[str, Any] = {
            "ready": self.ready,
            "database": "ready" if self.database_ready else "waiting",
            "figures": {"loaded": self.figures_loaded, "total": self.figures_total},
            "waiting_for": waiting,
        }
        return out

    def why_not(self) -> str:
        """Not ready, in words (the 503's message)."""
        if not self.database_ready:
            return f"waiting for the database (attempt {self.attempts}: {self.last_error or 'not tried yet'})"
        if self.figures_error:
            return f"the exact figures failed to load: {self.figures_error}"
        return f"loading the exact figures ({self.figures_loaded} of {self.figures_total})"

    def check_database_now(self) -> bool:
        """One attempt: True when the database answered (and was migrated)."""
        self.attempts += 1
        try:
            with self.server.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            if self.migrate:
                self.server.migrate()
        except (OperationalError, DBAPIError) as exc:
            # The first line of the driver's message: "connection refused", the host, the port.
            self.last_error = str(exc.orig if exc.orig is not None else exc).strip().splitlines()[0][:300]
            return False
        self.database_ready = True
        self.last_error = None
        return True

    def start(self) -> None:
        self.thread.start()

    def bring_up(self) -> bool:
        """All of it now, in the caller's thread (an app made without ``app.build``, as tests
        make them): True when ready."""
        if self.database_ready or self.check_database_now():
            self._load_figures()
        return self.ready

    def _run(self) -> None:
        settings = self.server.settings
        delays = backoff_delays(settings.database_wait_first_seconds, settings.database_wait_max_seconds)
        while not self.database_ready and not self.stop.is_set():
            if self.check_database_now():
                log.info("the database answered (attempt %d)", self.attempts)
                break
            delay = next(delays)
            log.warning(
                "the database does not answer (attempt %d: %s); trying again in %.1f s",
                self.attempts, self.last_error, delay,
            )  # fmt: skip
            self.stop.wait(delay)
        if self.stop.is_set():
            return
        try:
            self._load_figures()
        except Exception as exc:  # a calculator that fails is a broken deployment: never ready
            self.figures_error = f"{type(exc).__name__}: {exc}"[:300]
            log.exception("loading the exact figures failed: not ready")

    def _load_figures(self) -> None:
        """Every game's exact figures, per variant, into the context: read from where they are
        kept (milliseconds), computed and kept by the first process that lacks them."""
        for game in self.server.games.values():
            for variant in game.variants:
                if self.stop.is_set():
                    return
                with suppress(NotImplementedError):  # a game without an exact RTP lists none
                    self.server.context.exact_for(game, variant)
                    # Each feature buy's own RTP, shown beside its price in the Buy menu.
                    for mode in filter(is_bonus_buy, game.modes):
                        self.server.context.exact_for(game, variant, mode)
                self.figures_loaded += 1
        # What the process holds from now on (code, games, figures: some 120,000 objects) is
        # moved out of the collector's sight: a full collection walked all of it, 45-55 ms
        # holding the GIL on a quiet machine, the spins waiting on it (p99 latency).
        gc.collect()
        gc.freeze()
        self.figures_ready = True
        self.ready_after = time.monotonic() - self.started_at
        log.info("ready: database and %d exact reports in %.2f s", self.figures_loaded, self.ready_after)
