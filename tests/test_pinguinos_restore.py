"""Kill-and-resume for Los 3 Pinguinos: the real ``reelforge serve`` process is SIGKILLed at
every decision point of the lower game, on SQLite and on PostgreSQL, and restarted on the same
database (the harness of test_server_restore.py: kills between requests, in flight early, in
flight about as long as a request takes, and with the reply lost).

One player plays, with scripted draws (pinguinos_helpers.py) so that every kind of step comes
round, at 20c and at €1.  Moments (each killed twice, at least once in flight):

* ``hold_offer``: the start landing on a pair with the hold offered;
* ``hold``: the hold (any mask, the suggested one or not) and the held game it spins;
* ``nudge``: each nudge of a near miss offered three (one to three of them);
* ``done``: the player stopping the nudges early;
* ``play`` / ``collect``: PLAY and COLLECT on Sube-Bonos and Sube-Nada (a failed PLAY turning the
  prize into Bonuses, or into nothing);
* ``seesaw``: PLAY on Sube-Bonos from the 3 Bells: up above it, a fall back one level, the
  failed PLAY at the 3 Bells paying Bonuses;
* ``stop``: the Disco stop (its prize paid, won in Bonuses, or opening Sube-Bonos).

After every restart, besides the harness's checks (the pending round at the same step with the
same events, the balance, a retried Idempotency-Key settling a request once), the stored machine
state (Bonuses, the vertical-lines counter) and ``GET /balance``'s Bonuses are what the last
reply's round left.  At the end every round is finished once, replays from its draws, and the
books and the side ledger balance.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from pinguinos_helpers import (
    BV,
    SCALE,
    SEESAW,
    SP,
    TOP,
    D,
    find,
    game,
    has_pair,
    hold_offer,
    judge,
    line,
    moved,
    penguins,
    step,
    three,
)
from server_process import ServerPool
from test_server_restore import MODES, Reply, Rig, dialect, final_checks

GAME = "los-3-pinguinos"
STAKES = (20, 100)  # coins 1 and 5
MOMENTS = ("hold_offer", "hold", "nudge", "done", "play", "collect", "seesaw", "stop")
QUOTA = dict.fromkeys(MOMENTS, 2)
KILL_P = {
    "hold_offer": 0.5,
    "hold": 0.6,
    "nudge": 0.3,
    "done": 0.6,
    "play": 0.35,
    "collect": 0.5,
    "seesaw": 0.4,
    "stop": 0.6,
}
KILLS_PER_DB = sum(QUOTA.values())
MAX_CYCLES = 14
SEEDS = {"sqlite": 20_250_301, "postgresql": 20_250_302}


@pytest.fixture
def pool(tmp_path):
    pool = ServerPool(tmp_path / "servers")
    yield pool
    pool.close()


# -- lines ---------------------------------------------------------------------------------------


def lost(sym: tuple[str, str, str]) -> bool:
    return judge(sym)[0] == "none" and not has_pair(sym)


def paired(sym: tuple[str, str, str]) -> bool:
    return judge(sym)[0] == "none" and has_pair(sym)


PAIRED = find(paired, near=None)
# A lost near miss whose reel 0 nudged once, twice or three times stays lost (no pair): no draws.
NEAR = find(lost, near=True, also=lambda t: all(lost(line(moved(t, (k, 0, 0)))) for k in (1, 2, 3)))
BLUE, YELLOW, BELLS, DISCO = three("CH"), three("OR"), three("BE"), three(SP)
BONUS_LINE = find(lambda sym: judge(sym)[0] == "bonus")


def held_game(mask: int) -> list[int]:
    """The held game after holding ``mask`` of PAIRED: the free reels land a line without prize."""
    free = [r for r in range(3) if not mask >> r & 1]

    def keeps(t: tuple[int, int, int]) -> bool:
        return all(t[r] == PAIRED[r] for r in range(3) if r not in free)

    new = find(lambda sym: judge(sym)[0] == "none", near=None, held=True, also=keeps)
    return game(new, held=True, spinning=free)


# -- the rig -------------------------------------------------------------------------------------


class PinguinosRig(Rig):
    """The harness's rig, also tracking the machine state each reply leaves."""

    def __init__(self, proc: Any, rng: random.Random) -> None:
        super().__init__(proc, rng, QUOTA, KILL_P)
        self.machine: dict[str, dict[str, Any] | None] = {}  # token -> the last reply's state

    def stored_machine(self, token: str) -> dict[str, Any] | None:
        states = self.get(token, f"/state?game={GAME}")["states"]
        assert len(states) <= 1 and all(s["state_key"] == "machine" for s in states), states
        return states[0]["state"] if states else None

    def snapshot(self, token: str) -> dict[str, Any]:
        snap = super().snapshot(token)
        snap["state"] = self.get(token, f"/state?game={GAME}")["states"]
        snap["side"] = self.get(token, "/balance")["side"]
        return snap

    def check_matches(self, token: str, reply: Reply) -> None:
        super().check_matches(token, reply)
        rnd = reply.body.get("round") if reply.status < 400 else None
        if rnd is not None:
            stored = self.stored_machine(token)
            assert stored == rnd["player_state"], (stored, rnd["player_state"])
            assert self.get(token, "/balance")["side"][GAME]["bonuses"] == stored["bonuses"]

    def op(self, moment: str, token: str, method: str, path: str, body: Any = None, expect=(200, 201)) -> Any:
        out = super().op(moment, token, method, path, body, expect)
        if out.get("round") is not None:
            self.machine[token] = out["round"]["player_state"]
        return out

    # -- play ----------------------------------------------------------------------------

    def open(self, moment: str, token: str, stake: int, script: list[int]) -> dict:
        body = {"game": GAME, "stake": stake, "script": script}
        rnd = self.op(moment, token, "POST", "/rounds", body, expect=(201,))["round"]
        assert rnd["step"] == 1
        return rnd

    def decide(
        self, moment: str, token: str, rnd: dict, name: str, choice: int | None = None, script: Any = None
    ) -> dict:
        before = rnd
        rnd = self.act(moment, token, rnd, name, choice, script)
        assert rnd["step"] == before["step"] + 1
        assert rnd["events"][: len(before["events"])] == before["events"]
        return rnd

    def ladder(self, token: str, rnd: dict, moment: str = "play") -> dict:
        """Decide on a ladder until the round ends: PLAY (up, or now and then failing) or
        COLLECT.  A failed PLAY at or below the 3 Bells pays Bonuses on Sube-Bonos (the
        rounding draw below the remainder wins one more), nothing on Sube-Nada."""
        plays = 0
        while rnd["status"] == "pending":
            assert [a["name"] for a in rnd["actions"]] == ["collect", "play"], rnd["actions"]
            lad = rnd["state"]["ladder"]
            kind, level = lad["kind"], lad["level"]
            if plays >= 3 or self.rng.random() < 0.35:
                rnd = self.decide("collect", token, rnd, "collect")
                assert rnd["status"] == "complete" and rnd["win"] == SCALE[level] * rnd["coin"]
                break
            up = level < TOP - 1 and self.rng.random() < 0.6
            script = [step(kind, level, up)]
            cents = SCALE[level] * rnd["coin"]
            converts = not up and kind == "sube_bonos" and level <= SEESAW
            if converts and cents % BV:
                script.append(self.rng.randrange(BV))
            moment_now = "seesaw" if kind == "sube_bonos" and level >= SEESAW else moment
            rnd = self.decide(moment_now, token, rnd, "play", None, script)
            plays += 1
            last = next(e for e in reversed(rnd["events"]) if e["type"] == "ladder_step")
            if up:
                assert last["result"] == "up" and last["credits"] == SCALE[level + 1]
            elif kind == "sube_nada":
                assert last["result"] == "nothing" and rnd["status"] == "complete" and rnd["win"] == 0
            elif level > SEESAW:
                assert last["result"] == "down" and rnd["state"]["ladder"]["level"] == level - 1
            else:
                whole, rest = divmod(cents, BV)
                won = whole + (1 if rest and script[-1] < rest else 0)
                assert last == {"type": "ladder_step", "result": "bonuses", "bonuses": won,
                                "from_credits": SCALE[level]}  # fmt: skip
                assert rnd["status"] == "complete" and rnd["state"]["bonuses_won"] == won
        return rnd


# -- the scenarios ----------------------------------------------------------------------------------


def play_hold(rig: PinguinosRig, token: str) -> None:
    rnd = rig.open("hold_offer", token, rig.rng.choice(STAKES), [*game(PAIRED), hold_offer(True)])
    assert rnd["status"] == "pending" and rnd["events"][-1]["type"] == "hold_offer"
    mask = rig.rng.choice([rnd["state"]["suggested_hold"], *rnd["actions"][0]["choices"]])
    rnd = rig.decide("hold", token, rnd, "hold", mask, held_game(mask))
    held = [e for e in rnd["events"] if e["type"] == "hold"]
    assert held[0]["mask"] == mask and rnd["status"] == "complete"


def play_nudges(rig: PinguinosRig, token: str) -> None:
    """Three nudges offered: reel 0 nudged once or twice then done, or all three."""
    rnd = rig.open("nudge_offer", token, rig.rng.choice(STAKES), game(NEAR, nudges=3))
    assert rnd["state"]["phase"] == "nudge" and rnd["state"]["nudges_left"] == 3
    nudges = rig.rng.choice((1, 2, 3))
    for k in range(1, nudges + 1):
        rnd = rig.decide("nudge", token, rnd, "nudge", 0)
        assert rnd["state"]["stops"] == list(moved(NEAR, (k, 0, 0)))
    if nudges < 3:
        assert rnd["status"] == "pending" and rnd["state"]["nudges_left"] == 3 - nudges
        rnd = rig.decide("done", token, rnd, "done")
        assert rnd["events"][-3] == {"type": "nudges_done", "left": 3 - nudges}
    assert rnd["status"] == "complete" and [e["type"] for e in rnd["events"]][-2:] == [
        "no_prize",
        "round_end",
    ]


def play_ladder(rig: PinguinosRig, token: str) -> None:
    stops = rig.rng.choice((BLUE, YELLOW))
    rnd = rig.open("ladder", token, rig.rng.choice(STAKES), game(stops))
    assert rnd["state"]["ladder"]["kind"] == ("sube_bonos" if stops == BLUE else "sube_nada")
    rig.ladder(token, rnd)


def play_seesaw(rig: PinguinosRig, token: str) -> None:
    """From the 3 Bells: up above the seesaw first, then the rig's choices (falls, Bonuses)."""
    rnd = rig.open("ladder", token, rig.rng.choice(STAKES), game(BELLS))
    assert rnd["state"]["ladder"] == {"kind": "sube_bonos", "level": SEESAW}
    rnd = rig.decide("seesaw", token, rnd, "play", None, [step("sube_bonos", SEESAW, True)])
    if rig.rng.random() < 0.7:  # fall back to the 3 Bells
        rnd = rig.decide("seesaw", token, rnd, "play", None, [step("sube_bonos", SEESAW + 1, False)])
        assert rnd["state"]["ladder"]["level"] == SEESAW
    rig.ladder(token, rnd, "seesaw")


def play_disco(rig: PinguinosRig, token: str) -> None:
    stake = rig.rng.choice(STAKES)
    table = D.disco_table(stake // D.game.unit)  # the bet's own prizes
    shown = [rig.rng.choice(list(table)) for _ in range(D.disco_game.penguins)]
    rnd = rig.open("disco", token, stake, [*game(DISCO), *penguins(*shown, bet=stake)])
    assert rnd["events"][-1] == {"type": "disco_start", "penguins": shown, "at_bet": True}
    lit = rig.rng.randrange(len(shown))
    rnd = rig.decide("stop", token, rnd, "stop", None, [lit])
    assert {"type": "disco_stop", "penguin": lit, "prize": shown[lit], "at_bet": True} in rnd["events"]
    rig.ladder(token, rnd)


def play_bonus(rig: PinguinosRig, token: str) -> None:
    rnd = rig.open("bonus", token, rig.rng.choice(STAKES), game(BONUS_LINE))
    assert rnd["status"] == "complete" and rnd["state"]["bonuses_won"] > 0


SCENARIOS = (play_hold, play_nudges, play_ladder, play_seesaw, play_disco, play_bonus)


def test_kill_and_resume_at_every_decision_of_the_lower_game(db_url, tmp_path, pool) -> None:
    t0 = time.monotonic()
    proc = pool.new(db_url, "pinguinos").start()
    rig = PinguinosRig(proc, random.Random(SEEDS[dialect(db_url)]))
    token = rig.new_player("pinguinos")
    cycles = 0
    while not rig.done() and cycles < MAX_CYCLES:
        for scenario in SCENARIOS:
            scenario(rig, token)
        cycles += 1
    total = sum(rig.kills.values())
    assert rig.done(), (cycles, total, dict(rig.kills), dict(rig.in_flight_kills), dict(rig.modes))
    assert total >= KILLS_PER_DB and proc.kills == total, (total, proc.kills)
    assert set(rig.kills) == set(MOMENTS) and all(rig.modes[m] >= 2 for m in MODES), rig.modes
    machine = rig.stored_machine(token)
    assert machine == rig.machine[token] and machine is not None
    final_checks(rig, {"pinguinos": token}, db_url, tmp_path)
    # The Bonuses stored are the sum of what every round moved, as history shows them.
    rounds, before = [], ""
    while True:
        page = rig.operator("GET", f"/players/pinguinos/history?limit=100{before}")
        rounds += page["rounds"]
        if page["next_before"] is None:
            break
        before = f"&before={page['next_before']}"
    moved_total = sum(r["side"]["bonuses"]["after"] - r["side"]["bonuses"]["before"] for r in rounds)
    assert machine["bonuses"] == moved_total > 0
    assert rig.get(token, "/balance")["side"] == {GAME: {"bonuses": moved_total}}
    proc.kill()
    run = {
        "cycles": cycles,
        "rounds": len(rounds),
        "kills": total,
        "by_moment": dict(rig.kills),
        "modes": dict(rig.modes),
        "outcomes": dict(rig.outcomes),
        "seconds": round(time.monotonic() - t0, 1),
    }
    print(f"\nLos 3 Pinguinos kill-and-resume on {dialect(db_url)}: {run}")
