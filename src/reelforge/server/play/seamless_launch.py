"""The player's launch with a seamless wallet (``POST /seamless/session``): the operator's launch
token, authenticated by the operator's wallet, opens a session for the player it names.

Kept apart from :mod:`reelforge.server.wallets.seamless_wallet`, the wallet itself, which sits
below the sessions: a launch finds or creates the player and opens a session, as the operator's
call does.
"""

from __future__ import annotations

import hashlib
import time

from sqlalchemy import Connection

from reelforge.seamless.client import WalletRefused, WalletUnavailable
from reelforge.server.core.errors import ApiError, bad_request, not_found
from reelforge.server.operators.accounts import DEFAULT_OPERATOR_ID, Operator
from reelforge.server.play.context import ServerContext
from reelforge.server.play.sessions import Sessions
from reelforge.server.storage.store import check_key
from reelforge.server.wallets import seamless_books as books
from reelforge.server.wallets.seamless_wallet import SeamlessWallet, unavailable


def launch(
    context: ServerContext,
    sessions: Sessions,
    key: str | None,
    token: str,
    time_limit_seconds: int | None = None,
    spend_limit: int | None = None,
    reality_check_seconds: int | None = None,
    limits_url: str | None = None,
    keep_other_sessions: bool = False,
    operator: int | None = None,
) -> tuple[int, dict]:
    """``POST /seamless/session``: the operator's launch token is authenticated by the
    operator's wallet, the player it names is found or created (in the operator's currency,
    with its balance) and a session opened for them, as the operator's session call would.  A
    repeat of the Idempotency-Key returns the same session (the token must still authenticate).
    ``operator``: whose wallet the token is for; it may be left out where one operator alone
    pays through a seamless wallet."""
    op = context.run(lambda conn: _launching(context, conn, operator))
    wallet = context.wallet_for(op)
    if not isinstance(wallet, SeamlessWallet):
        raise not_found("this operator keeps its players' money here: sessions are opened by the operator")
    key = check_key(key)
    sent_at = time.time()
    try:
        who = wallet.client.authenticate(token)
    except WalletRefused as exc:
        status, code = (403, "player_blocked") if exc.code == "player_blocked" else (401, "invalid_token")
        raise ApiError(
            status, code, f"the operator's wallet refused the launch: {exc.message or exc.code}"
        ) from None
    except WalletUnavailable:
        raise unavailable("the operator's wallet did not answer; try again") from None
    balance = context.run(
        lambda conn: books.launch_account(
            conn, op.id, who.player_id, who.currency, who.balance, sent_at, who.balance_seq
        )
    )
    # Keys are the player's own: scope them by player, as the operator's session call scopes its.
    # (another operator's player of the same id has its own keys; operator 1's kept their form)
    who_key = who.player_id if op.id == DEFAULT_OPERATOR_ID else f"{op.id}\0{who.player_id}"
    scoped = "seamless:" + hashlib.sha256(f"{who_key}\0{key}".encode()).hexdigest()[:40]
    status, reply = sessions.open_session(
        op,
        scoped,
        who.player_id,
        time_limit_seconds,
        spend_limit,
        reality_check_seconds,
        limits_url,
        keep_other_sessions,
    )
    return status, {**reply, "balance": balance, "currency": who.currency}


def _launching(context: ServerContext, conn: Connection, operator: int | None) -> Operator:
    """The operator a launch is for: the one named, else the one seamless operator."""
    if operator is not None:
        return context.operator(conn, operator)
    if context.settings.wallet_mode == "seamless":
        return context.operator(conn, DEFAULT_OPERATOR_ID)
    seamless = [o for o in context.operators.all(conn) if o.settings.wallet_mode == "seamless"]
    if len(seamless) == 1:
        return seamless[0]
    if not seamless:
        raise not_found("this server keeps its own wallet: sessions are opened by the operator")
    raise bad_request(
        "several operators pay through seamless wallets here: name the operator", "operator_required"
    )
