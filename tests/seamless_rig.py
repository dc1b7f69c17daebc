"""A real ``reelforge serve`` in seamless mode against the reference operator wallet on
loopback, and the check that both sides' books agree to the cent.

:class:`SeamlessRig` drives one server process (it may be SIGKILLed and restarted) for players
the reference wallet knows.  :meth:`SeamlessRig.agree` is the exactly-once check: once every
delivery is done, for the player, the operator's ledger moved exactly what our rounds staked and
won, transaction by transaction, and our displayed balance is the operator's.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text

from reelforge.server.core.config import Settings
from reelforge.server.runtime.service import GameServer
from reelforge.server.storage.db import make_engine
from server_process import OP_HEADERS, OPERATOR_KEY, ServerProcess, local_client
from wallet_support import SECRET, WalletServer

METER = "test-meter"
ALL_AS = [0, 0, 0]  # Test Meter: three apples, a line win with the gamble ladder offered


def seamless_env(wallet_url: str, **overrides: str) -> dict[str, str]:
    """A seamless server with timings short enough for tests (each fault resolves in seconds)."""
    env = {
        "REELFORGE_WALLET_MODE": "seamless",
        "REELFORGE_WALLET_URL": wallet_url,
        "REELFORGE_WALLET_SECRET": SECRET,
        "REELFORGE_WALLET_TIMEOUT_SECONDS": "1",
        "REELFORGE_WALLET_ROLLBACK_GRACE_SECONDS": "3",
        "REELFORGE_OUTBOX_POLL_SECONDS": "0.05",
        "REELFORGE_OUTBOX_BASE_DELAY_SECONDS": "0.05",
        "REELFORGE_OUTBOX_MAX_DELAY_SECONDS": "0.4",
        "REELFORGE_OUTBOX_LEASE_SECONDS": "2",
        "REELFORGE_THREADS": "4",
    }
    env.update(overrides)
    return env


def wait_until(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout} s")
        time.sleep(0.02)


class SeamlessRig:
    def __init__(self, proc: ServerProcess, wallet: WalletServer, db_url: str, data_dir: Path) -> None:
        self.proc = proc
        self.wallet = wallet
        self.db_url = db_url
        self.data_dir = data_dir
        self.engine: Engine = make_engine(db_url)
        self.keys = itertools.count(1)
        self.http = local_client(timeout=30)

    def close(self) -> None:
        self.http.close()
        self.engine.dispose()

    # -- the player's calls ----------------------------------------------------------------

    def call(self, method: str, path: str, token: str | None = None, body: Any = None, **kw: Any) -> Any:
        headers = dict(kw.pop("headers", {}))
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if method == "POST":
            headers.setdefault("Idempotency-Key", f"key-{next(self.keys)}")
        r = self.http.request(method, self.proc.url + path, json=body, headers=headers)
        expect = kw.pop("expect", None)
        if expect is not None:
            assert r.status_code == expect, (path, r.status_code, r.text)
        return r.json()

    def launch(self, balance: int = 10_000, **kw: Any) -> tuple[str, str]:
        """A new operator player and a session opened with its launch token: (id, token)."""
        player_id = self.wallet.player(balance, **kw)
        reply = self.call("POST", "/seamless/session", body={"token": f"token-{player_id}"}, expect=201)
        assert reply["player"] == player_id and reply["balance"] == balance and reply["currency"] == "EUR"
        return player_id, reply["token"]

    def start(self, token: str, game: str = "reign-of-gnomes", stake: int = 40, **kw: Any) -> Any:
        expect = kw.pop("expect", 201)
        return self.call("POST", "/rounds", token, {"game": game, "stake": stake, **kw}, expect=expect)

    def act(self, token: str, round_id: int, action: str, choice: int | None = None) -> Any:
        body = {"action": action, "choice": choice}
        return self.call("POST", f"/rounds/{round_id}/actions", token, body, expect=200)

    def finish(self, token: str, reply: Any) -> Any:
        rnd = reply["round"]
        while rnd["status"] == "pending":
            spec = rnd["actions"][0]
            rnd = self.act(token, rnd["id"], spec["name"], spec.get("default"))["round"]
        return rnd

    def play(self, token: str, tally: int, game: str = "reign-of-gnomes", stake: int = 40) -> int:
        """One round played to its end, every reply's balance checked against the client's own
        count (``tally``: opening - stakes + wins so far); returns the count after it."""
        reply = self.start(token, game, stake)
        rnd = reply["round"]
        tally -= rnd["stake"]
        while True:
            if rnd["status"] == "complete":
                tally += rnd["win"]
            assert reply["balance"] == tally, (reply["balance"], tally, rnd["id"])
            if rnd["status"] != "pending":
                return tally
            spec = rnd["actions"][0]
            reply = self.act(token, rnd["id"], spec["name"], spec.get("default"))
            rnd = reply["round"]

    def win_meter(self, token: str) -> Any:
        """A Test Meter round that wins for sure (three apples, collected)."""
        rnd = self.start(token, METER, 10, script=ALL_AS)["round"]
        assert rnd["status"] == "pending" and rnd["win"] > 0, rnd
        return self.act(token, rnd["id"], "collect")["round"]

    def balance(self, token: str) -> int:
        return int(self.call("GET", "/balance", token)["balance"])

    def operator(self, method: str, path: str, body: Any = None, expect: int = 200) -> Any:
        headers = {**OP_HEADERS, "Idempotency-Key": f"op-{next(self.keys)}"}
        return self.call(method, "/operator" + path, body=body, headers=headers, expect=expect)

    # -- our side's books, read from the database ------------------------------------------

    def sql(self, query: str, **params: Any) -> list[Any]:
        with self.engine.connect() as conn:
            return list(conn.execute(text(query), params))

    def rounds(self, player_id: str) -> list[Any]:
        return self.sql(
            "SELECT r.id, r.status, r.stake, r.win FROM rounds r JOIN players p ON p.id = r.player_id"
            " WHERE p.external_id = :e ORDER BY r.id",
            e=player_id,
        )

    def book(self, player_id: str) -> dict[str, Any]:
        rows = self.sql(
            "SELECT t.* FROM seamless_transactions t JOIN players p ON p.id = t.player_id"
            " WHERE p.external_id = :e",
            e=player_id,
        )
        return {r.transaction_id: r for r in rows}

    def undelivered(self) -> list[Any]:
        return self.sql("SELECT dedup_key, status, attempts FROM outbox WHERE status <> 'done'")

    def settle(self, timeout: float = 15.0) -> None:
        """Wait until every wallet delivery is done (none failed for good)."""
        wait_until(lambda: not self.undelivered(), timeout, f"deliveries done ({self.undelivered()})")

    # -- both sides agree --------------------------------------------------------------------

    def agree(self, player_id: str, timeout: float = 15.0) -> dict[str, Any]:
        """After every delivery: the operator moved, for this player, exactly what our rounds
        staked and won (and refunded), one transaction each, and showed the balance we show.
        Returns the operator's transactions by id."""
        self.settle(timeout)
        balance, txs = self.wallet.books(player_id)
        ops = {t["transaction_id"]: t for t in txs if t["kind"] != "adjustment"}
        opening = sum(t["moved"] for t in txs if t["kind"] == "adjustment")
        ours = self.book(player_id)
        rounds = self.rounds(player_id)
        # To the cent: the operator's net is our rounds' net.
        net = sum(-r.stake + (r.win if r.status == "complete" else 0) for r in rounds if r.status != "voided")
        assert balance == opening + net, (balance, opening, net, rounds)
        assert sum(t["moved"] for t in ops.values()) == net
        # Transaction by transaction: nothing at the operator we did not send, nothing twice.
        assert set(ops) <= set(ours), set(ops) - set(ours)
        by_round = {r.id: r for r in rounds}
        for tid, tx in ours.items():
            op = ops.get(tid)
            if tx.kind == "debit":
                if tx.status == "confirmed":  # its round's stake (given back by a void's refund)
                    rnd = by_round[tx.round_id]
                    refunded = "rolled_back" if rnd.status == "voided" else "applied"
                    assert op["status"] == refunded and op["moved"] == -tx.amount == -rnd.stake, (tid, op)
                elif tx.status == "refused":
                    assert op is not None and op["status"] == "refused", (tid, op)
                else:  # compensated: never taken, or taken and refunded
                    assert tx.status == "rolled_back", (tid, tx.status)
                    assert tx.round_id not in by_round
                    assert op is None or op["status"] in ("tombstone", "rolled_back"), (tid, op)
            elif tx.kind == "rollback":
                assert tx.status in ("cancelled", "confirmed"), (tid, tx.status)
                if tx.status == "cancelled":  # never sent: its round was stored, or its debit refused
                    assert op is None, (tid, op)
                else:
                    assert op is not None and op["status"] == "applied", (tid, op)
            else:  # credit or refund: confirmed, paid once, as the round says
                assert tx.status == "confirmed" and op is not None and op["status"] == "applied", (tid, op)
                rnd = by_round[tx.round_id]
                if tx.kind == "credit":
                    assert rnd.status == "complete" and op["moved"] == tx.amount == rnd.win, (tid, rnd)
                else:
                    assert rnd.status == "voided" and op["moved"] == tx.amount == rnd.stake, (tid, rnd)
        for rnd in rounds:  # every finished round was closed at the operator, exactly once
            credits = [t for t in ours.values() if t.round_id == rnd.id and t.kind == "credit"]
            assert len(credits) == (rnd.status == "complete"), (rnd, credits)
        (shown,) = self.sql("SELECT balance FROM players WHERE external_id = :e", e=player_id)
        assert shown.balance == balance, (shown.balance, balance)
        self.audit()
        return ops

    def chains(self, player_id: str, opening: int) -> tuple[list[Any], list[Any]]:
        """The player's history and ledger, as the operator lists them, checked to be exact
        and chained: every finished round's ``balance_before - stake + win = balance_after``
        and its ``balance_after`` the next round's ``balance_before``; every ledger row's
        ``balance_after`` the one before plus its amount, from the opening balance (booked as
        the ``operator`` row of the launch).  Returns both, oldest first."""
        rounds = self.pages(f"/players/{player_id}/history", "rounds", 100)
        entries = self.pages(f"/players/{player_id}/ledger", "entries", 1000)
        before = opening
        for rnd in rounds:
            assert rnd["balance_before"] == before, ("history chain broken", rnd, before)
            if rnd["status"] == "complete":
                assert rnd["balance_after"] == rnd["balance_before"] - rnd["stake"] + rnd["win"], rnd
            elif rnd["status"] == "voided":
                assert rnd["balance_after"] == rnd["balance_before"], rnd
            else:
                assert rnd is rounds[-1] and rnd["balance_after"] is None, rnd
                break
            before = rnd["balance_after"]
        assert entries and entries[0]["kind"] == "operator" and entries[0]["amount"] == opening, entries[:2]
        running = 0
        for entry in entries:
            running += entry["amount"]
            assert entry["balance_after"] == running, ("ledger chain broken", entry, running)
        return rounds, entries

    def pages(self, path: str, field: str, limit: int) -> list[Any]:
        items: list[Any] = []
        before: int | None = None
        while True:
            query = f"?limit={limit}" + ("" if before is None else f"&before={before}")
            page = self.operator("GET", path + query)
            items.extend(page[field])
            before = page["next_before"]
            if before is None:
                return items[::-1]

    def audit(self) -> dict[str, Any]:
        server = GameServer(
            Settings(db=self.db_url, data_dir=self.data_dir, operator_key=OPERATOR_KEY, test_games=True)
        )
        try:
            audit = server.audit()
        finally:
            server.engine.dispose()
        for check in (
            "balances_match_ledger",
            "rounds_match_ledger",
            "seamless_balances_match",
            "seamless_rounds_match",
        ):
            assert audit[check], (check, audit)
        return audit
