"""The wallet: where a round's money moves.

Rounds, autoplay and voids move the player's cash only through :class:`Wallet`, so they do
not know which wallet they talk to.  :class:`LedgerWallet`, the first implementation, is
the server's own ledger (the ``ledger`` table and ``players.balance``).  A wallet held by the
operator (a seamless HTTP wallet) fits the same contract: a debit either happens before the
call returns or raises, and a credit or refund may be queued for later delivery.

Every call runs inside the request's transaction (``conn``) with the player's row locked; a
call that raises rolls the whole request back.  Amounts are positive integers of minor units;
each movement carries a reference unique per player, the idempotency key of the movement
(the ledger's unique (player, reference) constraint makes a repeat fail the transaction).
Side balances (a game's second currency, kept in player state) are not cash and do not pass
here: see :func:`reelforge.server.storage.store.record_side_movements`.

A wallet that takes stakes over the network (the seamless wallet,
:mod:`reelforge.server.wallets.seamless_wallet`) must not hold the request's transaction open while it
waits for the operator: its :meth:`Wallet.round_id_for_stake` raises :class:`StakeFirst`, the
request's transaction rolls back, the stake is taken outside any transaction, and the request
runs again, finding the stake taken (see :meth:`reelforge.server.play.context.ServerContext.run`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from sqlalchemy import Connection, Row, select

from reelforge.server.core import metrics
from reelforge.server.core.errors import ApiError
from reelforge.server.storage import schema as t
from reelforge.server.storage import store
from reelforge.server.storage.sql import q, x


class Account(Protocol):
    """Who the money belongs to: the player's row (a remote wallet needs the operator's id
    for the player and the currency, the ledger only the row id)."""

    @property
    def id(self) -> int: ...

    @property
    def external_id(self) -> str: ...

    @property
    def currency(self) -> str: ...


@dataclass(frozen=True)
class Movement:
    """What a wallet did with one movement.  ``balance`` is the player's balance after it as
    the wallet knows it (a queued credit is counted in: it is owed and will be delivered).
    ``status`` is ``confirmed`` once the wallet holds the movement, ``queued`` while it waits
    for delivery (a remote wallet's outbox); a debit is never queued."""

    reference: str
    amount: int  # signed minor units: negative for a debit
    balance: int
    status: Literal["confirmed", "queued"] = "confirmed"

    @property
    def confirmed(self) -> bool:
        return self.status == "confirmed"


class DebitRefused(ApiError):
    """The wallet would not take the stake (no funds, a blocked player, an unreachable
    wallet): the round does not start, since the request's transaction rolls back."""

    def __init__(self, message: str, code: str = "insufficient_funds", status: int = 402) -> None:
        super().__init__(status, code, message)


class StakeFirst(Exception):  # a signal to the transaction runner, not an error
    """Raised inside a request's transaction by a wallet that takes the stake before it: the
    transaction is rolled back and ``proceed(again)`` is called outside any transaction; it
    takes the stake and calls ``again()``, which runs the request once more, and returns what
    that returns."""

    def __init__(self, proceed: Callable[[Callable[[], Any]], Any]) -> None:
        super().__init__("the wallet takes the stake before the round's transaction")
        self.proceed = proceed


class Wallet(Protocol):
    def balance(self, conn: Connection, player: Account) -> int:
        """The player's cash balance now, in minor units."""
        ...

    def round_id_for_stake(self, conn: Connection, player: Account, amount: int) -> int | None:
        """Called when a round that stakes ``amount`` is drawn, before it is written: the id the
        round must be stored under (the one its debit named), or None for the database's next.
        May raise :class:`StakeFirst`."""
        ...

    def debit(
        self, conn: Connection, player: Account, amount: int, *, round_id: int, reference: str
    ) -> Movement:
        """Take a round's stake.  Done when it returns, or raises :class:`DebitRefused`."""
        ...

    def credit(
        self, conn: Connection, player: Account, amount: int, *, round_id: int, reference: str
    ) -> Movement:
        """Pay a round's win.  Never refused; may be queued (delivered once, by reference)."""
        ...

    def close_round(self, conn: Connection, player: Account, *, round_id: int, reference: str) -> None:
        """The round completed without a win (no credit follows): a wallet that closes rounds on
        its side (a seamless credit of 0, under ``reference``) does it here."""
        ...

    def refund(
        self, conn: Connection, player: Account, amount: int, *, round_id: int, reference: str, cancels: str
    ) -> Movement:
        """Give back a stake taken by the debit ``cancels`` (a voided round); may be queued."""
        ...

    # Optional, for speed: a wallet may also offer
    #
    #   debit_and_credit(conn, player, stake, win, *, round_id, balance, debit_reference,
    #                    credit_reference) -> Movement
    #
    # the stake and (``win`` > 0) the win of a round in one call, the same as ``debit`` then
    # ``credit``; ``balance`` is the player's balance as the request locked it, before the
    # stake.  Callers go through :func:`stake_and_win`, which falls back to the two calls
    # for a wallet without it.


def stake_and_win(
    wallet: Wallet,
    conn: Connection,
    player: Account,
    stake: int,
    win: int,
    *,
    round_id: int,
    balance: int,
    debit_reference: str,
    credit_reference: str,
) -> Movement:
    """A round's stake, then its win when it has one (a round over at its first step): the
    wallet's ``debit_and_credit`` where it has one, else ``debit`` and ``credit``.  Returns
    the last movement (the credit's, or the debit's when nothing is won)."""
    if _has_combined(type(wallet)):
        return wallet.debit_and_credit(  # type: ignore[attr-defined]
            conn, player, stake, win, round_id=round_id, balance=balance,
            debit_reference=debit_reference, credit_reference=credit_reference,
        )  # fmt: skip
    moved = wallet.debit(conn, player, stake, round_id=round_id, reference=debit_reference)
    if win:
        moved = wallet.credit(conn, player, win, round_id=round_id, reference=credit_reference)
    return moved


@functools.cache
def _has_combined(cls: type) -> bool:
    """Whether ``cls`` offers ``debit_and_credit`` for its own ``debit`` and ``credit``: a
    subclass that overrides either (and not the combined call) gets the two calls."""
    mro = cls.__mro__
    owner = next((k for k in mro if "debit_and_credit" in vars(k)), None)
    if owner is None:
        return False
    for name in ("debit", "credit"):
        defined = next((k for k in mro if name in vars(k)), None)
        if defined is not None and not issubclass(owner, defined):
            return False
    return True


class LedgerWallet:
    """The server's own ledger: one ``ledger`` row per movement and ``players.balance``, its
    running sum, changed together in the request's transaction (so always confirmed).
    ``after_commit`` (the context's): its calls are counted for /metrics once they commit."""

    _after_commit: Callable[[Callable[[], None]], None] | None = None  # a subclass may skip __init__

    def __init__(self, after_commit: Callable[[Callable[[], None]], None] | None = None) -> None:
        self._after_commit = after_commit

    def _count(self, operation: str, result: str = "ok") -> None:
        count = functools.partial(metrics.wallet_call, "internal", operation, result)
        if result == "ok" and self._after_commit is not None:
            self._after_commit(count)
        else:
            count()  # a refusal: the request is refused whatever the transaction does

    def balance(self, conn: Connection, player: Account) -> int:
        return int(q(conn, "SELECT balance FROM players WHERE id = :id", {"id": player.id}).scalar_one())

    def round_id_for_stake(self, conn: Connection, player: Account, amount: int) -> int | None:
        return None  # the stake is taken in the round's transaction: any id will do

    def close_round(self, conn: Connection, player: Account, *, round_id: int, reference: str) -> None:
        return None  # a round without a win moves nothing more

    def debit(
        self, conn: Connection, player: Account, amount: int, *, round_id: int, reference: str
    ) -> Movement:
        # The balance check and the change in one statement: no row back means no funds.
        balance = q(
            conn,
            "UPDATE players SET balance = balance - :a WHERE id = :id AND balance >= :a RETURNING balance",
            {"a": amount, "id": player.id},
        ).scalar()
        if balance is None:
            self._count("debit", "refused")
            raise DebitRefused(f"the balance cannot cover the stake {amount}")
        self._count("debit")
        return self._record(conn, player, -amount, int(balance), "stake", reference, round_id)

    def credit(
        self, conn: Connection, player: Account, amount: int, *, round_id: int, reference: str
    ) -> Movement:
        self._count("credit")
        return self._add(conn, player, amount, "win", reference, round_id)

    def debit_and_credit(
        self,
        conn: Connection,
        player: Account,
        stake: int,
        win: int,
        *,
        round_id: int,
        balance: int,
        debit_reference: str,
        credit_reference: str,
    ) -> Movement:
        """The stake and the win as ``debit`` and ``credit`` would book them (two ledger rows,
        the stake's first), in two statements that return nothing, so they can go with the
        request's other writes: the balances come from ``balance``, the row as the request
        locked it.  Should the row hold anything else by then, the CASE writes NULL, which
        ``players.balance`` refuses (NOT NULL): the transaction fails rather than write a
        balance from a stale one."""
        after_stake = balance - stake
        if after_stake < 0:
            self._count("debit", "refused")
            raise DebitRefused(f"the balance cannot cover the stake {stake}")
        self._count("debit")
        if win:
            self._count("credit")
        after = after_stake + win
        x(
            conn,
            "UPDATE players SET balance = CASE WHEN balance = :before THEN :after END WHERE id = :id",
            {"before": balance, "after": after, "id": player.id},
        )
        ts = store.now()
        rows = [(-stake, after_stake, "stake", debit_reference)]
        if win:
            rows.append((win, after, "win", credit_reference))
        params: dict[str, Any] = {"p": player.id, "r": round_id, "ts": ts}
        values = []
        for i, (amount, balance_after, kind, reference) in enumerate(rows):
            values.append(f"(:p, :a{i}, :b{i}, '{kind}', :r, :ref{i}, :ts)")  # kind: one of two words
            params.update({f"a{i}": amount, f"b{i}": balance_after, f"ref{i}": reference})
        x(
            conn,
            # bandit B608 is a false positive: SQL text made of constants, every value bound
            "INSERT INTO ledger (player_id, amount, balance_after, kind, round_id, reference, created_at)"  # nosec B608
            " VALUES " + ", ".join(values),
            params,
        )
        if win:
            return Movement(credit_reference, win, after)
        return Movement(debit_reference, -stake, after)

    def refund(
        self, conn: Connection, player: Account, amount: int, *, round_id: int, reference: str, cancels: str
    ) -> Movement:
        # The ledger ties the refund to the stake by ``round_id``; ``cancels`` is for wallets
        # that match a rollback to its debit by reference.
        self._count("refund")
        return self._add(conn, player, amount, "refund", reference, round_id)

    # -- the operator's cash-in and cash-out: the internal ledger's own, not a round's -------

    def cash_move(self, conn: Connection, player: Row, amount: int, kind: str, reference: str) -> int:
        """A deposit (``amount`` > 0) or withdrawal (< 0) by the operator; the new balance.
        Refused with 402 when a withdrawal would take the balance below zero."""
        return store.move_money(conn, player, player.balance, amount, kind, reference)

    def entries(
        self, conn: Connection, player_id: int, limit: int, before: int | None
    ) -> list[dict[str, Any]]:
        """The player's ledger, newest first (``before``: entries with smaller ids only)."""
        query = select(t.ledger).where(t.ledger.c.player_id == player_id)
        if before is not None:
            query = query.where(t.ledger.c.id < before)
        return [
            {
                "id": r.id,
                "amount": r.amount,
                "balance_after": r.balance_after,
                "kind": r.kind,
                "round_id": r.round_id,
                "reference": r.reference,
                "at": store.iso(r.created_at),
            }
            for r in conn.execute(query.order_by(t.ledger.c.id.desc()).limit(limit))
        ]

    # -- plumbing --------------------------------------------------------------------------

    def _add(
        self, conn: Connection, player: Account, amount: int, kind: str, reference: str, round_id: int
    ) -> Movement:
        balance = q(
            conn,
            "UPDATE players SET balance = balance + :a WHERE id = :id RETURNING balance",
            {"a": amount, "id": player.id},
        ).scalar_one()
        return self._record(conn, player, amount, int(balance), kind, reference, round_id)

    @staticmethod
    def _record(
        conn: Connection, player: Account, amount: int, balance: int, kind: str, reference: str, round_id: int
    ) -> Movement:
        store.ledger_entry(conn, player.id, amount, balance, kind, reference, round_id)
        return Movement(reference, amount, balance)
