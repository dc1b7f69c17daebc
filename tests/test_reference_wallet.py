"""The reference operator wallet, run as a real uvicorn server and driven by the real client:
exactly-once transactions, rollbacks (also before their debit), signatures, every injected
fault, and the ``python -m`` / ``reelforge operator-wallet`` entry point.

After each scenario the wallet's books are read back (``/_ledger``) and checked: every balance
is the sum of its player's movements, and the movements are the ones the scenario implies."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from reelforge.seamless.client import SeamlessClient, WalletRefused, WalletUnavailable
from reelforge.seamless.protocol import DebitRequest, canonical_json, sign_headers
from reelforge.seamless.reference_wallet import PlayerSeed, create_app
from server_process import LOCAL
from wallet_support import SECRET, WalletServer

SHORT = 0.4  # the client's timeout in the fault scenarios
STALL = 1.0  # how long an injected fault holds the reply (longer than SHORT)


@pytest.fixture(scope="module")
def wallet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WalletServer]:
    server = WalletServer(tmp_path_factory.mktemp("wallet") / "wallet.db").start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _no_faults_left(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if "wallet" in request.fixturenames:
        request.getfixturevalue("wallet").clear_faults()


@pytest.fixture
def client(wallet: WalletServer) -> Iterator[SeamlessClient]:
    with wallet.client() as c:
        yield c


class Player:
    """A fresh player and shorthands for its movements (transaction ids unique per player)."""

    def __init__(self, wallet: WalletServer, client: SeamlessClient, balance: int = 10_000) -> None:
        self.wallet, self.client = wallet, client
        self.id = wallet.player(balance)

    def args(self, tx: str, amount: int, round_id: int = 1) -> dict[str, Any]:
        return {
            "transaction_id": f"{self.id}-{tx}",
            "round_id": round_id,
            "player_id": self.id,
            "amount": amount,
            "currency": "EUR",
        }

    def debit(self, tx: str, amount: int, client: SeamlessClient | None = None) -> Any:
        return (client or self.client).debit(**self.args(tx, amount))

    def credit(self, tx: str, amount: int, client: SeamlessClient | None = None) -> Any:
        return (client or self.client).credit(**self.args(tx, amount))

    def rollback(self, tx: str, of: str, amount: int, client: SeamlessClient | None = None) -> Any:
        return (client or self.client).rollback(
            **self.args(tx, amount), original_transaction_id=f"{self.id}-{of}"
        )

    def books(self) -> tuple[int, dict[str, dict[str, Any]]]:
        """Balance and transactions by id (the player's prefix removed; seeding left out)."""
        balance, txs = self.wallet.books(self.id)
        by_id = {t["transaction_id"].removeprefix(f"{self.id}-"): t for t in txs if t["kind"] != "adjustment"}
        return balance, by_id

    def raw(self, op: str, body: dict[str, Any] | bytes, *, signed: bool = True) -> httpx.Response:
        """POST an arbitrary body, signed (or not): what a buggy or hostile peer could send."""
        data = body if isinstance(body, bytes) else canonical_json(body)
        headers = sign_headers(SECRET, data) if signed else {}
        return self.wallet.http.post(f"/{op}", content=data, headers=headers)


@pytest.fixture
def alice(wallet: WalletServer, client: SeamlessClient) -> Player:
    return Player(wallet, client)


def refused(code: str) -> Any:
    return pytest.raises(WalletRefused, match=code)


# -- the protocol on a healthy wallet -------------------------------------------------------


def test_authenticate(wallet: WalletServer, client: SeamlessClient, alice: Player) -> None:
    reply = client.authenticate(f"token-{alice.id}")
    assert (reply.player_id, reply.currency, reply.balance) == (alice.id, "EUR", 10_000)
    with refused("invalid_token"):
        client.authenticate("no-such-token")
    wallet.set_player(alice.id, 10_000, token=f"token-{alice.id}", blocked=True)
    with refused("player_blocked"):
        client.authenticate(f"token-{alice.id}")


def test_a_round_debit_and_credit(alice: Player) -> None:
    assert alice.debit("d1", 250).balance == 9_750
    assert alice.credit("c1", 1_000).balance == 10_750
    assert alice.credit("c2", 0).balance == 10_750  # a losing round closes with a zero credit
    balance, txs = alice.books()
    assert balance == 10_750
    assert [(t["kind"], t["moved"], t["status"]) for t in txs.values()] == [
        ("debit", -250, "applied"),
        ("credit", 1_000, "applied"),
        ("credit", 0, "applied"),
    ]


def test_a_repeat_gets_the_first_reply_byte_for_byte(wallet: WalletServer, alice: Player) -> None:
    body = {k: str(v) if k == "round_id" else v for k, v in alice.args("d1", 300).items()}
    first, again = alice.raw("debit", body), alice.raw("debit", body)
    assert first.status_code == again.status_code == 200
    assert first.content == again.content
    assert alice.debit("d1", 300).operator_transaction_id == first.json()["operator_transaction_id"]
    assert alice.books()[0] == 9_700  # moved once


def test_a_refusal_is_final_for_its_transaction_id(wallet: WalletServer, alice: Player) -> None:
    with refused("insufficient_funds"):
        alice.debit("big", 20_000)
    wallet.set_player(alice.id, 50_000, token=f"token-{alice.id}")  # a top-up
    with refused("insufficient_funds"):  # the same id keeps its first answer
        alice.debit("big", 20_000)
    assert alice.debit("big-2", 20_000).balance == 30_000  # a new id is a new question


def test_an_id_reused_for_another_request_is_refused(alice: Player) -> None:
    alice.debit("d1", 100)
    with refused("transaction_mismatch"):
        alice.debit("d1", 101)
    with refused("transaction_mismatch"):
        alice.credit("d1", 100)
    assert alice.books()[0] == 9_900


def test_refusals_for_the_player_and_currency(
    wallet: WalletServer, client: SeamlessClient, alice: Player
) -> None:
    with refused("unknown_player"):
        client.debit(transaction_id="ghost-1", round_id=1, player_id="ghost", amount=1, currency="EUR")
    with refused("currency_mismatch"):
        client.credit(**{**alice.args("c1", 5), "currency": "GBP"})
    assert alice.books()[0] == 10_000


@pytest.mark.parametrize("amount", [2.5, "250", True, None, -5])
def test_the_wire_refuses_non_integer_amounts(alice: Player, amount: object) -> None:
    body = {**alice.args("d1", 0), "round_id": "1", "amount": amount}
    reply = alice.raw("debit", body)
    assert reply.status_code == 400 and reply.json()["error"]["code"] == "invalid_request"
    assert alice.books()[1] == {}


def test_signatures_are_required(wallet: WalletServer, alice: Player) -> None:
    body = {**alice.args("d1", 10), "round_id": "1"}
    assert alice.raw("debit", body, signed=False).json()["error"]["code"] == "invalid_signature"
    data = canonical_json(body)
    tampered = wallet.http.post(
        "/debit", content=data.replace(b'"amount":10', b'"amount":1'), headers=sign_headers(SECRET, data)
    )
    assert tampered.status_code == 401
    # A client with the wrong secret cannot trust the (correctly signed) refusal either: to it
    # the outcome is unknown, and the message says why.
    with wallet.client(secret="not-the-secret") as wrong, pytest.raises(WalletUnavailable, match="HTTP 401"):
        alice.debit("d1", 10, client=wrong)
    with wallet.client(secret="not-the-secret", verify_replies=False) as wrong, refused("invalid_signature"):
        alice.debit("d1", 10, client=wrong)
    stale = wallet.client(clock=lambda: time.time() - 3_600, verify_replies=False)
    with stale, refused("invalid_signature"):
        alice.debit("d1", 10, client=stale)
    assert alice.books()[1] == {}


def test_a_rollback_refunds_its_debit_once(alice: Player) -> None:
    alice.debit("d1", 400)
    first = alice.rollback("r1", "d1", 400)
    assert first.balance == 10_000
    assert alice.rollback("r1", "d1", 400) == first  # a repeat: the first reply
    assert alice.rollback("r2", "d1", 400).balance == 10_000  # another rollback: accepted, no refund
    balance, txs = alice.books()
    assert balance == 10_000
    assert (txs["d1"]["status"], txs["r1"]["moved"], txs["r2"]["moved"]) == ("rolled_back", 400, 0)


def test_a_rollback_before_its_debit_leaves_a_tombstone(alice: Player) -> None:
    assert alice.rollback("r1", "d1", 400).balance == 10_000  # nothing to refund yet
    with refused("transaction_rolled_back"):
        alice.debit("d1", 400)  # the late debit is never taken
    with refused("transaction_rolled_back"):
        alice.debit("d1", 400)
    balance, txs = alice.books()
    assert balance == 10_000
    assert (txs["d1"]["status"], txs["d1"]["moved"], txs["r1"]["moved"]) == ("tombstone", 0, 0)


def test_a_rollback_must_name_a_debit_of_the_same_amount(alice: Player) -> None:
    alice.credit("c1", 100)
    with refused("transaction_mismatch"):
        alice.rollback("r1", "c1", 100)
    alice.debit("d1", 100)
    with refused("transaction_mismatch"):
        alice.rollback("r2", "d1", 99)
    assert alice.books()[0] == 10_000


def test_credits_and_rollbacks_reach_a_player_whose_session_is_gone(
    wallet: WalletServer, alice: Player
) -> None:
    alice.debit("d1", 100)
    alice.debit("d2", 100)
    wallet.set_player(alice.id, 9_800, token=None, blocked=True)  # logged out, token revoked, blocked
    with refused("player_blocked"):
        alice.debit("d3", 100)
    assert alice.credit("c1", 500).balance == 10_300
    assert alice.rollback("r2", "d2", 100).balance == 10_400


def test_concurrent_debits_never_overdraw(wallet: WalletServer, client: SeamlessClient) -> None:
    bob = Player(wallet, client, balance=1_000)
    outcomes: list[str] = []

    def spend(i: int) -> None:
        try:
            bob.debit(f"d{i}", 100)
            outcomes.append("ok")
        except WalletRefused as exc:
            outcomes.append(exc.code)

    threads = [threading.Thread(target=spend, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["insufficient_funds"] * 6 + ["ok"] * 10
    assert bob.books()[0] == 0


def test_concurrent_deliveries_of_one_transaction_move_money_once(alice: Player) -> None:
    body = {**alice.args("d1", 700), "round_id": "1"}
    replies: list[bytes] = []

    def deliver() -> None:
        replies.append(alice.raw("debit", body).content)

    threads = [threading.Thread(target=deliver) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(replies)) == 1 and len(replies) == 8
    assert alice.books()[0] == 9_300


# -- injected faults ------------------------------------------------------------------------


def test_error_500_applies_nothing_and_a_retry_succeeds(wallet: WalletServer, alice: Player) -> None:
    wallet.faults({"op": "credit", "action": "error_500"})
    with pytest.raises(WalletUnavailable) as info:
        alice.credit("c1", 300)
    assert info.value.status == 500
    assert alice.books() == (10_000, {})
    assert alice.credit("c1", 300).balance == 10_300  # the retry, same id


def test_timeout_applies_nothing(wallet: WalletServer, alice: Player) -> None:
    wallet.faults({"op": "debit", "action": "timeout", "delay_s": STALL})
    started = time.monotonic()
    with wallet.client(SHORT) as short, pytest.raises(WalletUnavailable, match="no reply within"):
        alice.debit("d1", 100, client=short)
    assert time.monotonic() - started < STALL
    time.sleep(STALL)  # the stalled request ends, and did nothing
    assert alice.books() == (10_000, {})


def test_drop_reply_moved_the_money_so_the_debit_is_rolled_back(wallet: WalletServer, alice: Player) -> None:
    wallet.faults({"op": "debit", "action": "drop_reply", "delay_s": STALL})
    with wallet.client(SHORT) as short, pytest.raises(WalletUnavailable):
        alice.debit("d1", 100, client=short)
    assert alice.books()[0] == 9_900  # taken, although the client saw a timeout
    assert alice.rollback("r1", "d1", 100).balance == 10_000  # the game server's rule
    assert alice.books()[1]["d1"]["status"] == "rolled_back"


def test_drop_reply_on_a_credit_then_the_retry_gets_the_first_reply(
    wallet: WalletServer, alice: Player
) -> None:
    wallet.faults({"op": "credit", "action": "drop_reply", "delay_s": STALL})
    with wallet.client(SHORT) as short, pytest.raises(WalletUnavailable):
        alice.credit("c1", 800, client=short)
    assert alice.credit("c1", 800).balance == 10_800
    assert alice.books()[0] == 10_800  # paid once


def test_slow_within_the_timeout_is_just_slow(wallet: WalletServer, alice: Player) -> None:
    wallet.faults({"op": "debit", "action": "slow", "delay_s": 0.2})
    started = time.monotonic()
    assert alice.debit("d1", 100).balance == 9_900
    assert time.monotonic() - started >= 0.2


def test_a_debit_still_in_flight_when_its_rollback_lands_is_refused(
    wallet: WalletServer, alice: Player
) -> None:
    wallet.faults({"op": "debit", "action": "slow", "delay_s": STALL})
    with wallet.client(SHORT) as short, pytest.raises(WalletUnavailable):
        alice.debit("d1", 100, client=short)
    assert alice.rollback("r1", "d1", 100).balance == 10_000  # before the debit is processed
    wallet.wait_for(lambda: alice.books()[1]["d1"]["reply"] is not None)  # the debit lands late
    balance, txs = alice.books()
    assert balance == 10_000
    assert txs["d1"]["status"] == "tombstone" and txs["d1"]["reply_status"] == 409
    with refused("transaction_rolled_back"):
        alice.debit("d1", 100)


@pytest.mark.parametrize("op", ["debit", "credit", "rollback"])
def test_a_duplicated_delivery_moves_money_once(wallet: WalletServer, alice: Player, op: str) -> None:
    if op == "rollback":
        alice.debit("d0", 100)
    wallet.faults({"op": op, "action": "duplicate"})
    if op == "debit":
        assert alice.debit("d1", 100).balance == 9_900
    elif op == "credit":
        assert alice.credit("c1", 100).balance == 10_100
    else:
        assert alice.rollback("r1", "d0", 100).balance == 10_000
    assert wallet.fault_state()["fired"] == [[op, "duplicate"]]
    balance, txs = alice.books()
    assert balance == {"debit": 9_900, "credit": 10_100, "rollback": 10_000}[op]
    assert len(txs) == (2 if op == "rollback" else 1)


def test_rules_match_by_operation_and_count(
    wallet: WalletServer, client: SeamlessClient, alice: Player
) -> None:
    wallet.faults(
        {"op": "*", "action": "error_500", "count": 2}, {"op": "authenticate", "action": "error_500"}
    )
    with pytest.raises(WalletUnavailable):
        alice.debit("d1", 100)
    with pytest.raises(WalletUnavailable):
        alice.credit("c1", 100)
    with pytest.raises(WalletUnavailable):
        client.authenticate(f"token-{alice.id}")
    assert alice.debit("d1", 100).balance == 9_900  # the rules are spent
    assert wallet.fault_state() == {
        "rules": [],
        "fired": [["debit", "error_500"], ["credit", "error_500"], ["authenticate", "error_500"]],
    }


def test_bad_fault_rules_are_refused(wallet: WalletServer) -> None:
    for rule in (
        {"op": "debit", "action": "explode"},
        {"op": "spin", "action": "timeout"},
        {"action": "slow", "count": 0},
    ):
        assert wallet.http.post("/_faults", json=[rule]).status_code == 422


# -- the entry point ------------------------------------------------------------------------


def _run_wallet(port: int, db: str, *extra: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "reelforge.seamless.reference_wallet", "--port", str(port)]
    command += ["--secret", "cli-secret", "--db", db, *extra]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _wait_ready(proc: subprocess.Popen[bytes], url: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
        with contextlib.suppress(httpx.HTTPError):
            if LOCAL.get(url + "/health", timeout=1).status_code == 200:
                return
        assert time.monotonic() < deadline, "the wallet did not start"
        time.sleep(0.05)


def test_python_m_entry_point(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from server_process import free_port

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = _run_wallet(
        port, f"sqlite:///{tmp_path / 'cli-wallet.db'}", "--player", "alice:EUR:5000:alice-token"
    )
    try:
        _wait_ready(proc, url)
        with SeamlessClient(url, "cli-secret") as client:
            assert client.authenticate("alice-token").balance == 5_000
            reply = client.debit(
                transaction_id="t1", round_id=1, player_id="alice", amount=1_000, currency="EUR"
            )
            assert reply.balance == 4_000
        assert httpx.get(url + "/_ledger").status_code == 404  # no test endpoints without --faults
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_seeded_players_keep_their_balance_across_restarts(tmp_path) -> None:  # type: ignore[no-untyped-def]
    db = f"sqlite:///{tmp_path / 'wallet.db'}"
    first = create_app(db, SECRET, players=[PlayerSeed(player_id="alice", currency="EUR", balance=5_000)])
    ledger = first.state.ledger
    ledger.debit(
        DebitRequest(transaction_id="t1", round_id="1", player_id="alice", amount=1_000, currency="EUR")
    )
    ledger.engine.dispose()
    again = create_app(db, SECRET, players=[PlayerSeed(player_id="alice", currency="EUR", balance=1)])
    (alice,) = again.state.ledger.snapshot()["players"]
    again.state.ledger.engine.dispose()
    assert alice["balance"] == 4_000


def test_the_cli_command() -> None:
    from reelforge.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["operator-wallet", "--help"])
    assert result.exit_code == 0
    for option in ("--port", "--secret", "--db", "--player", "--faults"):
        assert option in result.output
    bad = runner.invoke(app, ["operator-wallet", "--secret", "s", "--player", "alice:EUR:lots"])
    assert bad.exit_code == 2 and "ID:CURRENCY:BALANCE" in bad.output
