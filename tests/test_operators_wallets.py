"""Two operators on one ``reelforge serve`` process, on different wallets, playing at once, on
SQLite and PostgreSQL.

Operator A keeps its players' money on our ledger (``internal``); operator B is ``seamless``,
its money in its own wallet (the reference operator wallet, a process of its own).  Each has
its own webhook receiver and signing secret; the server's own webhook URL (operator 1's)
has a third.  A player of each plays rounds in a thread of its own, at the same time
(losses, sure wins, free spins finished with the default actions).  Proven:

* every reply's balance is the player's own count (opening, less stakes, plus wins);
* A's money moves only on our ledger: its balance and ledger are exactly its deposit and
  rounds, and nothing of A's is in our seamless books or in B's wallet, which never hears of
  A's player;
* B's money moves only through B's wallet, to the cent and transaction by transaction
  (``SeamlessRig.agree``: the operator moved exactly what our rounds staked and won); a
  launch without ``operator`` finds B, the only seamless operator;
* each operator's webhooks reach its own URL only, signed with its own secret: one event per
  round of its own player, none of the other's, none at the server's URL;
* the server's audit (ledger and seamless checks) holds.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from helpers import stops_without, trigger_script
from seamless_rig import ALL_AS, METER, SeamlessRig, wait_until
from server_process import ServerPool, ServerProcess, local_client
from wallet_support import SECRET as WALLET_SECRET
from wallet_support import WalletServer
from webhook_support import Receiver

GNOMES = "reign-of-gnomes"
ADMIN_KEY = "wallets-admin-key"
OPENING = 50_000
SETS = 3  # each player plays SETS x (a loss, a sure win, free spins)
ENV = {
    "REELFORGE_ADMIN_KEY": ADMIN_KEY,
    "REELFORGE_WEBHOOK_URL": "",  # set per test: the server's own (operator 1's) receiver
    "REELFORGE_WEBHOOK_SECRET": "server-webhook-secret",
    "REELFORGE_WEBHOOK_TIMEOUT_SECONDS": "2",
    "REELFORGE_WALLET_TIMEOUT_SECONDS": "2",
    "REELFORGE_WALLET_ROLLBACK_GRACE_SECONDS": "4",
    "REELFORGE_OUTBOX_POLL_SECONDS": "0.05",
    "REELFORGE_OUTBOX_BASE_DELAY_SECONDS": "0.05",
    "REELFORGE_OUTBOX_MAX_DELAY_SECONDS": "0.4",
    "REELFORGE_OUTBOX_LEASE_SECONDS": "5",
    "REELFORGE_THREADS": "4",
}


@pytest.fixture
def pool(tmp_path) -> Iterator[ServerPool]:
    pool = ServerPool(tmp_path / "servers")
    yield pool
    pool.close()


@pytest.fixture
def wallet_b(tmp_path) -> Iterator[WalletServer]:
    wallet = WalletServer(tmp_path / "wallet-b.db").start()
    yield wallet
    wallet.stop()


@pytest.fixture
def receivers() -> Iterator[dict[str, Receiver]]:
    found = {name: Receiver(secret=f"{name}-webhook-secret").start() for name in ("a", "b", "server")}
    yield found
    for r in found.values():
        r.stop()


class Player:
    """One player's calls on its own HTTP client, every balance checked against its count."""

    def __init__(self, proc: ServerProcess, token: str, opening: int, gnomes_data) -> None:
        self.proc = proc
        self.token = token
        self.tally = opening
        self.rounds: list[int] = []
        self.plain = [
            stops_without(gnomes_data.base_reels.strips[r], {gnomes_data.scatter}) for r in range(5)
        ]
        self.trigger = trigger_script(gnomes_data)
        self.n = 0
        self.error: BaseException | None = None

    def call(self, http: Any, method: str, path: str, body: Any = None, expect: int = 200) -> Any:
        self.n += 1
        headers = {"Authorization": f"Bearer {self.token}", "Idempotency-Key": f"play-{self.n}"}
        r = http.request(method, path, headers=headers, json=body)
        assert r.status_code == expect, (path, r.status_code, r.text)
        return r.json()

    def round(self, http: Any, game: str, stake: int, script: list[int], collect: bool = False) -> None:
        reply = self.call(http, "POST", "/rounds", {"game": game, "stake": stake, "script": script}, 201)
        rnd = reply["round"]
        self.rounds.append(rnd["id"])
        self.tally -= rnd["stake"]
        while True:
            if rnd["status"] == "complete":
                self.tally += rnd["win"]
            assert reply["balance"] == self.tally, (reply["balance"], self.tally, rnd)
            if rnd["status"] != "pending":
                return
            name = "collect" if collect else rnd["actions"][0]["name"]
            choice = None if collect else rnd["actions"][0].get("default")
            reply = self.call(
                http, "POST", f"/rounds/{rnd['id']}/actions", {"action": name, "choice": choice}
            )
            rnd = reply["round"]

    def play(self, ready: threading.Barrier) -> None:
        try:
            with local_client(base_url=self.proc.url, timeout=30) as http:
                ready.wait(timeout=30)
                for _ in range(SETS):
                    self.round(http, GNOMES, 40, self.plain)  # over at once, nothing won
                    self.round(http, METER, 10, ALL_AS, collect=True)  # a sure win, collected
                    self.round(http, GNOMES, 40, self.trigger)  # free spins, the default actions
                assert self.call(http, "GET", "/balance")["balance"] == self.tally
        except BaseException as error:  # surfaced by the main thread
            self.error = error


def test_two_operators_on_different_wallets_play_at_once(
    db_url: str,
    tmp_path,
    pool: ServerPool,
    wallet_b: WalletServer,
    receivers: dict[str, Receiver],
    gnomes_data,
) -> None:
    env = {**ENV, "REELFORGE_WEBHOOK_URL": receivers["server"].url}
    env["REELFORGE_WEBHOOK_SECRET"] = receivers["server"].secret
    proc = pool.new(db_url, env=env).start()
    http = proc.client()
    admin = {"X-Admin-Key": ADMIN_KEY}

    def make(name: str, settings: dict[str, Any]) -> tuple[int, dict[str, str]]:
        r = http.post(
            "/admin/operators",
            headers={**admin, "Idempotency-Key": f"make-{name}"},
            json={"name": name, "settings": settings},
        )
        assert r.status_code == 201, r.text
        return r.json()["operator"]["id"], {"X-Operator-Key": r.json()["key"]}

    a_id, a_key = make(
        "casino-a",
        {
            "wallet_mode": "internal",
            "webhook_url": receivers["a"].url,
            "webhook_secret": receivers["a"].secret,
        },
    )
    b_id, b_key = make(
        "casino-b",
        {"wallet_mode": "seamless", "wallet_url": wallet_b.url, "wallet_secret": WALLET_SECRET,
         "webhook_url": receivers["b"].url, "webhook_secret": receivers["b"].secret},
    )  # fmt: skip
    # A's player: created, credited and given a session by A, on our ledger.
    r = http.post("/operator/players", headers=a_key, json={"external_id": "a-player", "currency": "EUR"})
    assert r.status_code == 201, r.text
    r = http.post(
        "/operator/players/a-player/credit",
        headers={**a_key, "Idempotency-Key": "dep"},
        json={"amount": OPENING},
    )
    assert r.status_code == 200, r.text
    r = http.post("/operator/players/a-player/sessions", headers={**a_key, "Idempotency-Key": "s"}, json={})
    assert r.status_code == 201, r.text
    a_token = r.json()["token"]
    # B's players: B's wallet names them; launched with B named, or with no operator at all
    # (B is the only seamless operator here).
    b_player = wallet_b.player(OPENING)
    launch = {"token": f"token-{b_player}", "operator": b_id}
    r = http.post("/seamless/session", headers={"Idempotency-Key": "launch-1"}, json=launch)
    assert r.status_code == 201, r.text
    assert (r.json()["player"], r.json()["balance"]) == (b_player, OPENING)
    b_token = r.json()["token"]
    b_other = wallet_b.player(1_000)
    r = http.post(
        "/seamless/session", headers={"Idempotency-Key": "launch-2"}, json={"token": f"token-{b_other}"}
    )
    assert r.status_code == 201, r.text

    # Both play at once.
    players = {
        "a": Player(proc, a_token, OPENING, gnomes_data),
        "b": Player(proc, b_token, OPENING, gnomes_data),
    }
    ready = threading.Barrier(2)
    threads = [threading.Thread(target=p.play, args=(ready,), daemon=True) for p in players.values()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    for name, p in players.items():
        assert p.error is None, f"operator {name.upper()}'s player: {p.error!r}"
    a, b = players["a"], players["b"]
    assert len(a.rounds) == len(b.rounds) == 3 * SETS

    rig = SeamlessRig(proc, wallet_b, db_url, tmp_path / "audit")
    try:
        # B's money went through B's wallet, to the cent; the audit (seamless checks too) holds.
        ops = rig.agree(b_player)
        assert wallet_b.balance(b_player) == b.tally
        assert sum(1 for t in ops.values() if t["kind"] == "debit") == len(b.rounds)
        snap = wallet_b.ledger()
        assert {p["player_id"] for p in snap["players"]} == {b_player, b_other}
        assert {t["player_id"] for t in snap["transactions"]} <= {b_player, b_other}
        # A's money only on our ledger: exactly its deposit and its rounds; nothing seamless.
        r = http.get("/operator/players/a-player", headers=a_key)
        assert r.status_code == 200 and r.json()["balance"] == a.tally, r.text
        entries = http.get("/operator/players/a-player/ledger?limit=1000", headers=a_key).json()["entries"]
        assert sum(e["amount"] for e in entries) == a.tally
        assert sorted({e["kind"] for e in entries}) == ["deposit", "stake", "win"]
        assert {e["round_id"] for e in entries if e["round_id"] is not None} == set(a.rounds)
        owners = {
            r.external_id: (r.operator_id, r.id)
            for r in rig.sql("SELECT id, operator_id, external_id FROM players")
        }
        assert owners["a-player"][0] == a_id and owners[b_player][0] == owners[b_other][0] == b_id
        a_pid = owners["a-player"][1]
        assert rig.sql("SELECT * FROM seamless_transactions WHERE player_id = :p", p=a_pid) == []
        assert rig.sql("SELECT * FROM seamless_accounts WHERE player_id = :p", p=a_pid) == []
        # Neither operator sees the other's player.
        assert http.get(f"/operator/players/{b_player}", headers=a_key).status_code == 404
        assert http.get("/operator/players/a-player", headers=b_key).status_code == 404

        # Webhooks: each operator's to its own URL, signed with its own secret, and nothing else.
        expected = {name: {f"round.completed:{rid}" for rid in players[name].rounds} for name in ("a", "b")}
        for name in ("a", "b"):
            assert receivers[name].wait_for(expected[name], timeout=30), (
                name,
                set(receivers[name].processed),
            )
        rig.settle()
        wait_until(lambda: not rig.undelivered(), 15, "every webhook delivered")
        for name, who in (("a", "a-player"), ("b", b_player)):
            got = receivers[name]
            assert set(got.processed) == expected[name], name
            assert all(d.signature_ok for d in got.deliveries), name
            assert {e["data"]["player"] for e in got.processed.values()} == {who}
        assert receivers["server"].deliveries == []
    finally:
        rig.close()
        http.close()
