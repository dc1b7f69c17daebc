"""The seamless wallet: the operator keeps the player's money; rounds take and pay it over
HTTP (docs/wallet.md has the protocol), exactly once across the two systems.

A round start, when ``REELFORGE_WALLET_MODE=seamless``:

1. The request runs as usual until its round is drawn; :meth:`SeamlessWallet.round_id_for_stake`
   raises :class:`~reelforge.server.wallets.wallet.StakeFirst` and the request's transaction rolls back:
   no database lock is held while the operator is called (on SQLite one would stop every
   player, and the compensation below could not be committed beside it).
2. **Reserve** (a short transaction of its own, committed): a round id nobody else will take,
   the debit's transaction id, and its **compensation**: a ``wallet.rollback`` outbox row for
   that debit, due after ``wallet_rollback_grace_seconds`` (longer than a start can take).
3. **Debit** (HTTP, no transaction open).  A definite refusal cancels the compensation and the
   start is refused (402 ``insufficient_funds``, 403 ``player_blocked``, 402 ``wallet_refused``).
   An unknown outcome (timeout, 5xx, bad reply) makes the compensation due now and the start is
   refused with 503 ``wallet_unavailable``.
4. **Play** (the request runs again, in the round's transaction): the round is stored under the
   reserved id, the debit confirmed, its compensation cancelled — only if no worker has claimed
   it, else 503 and the rollback goes through — and, if the round is over, its credit queued.
   Anything that stops this transaction from committing (a check that now fails, a conflict,
   an error) makes the compensation due now.

Credits (a win; a credit of 0 closes a losing round, as many operators require) and a void's
refund (a rollback of the round's debit, as the protocol says) are queued in the outbox inside
the round's transaction, counted in the displayed balance at once (``Movement`` status
``queued``), and delivered right after the commit by the request itself, before it answers (a
player's next round waits for the last one's payment, so deliveries keep pace with play); what
that attempt does not settle, the worker every process runs retries with backoff until the
operator answers.  A round is complete for the player when its transaction commits: its credit
is durably queued then.

Where a crash (SIGKILL) can land, and what happens:

====================================================  ==========================================
Crash                                                 Outcome
====================================================  ==========================================
before the reserve commits                            nothing sent, nothing stored
after the reserve, before or during the debit         the compensation fires after the grace:
                                                      the operator refunds the debit if it was
                                                      taken, or keeps a tombstone that refuses it
                                                      if it arrives later; no round here
after the debit's reply, before the round commits     the same: refunded; no round here
after a refusal or an unknown outcome, before the     the compensation fires after the grace
compensation is cancelled or made due                 (a rollback of a refused debit moves
                                                      nothing)
after the round commits                               round stored, compensation cancelled (never
                                                      sent), credit queued: delivered after the
                                                      restart
a round left pending (a feature) when the process     it waits, as any round: the player finishes
dies                                                  it, or the sweeper does; its credit is
                                                      queued with that step
during a delivery (sent, reply not recorded)          the lease runs out and it is sent again with
                                                      the same transaction id: the operator
                                                      answers with its first reply, pays nothing
                                                      twice
after the operator's reply, before it is recorded     the same
====================================================  ==========================================

A worker claiming the compensation while the round's transaction commits is the one race: the
cancellation in step 4 is an update that succeeds only on a row never attempted and not
claimed, in the same transaction as the round, so exactly one of the two wins (the round, with
the stake; or the rollback, and the start is refused).  Transaction ids are
``rf-<installation>-<round>-debit|rollback|credit|void`` (see :mod:`.seamless_books`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from sqlalchemy import Connection

from reelforge.seamless.client import SeamlessClient, WalletRefused, WalletUnavailable
from reelforge.seamless.protocol import CreditRequest, RollbackRequest, TransactionReply, operation_of
from reelforge.server.core import metrics
from reelforge.server.core.config import Settings
from reelforge.server.core.errors import ApiError, conflict
from reelforge.server.storage.sql import q
from reelforge.server.wallets import seamless_books as books
from reelforge.server.wallets.outbox import (
    WALLET_CREDIT,
    WALLET_ROLLBACK,
    OutboxMessage,
    OutboxWorker,
    PermanentFailure,
)
from reelforge.server.wallets.wallet import Account, DebitRefused, Movement, StakeFirst

log = logging.getLogger("reelforge.seamless")


class Transactions(Protocol):
    """What the seamless wallet needs of the server it serves (the play layer's ``ServerContext``):
    its settings, a transaction of its own, and a hook run once the request's transaction commits."""

    settings: Settings

    def run(self, work: Callable[[Connection], Any]) -> Any: ...

    def after_commit(self, hook: Callable[[], None]) -> None: ...


def unavailable(message: str) -> ApiError:
    return ApiError(503, "wallet_unavailable", message, {"Retry-After": "1"})


@dataclass
class _Stake:
    """A debit taken for one request, waiting for its round's transaction."""

    player_id: int
    amount: int
    books: dict[str, Any]  # round_id, debit_id, rollback_id (seamless_books.reserve_stake)
    sent_at: float = 0.0
    reply: TransactionReply | None = None
    handed_out: bool = False  # round_id_for_stake gave its round id
    booked: bool = False  # debit() booked it in the round's transaction

    @property
    def round_id(self) -> int:
        return int(self.books["round_id"])


class CountedClient(SeamlessClient):
    """The seamless client whose every call to the operator's wallet is counted for /metrics
    by operation and result: ok, refused (the wallet said no), unavailable (no usable reply)."""

    def send(self, request: Any) -> Any:
        operation = operation_of(request)
        try:
            reply = super().send(request)
        except WalletRefused:
            metrics.wallet_call("seamless", operation, "refused")
            raise
        except WalletUnavailable:
            metrics.wallet_call("seamless", operation, "unavailable")
            raise
        metrics.wallet_call("seamless", operation, "ok")
        return reply


class SeamlessWallet:
    """The :class:`~reelforge.server.wallets.wallet.Wallet` of a seamless deployment (see the module)."""

    def __init__(self, context: Transactions, client: SeamlessClient, *, grace_s: float) -> None:
        self.context = context
        self.client = client
        self.grace_s = grace_s
        self._local = threading.local()  # the stake taken for this thread's request
        self._worker: OutboxWorker | None = None

    @classmethod
    def from_settings(cls, context: Transactions) -> SeamlessWallet:
        s = context.settings
        return cls.for_endpoint(
            context, s.wallet_url, s.wallet_secret.get_secret_value(), s.wallet_timeout_seconds
        )

    @classmethod
    def for_endpoint(cls, context: Transactions, url: str, secret: str, timeout_s: float) -> SeamlessWallet:
        """The wallet of one operator's endpoint (its URL and shared secret)."""
        client = CountedClient(url, secret, timeout_s=timeout_s)
        return cls(context, client, grace_s=context.settings.wallet_rollback_grace_seconds)

    # -- the Wallet interface --------------------------------------------------------------

    def balance(self, conn: Connection, player: Account) -> int:
        """The displayed balance: the operator's last known one plus what is owed."""
        return int(q(conn, "SELECT balance FROM players WHERE id = :id", {"id": player.id}).scalar_one())

    def round_id_for_stake(self, conn: Connection, player: Account, amount: int) -> int:
        stake: _Stake | None = getattr(self._local, "stake", None)
        if stake is None:  # first pass: take the stake outside this transaction, then again
            raise StakeFirst(
                partial(self._take_stake, player.id, player.external_id, player.currency, amount)
            )
        if stake.handed_out or stake.player_id != player.id or stake.amount != amount:
            raise conflict("the round changed while its stake was taken; try again", "stake_changed")
        stake.handed_out = True
        return stake.round_id

    def debit(
        self, conn: Connection, player: Account, amount: int, *, round_id: int, reference: str
    ) -> Movement:
        stake: _Stake | None = getattr(self._local, "stake", None)
        if stake is None or not stake.handed_out or stake.booked or stake.round_id != round_id:
            raise RuntimeError("a seamless stake is taken through round_id_for_stake first")
        assert stake.reply is not None and stake.amount == amount
        balance = books.confirm_stake(conn, player.id, stake.books, amount, stake.reply, stake.sent_at)
        stake.booked = True
        return Movement(stake.books["debit_id"], -amount, balance)

    def credit(
        self, conn: Connection, player: Account, amount: int, *, round_id: int, reference: str
    ) -> Movement:
        balance, tid = books.queue_payment(conn, player, amount, round_id, books.CREDIT)
        self.context.after_commit(partial(self.deliver_now, tid))
        return Movement(reference, amount, balance, "queued")

    def close_round(self, conn: Connection, player: Account, *, round_id: int, reference: str) -> None:
        self.credit(conn, player, 0, round_id=round_id, reference=reference)

    def refund(
        self, conn: Connection, player: Account, amount: int, *, round_id: int, reference: str, cancels: str
    ) -> Movement:
        # The protocol's way to give a stake back is a rollback of its debit (refunded once).
        debit_id = books.round_debit(conn, round_id)
        if debit_id is None:
            raise conflict(f"round {round_id} was not staked through the seamless wallet", "not_seamless")
        balance, tid = books.queue_payment(conn, player, amount, round_id, books.REFUND, debit_id)
        self.context.after_commit(partial(self.deliver_now, tid))
        return Movement(reference, amount, balance, "queued")

    # -- taking a stake (StakeFirst.proceed) -----------------------------------------------

    def _take_stake(
        self, player_id: int, external_id: str, currency: str, amount: int, again: Callable[[], Any]
    ) -> Any:
        if getattr(self._local, "stake", None) is not None:
            raise RuntimeError("one request takes one seamless stake")
        reserved = self.context.run(
            lambda conn: books.reserve_stake(conn, player_id, external_id, currency, amount, self.grace_s)
        )
        stake = _Stake(player_id, amount, reserved, sent_at=time.time())
        try:
            stake.reply = self.client.debit(
                transaction_id=reserved["debit_id"],
                round_id=stake.round_id,
                player_id=external_id,
                amount=amount,
                currency=currency,
            )
        except WalletRefused as exc:
            self._settle(books.refuse_stake, stake)
            raise refusal(exc) from None
        except Exception as exc:  # unknown outcome (or our own failure): give it back
            log.warning("debit %s: %s; rolling it back", reserved["debit_id"], exc)
            self._settle(books.compensate_now, stake)
            if isinstance(exc, WalletUnavailable):
                raise unavailable(
                    "the operator's wallet did not answer: no round was started and anything the"
                    " stake took is given back; try again"
                ) from None
            raise
        self._local.stake = stake
        stored = False
        try:
            result = again()
            stored = stake.booked  # again() returned: its transaction committed
            return result
        finally:
            self._local.stake = None
            if not stored:
                log.info("debit %s: its round was not stored; rolling it back", reserved["debit_id"])
                self._settle(books.compensate_now, stake)

    def _settle(self, action: Callable[[Connection, dict[str, Any]], None], stake: _Stake) -> None:
        """Cancel or hasten the compensation; if the database fails here, the compensation still
        fires after its grace (that is what it was written first for)."""
        try:
            self.context.run(lambda conn: action(conn, stake.books))
        except Exception:
            log.exception("debit %s: settling its compensation failed (it fires after the grace)",
                          stake.books["debit_id"])  # fmt: skip
        self.wake()

    # -- delivery ----------------------------------------------------------------------------

    def attach(self, worker: OutboxWorker) -> None:
        self._worker = worker

    def wake(self) -> None:
        if self._worker is not None:
            self._worker.wake()

    def deliver_now(self, tid: str) -> None:
        """After the commit that queued it, the request delivers its round's credit (or a
        void's refund) itself, before it answers: a player's next round waits for the last
        one's payment, so deliveries keep pace with play.  A failure leaves it to the worker's
        retries (as does a row the worker took first)."""
        worker = self._worker
        if worker is None:
            return
        try:
            worker.deliver_key(tid)
        except Exception:  # the database is away, say: the worker retries it
            log.exception("credit %s: delivering it at once failed; the outbox retries it", tid)
            worker.wake()

    def handlers(self) -> dict[str, Callable[[OutboxMessage], None]]:
        """Outbox handlers for ``wallet.credit`` and ``wallet.rollback``: send, and book the
        operator's answer.  An unknown outcome raises (retried with the same transaction id);
        a definite refusal of money owed is a :class:`PermanentFailure`, for a person."""

        def deliver(kind: type[CreditRequest] | type[RollbackRequest], message: OutboxMessage) -> None:
            request = kind.model_validate(message.payload)
            sent_at = time.time()
            try:
                reply = self.client.send(request)
            except WalletRefused as exc:
                raise PermanentFailure(str(exc)) from exc
            self.context.run(lambda conn: books.delivered(conn, request.transaction_id, reply, sent_at))

        return {
            WALLET_CREDIT: partial(deliver, CreditRequest),
            WALLET_ROLLBACK: partial(deliver, RollbackRequest),
        }


def refusal(exc: WalletRefused) -> DebitRefused:
    """The operator's definite "no" to a stake, as the player's error."""
    text = f"the operator's wallet refused the stake: {exc.message or exc.code}"
    if exc.code == "insufficient_funds":
        return DebitRefused(text)
    if exc.code == "player_blocked":
        return DebitRefused(text, "player_blocked", 403)
    return DebitRefused(f"{text} ({exc.code})", "wallet_refused", 402)
