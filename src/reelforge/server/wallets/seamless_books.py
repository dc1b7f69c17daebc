"""The seamless wallet's books in our database: every transaction sent to the operator
(``seamless_transactions``), each seamless player's last known operator balance
(``seamless_accounts``), the mirror rows in ``ledger``, and the outbox rows that deliver them.

Every function runs in the caller's transaction; none commits.  The flow they serve, and what
each crash leaves behind, is in :mod:`reelforge.server.wallets.seamless_wallet`.

The displayed balance.  The operator has the money; ``players.balance`` is our running figure
of it, moved by exactly what our rounds move (a stake down when its debit is confirmed, a win or
a refund up when it is queued, so a win shows at once although its credit is on its way), each
move a ``ledger`` row whose ``balance_after`` is the figure: history, replies and the ledger are
exact and chained whatever is in flight.  A reply's operator balance cannot be taken as the
figure while anything is in flight: a debit's reply may or may not include a credit still on its
way, and a redelivered credit is answered with its first reply, an old balance.  So the replies
only keep ``seamless_accounts.operator_balance``, the freshest (by the operator's ledger position
``balance_seq`` when its replies carry one, else by when the requests were sent), and the figure
is **reconciled** with it when the player is quiet: nothing in flight (no stake being taken, no
credit, refund or rollback on its way) and no round in play.  Then the operator has applied every
transaction we sent, and its freshest balance plus what it refused to take (credits failed for
good, owed) is the truth; a difference is the operator's own moves (a deposit, a withdrawal,
another game) and is booked as a ledger row of kind ``operator``, so the ledger chain stays
unbroken and a round's ``balance_before − stake + win = balance_after``.  The operator's debit
has the last word on funds.

The ledger.  Stakes, wins and refunds of seamless rounds are mirrored in ``ledger`` (kind
``stake``/``win``/``refund``, reference = the protocol's transaction id, ``balance_after`` the
displayed balance; ``operator`` for a reconciliation), so history, reports and the audit read one
book whichever wallet holds the money: a seamless player's balance is its ledger's sum too, and
:func:`audit` checks these books besides.
"""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import Connection

from reelforge.seamless.protocol import CreditRequest, RollbackRequest, TransactionReply
from reelforge.server.core.errors import ApiError, conflict
from reelforge.server.storage import store
from reelforge.server.storage.sql import q, x
from reelforge.server.wallets.outbox import WALLET_CREDIT, WALLET_ROLLBACK, enqueue

# seamless_transactions.kind and .status (see schema.py)
DEBIT, CREDIT, REFUND, ROLLBACK = "debit", "credit", "refund", "rollback"
PENDING, CONFIRMED, REFUSED, CANCELLED, ROLLED_BACK = (
    "pending",
    "confirmed",
    "refused",
    "cancelled",
    "rolled_back",
)

_INSTALLATION_KEY = "seamless_installation"
_NEXT_ROUND_KEY = "seamless_next_round_id"


def transaction_id(conn: Connection, round_id: int, what: str) -> str:
    """``rf-<installation>-<round>-<what>``: the installation part (random, made once per
    database) keeps two deployments, or a database started afresh, from ever sending the same id
    to one operator (which would answer with the other's first reply and move nothing)."""
    inst = store.get_setting(conn, _INSTALLATION_KEY, "", operator_id=0)
    if not inst:  # the first stake ever; two at once keep whichever committed first
        x(
            conn,
            "INSERT INTO server_settings (operator_id, key, value) VALUES (0, :k, :v)"
            " ON CONFLICT (operator_id, key) DO NOTHING",
            {"k": _INSTALLATION_KEY, "v": secrets.token_hex(4)},
        )
        inst = store.get_setting(conn, _INSTALLATION_KEY, "", operator_id=0)
    return f"rf-{inst}-{round_id}-{what}"


def next_round_id(conn: Connection) -> int:
    """A round id nobody else will take: the debit names it before the round is stored."""
    if conn.dialect.name == "postgresql":
        return int(q(conn, "SELECT nextval(pg_get_serial_sequence('rounds', 'id')) AS id").scalar_one())
    # SQLite: a counter past the highest id; this transaction holds the database's write lock,
    # and in seamless mode every round is stored under an id taken here.
    top = int(q(conn, "SELECT COALESCE(MAX(id), 0) AS top FROM rounds").scalar_one())
    round_id = max(top + 1, int(store.get_setting(conn, _NEXT_ROUND_KEY, "1", operator_id=0)))
    store.put_setting(conn, _NEXT_ROUND_KEY, str(round_id + 1), operator_id=0)
    return round_id


def reserved_round_id(conn: Connection) -> int | None:
    """SQLite, a round stored without a reserved id: once seamless stakes reserve ids here (the
    counter exists), every round takes its id from the counter too, so that an internal
    operator's round, stored while a seamless stake is on its way, never takes the id that
    stake named.  None: nothing was ever reserved (SQLite's own next id is right)."""
    if conn.dialect.name == "postgresql" or not store.get_setting(conn, _NEXT_ROUND_KEY, "", operator_id=0):
        return None
    return next_round_id(conn)


# -- accounts and the displayed balance ---------------------------------------------------------


def ensure_account(conn: Connection, player_id: int) -> None:
    """Mark the player as one whose money the operator keeps (their balance so far is the
    starting point, until a reply gives a better one)."""
    x(
        conn,
        "INSERT INTO seamless_accounts (player_id, operator_balance, balance_sent_at, created_at,"
        " updated_at) SELECT id, balance, 0, :now, :now FROM players WHERE id = :p"
        " ON CONFLICT (player_id) DO NOTHING",
        {"p": player_id, "now": store.now()},
    )


def is_seamless(conn: Connection, player_id: int) -> bool:
    return (
        q(conn, "SELECT 1 AS found FROM seamless_accounts WHERE player_id = :p", {"p": player_id}).first()
        is not None
    )


def apply_balance(
    conn: Connection, player_id: int, balance: int, sent_at: float, seq: int | None = None
) -> None:
    """Take the operator's balance from a reply unless a fresher one was taken.  Fresher: at a
    higher ledger position (``seq``, the reply's ``balance_seq``) when the operator gives one,
    so a redelivered transaction answered with its first reply (an old balance) never wins;
    else from a request sent later (``sent_at``)."""
    if seq is not None:
        x(
            conn,
            "UPDATE seamless_accounts SET operator_balance = :b, balance_seq = :s, updated_at = :now,"
            " balance_sent_at = CASE WHEN balance_sent_at > :t THEN balance_sent_at ELSE :t END"
            " WHERE player_id = :p AND (balance_seq IS NULL OR balance_seq < :s)",
            {"b": balance, "s": seq, "t": sent_at, "now": store.now(), "p": player_id},
        )
        return
    x(
        conn,
        "UPDATE seamless_accounts SET operator_balance = :b, balance_sent_at = :t, updated_at = :now"
        " WHERE player_id = :p AND balance_sent_at <= :t",
        {"b": balance, "t": sent_at, "now": store.now(), "p": player_id},
    )


def move_balance(conn: Connection, player_id: int, amount: int) -> int:
    """Our running figure moved by one of our own transactions; returns it."""
    return int(
        q(
            conn,
            "UPDATE players SET balance = balance + :a WHERE id = :p RETURNING balance",
            {"a": amount, "p": player_id},
        ).scalar_one()
    )


def reconcile(conn: Connection, player_id: int) -> int:
    """If the player is quiet (nothing in flight, no round in play), book the difference between
    the truth (the operator's freshest balance + what is owed and failed for good) and our
    figure as an ``operator`` ledger row.  Returns the displayed balance.  The caller holds the
    player's lock."""
    row = q(
        conn,
        "SELECT p.balance, a.operator_balance, a.balance_seq,"
        " (SELECT COALESCE(SUM(t.amount), 0) FROM seamless_transactions t WHERE t.player_id = :p"
        "  AND t.status = 'pending' AND t.kind IN ('credit', 'refund')) AS owed,"
        " EXISTS (SELECT 1 FROM seamless_transactions t JOIN outbox o ON o.dedup_key = t.transaction_id"
        "  WHERE t.player_id = :p AND t.status = 'pending' AND o.status = 'pending') AS in_flight,"
        " EXISTS (SELECT 1 FROM rounds r WHERE r.player_id = :p AND r.status = 'pending') AS in_play"
        " FROM players p JOIN seamless_accounts a ON a.player_id = p.id WHERE p.id = :p",
        {"p": player_id},
    ).one()
    figure = int(row.balance)
    if row.in_flight or row.in_play:
        return figure
    drift = int(row.operator_balance) + int(row.owed) - figure
    if drift:
        figure = move_balance(conn, player_id, drift)
        position = "t" if row.balance_seq is None else row.balance_seq
        reference = f"operator:{position}:{secrets.token_hex(4)}"
        _mirror(conn, player_id, drift, figure, "operator", reference, None)
    return figure


def refuse_cash_move(conn: Connection, player_id: int) -> None:
    """The operator's cash-in and cash-out on our ledger make no sense for a player whose money
    the operator keeps (and would corrupt the displayed balance)."""
    if is_seamless(conn, player_id):
        raise conflict(
            "this player's money is in the operator's seamless wallet: move it there", "seamless_wallet"
        )


# -- the book of transactions -------------------------------------------------------------------


def _book(
    conn: Connection,
    tid: str,
    player_id: int,
    round_id: int,
    kind: str,
    amount: int,
    original: str | None = None,
) -> None:
    x(
        conn,
        "INSERT INTO seamless_transactions (transaction_id, player_id, round_id, kind, status, amount,"
        " original_transaction_id, created_at) VALUES (:t, :p, :r, :k, 'pending', :a, :o, :now)",
        {"t": tid, "p": player_id, "r": round_id, "k": kind, "a": amount, "o": original, "now": store.now()},
    )


def _set_status(conn: Connection, tid: str, status: str, reply: TransactionReply | None = None) -> bool:
    """Move a pending transaction on; False if it was no longer pending (a redelivery)."""
    row = q(
        conn,
        "UPDATE seamless_transactions SET status = :s, operator_transaction_id = :ot,"
        " operator_balance = :ob, confirmed_at = :now WHERE transaction_id = :t AND status = 'pending'"
        " RETURNING transaction_id",
        {
            "s": status,
            "ot": None if reply is None else reply.operator_transaction_id,
            "ob": None if reply is None else reply.balance,
            "now": store.now(),
            "t": tid,
        },
    ).first()
    return row is not None


def _mirror(
    conn: Connection, player_id: int, amount: int, balance: int, kind: str, tid: str, round_id: int | None
) -> None:
    """The ledger row of a seamless movement (no funds check: the operator made it)."""
    x(
        conn,
        "INSERT INTO ledger (player_id, amount, balance_after, kind, round_id, reference, created_at)"
        " VALUES (:p, :a, :b, :k, :r, :t, :now)",
        {"p": player_id, "a": amount, "b": balance, "k": kind, "r": round_id, "t": tid, "now": store.now()},
    )


# -- a stake: reserved, then confirmed with its round, or refused, or compensated ----------------


def reserve_stake(
    conn: Connection, player_id: int, external_id: str, currency: str, amount: int, grace_s: float
) -> dict[str, Any]:
    """Before the debit is sent: its round id, its transaction id, and its compensation — a
    rollback in the outbox, due after ``grace_s`` unless the round is stored first.  Returns
    what the debit and its confirmation need."""
    ensure_account(conn, player_id)
    round_id = next_round_id(conn)
    debit_id = transaction_id(conn, round_id, "debit")
    rollback_id = transaction_id(conn, round_id, "rollback")
    _book(conn, debit_id, player_id, round_id, DEBIT, amount)
    _book(conn, rollback_id, player_id, round_id, ROLLBACK, amount, debit_id)
    request = RollbackRequest(
        transaction_id=rollback_id,
        original_transaction_id=debit_id,
        round_id=str(round_id),
        player_id=external_id,
        amount=amount,
        currency=currency,
    )
    enqueue(conn, WALLET_ROLLBACK, rollback_id, request.model_dump(), delay_s=grace_s)
    return {"round_id": round_id, "debit_id": debit_id, "rollback_id": rollback_id}


def _cancel_compensation(conn: Connection, rollback_id: str, why: str) -> bool:
    """Take a compensating rollback back before it was ever sent; False if a worker has
    claimed it (it is, or may be, at the operator: it must be let through)."""
    row = q(
        conn,
        "UPDATE outbox SET status = 'done', done_at = :now, last_error = :why WHERE dedup_key = :k"
        " AND status = 'pending' AND attempts = 0 AND claimed_by IS NULL RETURNING id",
        {"now": store.now(), "why": f"cancelled: {why}", "k": rollback_id},
    ).first()
    if row is None:
        return False
    _set_status(conn, rollback_id, CANCELLED)
    return True


def confirm_stake(
    conn: Connection,
    player_id: int,
    stake: dict[str, Any],
    amount: int,
    reply: TransactionReply,
    sent_at: float,
) -> int:
    """In the round's transaction: the debit is the round's.  Its compensation is cancelled —
    or, if a worker already took it, the round is refused (503) and the rollback goes through.
    Returns the displayed balance."""
    if not _cancel_compensation(conn, stake["rollback_id"], "its round was stored"):
        raise ApiError(
            503,
            "wallet_unavailable",
            "the stake was taken too late and is being given back; try again",
            {"Retry-After": "1"},
        )
    _set_status(conn, stake["debit_id"], CONFIRMED, reply)
    apply_balance(conn, player_id, reply.balance, sent_at, reply.balance_seq)
    balance = move_balance(conn, player_id, -amount)
    _mirror(conn, player_id, -amount, balance, "stake", stake["debit_id"], stake["round_id"])
    return balance


def refuse_stake(conn: Connection, stake: dict[str, Any]) -> None:
    """The operator refused the debit: nothing moved, so its compensation is not needed (if a
    worker took it already, it is harmless: a rollback of a refused debit moves nothing)."""
    _set_status(conn, stake["debit_id"], REFUSED)
    _cancel_compensation(conn, stake["rollback_id"], "the debit was refused")


def compensate_now(conn: Connection, stake: dict[str, Any]) -> None:
    """The debit's outcome is unknown, or its round was not stored: the rollback is due now."""
    x(
        conn,
        "UPDATE outbox SET next_attempt_at = :now WHERE dedup_key = :k AND status = 'pending'"
        " AND claimed_by IS NULL AND next_attempt_at > :now",
        {"now": store.now(), "k": stake["rollback_id"]},
    )


# -- credits and refunds: queued in the round's transaction ---------------------------------------


def queue_payment(
    conn: Connection,
    player: Any,
    amount: int,
    round_id: int,
    kind: str,
    debit_id: str | None = None,
) -> tuple[int, str]:
    """A win (``credit``, 0 closes the round) or a void's refund (``refund``, sent as a rollback
    of the round's debit ``debit_id``) into the book, the outbox and the ledger mirror; our figure
    moves by it at once.  Returns the displayed balance and the transaction id (the outbox key)."""
    tid = transaction_id(conn, round_id, "credit" if kind == CREDIT else "void")
    _book(conn, tid, player.id, round_id, kind, amount, debit_id)
    fields = {"round_id": str(round_id), "player_id": player.external_id, "amount": amount}
    if kind == CREDIT:
        message = CreditRequest(transaction_id=tid, currency=player.currency, **fields)
        # ``tid`` is unique in the book just written: not read back (a plain write).
        enqueue(conn, WALLET_CREDIT, tid, message.model_dump(), read_back=False)
    else:
        assert debit_id is not None
        message = RollbackRequest(
            transaction_id=tid, original_transaction_id=debit_id, currency=player.currency, **fields
        )
        enqueue(conn, WALLET_ROLLBACK, tid, message.model_dump(), read_back=False)
    balance = move_balance(conn, player.id, amount)
    if amount:
        _mirror(conn, player.id, amount, balance, "win" if kind == CREDIT else "refund", tid, round_id)
    return balance, tid


def round_debit(conn: Connection, round_id: int) -> str | None:
    """The transaction id of the debit that staked the round (None: not a seamless round)."""
    return q(
        conn,
        "SELECT transaction_id FROM seamless_transactions WHERE round_id = :r AND kind = 'debit'"
        " AND status = 'confirmed'",
        {"r": round_id},
    ).scalar()


# -- deliveries confirmed by the operator ---------------------------------------------------------


def delivered(conn: Connection, tid: str, reply: TransactionReply, sent_at: float) -> None:
    """A credit, refund or rollback the operator answered: the book moves on (once: a
    redelivery finds it confirmed), a compensated debit is marked rolled back, the reply's
    balance is kept if it is the freshest, and the player reconciled if now quiet."""
    row = q(
        conn,
        "SELECT player_id, kind, original_transaction_id FROM seamless_transactions"
        " WHERE transaction_id = :t",
        {"t": tid},
    ).first()
    if row is None:  # not ours (enqueued by hand?): delivered all the same
        return
    store.lock_player(conn, row.player_id)
    if _set_status(conn, tid, CONFIRMED, reply) and row.kind == ROLLBACK:
        x(
            conn,
            "UPDATE seamless_transactions SET status = 'rolled_back' WHERE transaction_id = :t"
            " AND status = 'pending'",
            {"t": row.original_transaction_id},
        )
    apply_balance(conn, row.player_id, reply.balance, sent_at, reply.balance_seq)
    reconcile(conn, row.player_id)


def launch_account(
    conn: Connection,
    operator_id: int,
    external_id: str,
    currency: str,
    balance: int,
    sent_at: float,
    seq: int | None = None,
) -> int:
    """The operator's player its launch token named: found or created, marked seamless, with
    the balance the operator gave.  Returns the displayed balance."""
    x(  # two launches of a new player at once: one creates it, the other finds it
        conn,
        "INSERT INTO players (operator_id, external_id, currency, balance, created_at)"
        " VALUES (:o, :e, :c, 0, :now) ON CONFLICT (operator_id, external_id) DO NOTHING",
        {"o": operator_id, "e": external_id, "c": currency, "now": store.now()},
    )
    row = q(
        conn,
        "SELECT id, currency FROM players WHERE operator_id = :o AND external_id = :e",
        {"o": operator_id, "e": external_id},
    ).one()
    if row.currency != currency:
        raise conflict(
            f"player {external_id} plays in {row.currency} here, the operator says {currency}",
            "currency_mismatch",
        )
    store.lock_player(conn, row.id)
    ensure_account(conn, row.id)
    apply_balance(conn, row.id, balance, sent_at, seq)
    return reconcile(conn, row.id)


# -- the audit ------------------------------------------------------------------------------------


def audit(conn: Connection) -> dict[str, Any]:
    """Our side's exactly-once checks: every quiet seamless player's balance (nothing in
    flight, no round in play: see :func:`reconcile`) is its operator balance plus what is owed;
    every stored round of a seamless debit has that debit confirmed and its compensation
    cancelled (never sent), one credit of its win when complete, none while pending, one refund
    of its stake when voided; no confirmed debit lacks its round; every pending transaction
    still has its outbox row on the way.  ``seamless_players`` lists the players whose money
    the operator keeps."""
    players = {
        r.player_id: r
        for r in q(
            conn,
            "SELECT a.player_id, a.operator_balance, p.balance,"
            " EXISTS (SELECT 1 FROM rounds r WHERE r.player_id = a.player_id AND r.status = 'pending')"
            " AS in_play FROM seamless_accounts a JOIN players p ON p.id = a.player_id",
        ).all()
    }
    txs = q(
        conn,
        "SELECT t.transaction_id, t.player_id, t.round_id, t.kind, t.status, t.amount, o.status AS outbox"
        " FROM seamless_transactions t LEFT JOIN outbox o ON o.dedup_key = t.transaction_id",
    ).all()
    rounds = {r.id: r for r in q(conn, "SELECT id, player_id, status, stake, win FROM rounds").all()}
    owed: dict[int, int] = {}
    in_flight: set[int] = set()
    by_round: dict[int, list[Any]] = {}
    undelivered = []
    for tx in txs:
        by_round.setdefault(tx.round_id, []).append(tx)
        if tx.status == PENDING and tx.kind in (CREDIT, REFUND):
            owed[tx.player_id] = owed.get(tx.player_id, 0) + tx.amount
        if tx.status == PENDING and tx.outbox == PENDING:
            in_flight.add(tx.player_id)
        if tx.status == PENDING and tx.kind != DEBIT and tx.outbox not in (PENDING, "failed"):
            undelivered.append(tx.transaction_id)
    bad_players = [
        p
        for p, r in players.items()
        if p not in in_flight and not r.in_play and r.balance != r.operator_balance + owed.get(p, 0)
    ]
    bad_rounds = []
    for round_id, group in by_round.items():
        kinds: dict[str, list[Any]] = {}
        for tx in group:
            kinds.setdefault(tx.kind, []).append(tx)
        debits = [tx for tx in kinds.get(DEBIT, []) if tx.status == CONFIRMED]
        rnd = rounds.get(round_id)
        if rnd is None or not debits:
            if debits or kinds.get(CREDIT) or kinds.get(REFUND):
                bad_rounds.append(round_id)  # money for a round we do not have, or unstaked
            continue
        credits, refunds = kinds.get(CREDIT, []), kinds.get(REFUND, [])
        rollbacks_ok = all(tx.status == CANCELLED for tx in kinds.get(ROLLBACK, []))
        expect_credit = [rnd.win] if rnd.status == "complete" else []
        expect_refund = [rnd.stake] if rnd.status == "voided" else []
        if (
            len(debits) != 1
            or debits[0].amount != rnd.stake
            or debits[0].player_id != rnd.player_id
            or not rollbacks_ok
            or [tx.amount for tx in credits] != expect_credit
            or [tx.amount for tx in refunds] != expect_refund
        ):
            bad_rounds.append(round_id)
    return {
        "seamless_players": sorted(players),
        "seamless_balances_match": not bad_players,
        "seamless_rounds_match": not bad_rounds and not undelivered,
        "bad_seamless_players": bad_players,
        "bad_seamless_rounds": sorted(bad_rounds),
        "undelivered_seamless": undelivered,
    }
