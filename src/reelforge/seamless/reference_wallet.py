"""A reference operator wallet: the other end of the seamless protocol, small enough to read.

Integrators can use it as a worked example of what their wallet must do; our tests run it as
a real HTTP server to check the game server's side against it.  It keeps its own SQLite ledger
(any SQLAlchemy URL works; PostgreSQL too):

* ``wallet_players``: one row per player, with the balance in minor units and a launch token;
* ``wallet_transactions``: one row per ``transaction_id`` (unique), with the first reply
  stored byte for byte and the signed amount it ``moved`` on the balance, so that every
  balance is the sum of its player's ``moved`` (seeding and top-ups are ``adjustment`` rows).

The rules it implements (docs/wallet.md states them for integrators):

1. **Exactly once.**  A ``transaction_id`` seen before is answered with the first reply, byte
   for byte, and moves nothing — whether the first reply was an acceptance or a refusal.  The
   same id with a different request is refused ``transaction_mismatch``.
2. **A rollback refunds a debit once.**  A second rollback of the same debit (under another id)
   is accepted and moves nothing.
3. **Rollback before debit.**  A rollback whose debit is unknown — the debit is still in flight,
   or was lost — records a *tombstone* under the debit's id, so that the debit, if it arrives
   later, is refused ``transaction_rolled_back`` and never taken.
4. **Credits are never refused for the player's state.**  A blocked player, or one whose
   session or token is gone, still receives credits and rollbacks: that money is owed.  Only a
   debit (new money at risk) checks that the player may play.

Each request runs in one database transaction that first locks the player's row (SQLite: the
whole database, ``BEGIN IMMEDIATE``; PostgreSQL: ``SELECT … FOR UPDATE``), so two deliveries
of one transaction serialise and the second finds the first's reply.

Run it::

    python -m reelforge.seamless.reference_wallet --port 8100 --secret S \\
        --db sqlite:///operator-wallet.db --player alice:EUR:10000:alice-token
    # or: reelforge operator-wallet ... (same options)

With ``--faults`` (tests only) it also serves ``POST/GET/DELETE /_faults`` (see
:mod:`reelforge.seamless.faults`), ``GET /_ledger`` and ``POST /_players``, all unsigned.
"""

from __future__ import annotations

import hashlib
import logging
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Annotated, Any

from fastapi import FastAPI, Request, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool

from reelforge.seamless.faults import FaultInjector, FaultRule, Reply
from reelforge.seamless.protocol import (
    CONTENT_TYPE,
    ERROR_STATUS,
    OPERATIONS,
    PATHS,
    REPLAY_WINDOW_S,
    REQUEST_TYPES,
    AuthenticateReply,
    AuthenticateRequest,
    CreditRequest,
    Currency,
    DebitRequest,
    ErrorCode,
    ErrorReply,
    Operation,
    PlayerId,
    RollbackRequest,
    SignatureError,
    Token,
    TransactionReply,
    TransactionRequest,
    sign_headers,
    verify_headers,
)
from reelforge.server.storage.db import make_engine

log = logging.getLogger("reelforge.reference_wallet")

metadata = MetaData()

wallet_players = Table(
    "wallet_players",
    metadata,
    Column("player_id", String(128), primary_key=True),
    Column("currency", String(3), nullable=False),
    Column("balance", BigInteger, nullable=False),  # minor units: the sum of the player's moved
    Column("token", String(512), unique=True),  # launch token for /authenticate (null: none)
    Column("blocked", Boolean, nullable=False),  # may not authenticate or be debited
)

wallet_transactions = Table(
    "wallet_transactions",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),  # operator_transaction_id op-<seq>
    Column("transaction_id", String(128), nullable=False, unique=True),  # the game server's id
    Column("kind", String(16), nullable=False),  # debit, credit, rollback, adjustment
    # applied (moved money or, for a rollback, was accepted), refused (stored refusal),
    # rolled_back (a debit refunded by a rollback), tombstone (a debit cancelled before it came)
    Column("status", String(16), nullable=False),
    Column("player_id", String(128), nullable=False),
    Column("round_id", String(128), nullable=False),
    Column("amount", BigInteger, nullable=False),  # as requested
    Column("moved", BigInteger, nullable=False),  # signed change of the balance it made
    Column("currency", String(3), nullable=False),
    Column("original_transaction_id", String(128)),  # a rollback's debit
    Column("fingerprint", String(64)),  # sha256 of kind + canonical request: detects reuse
    Column("reply_status", Integer),
    Column("reply", Text),  # the first reply's exact bytes (ASCII: canonical JSON)
    Column("created_at", Float, nullable=False),
)


class PlayerSeed(BaseModel):
    """A player to create (or, through ``POST /_players``, to update)."""

    model_config = ConfigDict(strict=True, extra="forbid")

    player_id: PlayerId
    currency: Currency
    balance: Annotated[StrictInt, Field(ge=0, le=2**62)]
    token: Token | None = None
    blocked: StrictBool = False


def _error(code: ErrorCode, message: str) -> Reply:
    return ERROR_STATUS[code], ErrorReply.of(code, message).to_json()


def _ok(message: TransactionReply | AuthenticateReply) -> Reply:
    return 200, message.to_json()


class ReferenceLedger:
    """The wallet's book-keeping: each public method is one request, one DB transaction, and
    returns ``(HTTP status, exact reply bytes)``."""

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.clock = clock

    def create_tables(self) -> None:
        metadata.create_all(self.engine)

    # -- players ---------------------------------------------------------------------------

    def seed(self, seeds: Iterable[PlayerSeed], *, replace: bool = True) -> None:
        """Create players; with ``replace`` also update existing ones (balance, token, block).
        A balance change is an ``adjustment`` row, so balances stay the sum of ``moved``."""
        with self.engine.begin() as conn:
            for seed in seeds:
                row = self._lock_player(conn, seed.player_id)
                if row is not None and not replace:
                    continue
                values = {"currency": seed.currency, "token": seed.token, "blocked": seed.blocked}
                if row is None:
                    conn.execute(insert(wallet_players).values(player_id=seed.player_id, balance=0, **values))
                    before = 0
                else:
                    conn.execute(
                        update(wallet_players)
                        .where(wallet_players.c.player_id == seed.player_id)
                        .values(**values)
                    )
                    before = row.balance
                if seed.balance != before:
                    self._set_balance(conn, seed.player_id, seed.balance)
                    conn.execute(
                        insert(wallet_transactions).values(
                            # '#' and '/' are outside the protocol's id alphabet: never a clash.
                            transaction_id=f"#adjustment/{uuid.uuid4().hex}",
                            kind="adjustment",
                            status="applied",
                            player_id=seed.player_id,
                            round_id="-",
                            amount=abs(seed.balance - before),
                            moved=seed.balance - before,
                            currency=seed.currency,
                            created_at=self.clock(),
                        )
                    )

    def authenticate(self, req: AuthenticateRequest) -> Reply:
        with self.engine.connect() as conn:
            player = conn.execute(select(wallet_players).where(wallet_players.c.token == req.token)).first()
            # the ledger position the balance stands at: the player's last transaction
            seq = 0
            if player is not None:
                t = wallet_transactions
                last = conn.execute(select(func.max(t.c.seq)).where(t.c.player_id == player.player_id))
                seq = last.scalar() or 0
        if player is None:
            return _error(ErrorCode.INVALID_TOKEN, "unknown or expired token")
        if player.blocked:
            return _error(ErrorCode.PLAYER_BLOCKED, f"player {player.player_id} is blocked")
        return _ok(
            AuthenticateReply(
                player_id=player.player_id, currency=player.currency, balance=player.balance, balance_seq=seq
            )
        )

    # -- the three money movements ---------------------------------------------------------

    def debit(self, req: DebitRequest) -> Reply:
        return self._exactly_once("debit", req, self._debit)

    def credit(self, req: CreditRequest) -> Reply:
        return self._exactly_once("credit", req, self._credit)

    def rollback(self, req: RollbackRequest) -> Reply:
        return self._exactly_once("rollback", req, self._rollback)

    def _debit(self, conn: Connection, req: DebitRequest, player: Any, fp: str) -> Reply:
        refusal = self._check_player(req, player)
        if refusal is None and player.blocked:
            refusal = ErrorCode.PLAYER_BLOCKED, f"player {req.player_id} is blocked"
        if refusal is None and player.balance < req.amount:
            refusal = ErrorCode.INSUFFICIENT_FUNDS, f"balance {player.balance} is below {req.amount}"
        if refusal is not None:
            return self._refuse(conn, "debit", req, fp, *refusal)
        return self._apply(conn, "debit", req, player, -req.amount, fp)

    def _credit(self, conn: Connection, req: CreditRequest, player: Any, fp: str) -> Reply:
        # No check of blocked/session: a win is owed whatever happened to the player since.
        refusal = self._check_player(req, player)
        if refusal is not None:
            return self._refuse(conn, "credit", req, fp, *refusal)
        return self._apply(conn, "credit", req, player, req.amount, fp)

    def _rollback(self, conn: Connection, req: RollbackRequest, player: Any, fp: str) -> Reply:
        refusal = self._check_player(req, player)
        if refusal is not None:
            return self._refuse(conn, "rollback", req, fp, *refusal)
        t = wallet_transactions
        debit = conn.execute(select(t).where(t.c.transaction_id == req.original_transaction_id)).first()
        if debit is None:
            # The debit has not arrived (yet): a tombstone under its id refuses it if it ever
            # does.  Nothing was taken, so nothing is refunded.
            conn.execute(
                insert(t).values(
                    transaction_id=req.original_transaction_id,
                    kind="debit",
                    status="tombstone",
                    player_id=req.player_id,
                    round_id=req.round_id,
                    amount=req.amount,
                    moved=0,
                    currency=req.currency,
                    created_at=self.clock(),
                )
            )
            return self._apply(conn, "rollback", req, player, 0, fp)
        if debit.kind != "debit" or debit.player_id != req.player_id:
            return self._refuse(
                conn,
                "rollback",
                req,
                fp,
                ErrorCode.TRANSACTION_MISMATCH,
                f"{req.original_transaction_id} is not a debit of player {req.player_id}",
            )
        if debit.status != "applied":
            # Already refunded, refused (never taken) or a tombstone: accept, move nothing.
            return self._apply(conn, "rollback", req, player, 0, fp)
        if debit.amount != req.amount:
            return self._refuse(
                conn,
                "rollback",
                req,
                fp,
                ErrorCode.TRANSACTION_MISMATCH,
                f"the debit was {debit.amount}, the rollback says {req.amount}",
            )
        conn.execute(update(t).where(t.c.seq == debit.seq).values(status="rolled_back"))
        return self._apply(conn, "rollback", req, player, debit.amount, fp)

    # -- the exactly-once frame ------------------------------------------------------------

    def _exactly_once(
        self, kind: str, req: TransactionRequest, apply: Callable[[Connection, Any, Any, str], Reply]
    ) -> Reply:
        fp = hashlib.sha256(kind.encode() + b":" + req.to_json()).hexdigest()
        for attempt in (1, 2):
            try:
                with self.engine.begin() as conn:
                    player = self._lock_player(conn, req.player_id)  # serialises this player
                    t = wallet_transactions
                    known = conn.execute(select(t).where(t.c.transaction_id == req.transaction_id)).first()
                    if known is not None:
                        return self._repeat(conn, kind, req, known, fp)
                    return apply(conn, req, player, fp)
            except IntegrityError:
                # Two first deliveries of one id raced past the lock (no player row to lock,
                # or different players): the unique id stopped the second; now it finds the first.
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _repeat(self, conn: Connection, kind: str, req: TransactionRequest, known: Any, fp: str) -> Reply:
        if known.status == "tombstone" and known.reply is None and kind == "debit":
            # The late debit of a rollback-before-debit: refuse it, and store that refusal so
            # that its own repeats get the same bytes.
            status, body = _error(
                ErrorCode.TRANSACTION_ROLLED_BACK, f"{req.transaction_id} was rolled back before it arrived"
            )
            conn.execute(
                update(wallet_transactions)
                .where(wallet_transactions.c.seq == known.seq)
                .values(fingerprint=fp, reply_status=status, reply=body.decode("ascii"))
            )
            return status, body
        if known.reply is not None and known.kind == kind and known.fingerprint == fp:
            return known.reply_status, known.reply.encode("ascii")  # the first reply, as sent
        return _error(
            ErrorCode.TRANSACTION_MISMATCH, f"{req.transaction_id} is already known with a different request"
        )

    # -- helpers ---------------------------------------------------------------------------

    @staticmethod
    def _check_player(req: TransactionRequest, player: Any) -> tuple[ErrorCode, str] | None:
        if player is None:
            return ErrorCode.UNKNOWN_PLAYER, f"no player {req.player_id}"
        if player.currency != req.currency:
            return ErrorCode.CURRENCY_MISMATCH, f"player {req.player_id} plays in {player.currency}"
        return None

    @staticmethod
    def _lock_player(conn: Connection, player_id: str) -> Any:
        # FOR UPDATE is rendered on PostgreSQL only; SQLite's BEGIN IMMEDIATE already locked.
        p = wallet_players
        return conn.execute(select(p).where(p.c.player_id == player_id).with_for_update()).first()

    @staticmethod
    def _set_balance(conn: Connection, player_id: str, balance: int) -> None:
        p = wallet_players
        conn.execute(update(p).where(p.c.player_id == player_id).values(balance=balance))

    def _refuse(
        self, conn: Connection, kind: str, req: TransactionRequest, fp: str, code: ErrorCode, message: str
    ) -> Reply:
        """Record a refusal under the transaction id: its repeats get the same answer."""
        status, body = _error(code, message)
        self._insert(conn, kind, "refused", req, 0, fp, status, body)
        return status, body

    def _apply(
        self, conn: Connection, kind: str, req: TransactionRequest, player: Any, moved: int, fp: str
    ) -> Reply:
        balance = player.balance + moved
        if moved:
            self._set_balance(conn, req.player_id, balance)
        seq = self._insert(conn, kind, "applied", req, moved, fp, None, None)
        status, body = _ok(
            TransactionReply(
                balance=balance,
                transaction_id=req.transaction_id,
                operator_transaction_id=f"op-{seq}",
                balance_seq=seq,  # the balance as this transaction left it
            )
        )
        t = wallet_transactions
        conn.execute(update(t).where(t.c.seq == seq).values(reply_status=status, reply=body.decode("ascii")))
        return status, body

    def _insert(
        self,
        conn: Connection,
        kind: str,
        status: str,
        req: TransactionRequest,
        moved: int,
        fp: str,
        reply_status: int | None,
        reply: bytes | None,
    ) -> int:
        result = conn.execute(
            insert(wallet_transactions).values(
                transaction_id=req.transaction_id,
                kind=kind,
                status=status,
                player_id=req.player_id,
                round_id=req.round_id,
                amount=req.amount,
                moved=moved,
                currency=req.currency,
                original_transaction_id=getattr(req, "original_transaction_id", None),
                fingerprint=fp,
                reply_status=reply_status,
                reply=None if reply is None else reply.decode("ascii"),
                created_at=self.clock(),
            )
        )
        return int(result.inserted_primary_key[0])

    def snapshot(self, player_id: str | None = None) -> dict[str, Any]:
        """Every player's balance and every transaction (of one player, if given)."""
        p, t = wallet_players, wallet_transactions
        players_q, tx_q = select(p).order_by(p.c.player_id), select(t).order_by(t.c.seq)
        if player_id is not None:
            players_q = players_q.where(p.c.player_id == player_id)
            tx_q = tx_q.where(t.c.player_id == player_id)
        with self.engine.connect() as conn:
            return {
                "players": [dict(r._mapping) for r in conn.execute(players_q)],
                "transactions": [dict(r._mapping) for r in conn.execute(tx_q)],
            }


# -- the HTTP application ----------------------------------------------------------------------


def create_app(
    db_url: str,
    secret: str | bytes,
    *,
    faults: bool = False,
    players: Sequence[PlayerSeed] = (),
    replay_window_s: float = REPLAY_WINDOW_S,
) -> FastAPI:
    """The wallet as an ASGI app on the database ``db_url`` (tables created if missing).
    ``players`` are created if absent (existing ones keep their balance across restarts).
    ``faults`` adds the unsigned test endpoints: never enable it in production."""
    if not secret:
        raise ValueError("the shared secret must not be empty")
    engine = make_engine(db_url)
    ledger = ReferenceLedger(engine)
    ledger.create_tables()
    ledger.seed(players, replace=False)
    injector = FaultInjector() if faults else None

    @asynccontextmanager
    async def lifespan(_app: FastAPI):  # type: ignore[no-untyped-def]
        yield
        engine.dispose()

    app = FastAPI(title="reelforge reference operator wallet", lifespan=lifespan)
    app.state.ledger = ledger
    app.state.faults = injector

    def signed(status: int, body: bytes) -> Response:
        # Replies are signed like requests, so the game server can trust the balance in them.
        return Response(body, status_code=status, media_type=CONTENT_TYPE, headers=sign_headers(secret, body))

    def endpoint(op: Operation) -> Callable[[Request], Any]:
        async def handle(request: Request) -> Response:
            raw = await request.body()  # verify the exact bytes before parsing anything
            try:
                verify_headers(secret, raw, request.headers, window_s=replay_window_s)
            except SignatureError as exc:
                log.warning("%s refused: %s", op, exc)
                return signed(*_error(ErrorCode.INVALID_SIGNATURE, str(exc)))
            try:
                req = REQUEST_TYPES[op].from_json(raw)
            except ValidationError as exc:
                return signed(*_error(ErrorCode.INVALID_REQUEST, _validation_summary(exc)))
            process = partial(getattr(ledger, op), req)
            if injector is not None:
                return signed(*await injector.run(op, process))
            return signed(*await run_in_threadpool(process))

        handle.__name__ = op
        return handle

    for op in OPERATIONS:
        app.add_api_route(PATHS[op], endpoint(op), methods=["POST"], name=op)

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    if injector is not None:
        _add_test_endpoints(app, ledger, injector)
    return app


def _add_test_endpoints(app: FastAPI, ledger: ReferenceLedger, injector: FaultInjector) -> None:
    @app.post("/_faults")
    def set_faults(rules: list[FaultRule]) -> dict[str, Any]:
        """Replace the fault rules (an empty list clears them)."""
        injector.set(rules)
        return {"rules": [r.model_dump() for r in injector.rules]}

    @app.get("/_faults")
    def get_faults() -> dict[str, Any]:
        return {"rules": [r.model_dump() for r in injector.rules], "fired": injector.fired}

    @app.delete("/_faults")
    def clear_faults() -> dict[str, Any]:
        injector.clear()
        return {"rules": []}

    @app.get("/_ledger")
    def get_ledger(player_id: str | None = None) -> dict[str, Any]:
        return ledger.snapshot(player_id)

    @app.post("/_players")
    def put_players(players: list[PlayerSeed]) -> dict[str, Any]:
        """Create or update players (balance, token, blocked)."""
        ledger.seed(players, replace=True)
        return {"players": [p.player_id for p in players]}


def _validation_summary(exc: ValidationError, limit: int = 500) -> str:
    parts = [f"{'.'.join(str(x) for x in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()]
    return "; ".join(parts)[:limit]


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m reelforge.seamless.reference_wallet``: the same as ``reelforge operator-wallet``."""
    import typer

    from reelforge.seamless.command import operator_wallet_command

    cli = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    cli.command()(operator_wallet_command)
    cli(
        args=list(argv) if argv is not None else None,
        prog_name="python -m reelforge.seamless.reference_wallet",
    )


if __name__ == "__main__":
    main()
