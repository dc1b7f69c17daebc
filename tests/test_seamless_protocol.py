"""The seamless protocol's encoding, signing and messages, and the client's reading of replies
(against an in-memory transport: every way an operator or a network can answer)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError

from reelforge.seamless.client import SeamlessClient, WalletRefused, WalletUnavailable
from reelforge.seamless.protocol import (
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    AuthenticateReply,
    CreditRequest,
    DebitRequest,
    ErrorCode,
    ErrorReply,
    RollbackRequest,
    SignatureError,
    TransactionReply,
    canonical_json,
    operation_of,
    sign_headers,
    signature,
    verify_signature,
)

DOC = Path(__file__).resolve().parents[1] / "docs" / "wallet.md"
NOW = 1_700_000_000
DEBIT = {
    "transaction_id": "rf-1042-debit",
    "round_id": "1042",
    "player_id": "alice",
    "amount": 250,
    "currency": "EUR",
}

# The worked example of docs/wallet.md (also reproducible with openssl dgst -sha256 -hmac).
EXAMPLE_BODY = (
    b'{"amount":250,"currency":"EUR","player_id":"alice","round_id":"1042","transaction_id":"rf-1042-debit"}'
)
EXAMPLE_SIGNATURE = "sha256=cd5707cf1ef227636f985dfb1f3c3a83024e241b5a0500a807e37a54b67f233f"


def test_canonical_json_is_sorted_compact_ascii() -> None:
    assert (
        canonical_json({"b": 1, "a": [1, {"d": None, "c": "é"}]})
        == b'{"a":[1,{"c":"\\u00e9","d":null}],"b":1}'
    )
    with pytest.raises(ValueError):
        canonical_json({"x": float("nan")})


def test_the_documented_worked_example() -> None:
    body = DebitRequest(**DEBIT).to_json()
    assert body == EXAMPLE_BODY
    assert signature("example-secret", NOW, body) == EXAMPLE_SIGNATURE
    assert sign_headers(b"example-secret", body, now=NOW + 0.9) == {
        TIMESTAMP_HEADER: str(NOW),
        SIGNATURE_HEADER: EXAMPLE_SIGNATURE,
    }
    text = DOC.read_text()
    for fragment in (EXAMPLE_BODY.decode(), EXAMPLE_SIGNATURE, str(NOW), "example-secret"):
        assert fragment in text


def test_verify_accepts_a_good_signature_within_the_window() -> None:
    sig = signature("s", NOW, b"{}")
    assert verify_signature("s", b"{}", str(NOW), sig, now=NOW) == NOW
    assert verify_signature("s", b"{}", str(NOW), sig, now=NOW + 300) == NOW
    assert verify_signature(b"s", b"{}", str(NOW), sig, now=NOW - 300) == NOW  # clock skew both ways


@pytest.mark.parametrize(
    ("secret", "body", "timestamp", "sig", "now", "reason"),
    [
        ("other", b"{}", str(NOW), None, NOW, "mismatch"),  # wrong secret
        ("s", b'{"a":1}', str(NOW), None, NOW, "mismatch"),  # tampered body
        ("s", b"{}", str(NOW), None, NOW + 301, "replay window"),  # stale
        ("s", b"{}", str(NOW), None, NOW - 301, "replay window"),  # from the future
        ("s", b"{}", f" {NOW}", None, NOW, "malformed"),
        ("s", b"{}", f"+{NOW}", None, NOW, "malformed"),
        ("s", b"{}", f"{NOW}.5", None, NOW, "malformed"),
        ("s", b"{}", "", None, NOW, "missing"),
        ("s", b"{}", str(NOW), "", NOW, "missing"),
        ("s", b"{}", str(NOW), signature("s", NOW, b"{}")[7:], NOW, "mismatch"),  # no sha256= prefix
        ("s", b"{}", str(NOW), signature("s", NOW, b"{}").upper(), NOW, "mismatch"),
        ("s", b"{}", str(NOW), "sha256=ünïcode", NOW, "mismatch"),
    ],
)
def test_verify_refuses(
    secret: str, body: bytes, timestamp: str, sig: str | None, now: int, reason: str
) -> None:
    provided = signature("s", NOW, b"{}") if sig is None else sig
    with pytest.raises(SignatureError, match=reason):
        verify_signature(secret, body, timestamp, provided, now=now)


@pytest.mark.parametrize("amount", [2.5, 250.0, "250", True, False, None, -1, 2**63])
def test_amounts_are_integers_only(amount: object) -> None:
    with pytest.raises(ValidationError):
        DebitRequest(**{**DEBIT, "amount": amount})
    with pytest.raises(ValidationError):  # the same refusal on the wire
        CreditRequest.from_json(json.dumps({**DEBIT, "amount": amount}))


def test_message_fields_are_checked() -> None:
    for bad in ({"currency": "eur"}, {"currency": "EURO"}, {"transaction_id": "a b"}, {"transaction_id": ""}):
        with pytest.raises(ValidationError):
            DebitRequest(**{**DEBIT, **bad})
    with pytest.raises(ValidationError):
        DebitRequest(**{**DEBIT, "round_id": 1042})  # round ids are strings on the wire
    with pytest.raises(ValidationError, match="own transaction_id"):
        RollbackRequest(**DEBIT, original_transaction_id=DEBIT["transaction_id"])
    with pytest.raises(ValidationError):
        DebitRequest(**{k: v for k, v in DEBIT.items() if k != "currency"})


def test_messages_round_trip_and_ignore_unknown_fields() -> None:
    rollback = RollbackRequest(
        **{**DEBIT, "transaction_id": "rf-1042-rollback"}, original_transaction_id="rf-1042-debit"
    )
    assert RollbackRequest.from_json(rollback.to_json()) == rollback
    assert operation_of(rollback) == "rollback"
    reply = TransactionReply.from_json(
        b'{"balance":5,"transaction_id":"t","operator_transaction_id":"o","bonus":1}'
    )
    assert reply == TransactionReply(balance=5, transaction_id="t", operator_transaction_id="o")
    with pytest.raises(ValidationError):
        reply.balance = 6  # type: ignore[misc]  # frozen
    error = ErrorReply.from_json(b'{"error":{"code":"some_future_code","message":"m"}}')
    assert error.error.code == "some_future_code"
    assert ErrorReply.of(ErrorCode.INSUFFICIENT_FUNDS, "m").to_json() == (
        b'{"error":{"code":"insufficient_funds","message":"m"}}'
    )


# -- the client's reading of replies ------------------------------------------------------------


def _client(handler, *, verify_replies: bool = True) -> SeamlessClient:  # type: ignore[no-untyped-def]
    return SeamlessClient(
        "http://wallet.test/api/",
        "s",
        timeout_s=1,
        verify_replies=verify_replies,
        transport=httpx.MockTransport(handler),
    )


def _reply(status: int, body: bytes, *, secret: str = "s", signed: bool = True) -> httpx.Response:
    headers = sign_headers(secret, body) if signed else {}
    return httpx.Response(status, content=body, headers=headers)


def _debit(client: SeamlessClient) -> TransactionReply:
    return client.debit(**{**DEBIT, "round_id": 1042})


def test_client_signs_canonical_requests_and_reads_the_reply() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        verify_signature(
            "s", request.content, request.headers[TIMESTAMP_HEADER], request.headers[SIGNATURE_HEADER]
        )
        sent = json.loads(request.content)
        return _reply(
            200,
            TransactionReply(
                balance=9750, transaction_id=sent["transaction_id"], operator_transaction_id="o1"
            ).to_json(),
        )

    with _client(handler) as client:
        reply = _debit(client)
    assert reply == TransactionReply(
        balance=9750, transaction_id="rf-1042-debit", operator_transaction_id="o1"
    )
    (request,) = seen
    assert request.url == "http://wallet.test/api/debit"
    assert request.content == EXAMPLE_BODY and request.headers["content-type"] == "application/json"


def test_client_authenticate() -> None:
    body = AuthenticateReply(player_id="alice", currency="EUR", balance=10).to_json()
    client = _client(lambda request: _reply(200, body))
    assert client.authenticate("tok") == AuthenticateReply(player_id="alice", currency="EUR", balance=10)


def test_a_definite_refusal() -> None:
    body = ErrorReply.of(ErrorCode.INSUFFICIENT_FUNDS, "balance 3 is below 250").to_json()
    with pytest.raises(WalletRefused) as info:
        _debit(_client(lambda request: _reply(402, body)))
    assert (info.value.code, info.value.status, info.value.message) == (
        "insufficient_funds",
        402,
        "balance 3 is below 250",
    )


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (lambda: _reply(500, ErrorReply.of("internal_error", "x").to_json()), "HTTP 500"),
        (lambda: _reply(503, b"<html>maintenance</html>", signed=False), "HTTP 503"),
        (lambda: _reply(429, ErrorReply.of("slow_down", "x").to_json()), "HTTP 429"),
        (lambda: _reply(408, b""), "HTTP 408"),
        (lambda: _reply(404, b"<html>not found</html>"), "without an error body"),  # a proxy's page
        (lambda: _reply(200, b'{"balance": 1.5}'), "malformed reply"),
        (lambda: _reply(200, b"{}", signed=False), "reply signature: missing"),
        (lambda: _reply(200, b"{}", secret="forged"), "reply signature: signature mismatch"),
        (
            lambda: _reply(402, ErrorReply.of("insufficient_funds", "x").to_json(), signed=False),
            "reply signature",  # an unsigned refusal is not a trustworthy refusal
        ),
        (
            lambda: _reply(
                200,
                TransactionReply(balance=1, transaction_id="other", operator_transaction_id="o").to_json(),
            ),
            "names transaction 'other'",
        ),
        (lambda: _reply(302, b""), "unexpected HTTP 302"),
    ],
)
def test_unknown_outcomes(reply, reason: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(WalletUnavailable, match=reason):
        _debit(_client(lambda request: reply()))


@pytest.mark.parametrize(
    "exc", [httpx.ConnectError("refused"), httpx.ReadTimeout("slow"), httpx.RemoteProtocolError("x")]
)
def test_transport_failures_are_unknown_outcomes(exc: Exception) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise exc

    with pytest.raises(WalletUnavailable) as info:
        _debit(_client(handler))
    assert info.value.status is None and info.value.operation == "debit"


def test_unsigned_replies_pass_when_verification_is_off() -> None:
    body = TransactionReply(balance=1, transaction_id="rf-1042-debit", operator_transaction_id="o").to_json()
    assert _debit(_client(lambda request: _reply(200, body, signed=False), verify_replies=False)).balance == 1


def test_client_refuses_bad_arguments_before_sending() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing may be sent")

    client = _client(handler)
    with pytest.raises(ValidationError):
        client.debit(**{**DEBIT, "amount": 2.5})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        client.credit(**{**DEBIT, "round_id": True})  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        SeamlessClient("http://x", "")
