"""What every part of the server shares: the settings, the database engine, the games, the
RNG, the wallet, and the transaction and idempotency plumbing every request runs through.

Every state-changing operation runs in one database transaction: it locks the player's
row, answers a repeated Idempotency-Key with the first reply, and commits its change with
that reply.  Server processes keep no state of their own beyond caches of pure functions,
so any number of them can serve the same database.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import logging
import os
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import psycopg
from sqlalchemy import Connection, Engine, event
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import greenlet_spawn

from reelforge.engine.exact_store import ExactStore
from reelforge.engine.game import Game
from reelforge.games import registry
from reelforge.rng import RandomSource, ScriptedRandom, SeededRandom, SystemRandom
from reelforge.server.core.config import Settings
from reelforge.server.core.data_dir import secure_dir
from reelforge.server.core.errors import SessionClosed, conflict, forbidden, not_found
from reelforge.server.operators.accounts import DEFAULT_OPERATOR_ID, Operator
from reelforge.server.operators.directory import Directory
from reelforge.server.play import bets, currencies, session_store
from reelforge.server.play.profiles import PROFILES, Profile
from reelforge.server.storage import store
from reelforge.server.storage.db import make_engine, make_loop_engine
from reelforge.server.storage.sql import LoopPipelined, Pipelined, q
from reelforge.server.storage.store import check_key
from reelforge.server.wallets.outbox import PermanentFailure
from reelforge.server.wallets.seamless_wallet import SeamlessWallet
from reelforge.server.wallets.wallet import LedgerWallet, StakeFirst, Wallet

log = logging.getLogger("reelforge.server")

# The hooks of the transaction ``run`` has open in this thread or greenlet (after_commit).
_PENDING: contextvars.ContextVar[list[Callable[[], None]] | None] = contextvars.ContextVar(
    "reelforge_pending_hooks", default=None
)
# Set while a request runs on the event loop (``ServerContext.call_on_loop``): the engine of
# the loop's async connections, whose statements are awaited in the request's greenlet.
_LOOP_ENGINE: contextvars.ContextVar[Engine | None] = contextvars.ContextVar(
    "reelforge_loop_engine", default=None
)

OPERATOR_SCOPE = "operator"


def operator_scope(player_id: int) -> str:
    """The idempotency scope of an operator call about one player: the same key used for two
    players names two requests (calls naming no player use ``Operator.settings_scope``)."""
    return f"{OPERATOR_SCOPE}:player:{player_id}"


def fingerprint(method: str, path: str, body: Any) -> str:
    return hashlib.sha256(f"{method} {path} {store.canonical(body)}".encode()).hexdigest()


def _leave_pipeline(conn: Connection, *_: Any) -> None:
    """A SQLAlchemy statement inside a pipelined transaction: send what is queued first
    (SQLAlchemy reads a statement's results and row count at once)."""
    tx = conn.info.get(Pipelined.KEY)
    if tx is not None:
        tx.leave_pipeline()


class Replayed(store.Reply):
    """A stored first reply, returned again for a repeat of its Idempotency-Key: the API sends
    its stored text marked ``Idempotency-Replayed: true``.  A copy made with ``dict(...)`` is
    unmarked."""

    __slots__ = ()


class ServerContext:
    """The shared parts, built once per process; the services hold it and read what they
    need at call time (tests swap ``rng_factory`` and add games after construction)."""

    def __init__(
        self,
        settings: Settings,
        engine: Engine | None = None,
        rng_factory: Callable[[], RandomSource] = SystemRandom,
        wallet: Wallet | None = None,
    ) -> None:
        self.settings = settings
        if settings.test_games:
            os.environ["REELFORGE_TEST_GAMES"] = "1"  # the registry adds the test-only games
        if not settings.db and engine is None:
            secure_dir(settings.data_dir)  # the default SQLite database lives there: owner only
        self.engine = engine or make_engine(settings.database_url(), settings.pool_size)
        self.operator_key = settings.resolved_operator_key()
        # Tokens are derived from a secret all processes share; the operator key is one.
        self.token_secret = "session-token:" + self.operator_key
        self.rng_factory = rng_factory
        if settings.test_seed is not None:
            if not settings.allow_scripted_draws:
                raise ValueError("test_seed is a test facility: it needs allow_scripted_draws")
            stream = SeededRandom(settings.test_seed)
            self.rng_factory = lambda: stream
        # The operators this server carries: their keys and cached settings.
        self.operators = Directory(settings, self.run, self.operator_key)
        # The operator's cash-in and cash-out always use the server's own ledger; rounds use
        # the operator's wallet (``wallet_for``): that ledger, or its seamless wallet, unless
        # one wallet is given for every operator (tests).
        self.ledger = LedgerWallet(self.after_commit)
        self._fixed_wallet = wallet
        self._seamless: dict[tuple[int, str, str], SeamlessWallet] = {}
        self._seamless_lock = threading.Lock()
        self.outbox_worker: Any = None  # the process's, once started (runtime/outbox_runner.py)
        # SQLite has one writer at a time: queue this process's transactions on a lock rather
        # than on SQLite's busy-wait, whose back-off made tail latencies seconds long.
        self.serial: AbstractContextManager[Any] = (
            threading.Lock() if self.engine.dialect.name == "sqlite" else nullcontext()
        )
        self.games: dict[str, Game] = dict(registry())
        # Exact figures: kept on disk per data file and code (engine/exact_store.py), so a new
        # process reads them instead of computing them; held here once read.
        self.figures = ExactStore(settings.figures_dir)
        self._exact_cache: dict[tuple[str, str, str], dict[str, Any]] = {}
        self._exact_lock = threading.Lock()
        # PostgreSQL: each request's transaction in pipeline mode (see sql.Pipelined).
        self.pipelined = self.engine.dialect.name == "postgresql" and self.engine.dialect.driver == "psycopg"
        if self.pipelined and not event.contains(self.engine, "before_cursor_execute", _leave_pipeline):
            event.listen(self.engine, "before_cursor_execute", _leave_pipeline)
        # PostgreSQL with the server's own ledger: the spin's requests run on the event loop
        # (attach_loop, call_on_loop), the rest in the thread pool on ``engine``.
        self.loop_engine: AsyncEngine | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- the event loop ------------------------------------------------------------------------

    async def attach_loop(self) -> None:
        """Open the async engine for requests run on this (the serving) event loop: with
        PostgreSQL through psycopg, the server's own ledger (a seamless wallet's calls are
        blocking HTTP) and ``settings.on_loop``.  Called by the app's lifespan."""
        if not (self.pipelined and self.settings.on_loop and self.loop_engine is None):
            return
        engine = make_loop_engine(self.engine.url, self.settings.pool_size)
        event.listen(engine.sync_engine, "before_cursor_execute", _leave_pipeline)
        self.loop_engine, self._loop = engine, asyncio.get_running_loop()

    async def detach_loop(self) -> None:
        engine, self.loop_engine, self._loop = self.loop_engine, None, None
        if engine is not None:
            await engine.dispose()

    def runs_on_loop(self) -> bool:
        """Whether a request may run on the running event loop (:meth:`call_on_loop`): not
        where a seamless wallet may be asked (its calls are blocking HTTP)."""
        if self.loop_engine is None or self.may_call_out():
            return False
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    async def call_on_loop(self, call: Callable[[], Any]) -> Any:
        """Run ``call`` (plain code that calls :meth:`run`) on the event loop, in a greenlet of
        its own: each database round trip is awaited on the loop's async connection, so the
        loop serves other requests meanwhile, with no hand-off to a thread and no second
        thread contending for the GIL (what the thread pool costs a spin).  The caller's
        context variables (the request id) go with it."""
        assert self.loop_engine is not None
        context = contextvars.copy_context()
        context.run(_LOOP_ENGINE.set, self.loop_engine.sync_engine)
        return await greenlet_spawn(context.run, call)

    # -- transactions ------------------------------------------------------------------------

    def run(self, work: Callable[[Connection], Any]) -> Any:
        """Run ``work`` in one transaction, then the hooks it left with :meth:`after_commit`.
        A reached session limit is recorded in a transaction of its own, since the request's
        own is rolled back.  A wallet that takes the stake before the round (:class:`StakeFirst`)
        gets the transaction rolled back, takes it, and has ``work`` run again."""
        hooks: list[Callable[[], None]] = []
        engine = _LOOP_ENGINE.get() or self.engine
        try:
            pending = _PENDING.set(hooks)
            try:
                if self.pipelined:
                    result = self._run_pipelined(work, engine)
                else:
                    with self.serial, self.engine.begin() as conn:
                        result = work(conn)
            finally:
                _PENDING.reset(pending)
        except StakeFirst as first:
            return first.proceed(lambda: self.run(work))
        except SessionClosed as closed:
            session_id, reason = closed.session_id, closed.reason

            def close(conn: Connection) -> None:
                session_store.close(conn, self.operators, session_id, reason)

            if self.pipelined:
                self._run_pipelined(close, engine)
            else:
                with engine.begin() as conn:
                    close(conn)
            raise
        except IntegrityError as exc:
            log.warning("integrity error: %s", exc.orig)
            raise conflict("the request conflicts with one already made", "conflict") from None
        for hook in hooks:
            hook()
        return result

    def after_commit(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` once this thread's transaction in :meth:`run` commits (never, if it
        rolls back); outside one, at once.  E.g. wake the outbox worker for a queued credit."""
        pending = _PENDING.get()
        if pending is None:
            hook()
        else:
            pending.append(hook)

    def _run_pipelined(self, work: Callable[[Connection], Any], engine: Engine) -> Any:
        """``run`` on PostgreSQL: the transaction's statements in as few round trips as
        possible (BEGIN with the first read, the last writes with the COMMIT)."""
        with engine.connect() as conn:
            fairy = conn.connection
            if engine is self.engine:
                tx = Pipelined(fairy.dbapi_connection, conn.dialect.loaded_dbapi)
            else:  # the loop's: SQLAlchemy's adapter around psycopg's async connection
                tx = LoopPipelined(fairy.dbapi_connection.driver_connection, psycopg)
            # Kept: once the connection is lost, ``conn.info`` itself raises PendingRollbackError,
            # which would replace the database error (a 503 clients resend) with a 500.
            info = conn.info
            info[Pipelined.KEY] = tx
            try:
                result = work(conn)
                tx.commit()
                return result
            except BaseException:
                try:
                    tx.rollback()
                except Exception:  # a broken connection: never lend it again
                    conn.invalidate()
                raise
            finally:
                info.pop(Pipelined.KEY, None)
                if not conn.invalidated:
                    try:
                        tx.close()
                    except Exception:
                        conn.invalidate()

    def idempotent(
        self,
        scope_of: Callable[[Connection], str | store.Scoped],
        key: str | None,
        fp: str,
        work: Callable[[Connection], tuple[int, dict]],
    ) -> tuple[int, dict]:
        """A state-changing request: the first reply to a key is stored with the change and
        returned again, unchanged, for every repeat of that key (as :class:`Replayed`).
        ``scope_of`` locks the player; it may read the key's stored reply in the same round
        trip (a :class:`store.Scoped`).  The reply is encoded once: the stored text is what is
        sent (a :class:`store.Reply`)."""
        key = check_key(key)

        def tx(conn: Connection) -> tuple[int, dict]:
            scope = scope_of(conn)  # locks the player before looking at the key
            if isinstance(scope, store.Scoped):
                old = store.replay(scope.stored, fp)
                scope = scope.name
            else:
                old = store.remembered(conn, scope, key, fp)
            if old is not None:
                return old[0], Replayed.of(old[1], old[1].json)
            status, body = work(conn)
            text = store.dumps(body)
            store.remember(conn, scope, key, fp, status, text)
            return status, store.Reply.of(body, text)

        return self.run(tx)

    # -- operators and their wallets ---------------------------------------------------------

    def operator(self, conn: Connection, operator_id: int, version: int | None = None) -> Operator:
        return self.operators.get(conn, operator_id, version)

    def operator_of(self, conn: Connection, player: Any) -> Operator:
        """The operator of a player row (one with ``operator_id``, and ``operator_version``
        where the session's query read it: then no query is made)."""
        return self.operators.get(conn, player.operator_id, getattr(player, "operator_version", None))

    @property
    def wallet(self) -> Wallet:
        """The wallet of the deployment's own operator as the server's settings configure it
        (a seamless one with REELFORGE_WALLET_*), or the one given for every operator."""
        if self._fixed_wallet is not None:
            return self._fixed_wallet
        s = self.settings
        if s.wallet_mode != "seamless":
            return self.ledger
        return self._seamless_wallet(
            DEFAULT_OPERATOR_ID, s.wallet_url, s.wallet_secret.get_secret_value(), s.wallet_timeout_seconds
        )

    @wallet.setter
    def wallet(self, wallet: Wallet) -> None:
        """One wallet for every operator's rounds (tests put a recording one in)."""
        self._fixed_wallet = wallet

    def wallet_for(self, operator: Operator) -> Wallet:
        """The wallet the operator's rounds pay through."""
        if self._fixed_wallet is not None:
            return self._fixed_wallet
        e = operator.settings
        if e.wallet_mode != "seamless":
            return self.ledger
        return self._seamless_wallet(
            operator.id, e.wallet_url, e.wallet_secret, self.settings.wallet_timeout_seconds
        )

    def _seamless_wallet(self, operator_id: int, url: str, secret: str, timeout_s: float) -> SeamlessWallet:
        """One seamless wallet per operator and endpoint, kept while its configuration holds."""
        key = (operator_id, url, secret)
        found = self._seamless.get(key)
        if found is None:
            with self._seamless_lock:
                found = self._seamless.get(key)
                if found is None:
                    found = SeamlessWallet.for_endpoint(self, url, secret, timeout_s)
                    if self.outbox_worker is not None:
                        found.attach(self.outbox_worker)
                    self._seamless[key] = found
        return found

    def attach_outbox(self, worker: Any) -> None:
        """The process's outbox worker: every seamless wallet wakes it after a commit."""
        with self._seamless_lock:
            self.outbox_worker = worker
            wallets = list(self._seamless.values())
        if isinstance(self._fixed_wallet, SeamlessWallet):
            wallets.append(self._fixed_wallet)
        for wallet in wallets:
            wallet.attach(worker)

    def wallet_for_transaction(self, transaction_id: str, original: str | None = None) -> SeamlessWallet:
        """The seamless wallet a queued credit or rollback goes to: its player's operator's."""
        if isinstance(self._fixed_wallet, SeamlessWallet):
            return self._fixed_wallet

        def find(conn: Connection) -> Wallet:
            row = q(
                conn,
                "SELECT p.operator_id FROM seamless_transactions t JOIN players p ON p.id = t.player_id"
                " WHERE t.transaction_id IN (:t, :o)",
                {"t": transaction_id, "o": original or transaction_id},
            ).first()
            if row is None:
                raise PermanentFailure(f"no seamless transaction {transaction_id}")
            return self.wallet_for(self.operator(conn, row.operator_id))

        wallet = self.run(find)
        if not isinstance(wallet, SeamlessWallet):
            raise PermanentFailure(f"{transaction_id}: its operator has no seamless wallet configured now")
        return wallet

    def may_call_out(self) -> bool:
        """Whether a request may call an operator's seamless wallet: the server's settings
        say so, or an operator this process has seen is seamless."""
        if self._fixed_wallet is not None:
            return self._fixed_wallet is not self.ledger
        if self.settings.wallet_mode == "seamless":
            return True
        return self.operators.any_seamless

    # -- games, their settings and the RNG -----------------------------------------------------

    def game(self, game_id: str) -> Game:
        try:
            return self.games[game_id]
        except KeyError:
            raise not_found(f"unknown game {game_id!r}; offered: {sorted(self.games)}") from None

    def variant_for(self, conn: Connection, game: Game, operator_id: int) -> str:
        return store.get_setting(conn, f"variant:{game.id}", game.default_variant, operator_id=operator_id)

    def disabled_bets(
        self,
        conn: Connection,
        game: Game,
        operator_id: int,
        table: str = bets.BASE,
        currency: str | None = None,
    ) -> list[int]:
        """The stakes of a bet table the operator switched off for rounds in ``currency`` (its
        own list where the operator set one), or (None) the list for every currency."""
        keys = [bets.bets_key(game.id, table)]
        if currency is not None:
            keys.append(bets.bets_key(game.id, table, currency))
        found = {k: v for k in keys if (v := store.get_setting(conn, k, "", operator_id=operator_id)) != ""}
        return bets.disabled_in(found, game.id, table, currency)

    def offered_currencies(self, conn: Connection, game: Game, operator_id: int) -> list[str]:
        """The currencies the operator offers ``game`` in (all of the game's, unless narrowed)."""
        raw = store.get_setting(conn, currencies.currencies_key(game.id), "", operator_id=operator_id)
        return currencies.offered_from(game, raw or None)

    def profile(self, conn: Connection, operator_id: int) -> Profile:
        return PROFILES[store.get_setting(conn, "profile", "default", operator_id=operator_id)]

    def game_of(self, operator: Operator, game_id: str) -> Game:
        """A game the operator offers: one it does not is as unknown as one no one has."""
        if not operator.settings.offers(game_id):
            raise not_found(f"unknown game {game_id!r}; offered: {self.offered_games(operator)}")
        return self.game(game_id)

    def offered_games(self, operator: Operator) -> list[str]:
        return sorted(g for g in self.games if operator.settings.offers(g))

    def side_games(self) -> dict[str, tuple[str, ...]]:
        """{game id: its side balances} for the games that keep any."""
        return {g.id: tuple(g.side_balances) for g in self.games.values() if g.side_balances}

    def exact_for(self, game: Game, variant: str, mode: str = "base") -> dict[str, Any]:
        """The variant's exact report (base mode unless ``mode`` names another: a feature
        buy's), held once read; loaded at start by the readiness check
        (runtime/readiness.py), so a request finds it here.  A request that comes first waits
        for that load instead of computing it a second time."""
        key = (game.id, variant, mode)
        found = self._exact_cache.get(key)
        if found is None:
            with self._exact_lock:
                found = self._exact_cache.get(key)
                if found is None:
                    found = self._exact_cache[key] = self.figures.exact(game, variant, mode)
        return found

    def source(self, script: list[int] | None) -> RandomSource:
        """The production RNG, or (test deployments only) a script dealt before it."""
        base = self.rng_factory()
        if script is not None:
            if not self.settings.allow_scripted_draws:
                raise forbidden(
                    "scripted draws are a test facility and are refused here", "scripted_draws_refused"
                )
            base = ScriptedRandom(script, base)
        return base
