"""The game server's side of the seamless wallet: signed requests to the operator's wallet.

Every call ends in exactly one of three ways, and the difference is what the caller must do:

* a typed reply — the operator accepted it;
* :class:`WalletRefused` — a definite "no" (insufficient funds, unknown player, …): nothing
  moved, the caller may tell the player;
* :class:`WalletUnavailable` — timeout, connection failure, 5xx, 408/429, a malformed or badly
  signed reply: the outcome is UNKNOWN.  The money may have moved.  A debit must be rolled back
  (:meth:`SeamlessClient.rollback`, which the operator honours even if the debit arrives later);
  a credit or rollback must be retried with the same ``transaction_id`` until it is answered
  (the durable outbox, :mod:`reelforge.server.wallets.outbox`, does that).

One call is one HTTP attempt: retrying belongs to the caller, who knows whether it is a debit
(never retried blindly — roll back instead) or a credit (retried until paid).

Replies are signed by the operator with the same scheme and secret as requests; the client
checks that signature (``verify_replies=True``, the default) and that the reply names the
request's ``transaction_id``, so a proxy's error page or a tampered balance is never taken
for an answer.  The client is thread-safe (one ``httpx.Client`` connection pool).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, overload

import httpx
from pydantic import ValidationError

from reelforge.seamless.protocol import (
    CONTENT_TYPE,
    PATHS,
    REPLAY_WINDOW_S,
    REPLY_TYPES,
    AuthenticateReply,
    AuthenticateRequest,
    CreditRequest,
    DebitRequest,
    ErrorReply,
    Message,
    Operation,
    RollbackRequest,
    SignatureError,
    TransactionReply,
    operation_of,
    sign_headers,
    verify_headers,
)

if TYPE_CHECKING:
    from reelforge.server.wallets.outbox import OutboxMessage

DEFAULT_TIMEOUT_S = 5.0
# Statuses that say "try again later" although they are not 5xx: the request was not processed
# or we cannot know that it was.
_RETRYABLE_4XX = frozenset({408, 425, 429})


class WalletError(Exception):
    """Base of the two outcomes that are not a reply."""

    def __init__(self, operation: str, message: str) -> None:
        super().__init__(f"{operation}: {message}")
        self.operation = operation


class WalletRefused(WalletError):
    """The operator definitely refused: nothing moved.  ``code`` is the protocol's error code
    (see :class:`reelforge.seamless.protocol.ErrorCode`; operators may send others)."""

    def __init__(self, operation: str, code: str, message: str, status: int) -> None:
        super().__init__(operation, f"refused {code} ({status}): {message}")
        self.code = code
        self.message = message
        self.status = status


class WalletUnavailable(WalletError):
    """No trustworthy answer: the outcome is unknown (roll back a debit, retry a credit).
    ``status`` is the HTTP status when there was one."""

    def __init__(self, operation: str, reason: str, status: int | None = None) -> None:
        super().__init__(operation, f"unavailable: {reason}")
        self.reason = reason
        self.status = status


class SeamlessClient:
    """Signed HTTP calls to one operator wallet.

    ``base_url`` is the operator's wallet root (the paths ``/debit`` etc. are appended);
    ``timeout_s`` bounds connecting, sending and each wait for reply bytes.  ``transport`` lets
    tests substitute an :class:`httpx.MockTransport`; ``clock`` is the signing clock."""

    def __init__(
        self,
        base_url: str,
        secret: str | bytes,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        verify_replies: bool = True,
        replay_window_s: float = REPLAY_WINDOW_S,
        transport: httpx.BaseTransport | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not secret:
            raise ValueError("the shared secret must not be empty")
        self._secret = secret
        self._verify = verify_replies
        self._window = replay_window_s
        self._clock = clock
        self.timeout_s = timeout_s
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            timeout=httpx.Timeout(timeout_s),
            transport=transport,
            follow_redirects=False,  # a redirect is a misconfiguration, not an answer
        )

    # -- the four operations ---------------------------------------------------------------

    def authenticate(self, token: str) -> AuthenticateReply:
        """Who the launch token belongs to, their currency and balance."""
        return self.send(AuthenticateRequest(token=token))

    def debit(
        self, *, transaction_id: str, round_id: str | int, player_id: str, amount: int, currency: str
    ) -> TransactionReply:
        """Take a stake.  On :class:`WalletUnavailable` roll it back: never assume either way."""
        return self.send(
            DebitRequest(
                transaction_id=transaction_id,
                round_id=_round_id(round_id),
                player_id=player_id,
                amount=amount,
                currency=currency,
            )
        )

    def credit(
        self, *, transaction_id: str, round_id: str | int, player_id: str, amount: int, currency: str
    ) -> TransactionReply:
        """Pay a win.  On :class:`WalletUnavailable` retry with the same ``transaction_id``."""
        return self.send(
            CreditRequest(
                transaction_id=transaction_id,
                round_id=_round_id(round_id),
                player_id=player_id,
                amount=amount,
                currency=currency,
            )
        )

    def rollback(
        self,
        *,
        transaction_id: str,
        original_transaction_id: str,
        round_id: str | int,
        player_id: str,
        amount: int,
        currency: str,
    ) -> TransactionReply:
        """Cancel the debit ``original_transaction_id`` (refunded once, refused if it comes
        later).  On :class:`WalletUnavailable` retry with the same ``transaction_id``."""
        return self.send(
            RollbackRequest(
                transaction_id=transaction_id,
                original_transaction_id=original_transaction_id,
                round_id=_round_id(round_id),
                player_id=player_id,
                amount=amount,
                currency=currency,
            )
        )

    # -- the one HTTP exchange -------------------------------------------------------------

    @overload
    def send(self, request: AuthenticateRequest) -> AuthenticateReply: ...
    @overload
    def send(self, request: DebitRequest | CreditRequest | RollbackRequest) -> TransactionReply: ...
    def send(self, request: Message) -> Any:
        """Sign and POST one request message; its typed reply, or raise (see the module)."""
        op = operation_of(request)
        body = request.to_json()
        headers = {"Content-Type": CONTENT_TYPE, **sign_headers(self._secret, body, now=self._clock())}
        try:
            response = self._http.post(PATHS[op], content=body, headers=headers)
        except httpx.TimeoutException as exc:
            raise WalletUnavailable(
                op, f"no reply within {self.timeout_s:g} s ({type(exc).__name__})"
            ) from exc
        except httpx.HTTPError as exc:  # connection refused/reset, protocol errors
            raise WalletUnavailable(op, f"{type(exc).__name__}: {exc}") from exc
        return self._interpret(op, request, response)

    def _interpret(self, op: Operation, request: Message, response: httpx.Response) -> Any:
        status, raw = response.status_code, response.content
        if status >= 500 or status in _RETRYABLE_4XX:
            raise WalletUnavailable(op, f"HTTP {status}: {_excerpt(raw)}", status)
        if self._verify:
            try:
                verify_headers(self._secret, raw, response.headers, now=self._clock(), window_s=self._window)
            except SignatureError as exc:
                # Cannot tell a forged or proxied answer from the operator's: unknown outcome.
                raise WalletUnavailable(op, f"reply signature: {exc} (HTTP {status})", status) from exc
        if 200 <= status < 300:
            try:
                reply = REPLY_TYPES[op].from_json(raw)
            except ValidationError as exc:
                raise WalletUnavailable(op, f"malformed reply: {_excerpt(raw)}", status) from exc
            sent_id = getattr(request, "transaction_id", None)
            if sent_id is not None and reply.transaction_id != sent_id:  # type: ignore[attr-defined]
                raise WalletUnavailable(op, f"reply names transaction {reply.transaction_id!r}", status)  # type: ignore[attr-defined]
            return reply
        if 400 <= status < 500:
            try:
                error = ErrorReply.from_json(raw).error
            except ValidationError as exc:
                # A 4xx that is not the protocol's error (a proxy's page): not a definite no.
                raise WalletUnavailable(
                    op, f"HTTP {status} without an error body: {_excerpt(raw)}", status
                ) from exc
            raise WalletRefused(op, error.code, error.message, status)
        raise WalletUnavailable(op, f"unexpected HTTP {status}", status)  # 1xx/3xx

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> SeamlessClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _round_id(round_id: str | int) -> str:
    # The game server's round ids are integers; the protocol's are strings.
    if isinstance(round_id, bool) or not isinstance(round_id, (str, int)):
        raise TypeError(f"round_id must be a str or an int, not {type(round_id).__name__}")
    return str(round_id)


def _excerpt(raw: bytes, limit: int = 200) -> str:
    text = raw[:limit].decode("utf-8", "replace")
    return text + ("…" if len(raw) > limit else "")


# -- delivery through the durable outbox ---------------------------------------------------------


def outbox_handlers(client: SeamlessClient) -> dict[str, Callable[[OutboxMessage], None]]:
    """Handlers for :class:`reelforge.server.wallets.outbox.OutboxWorker` that deliver ``wallet.credit``
    and ``wallet.rollback`` rows, whose payload is the request message as JSON
    (``CreditRequest(...).model_dump()``).  :class:`WalletUnavailable` propagates, so the row is
    retried with the same ``transaction_id``; :class:`WalletRefused` becomes
    :class:`~reelforge.server.wallets.outbox.PermanentFailure`: the operator definitively refused money
    it owes, which a person must resolve."""
    from reelforge.server.wallets.outbox import WALLET_CREDIT, WALLET_ROLLBACK, PermanentFailure

    def deliver(kind: type[CreditRequest] | type[RollbackRequest]) -> Callable[[OutboxMessage], None]:
        def handle(message: OutboxMessage) -> None:
            try:
                request = kind.model_validate(message.payload)
            except ValidationError as exc:
                raise PermanentFailure(f"malformed {message.kind} payload: {exc}") from exc
            try:
                client.send(request)
            except WalletRefused as exc:
                raise PermanentFailure(str(exc)) from exc

        return handle

    return {WALLET_CREDIT: deliver(CreditRequest), WALLET_ROLLBACK: deliver(RollbackRequest)}
