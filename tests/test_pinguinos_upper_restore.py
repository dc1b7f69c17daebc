"""Restoring Los 3 Pinguinos' upper game (seed, section 5), on SQLite and on PostgreSQL.

"Whenever there are actions left to be drawn, upon reconnecting, the player will be able to see
the development of the same game.  In all other cases, the game will be played on the server and
the player will be able to see the result in the game history."

* An upper round left at each decision point (the Roulette's PLAY, the Fishing's PLAY, the
  Slides' pick, a Double-or-Bonuses fraction) is the player's pending round on a server started
  afresh on the same database, in a new session: the same step, events, actions and machine,
  the hidden Slides order still hidden; played on, it ends as the rules deal it.
* Left there, the server finishes it with the default play (sweeper): every step stored, the
  round in history as ``completed_by: server``, its Bonus movements in the side ledger.
* The real ``reelforge serve`` process is SIGKILLed at each of those moments (between requests,
  in flight, and with the reply lost; the harness of test_server_restore.py) and restarted: the
  state is the one the last reply described, a retried Idempotency-Key settles a request once,
  and the Bonuses stay what the side ledger says.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

import pinguinos_upper_helpers as U
from pinguinos_helpers import game as lower_game
from server_process import ServerPool, check_books
from server_support import Api, client_for, make_server
from test_pinguinos_restore import PinguinosRig
from test_pinguinos_upper_server import (
    BONUS_LINE,
    CREDIT,
    DIRECT,
    FISHING,
    GAME,
    ROULETTE,
    SECTIONS,
    SLIDES,
    by_the_rules,
    fund,
    machine,
    script_server,
    start,
    vals,
)
from test_server_restore import MODES, dialect, final_checks

POINTS = ("roulette", "fishing", "slides", "double")


def to_point(point: str) -> tuple[list[int], str | None, int | None]:
    """The start's draws leaving an upper round at 100 at ``point``, and the action (with its
    choice) the player then takes."""
    if point == "double":  # a direct prize: Double-or-Bonuses at once
        return vals(U.spin(DIRECT)), "collect_all", None
    stops = {"roulette": ROULETTE, "fishing": FISHING, "slides": SLIDES}[point]
    draws = vals(U.spin(stops), U.offer(100, True))
    if point == "slides":
        return draws + vals(U.slides([500, 800, 1000, 1500, 3000], [3, 2, 0, 0])), "pick", 2
    return draws, {"roulette": "spin", "fishing": "fish"}[point], None


def then(point: str) -> list[int]:
    """The draws of the player's action at ``point``."""
    return {
        "roulette": vals(U.roulette(SECTIONS.index(1500), SECTIONS.index(800))),
        "fishing": vals(U.fishing([500], [1000, 800], [])),
        "slides": [],
        "double": [],
    }[point]


@pytest.fixture
def pool(tmp_path):
    pool = ServerPool(tmp_path / "servers")
    yield pool
    pool.close()


# -- a new server, a new session: the same round --------------------------------------------------


def test_a_round_at_each_decision_point_resumes_on_a_restarted_server(db_url, tmp_path) -> None:
    first = make_server(db_url, tmp_path / "first")
    api = Api(client_for(first))
    left: dict[str, tuple[str, dict, dict]] = {}
    for point in POINTS:
        token = api.new_player(f"resume-{point}", CREDIT)
        fund(api, token)
        state = machine(api, token)
        draws, _, _ = to_point(point)
        rnd = start(api, token, 100, draws)["round"]
        assert rnd["status"] == "pending" and rnd["state"]["phase"] == point
        left[point] = (token, rnd, state)
    first.engine.dispose()  # the server is gone; processes keep no state of their own

    second = make_server(db_url, tmp_path / "second", seed=None)  # the production RNG: no draw expected
    api = Api(client_for(second))
    for point, (token, rnd, state) in left.items():
        player = f"resume-{point}"
        body = {"keep_other_sessions": True}  # the old session stays open beside the new one
        again = api.operator("POST", f"/players/{player}/sessions", json=body, expect=201)["token"]
        for t in (token, again):  # the old session and a new one see the same round
            assert api.call("GET", "/rounds/pending", token=t, expect=200)["rounds"] == [rnd]
            assert api.call("GET", f"/rounds/{rnd['id']}", token=t, expect=200)["round"] == rnd
            assert machine(api, t) == rnd["player_state"]
        assert "_slides_order" not in str(rnd)
        draws, action, choice = to_point(point)
        body = {"action": action, "choice": choice, "expected_step": 1, "script": then(point)}
        done = api.call("POST", f"/rounds/{rnd['id']}/actions", token=again, json=body, expect=200)["round"]
        while done["status"] == "pending":  # the minigame's prize: collected whole
            body = {"action": "collect_all", "expected_step": done["step"]}
            done = api.call("POST", f"/rounds/{rnd['id']}/actions", token=again, json=body, expect=200)[
                "round"
            ]
        steps = [(None, None, draws), (action, choice, then(point))]
        if done["step"] == 3:
            steps.append(("collect_all", None, []))
        expected = by_the_rules(100, state, steps)
        assert done["events"] == expected.events and done["win"] == expected.win > 0
        assert done["events"][: len(rnd["events"])] == rnd["events"]
        assert api.call("GET", f"/rounds/{rnd['id']}/replay", token=again)["matches_record"] is True
    second.engine.dispose()
    check_books(db_url, tmp_path / "audit", {f"resume-{p}": CREDIT for p in POINTS})


# -- left waiting: the server plays it out ----------------------------------------------------------


def test_a_round_left_at_each_decision_point_is_finished_by_the_server_with_the_default_play(
    db_url, tmp_path
) -> None:
    server = make_server(db_url, tmp_path / "sweep")
    api = Api(client_for(server))
    for point in POINTS:
        token = api.new_player(f"left-{point}", CREDIT)
        b0 = fund(api, token)
        state = machine(api, token)
        draws, action, _ = to_point(point)
        rnd = start(api, token, 100, draws)["round"]
        stream = script_server(server, then(point))  # the default play's draws
        assert server.complete_stale_rounds(older_than=-1) == 1 and not stream.script
        got = api.call("GET", f"/rounds/{rnd['id']}", token=token, expect=200)
        assert got["status"] == "complete" and got["completed_by"] == "server"
        played = [(s["actor"], s["action"]["name"], s["action"].get("choice")) for s in got["steps"]]
        assert played[0] == ("player", "start", None)
        if point != "double":  # the minigame's default, then the prize collected whole
            assert played[1] == ("server", action, 0 if point == "slides" else None)
        assert all(actor == "server" for actor, _, _ in played[1:])
        assert [name for _, name, _ in played[1 if point == "double" else 2 :]] == ["collect_all"]
        steps = [(None, None, draws)] + [(name, ch, then(point) if i == 1 else []) for i, (_, name, ch) in
                                         enumerate(played) if i]  # fmt: skip
        expected = by_the_rules(100, state, steps)
        assert got["round"]["events"] == expected.events and got["win"] == expected.win > 0
        assert got["side"] == {"bonuses": {"before": b0, "after": b0 - 1}}
        line = api.call("GET", "/history?limit=1", token=token, expect=200)["rounds"][0]
        assert (line["id"], line["completed_by"], line["win"]) == (rnd["id"], "server", expected.win)
        assert api.call("GET", "/rounds/pending", token=token, expect=200)["rounds"] == []
        assert api.call("GET", f"/rounds/{rnd['id']}/replay", token=token)["matches_record"] is True
    server.engine.dispose()
    check_books(db_url, tmp_path / "audit", {f"left-{p}": CREDIT for p in POINTS})


# -- the real process, killed ---------------------------------------------------------------------

MOMENTS = ("start", "roulette", "fishing", "slides", "double")
QUOTA = dict.fromkeys(MOMENTS, 2)
KILL_P = {"start": 0.3, "roulette": 0.6, "fishing": 0.6, "slides": 0.6, "double": 0.3}
MAX_CYCLES = 12
SEEDS = {"sqlite": 20_251_201, "postgresql": 20_251_202}
STAKES = (100, 500)
SMALL = [i for i, s in enumerate(SECTIONS) if s <= 3000]  # three at most: never the bet's maximum


class UpperRig(PinguinosRig):
    """The lower game's rig (it tracks the machine each reply leaves), at the upper moments."""

    def __init__(self, proc: Any, rng: random.Random) -> None:
        super().__init__(proc, rng)
        self.quota, self.kill_p = QUOTA, KILL_P

    def open_upper(self, token: str, stake: int, script: list[int]) -> dict:
        body = {"game": GAME, "stake": stake, "mode": "upper", "script": script}
        rnd = self.op("start", token, "POST", "/rounds", body, expect=(201,))["round"]
        assert rnd["step"] == 1 and rnd["events"][0]["type"] == "upper_start"
        return rnd

    def double(self, token: str, rnd: dict) -> dict:
        """Decide each fraction: COLLECT, PLAY (doubled, or its value in Bonuses, rounded by a
        draw when it is not a whole number of Bonuses) or COLLECT ALL."""
        while rnd["status"] == "pending":
            assert [a["name"] for a in rnd["actions"]] == ["collect_all", "collect", "play"], rnd["actions"]
            db = rnd["state"]["double"]
            fraction = min(U.bet(rnd["state"]["bet_value"])["fraction"], db["remaining"])
            choice = self.rng.choice(("collect", "play", "play", "collect_all"))
            script: list[int] = []
            if choice == "play":
                win = self.rng.random() < 0.3
                script = vals([U.double(win)])
                if not win and fraction % U.BV:
                    script.append(self.rng.randrange(U.BV))
            before = rnd["player_state"]["bonuses"]
            rnd = self.decide("double", token, rnd, choice, None, script or None)
            last = rnd["events"][-1] if rnd["status"] == "pending" else rnd["events"][-3]
            if choice == "play" and last["type"] == "double_play" and last["result"] == "bonuses":
                assert rnd["player_state"]["bonuses"] == before + last["bonuses"]
        return rnd


def play_minigame(rig: UpperRig, token: str, kind: str) -> None:
    stake = rig.rng.choice(STAKES)
    stops = {"roulette": ROULETTE, "fishing": FISHING, "slides": SLIDES}[kind]
    script = vals(U.spin(stops), U.offer(stake, True))
    if kind == "slides":
        prizes = [rig.rng.choice([500, 800, 1000, 1500, 2000]) for _ in range(5)]
        script += vals(U.slides(prizes, [rig.rng.randrange(i + 1) for i in range(4, 0, -1)]))
    rnd = rig.open_upper(token, stake, script)
    assert rnd["state"]["phase"] == kind and "_slides_order" not in str(rnd)
    if kind == "roulette":
        sections = [rig.rng.choice(SMALL) for _ in range(rig.rng.randint(1, 3))]
        rnd = rig.decide("roulette", token, rnd, "spin", None, vals(U.roulette(*sections)))
    elif kind == "fishing":
        fish = [[rig.rng.choice([500, 800, 1000]) for _ in range(rig.rng.randint(0, 2))] for _ in range(3)]
        rnd = rig.decide("fishing", token, rnd, "fish", None, vals(U.fishing(*fish)))
    else:
        rnd = rig.decide("slides", token, rnd, "pick", rig.rng.randrange(5), None)
    rig.double(token, rnd)


def play_direct(rig: UpperRig, token: str) -> None:
    rnd = rig.open_upper(token, rig.rng.choice(STAKES), vals(U.spin(DIRECT)))
    assert rnd["state"]["phase"] == "double"
    rig.double(token, rnd)


SCENARIOS = (
    lambda rig, token: play_minigame(rig, token, "roulette"),
    lambda rig, token: play_minigame(rig, token, "fishing"),
    lambda rig, token: play_minigame(rig, token, "slides"),
    play_direct,
)


def test_kill_and_resume_at_every_decision_of_the_upper_game(db_url, tmp_path, pool) -> None:
    t0 = time.monotonic()
    proc = pool.new(db_url, "upper").start()
    rig = UpperRig(proc, random.Random(SEEDS[dialect(db_url)]))
    token = rig.new_player("upper")
    fund_body = {"game": GAME, "stake": 1500, "script": lower_game(BONUS_LINE)}
    for _ in range(2):  # 750 Bonuses: enough for every upper bet played here
        rig.op("fund", token, "POST", "/rounds", fund_body, expect=(201,))
    cycles = 0
    while not rig.done() and cycles < MAX_CYCLES:
        for scenario in SCENARIOS:
            scenario(rig, token)
        cycles += 1
    total = sum(rig.kills.values())
    assert rig.done(), (cycles, total, dict(rig.kills), dict(rig.in_flight_kills), dict(rig.modes))
    assert proc.kills == total and set(rig.kills) == set(MOMENTS)
    stored = rig.stored_machine(token)
    assert stored == rig.machine[token] and stored is not None
    final_checks(rig, {"upper": token}, db_url, tmp_path)
    rounds = rig.operator("GET", "/players/upper/history?limit=100")["rounds"]
    moved = sum(r["side"]["bonuses"]["after"] - r["side"]["bonuses"]["before"] for r in rounds)
    assert stored["bonuses"] == moved and rig.get(token, "/balance")["side"] == {GAME: {"bonuses": moved}}
    assert sum(r["mode"] == "upper" for r in rounds) >= 4 * cycles
    proc.kill()
    run = {
        "cycles": cycles,
        "kills": total,
        "modes": dict(rig.modes),
        "seconds": round(time.monotonic() - t0, 1),
    }
    print(f"\nupper game kill-and-resume on {dialect(db_url)}: {run}")
    assert all(rig.modes[m] >= 1 for m in MODES), rig.modes
