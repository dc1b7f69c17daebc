"""The Wallet interface: rounds, autoplay and voids move cash only through it, a refused
debit starts no round, and the operator's cash moves stay on the server's own ledger."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from helpers import trigger_script
from reelforge.server.runtime.service import GameServer
from reelforge.server.storage import schema as t
from reelforge.server.wallets.wallet import Account, DebitRefused, LedgerWallet, Movement
from server_support import make_server


class SpyWallet(LedgerWallet):
    """The ledger, with every round movement written down (and debits refused on demand)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, dict[str, Any]]] = []
        self.refuse = False

    def debit(
        self, conn: Connection, player: Account, amount: int, *, round_id: int, reference: str
    ) -> Movement:
        self.calls.append(("debit", amount, {"round_id": round_id, "reference": reference}))
        if self.refuse:
            raise DebitRefused("the operator's wallet refused the stake", "wallet_refused", 402)
        return super().debit(conn, player, amount, round_id=round_id, reference=reference)

    def credit(
        self, conn: Connection, player: Account, amount: int, *, round_id: int, reference: str
    ) -> Movement:
        self.calls.append(("credit", amount, {"round_id": round_id, "reference": reference}))
        return super().credit(conn, player, amount, round_id=round_id, reference=reference)

    def refund(
        self, conn: Connection, player: Account, amount: int, *, round_id: int, reference: str, cancels: str
    ) -> Movement:
        self.calls.append(
            ("refund", amount, {"round_id": round_id, "reference": reference, "cancels": cancels})
        )
        return super().refund(conn, player, amount, round_id=round_id, reference=reference, cancels=cancels)


def test_the_wallet_given_is_the_one_rounds_use(db_url, tmp_path) -> None:
    srv = make_server(db_url, tmp_path)
    try:
        wallet = SpyWallet()
        assert GameServer(srv.settings, srv.engine, wallet=wallet).wallet is wallet
        assert isinstance(srv.wallet, LedgerWallet) and srv.wallet is srv.ledger_wallet
    finally:
        srv.engine.dispose()


def test_stakes_wins_and_refunds_go_through_the_wallet(api, server, gnomes_data) -> None:
    spy = SpyWallet()
    server.context.wallet = spy
    token = api.new_player("w1", 10_000)
    assert spy.calls == []  # the operator's deposit is the ledger's own, not a round's
    won = 0
    for _ in range(10):
        reply = api.finish(token, api.start(token))
        won += reply["round"]["win"]
    debits = [c for c in spy.calls if c[0] == "debit"]
    credits = [c for c in spy.calls if c[0] == "credit"]
    assert len(debits) == 10 and all(amount == 40 for _, amount, _ in debits)
    assert sum(amount for _, amount, _ in credits) == won
    for name, _, kw in spy.calls:
        assert kw["reference"] == f"round:{kw['round_id']}:{'stake' if name == 'debit' else 'win'}"
    rnd = api.start(token, script=trigger_script(gnomes_data))["round"]
    api.operator("POST", f"/rounds/{rnd['id']}/void", json={"reason": "test"}, expect=200)
    assert spy.calls[-1] == (
        "refund",
        40,
        {
            "round_id": rnd["id"],
            "reference": f"round:{rnd['id']}:refund",
            "cancels": f"round:{rnd['id']}:stake",
        },
    )
    assert api.balance(token) == 10_000 - 10 * 40 + won
    audit = server.audit()
    assert audit["balances_match_ledger"] and audit["rounds_match_ledger"], audit


def test_a_refused_debit_starts_no_round_and_moves_nothing(api, server) -> None:
    spy = SpyWallet()
    server.context.wallet = spy
    token = api.new_player("w2", 1_000)
    spy.refuse = True
    err = api.start(token, expect=402)
    assert err["error"]["code"] == "wallet_refused"
    assert api.balance(token) == 1_000
    rounds = server.run(lambda conn: conn.execute(t.rounds.select()).all())
    ledger = server.run(lambda conn: conn.execute(t.ledger.select()).all())
    assert rounds == [] and [r.kind for r in ledger] == ["deposit"]
    spy.refuse = False
    api.finish(token, api.start(token))
    assert server.audit()["rounds_match_ledger"]
