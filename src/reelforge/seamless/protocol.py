"""The seamless wallet protocol: message formats, canonical encoding and signing.

The game server POSTs JSON to the operator's base URL + ``/authenticate``, ``/debit``,
``/credit`` or ``/rollback``; the operator answers with JSON.  Both directions are signed with
a shared secret::

    X-Reelforge-Timestamp: <unix seconds>
    X-Reelforge-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>

The signature covers the exact bytes sent, so the sender encodes with :func:`canonical_json`
(sorted keys, no whitespace, ASCII only) and the receiver verifies the raw body *before*
parsing it.  The timestamp bounds replays to :data:`REPLAY_WINDOW_S`; within the window a
replayed debit, credit or rollback is harmless because every transaction is deduplicated by its
``transaction_id`` (a repeat gets the first reply).

Messages are strict pydantic models: an amount must be a JSON integer (minor units) — a float,
a numeric string or a boolean is refused, never coerced.  Unknown fields are ignored, so either
side may add fields without breaking the other.  docs/wallet.md is the integrator's version.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, model_validator

TIMESTAMP_HEADER = "X-Reelforge-Timestamp"
SIGNATURE_HEADER = "X-Reelforge-Signature"
REPLAY_WINDOW_S = 300  # a message signed further than this from the receiver's clock is refused
CONTENT_TYPE = "application/json"

Operation = Literal["authenticate", "debit", "credit", "rollback"]
OPERATIONS: tuple[Operation, ...] = ("authenticate", "debit", "credit", "rollback")
PATHS: dict[Operation, str] = {op: f"/{op}" for op in OPERATIONS}


# -- canonical encoding and signatures -------------------------------------------------------


def canonical_json(data: Any) -> bytes:
    """The one encoding a sender uses: sorted keys, compact separators, ASCII only (other
    characters as ``\\uXXXX`` escapes), no NaN or infinity.  Equal data gives equal bytes, so a
    stored reply can be replayed byte for byte and a test vector can be reproduced anywhere."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode(
        "ascii"
    )


def _key(secret: str | bytes) -> bytes:
    return secret.encode("utf-8") if isinstance(secret, str) else secret


def signature(secret: str | bytes, timestamp: int, body: bytes) -> str:
    """``sha256=<hex>``: HMAC-SHA256 of ``b"<timestamp>.<body>"`` keyed with the secret."""
    mac = hmac.new(_key(secret), str(int(timestamp)).encode("ascii") + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def sign_headers(secret: str | bytes, body: bytes, *, now: float | None = None) -> dict[str, str]:
    """The two signature headers for ``body``, timestamped ``now`` (default: the clock)."""
    timestamp = int(time.time() if now is None else now)
    return {TIMESTAMP_HEADER: str(timestamp), SIGNATURE_HEADER: signature(secret, timestamp, body)}


class SignatureError(Exception):
    """A message whose signature is missing, malformed, stale or wrong."""


def verify_signature(
    secret: str | bytes,
    body: bytes,
    timestamp: str | None,
    provided: str | None,
    *,
    now: float | None = None,
    window_s: float = REPLAY_WINDOW_S,
) -> int:
    """Check a message's signature headers against its raw body; the timestamp if good.

    Raises :class:`SignatureError` (its message says which check failed; do not echo it to an
    unauthenticated peer in more detail than "invalid signature")."""
    if not timestamp or not provided:
        raise SignatureError("missing signature headers")
    # Digits only (no sign, no spaces): int() alone would accept " 12" and "+12".
    if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= 12):
        raise SignatureError("malformed timestamp")
    sent_at = int(timestamp)
    clock = time.time() if now is None else now
    if abs(clock - sent_at) > window_s:
        raise SignatureError(f"timestamp {sent_at} is outside the {window_s:g} s replay window")
    expected = signature(secret, sent_at, body).encode("ascii")
    # Constant-time comparison: a timing side channel must not reveal the expected digest.
    if not hmac.compare_digest(expected, provided.encode("utf-8", "replace")):
        raise SignatureError("signature mismatch")
    return sent_at


def verify_headers(
    secret: str | bytes,
    body: bytes,
    headers: Mapping[str, str],
    *,
    now: float | None = None,
    window_s: float = REPLAY_WINDOW_S,
) -> int:
    """:func:`verify_signature` reading the two headers from a (case-insensitive) mapping."""
    return verify_signature(
        secret, body, headers.get(TIMESTAMP_HEADER), headers.get(SIGNATURE_HEADER), now=now, window_s=window_s
    )


# -- messages --------------------------------------------------------------------------------

# Identifiers are opaque strings.  Transaction ids are restricted to a safe alphabet (letters,
# digits, ``_ . : -``) because they end up in logs, URLs and database keys on both sides.
TransactionId = Annotated[StrictStr, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:\-]+$")]
PlayerId = Annotated[StrictStr, Field(min_length=1, max_length=128)]
RoundId = Annotated[StrictStr, Field(min_length=1, max_length=128)]
Token = Annotated[StrictStr, Field(min_length=1, max_length=512)]
Currency = Annotated[StrictStr, Field(pattern=r"^[A-Z]{3}$")]
# Minor units (cents); the cap keeps every amount a signed 64-bit integer on both sides.
Amount = Annotated[StrictInt, Field(ge=0, le=2**62)]
Balance = Annotated[StrictInt, Field(ge=-(2**62), le=2**62)]


class Message(BaseModel):
    # strict: no coercion (1.0, "100" and true are not amounts); extra fields are ignored so
    # that either side can add fields; frozen: a message is a value.
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    def to_json(self) -> bytes:
        """The message's canonical bytes (what is signed and sent)."""
        return canonical_json(self.model_dump(mode="json"))

    @classmethod
    def from_json(cls, raw: bytes | str) -> Self:
        """Parse and validate; raises :class:`pydantic.ValidationError` (a ``ValueError``)."""
        return cls.model_validate_json(raw)


class AuthenticateRequest(Message):
    """Sent when a player opens a game session: the launch token the operator gave them."""

    token: Token


BalanceSeq = Annotated[
    StrictInt | None,
    Field(
        default=None,
        ge=0,
        le=2**62,
        description="the operator's ledger position of `balance`: it grows with every change of the "
        "player's balance (a global transaction sequence will do). The game server keeps the balance "
        "of the highest position it has seen, so a redelivered transaction answered with its first "
        "reply never puts an older balance back. Optional; without it the game server orders "
        "replies by when it sent their requests.",
    ),
]


class AuthenticateReply(Message):
    player_id: PlayerId
    currency: Currency
    balance: Balance
    balance_seq: BalanceSeq = None


class DebitRequest(Message):
    """Take a round's stake.  ``transaction_id`` is unique per movement, forever."""

    transaction_id: TransactionId
    round_id: RoundId
    player_id: PlayerId
    amount: Amount
    currency: Currency


class CreditRequest(Message):
    """Pay a round's win (possibly 0, which closes the round on the operator's side)."""

    transaction_id: TransactionId
    round_id: RoundId
    player_id: PlayerId
    amount: Amount
    currency: Currency


class RollbackRequest(Message):
    """Cancel the debit ``original_transaction_id``: refund it if it was taken, and make sure
    it can never be taken later (it may still be in flight)."""

    transaction_id: TransactionId
    original_transaction_id: TransactionId
    round_id: RoundId
    player_id: PlayerId
    amount: Amount
    currency: Currency

    @model_validator(mode="after")
    def _not_itself(self) -> Self:
        if self.transaction_id == self.original_transaction_id:
            raise ValueError("a rollback needs its own transaction_id, not the debit's")
        return self


class TransactionReply(Message):
    """The operator's answer to a debit, credit or rollback it accepted."""

    balance: Balance
    transaction_id: TransactionId
    operator_transaction_id: Annotated[StrictStr, Field(min_length=1, max_length=128)]
    balance_seq: BalanceSeq = None


class ErrorCode(StrEnum):
    """Error codes an operator answers with (``{"error": {"code": ..., "message": ...}}``).

    There is deliberately no "duplicate" error: a repeat of a known transaction is answered
    with the first reply, exactly as it was sent."""

    INVALID_REQUEST = "invalid_request"  # malformed JSON or fields
    INVALID_SIGNATURE = "invalid_signature"  # missing, stale or wrong signature
    # authenticate: unknown or expired token (bandit B105 false positive: a code, no password)
    INVALID_TOKEN = "invalid_token"  # nosec B105
    INSUFFICIENT_FUNDS = "insufficient_funds"  # debit: the balance cannot cover it
    PLAYER_BLOCKED = "player_blocked"  # authenticate/debit: the player may not play
    UNKNOWN_PLAYER = "unknown_player"
    CURRENCY_MISMATCH = "currency_mismatch"  # not the player's currency
    TRANSACTION_ROLLED_BACK = "transaction_rolled_back"  # a debit already cancelled by a rollback
    TRANSACTION_MISMATCH = "transaction_mismatch"  # the id is known, with a different request
    INTERNAL_ERROR = "internal_error"  # (5xx) the outcome is unknown: roll back / retry


# The HTTP status an operator sends with each code.  Clients decide on the code, not the status,
# except that any 5xx (and 408/429) means "unknown outcome".
ERROR_STATUS: dict[ErrorCode, int] = {
    ErrorCode.INVALID_REQUEST: 400,
    ErrorCode.INVALID_SIGNATURE: 401,
    ErrorCode.INVALID_TOKEN: 401,
    ErrorCode.INSUFFICIENT_FUNDS: 402,
    ErrorCode.PLAYER_BLOCKED: 403,
    ErrorCode.UNKNOWN_PLAYER: 404,
    ErrorCode.CURRENCY_MISMATCH: 409,
    ErrorCode.TRANSACTION_ROLLED_BACK: 409,
    ErrorCode.TRANSACTION_MISMATCH: 409,
    ErrorCode.INTERNAL_ERROR: 500,
}


class ErrorDetail(Message):
    # A plain string, not ErrorCode: an operator may send codes this version does not know.
    code: Annotated[StrictStr, Field(min_length=1, max_length=64)]
    message: Annotated[StrictStr, Field(max_length=2000)] = ""


class ErrorReply(Message):
    error: ErrorDetail

    @classmethod
    def of(cls, code: ErrorCode | str, message: str = "") -> ErrorReply:
        return cls(error=ErrorDetail(code=str(code), message=message))


TransactionRequest = DebitRequest | CreditRequest | RollbackRequest
Request = AuthenticateRequest | TransactionRequest

REQUEST_TYPES: dict[Operation, type[Message]] = {
    "authenticate": AuthenticateRequest,
    "debit": DebitRequest,
    "credit": CreditRequest,
    "rollback": RollbackRequest,
}
REPLY_TYPES: dict[Operation, type[Message]] = {
    "authenticate": AuthenticateReply,
    "debit": TransactionReply,
    "credit": TransactionReply,
    "rollback": TransactionReply,
}


def operation_of(request: Message) -> Operation:
    """Which endpoint a request message goes to."""
    for op, kind in REQUEST_TYPES.items():
        if type(request) is kind:
            return op
    raise TypeError(f"not a seamless request: {type(request).__name__}")
