"""Kill-and-resume for Ghost of Gambini: the real ``reelforge serve`` process is SIGKILLed
during bought and triggered Lock & Spin, on SQLite and on PostgreSQL, and restarted on the
same database (the harness of test_server_restore.py: kills between requests, in flight
early, in flight about as long as a request takes, and with the reply lost).

One player plays, with scripted draws (gambini_helpers.py) so that every kind of step
comes round: bought Lock & Spin and Super Lock & Spin at two bet levels; Gambini growing
the left piggy at 40p until it pops into Lock & Spin (3 spins); the ghost growing both
piggies at 80p until both pop into Super Lock & Spin (4 spins).  Feature spins land a
ghost now and then (the counter resets) or none; the last spin's prizes are drawn by the
production RNG.  Moments (each killed in flight at least once):

* ``buy``: the request buying a feature (its start ghosts resolve in it);
* ``grow``: a base spin growing a piggy;
* ``pop``: the base spin popping a piggy and starting the feature;
* ``feature_spin``: a Lock & Spin spin that leaves the round in play;
* ``feature_end``: the spin ending the feature, converting the frames and paying the round.

After every restart, besides the harness's checks (the pending round at the same step with
the same events, the balance, a retried Idempotency-Key settling a request once), the
piggy banks stored for each bet level are the ones the last reply left (a buy leaves them
alone).  At the end every round is finished, replays from its draws, has one stake (the
price, for a buy) and at most one win, and the books balance.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from gambini_helpers import (
    BET,
    GB,
    GG,
    LARGEST,
    LS,
    SLS,
    count,
    ghost,
    ghost_coins,
    jackpot_rewind,
    shot,
    size,
    view_stops,
)
from gambini_helpers import toss as toss_draw
from reelforge.games.ghost_of_gambini.data_model import CENTER, N_POS
from server_process import ServerPool
from test_server_restore import MODES, Reply, Rig, dialect, final_checks

GAME = "ghost-of-gambini"
BUY, SUPER = "buy-lock-spin", "buy-super-lock-spin"
PRICE = {BUY: 100, SUPER: 200}  # times the bet (the data file's buy.*; checked below)
GOLD = 3
MOMENTS = ("buy", "grow", "pop", "feature_spin", "feature_end")
QUOTA = {"buy": 3, "grow": 2, "pop": 3, "feature_spin": 5, "feature_end": 3}
KILL_P = {"buy": 0.6, "grow": 0.15, "pop": 0.7, "feature_spin": 0.3, "feature_end": 0.6}
KILLS_PER_DB = sum(QUOTA.values())
MAX_CYCLES = 12
SEEDS = {"sqlite": 20_250_101, "postgresql": 20_250_102}


@pytest.fixture
def pool(tmp_path):
    pool = ServerPool(tmp_path / "servers")
    yield pool
    pool.close()


# -- scripts ------------------------------------------------------------------------------


def wild_spin(wild: str) -> list[int]:
    """A base spin with ``wild`` in the center on cobwebs, up to its toss (the ghost
    drops one C05 coin on position 0 first)."""
    head = [shot("none"), *view_stops({CENTER: wild}), jackpot_rewind(False)]
    return head if wild == GB else [*head, *ghost_coins(("C05", 0))]


def gambini_toss_left(left: int) -> list[int]:
    """Gambini tosses into the left piggy, which grows (and pops at its largest size)."""
    return [*wild_spin(GB), toss_draw("left"), size(left, grow=True)]


def ghost_toss(piggies: list[int]) -> list[int]:
    """The ghost tosses into both piggies: each grows unless at its largest; both at their
    largest, both grow and pop."""
    both_full = all(p == LARGEST for p in piggies)
    return [*wild_spin(GG), *(size(p, grow=both_full or p < LARGEST) for p in piggies)]


def start_ghosts(f: Any, rng: random.Random) -> list[int]:
    """Start ghosts of any count the table offers, each on a position of its own."""
    n = rng.choice(list(f.start_ghosts))
    script = [count(f.start_ghosts, n)]
    for p in rng.sample(range(N_POS), n):
        script += ghost(f, "gold" if f.gold_only else rng.choice(("white", "gold")), p)
    return script


# -- the rig ------------------------------------------------------------------------------------


class GambiniRig(Rig):
    """The harness's rig, also tracking the piggy banks each reply leaves."""

    def __init__(self, proc: Any, rng: random.Random) -> None:
        super().__init__(proc, rng, QUOTA, KILL_P)
        self.piggies: dict[str, dict[str, list[int]]] = {}  # token -> state key -> sizes

    def stored_piggies(self, token: str) -> dict[str, list[int]]:
        states = self.get(token, f"/state?game={GAME}")["states"]
        return {s["state_key"]: s["state"]["piggies"] for s in states}

    def snapshot(self, token: str) -> dict[str, Any]:
        snap = super().snapshot(token)
        snap["state"] = self.get(token, f"/state?game={GAME}")["states"]
        return snap

    def expected_piggies(self, token: str, body: Any) -> dict[str, list[int]]:
        """The piggies known before, with the ones ``body``'s round left at its bet level."""
        known = dict(self.piggies.get(token, {}))
        rnd = body.get("round") if isinstance(body, dict) else None
        if rnd is not None and rnd["player_state"] is not None:
            known[f"stake:{rnd['state']['bet']}"] = rnd["player_state"]["piggies"]
        return known

    def check_matches(self, token: str, reply: Reply) -> None:
        super().check_matches(token, reply)
        if reply.status < 400:
            assert self.stored_piggies(token) == self.expected_piggies(token, reply.body)

    def op(self, moment: str, token: str, method: str, path: str, body: Any = None, expect=(200, 201)) -> Any:
        out = super().op(moment, token, method, path, body, expect)
        self.piggies[token] = self.expected_piggies(token, out)
        return out

    # -- play ----------------------------------------------------------------------------

    def open(self, moment: str, token: str, stake: int, mode: str, script: list[int]) -> dict:
        body = {"game": GAME, "stake": stake, "mode": mode, "script": script}
        return self.op(moment, token, "POST", "/rounds", body, expect=(201,))["round"]

    def base_spin(self, moment: str, token: str, stake: int, script: list[int]) -> dict:
        return self.open(moment, token, stake, "base", script)

    def play_feature(self, token: str, rnd: dict) -> dict:
        """Spin Lock & Spin to its end: now and then a ghost on an open position (at most
        twice, never on the last spin), otherwise none; the end's prizes are unscripted."""
        resets = 0
        while rnd["status"] == "pending":
            assert [a["name"] for a in rnd["actions"]] == ["spin"], rnd["actions"]
            feat = rnd["state"]["feature"]
            f = SLS if feat["super"] else LS
            if feat["counter"] > 1 and resets < 2 and self.rng.random() < 0.4:
                p = self.rng.choice([q for q in range(N_POS) if feat["board"][q] != GOLD])
                colour = "gold" if f.gold_only else self.rng.choice(("white", "gold"))
                script, moment = [count(f.ghosts_per_spin, 1), *ghost(f, colour, p)], "feature_spin"
                resets += 1
            else:
                script = [count(f.ghosts_per_spin, 0)]
                moment = "feature_end" if feat["counter"] == 1 else "feature_spin"
            before = rnd
            rnd = self.act(moment, token, rnd, "spin", None, script)
            assert rnd["step"] == before["step"] + 1
            assert rnd["events"][: len(before["events"])] == before["events"]
            assert (rnd["status"] == "complete") == (moment == "feature_end"), (moment, rnd["status"])
        assert [e["type"] for e in rnd["events"]][-2:] == ["lock_spin_end", "round_end"]
        return rnd


# -- the scenarios ------------------------------------------------------------------------------


def play_buy(rig: GambiniRig, token: str) -> None:
    mode = rig.rng.choice((BUY, SUPER))
    stake = rig.rng.choice((BET, 2 * BET))
    f = SLS if mode == SUPER else LS
    before = dict(rig.piggies.get(token, {}))
    rnd = rig.open("buy", token, stake, mode, start_ghosts(f, rig.rng))
    assert rnd["status"] == "pending" and rnd["stake"] == PRICE[mode] * stake and rnd["player_state"] is None
    rig.play_feature(token, rnd)
    assert rig.piggies.get(token, {}) == before


def play_gambini_pop(rig: GambiniRig, token: str) -> None:
    """At 40p: Gambini grows the left piggy to its largest, then pops it: Lock & Spin."""
    key = f"stake:{BET}"
    while (left := rig.piggies.get(token, {}).get(key, [0, 0])[0]) < LARGEST:
        rnd = rig.base_spin("grow", token, BET, gambini_toss_left(left))
        assert rnd["status"] == "complete" and rnd["player_state"]["piggies"][0] == left + 1
    right = rig.piggies[token][key][1]
    rnd = rig.base_spin("pop", token, BET, [*gambini_toss_left(LARGEST), *start_ghosts(LS, rig.rng)])
    assert rnd["status"] == "pending" and rnd["player_state"] == {"piggies": [0, right]}
    start = rnd["events"][-1]
    assert start["type"] == "lock_spin_start" and (start["super"], start["spins"]) == (False, 3)
    rig.play_feature(token, rnd)
    assert rig.piggies[token][key] == [0, right]


def play_ghost_pop(rig: GambiniRig, token: str) -> None:
    """At 80p: the ghost grows both piggies to their largest, then pops both: Super Lock &
    Spin with 4 spins."""
    key = f"stake:{2 * BET}"
    while (piggies := rig.piggies.get(token, {}).get(key, [0, 0])) != [LARGEST, LARGEST]:
        rnd = rig.base_spin("grow", token, 2 * BET, ghost_toss(piggies))
        assert rnd["status"] == "complete"
        assert rnd["player_state"]["piggies"] == [min(p + 1, LARGEST) for p in piggies]
    script = [*ghost_toss([LARGEST, LARGEST]), *start_ghosts(SLS, rig.rng)]
    rnd = rig.base_spin("pop", token, 2 * BET, script)
    assert rnd["status"] == "pending" and rnd["player_state"] == {"piggies": [0, 0]}
    start = rnd["events"][-1]
    assert start["type"] == "lock_spin_start" and (start["super"], start["spins"]) == (True, 4)
    rig.play_feature(token, rnd)
    assert rig.piggies[token][key] == [0, 0]


SCENARIOS = (play_buy, play_gambini_pop, play_buy, play_ghost_pop)


def test_kill_and_resume_through_every_step_of_lock_and_spin(db_url, tmp_path, pool) -> None:
    from gambini_helpers import D

    assert {BUY: D.buy.lock_spin, SUPER: D.buy.super_lock_spin} == PRICE
    t0 = time.monotonic()
    proc = pool.new(db_url, "gambini").start()
    rig = GambiniRig(proc, random.Random(SEEDS[dialect(db_url)]))
    token = rig.new_player("gambini")
    cycles = 0
    while not rig.done() and cycles < MAX_CYCLES:
        for scenario in SCENARIOS:
            scenario(rig, token)
        cycles += 1
    total = sum(rig.kills.values())
    assert rig.done(), (cycles, total, dict(rig.kills), dict(rig.in_flight_kills), dict(rig.modes))
    assert total >= KILLS_PER_DB and proc.kills == total, (total, proc.kills)
    assert set(rig.kills) == set(MOMENTS) and all(rig.modes[m] >= 2 for m in MODES), rig.modes
    assert rig.stored_piggies(token) == rig.piggies[token]
    assert set(rig.piggies[token]) == {f"stake:{BET}", f"stake:{2 * BET}"}
    final_checks(rig, {"gambini": token}, db_url, tmp_path)
    modes = [r["mode"] for r in rig.operator("GET", "/players/gambini/history?limit=100")["rounds"]]
    assert {BUY, SUPER, "base"} <= set(modes)
    proc.kill()
    run = {
        "cycles": cycles,
        "kills": total,
        "by_moment": dict(rig.kills),
        "modes": dict(rig.modes),
        "outcomes": dict(rig.outcomes),
        "seconds": round(time.monotonic() - t0, 1),
    }
    print(f"\nGambini kill-and-resume on {dialect(db_url)}: {run}")
