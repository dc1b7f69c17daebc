"""The seamless wallet under everything at once, from outside: several players in parallel play
Reign of Gnomes against a real ``reelforge serve`` on PostgreSQL in seamless mode and the
reference operator wallet, while faults are injected at the operator (dropped replies,
timeouts, 5xx, slow and duplicated deliveries, all with a fixed seed) and both sides are
SIGKILLed: the game server twice, the operator's wallet once.  The players are clients as an
operator's integration would write them: a request that got no answer is resent with its
Idempotency-Key; a start refused (503 ``wallet_unavailable``) is a start that did not happen.

Afterwards, for every player: the operator's balance = the game server's = the client's own count
(opening - stakes + wins of the replies it got); every reply's balance was that count when it
came; history and ledger are exact and chained; transaction by transaction both books agree
(``SeamlessRig.agree``) and the audit holds.  The soak's figures are printed (``-s``); the
closing note of issue 20 gives a run's.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from conftest import drop_pg_database, fresh_pg_database
from seamless_rig import SeamlessRig, seamless_env
from server_process import ServerPool, local_client
from wallet_support import WalletServer

# A longer run: REELFORGE_SEAMLESS_SOAK_SECONDS=600 REELFORGE_SEAMLESS_SOAK_PLAYERS=8 pytest -s
# tests/test_seamless_soak.py (docs/wallet.md gives a run's figures).
PLAYERS = int(os.environ.get("REELFORGE_SEAMLESS_SOAK_PLAYERS", "4"))
PLAY_SECONDS = float(os.environ.get("REELFORGE_SEAMLESS_SOAK_SECONDS", "30"))
# A SIGKILL every KILL_EVERY seconds, the game server's and the operator wallet's in turn.
KILL_EVERY = float(os.environ.get("REELFORGE_SEAMLESS_SOAK_KILL_EVERY", str(PLAY_SECONDS / 4)))
OPENING = 1_000_000
STAKES = (40, 80, 120)  # Reign of Gnomes bets of the default table
SEED = 20
# What the operator's side does to requests, one rule set at a time (the wallet timeout is 1 s).
FAULTS: list[dict[str, Any]] = [
    {"op": "credit", "action": "drop_reply", "delay_s": 1.5},
    {"op": "credit", "action": "error_500", "count": 3},
    {"op": "credit", "action": "duplicate", "count": 3},
    {"op": "credit", "action": "slow", "delay_s": 0.5, "count": 2},
    {"op": "debit", "action": "drop_reply", "delay_s": 1.5},
    {"op": "debit", "action": "timeout", "delay_s": 1.5},
    {"op": "debit", "action": "error_500"},
    {"op": "debit", "action": "duplicate", "count": 3},
    {"op": "debit", "action": "slow", "delay_s": 1.3},
    {"op": "rollback", "action": "error_500", "count": 2},
    {"op": "rollback", "action": "drop_reply", "delay_s": 1.5},
]


class Player(threading.Thread):
    """One player's client: plays until told to stop, counting what its replies say."""

    def __init__(self, rig: SeamlessRig, index: int, stop: threading.Event) -> None:
        super().__init__(name=f"player-{index}", daemon=True)
        self.rig, self.stop = rig, stop
        self.random = random.Random(SEED * 100 + index)
        self.player, self.token = rig.launch(OPENING)
        self.tally = OPENING
        self.rounds = 0
        self.resent = 0  # requests resent with their key after no answer (a kill, a reset)
        self.refused = 0  # starts refused 503 wallet_unavailable (nothing happened)
        self.keys = 0
        self.error: BaseException | None = None
        self.http = local_client(timeout=20)

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.play_round()
        except BaseException as exc:  # reported by the test
            self.error = exc
        finally:
            self.http.close()

    def send(self, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
        """POST until answered: resent with the same key while nothing answers (the server
        killed, restarting); None if the start was refused for the wallet (nothing happened)."""
        self.keys += 1
        key = f"{self.player}-{self.keys}"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            headers = {"Authorization": f"Bearer {self.token}", "Idempotency-Key": key}
            try:
                r = self.http.post(self.rig.proc.url + path, json=body, headers=headers)
            except httpx.HTTPError:
                self.resent += 1
                time.sleep(0.2)
                continue
            if r.status_code in (200, 201):
                return r.json()
            code = r.json().get("error", {}).get("code") if r.headers.get("content-type", "").startswith(
                "application/json"
            ) else None
            if r.status_code == 503 and code == "wallet_unavailable":
                self.refused += 1
                return None
            if r.status_code >= 500:
                self.resent += 1
                time.sleep(0.2)
                continue
            raise AssertionError(f"{path}: {r.status_code} {r.text}")
        raise AssertionError(f"{path}: no answer within 90 s")

    def play_round(self) -> None:
        stake = self.random.choice(STAKES)
        reply = self.send("/rounds", {"game": "reign-of-gnomes", "stake": stake})
        if reply is None:
            time.sleep(0.1)
            return
        rnd = reply["round"]
        self.tally -= rnd["stake"]
        while True:
            if rnd["status"] == "complete":
                self.tally += rnd["win"]
            assert reply["balance"] == self.tally, (self.player, rnd["id"], reply["balance"], self.tally)
            if rnd["status"] != "pending":
                self.rounds += 1
                return
            spec = rnd["actions"][0]
            action = {"action": spec["name"], "choice": spec.get("default")}
            reply = self.send(f"/rounds/{rnd['id']}/actions", action)
            assert reply is not None, "an action needs no stake"
            rnd = reply["round"]


@pytest.fixture
def soak(pg_template: str, tmp_path) -> Iterator[tuple[SeamlessRig, WalletServer]]:
    wallet = WalletServer(tmp_path / "operator.db").start()
    pg_name, db_url = fresh_pg_database(pg_template)
    pool = ServerPool(tmp_path)
    proc = pool.new(db_url, "seamless-soak", seamless_env(wallet.url, REELFORGE_THREADS="8")).start()
    rig = SeamlessRig(proc, wallet, db_url, tmp_path)
    yield rig, wallet
    rig.close()
    pool.close()
    wallet.stop()
    drop_pg_database(pg_name)


def test_a_seamless_soak_with_faults_and_kills_of_both_sides_on_postgresql(
    soak: tuple[SeamlessRig, WalletServer],
) -> None:
    rig, wallet = soak
    chaos = random.Random(SEED)
    stop = threading.Event()
    players = [Player(rig, i, stop) for i in range(PLAYERS)]
    for player in players:
        player.start()
    began = time.monotonic()
    faults_set = fired = wallet_kills = 0
    next_kill = KILL_EVERY
    while (elapsed := time.monotonic() - began) < PLAY_SECONDS:
        if any(p.error for p in players):
            break
        if elapsed >= next_kill and PLAY_SECONDS - elapsed > 2:
            next_kill += KILL_EVERY
            if (rig.proc.kills + wallet_kills) % 2 == 0:
                rig.proc.restart()
            else:
                fired += len(wallet.fault_state()["fired"])  # kept in the process: lost with it
                wallet.kill()
                wallet_kills += 1
                time.sleep(1.0)  # the game server's calls fail meanwhile: refused starts, retries
                wallet.start(same_port=True)
        wallet.faults(chaos.choice(FAULTS))
        faults_set += 1
        time.sleep(chaos.uniform(0.3, 1.2))
    stop.set()
    for player in players:
        player.join(timeout=120)
    errors = [p.error for p in players if p.error is not None]
    assert not errors, errors[0]
    wallet.clear_faults()
    backlog = len(rig.undelivered())  # credits and rollbacks still on their way at the end
    drain_began = time.monotonic()
    rig.settle(timeout=120)
    drained = time.monotonic() - drain_began
    fired += len(wallet.fault_state()["fired"])
    for p in players:
        operator, shown = wallet.balance(p.player), rig.balance(p.token)
        assert operator == shown == p.tally, (p.player, operator, shown, p.tally)
        rounds, entries = rig.chains(p.player, OPENING)
        assert len([r for r in rounds if r["status"] == "complete"]) == p.rounds
        assert [e for e in entries if e["kind"] == "operator"] == entries[:1]  # only the opening
        rig.agree(p.player, timeout=60)
    total = sum(p.rounds for p in players)
    print(
        f"\nseamless soak: {PLAYERS} players, {total} rounds in {PLAY_SECONDS:.0f} s on PostgreSQL;"
        f" SIGKILLs: server {rig.proc.kills}, wallet {wallet_kills}; fault rules set {faults_set}"
        f" (fired {fired}); resent {sum(p.resent for p in players)},"
        f" starts refused {sum(p.refused for p in players)}; {backlog} deliveries left at the end, done"
        f" in {drained:.1f} s; balances equal for every player"
    )
    assert rig.proc.kills >= 1 and wallet_kills >= 1 and total >= PLAYERS * 20
